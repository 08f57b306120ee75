//go:build unix

package discover

import "syscall"

// makeFIFO creates a named pipe; false when the system refuses.
func makeFIFO(p string) bool { return syscall.Mkfifo(p, 0o644) == nil }
