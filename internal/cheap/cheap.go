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
	// besideTrimThreshold is BulkBeside's: what the arenas keep free at
	// their top beside other work.
	besideTrimThreshold = 8 << 20
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
// faulted in again, a page at a time, by the next statement. restore sets
// Tune's thresholds again and trims the arenas. On a process that did not
// call Tune it does nothing.
func Bulk() (restore func()) { return bulk(bulkTrimThreshold) }

// BulkBeside is Bulk for a phase that shares the process with other work
// whose memory it adds to (a Kuzu load beside the search pack): blocks up
// to 32 MiB still come from the arenas, but an arena keeps at most 8 MiB
// free at its top. Most of what Bulk saves is the blocks' mappings. On
// this 2-core VM (session 30, cold analyzes, whose loads share the
// process with the pack, 3 alternated runs each): prometheus 5.04, 4.81,
// 4.82 s with Tune's thresholds, 3.43, 3.87, 3.67 s with these and 3.75,
// 3.56, 3.78 s with Bulk's, peak RSS 164-170, 191-194 and 177-198 MiB,
// page faults 130k, 76k and 70-75k; kubernetes 12.47, 11.30, 11.00 s with
// Tune's and 11.12, 10.85, 10.06 s with these, peaks 388-400 and 389-411
// MiB, where Bulk's peaked at 406-441 MiB (issue 16 allows 450).
func BulkBeside() (restore func()) { return bulk(besideTrimThreshold) }

// bulk sets the thresholds of Bulk and BulkBeside, trim being the trim
// threshold.
func bulk(trim int) (restore func()) {
	if !tuned.Load() {
		return func() {}
	}
	C.mallopt(C.M_MMAP_THRESHOLD, bulkMmapThreshold)
	C.mallopt(C.M_TRIM_THRESHOLD, C.int(trim))
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
// (mallinfo2's hblks), freeInArenas the free bytes its arenas keep
// (fordblks); cmalloc and cfree allocate and free a C block. For
// the tests, which cannot use cgo themselves.
func mapped() int                  { return int(C.mallinfo2().hblks) }
func freeInArenas() int            { return int(C.mallinfo2().fordblks) }
func cmalloc(n int) unsafe.Pointer { return C.malloc(C.size_t(n)) }
func cfree(p unsafe.Pointer)       { C.free(p) }
