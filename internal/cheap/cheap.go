// Package cheap owns the process's C heap: glibc's malloc, which Kuzu and
// tree-sitter allocate from (from several threads). Tune sets it for a
// program that builds indexes, Bulk loosens it for a phase that allocates
// and frees large blocks over and over, and Trim gives its free memory
// back to the operating system.
//
// Tune changes the whole process, so no library package calls it: a
// program that builds indexes (gitnexus's main) calls it once at start,
// before any Kuzu or tree-sitter work; a library importer that does not
// want its allocator changed does not, and Bulk then changes nothing.
package cheap

/*
#include <malloc.h>
#include <stdlib.h>
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// glibc's thresholds: the free memory at the top of an arena above which
// glibc gives it back to the operating system (trim), and the smallest
// block that gets a mapping of its own (mmap). glibc's trim threshold
// starts at 128 KiB and grows with the largest block freed, up to 32 MiB,
// so that after Kuzu's COPYs a process kept tens of MiB it no longer used;
// Tune fixes it at trimThreshold, which also fixes the mmap threshold at
// its initial mmapThreshold. Bulk raises both.
const (
	trimThreshold     = 64 << 10
	mmapThreshold     = 128 << 10
	bulkTrimThreshold = 64 << 20
	bulkMmapThreshold = 32 << 20
)

// tuned says Tune was called: only then does Bulk change the heap.
var tuned atomic.Bool

// Tune sets glibc's malloc for this process: at most one arena per core
// (at least 2) and a fixed 64 KiB trim threshold.
//
// Why: glibc gives each thread that meets a locked arena a new one, up to
// 8 per core, and memory freed in one arena serves only that arena: after
// the parse and the COPYs the free memory is spread over many arenas and
// the process keeps it. The two settings lower analyze's peak resident
// memory on prometheus by about a sixth (bench/results/analyze-*.md) at
// no measured cost in time.
func Tune() {
	arenas := max(2, runtime.NumCPU())
	C.mallopt(C.M_ARENA_MAX, C.int(arenas))
	C.mallopt(C.M_TRIM_THRESHOLD, trimThreshold)
	tuned.Store(true)
}

// Bulk loosens Tune's heap for a phase that allocates and frees large C
// blocks over and over (a Kuzu load: its COPYs' and statements' buffers),
// until the returned restore is called: blocks up to 32 MiB come from the
// arenas instead of a mapping each, and up to 64 MiB of free memory stays
// at the top of an arena instead of going back to the system, both to be
// faulted in again, a page at a time, by the next statement. restore sets Tune's thresholds again and trims the arenas. On a
// process that did not call Tune it does nothing.
func Bulk() (restore func()) {
	if !tuned.Load() {
		return func() {}
	}
	C.mallopt(C.M_MMAP_THRESHOLD, bulkMmapThreshold)
	C.mallopt(C.M_TRIM_THRESHOLD, bulkTrimThreshold)
	return func() {
		C.mallopt(C.M_MMAP_THRESHOLD, mmapThreshold)
		C.mallopt(C.M_TRIM_THRESHOLD, trimThreshold)
		Trim()
	}
}

// Trim returns the C heap's free memory to the operating system: glibc
// keeps what threads free in their arenas until asked.
func Trim() { C.malloc_trim(0) }

// mapped is how many blocks glibc serves with a mapping of their own
// (mallinfo2's hblks); cmalloc and cfree allocate and free a C block. For
// the tests, which cannot use cgo themselves.
func mapped() int                  { return int(C.mallinfo2().hblks) }
func cmalloc(n int) unsafe.Pointer { return C.malloc(C.size_t(n)) }
func cfree(p unsafe.Pointer)       { C.free(p) }
