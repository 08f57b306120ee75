package graph

/*
#include <malloc.h>
*/
import "C"

import "runtime"

// trimThreshold is the free memory at the top of a C heap above which glibc
// gives it back to the operating system (its default starts at 128 KiB and
// grows with the largest block freed, up to 32 MiB, so that after Kuzu's
// COPYs a process keeps tens of MiB it no longer uses).
const trimThreshold = 64 << 10

func init() {
	// Kuzu and tree-sitter allocate with libc malloc from many threads.
	// glibc gives each thread that meets a locked arena a new one, up to 8
	// per core, and memory freed in one arena serves only that arena: after
	// the parse and the COPYs the free memory is spread over many arenas and
	// the process keeps it. One arena per core (at least 2) and a fixed trim
	// threshold lower analyze's peak resident memory on prometheus by about
	// a sixth (bench/results/analyze-*.md) at no measured cost in time.
	arenas := runtime.NumCPU()
	if arenas < 2 {
		arenas = 2
	}
	C.mallopt(C.M_ARENA_MAX, C.int(arenas))
	C.mallopt(C.M_TRIM_THRESHOLD, trimThreshold)
}

// releaseCMemory returns the C heap's free memory to the operating system:
// Kuzu allocates with libc malloc from several threads, and glibc keeps what
// they free in per-thread arenas until asked.
func releaseCMemory() { C.malloc_trim(0) }
