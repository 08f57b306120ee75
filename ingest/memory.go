package ingest

import (
	"runtime/debug"

	"github.com/gitnexus/gitnexus/internal/cheap"
)

// ReleaseMemory hands memory the parse phase no longer needs back to the
// operating system before the next phase (the database load) grows: the Go
// heap's free spans, and glibc's free arenas (tree-sitter allocates with
// libc malloc, from several threads, and glibc keeps what they freed).
// Callers drop their references to the Index first.
func ReleaseMemory() {
	debug.FreeOSMemory()
	cheap.Trim()
}
