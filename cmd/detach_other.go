//go:build !unix

package cmd

import "os/exec"

// detach leaves c as it is where sessions are a Unix notion.
func detach(c *exec.Cmd) {}
