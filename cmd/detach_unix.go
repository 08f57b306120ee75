//go:build unix

package cmd

import (
	"os/exec"
	"syscall"
)

// detach makes c a session of its own: no terminal's signal (Ctrl-C
// reaches the foreground process group) ends it with its parent.
func detach(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
