package graph

// This file owns the process's C heap (TuneMalloc, releaseCMemory) and
// the resident-memory figure debug logs carry (RSS).

/*
#include <malloc.h>
*/
import "C"

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// trimThreshold is the free memory at the top of a C heap above which glibc
// gives it back to the operating system (its default starts at 128 KiB and
// grows with the largest block freed, up to 32 MiB, so that after Kuzu's
// COPYs a process keeps tens of MiB it no longer uses).
const trimThreshold = 64 << 10

// TuneMalloc sets glibc's malloc for this process: at most one arena per
// core (at least 2) and a fixed 64 KiB trim threshold. It changes the whole
// process, so the package never calls it itself: a program that builds
// indexes (gitnexus's main) calls it once at start, before any Kuzu or
// tree-sitter work; a library importer that does not want its allocator
// changed simply does not.
//
// Why: Kuzu and tree-sitter allocate with libc malloc from many threads.
// glibc gives each thread that meets a locked arena a new one, up to 8 per
// core, and memory freed in one arena serves only that arena: after the
// parse and the COPYs the free memory is spread over many arenas and the
// process keeps it. The two settings lower analyze's peak resident memory
// on prometheus by about a sixth (bench/results/analyze-*.md) at no
// measured cost in time.
func TuneMalloc() {
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

// RSS is a log attribute value that reads RSSMiB only when a record is
// written: debug logs on the load path pass it instead of calling RSSMiB,
// so nothing reads /proc when debug logging is off.
var RSS slog.LogValuer = rssValue{}

type rssValue struct{}

func (rssValue) LogValue() slog.Value { return slog.StringValue(RSSMiB()) }

// RSSMiB is this process's resident memory in MiB, for debug logs (""
// where /proc is not available).
func RSSMiB() string {
	b := residentBytes()
	if b < 0 {
		return ""
	}
	return strconv.FormatInt(b>>20, 10)
}

// watchMemory samples the process's resident memory every 10 ms while ctx
// lives and calls stop once it has grown by more than limit bytes since the
// call; the returned func reports whether that happened. Kuzu materializes
// a statement's whole result before the first row is read and takes that
// memory outside its buffer pool, so without this a statement such as
// UNWIND range(1, 100000000) grows the process until the kernel kills it
// (measured: 23.9 GB); with it the statement is interrupted (run repeats
// Kuzu's interrupt until it returns) and fails alone. When the statement
// has not returned (done) a second after that, hard is called (if set).
func watchMemory(ctx context.Context, done <-chan struct{}, limit int64, stop, hard func()) func() bool {
	base := residentBytes()
	var tripped atomic.Bool
	if base < 0 {
		return tripped.Load // no /proc: nothing to watch
	}
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if rss := residentBytes(); rss >= 0 && rss-base > limit {
					tripped.Store(true)
					stop()
					if hard != nil {
						select {
						case <-done:
						case <-time.After(time.Second):
							hard()
						}
					}
					return
				}
			}
		}
	}()
	return tripped.Load
}

// ResidentBytes is the process's resident set size from /proc/self/statm
// (-1 when it cannot be read).
func ResidentBytes() int64 { return residentBytes() }

// residentBytes is the process's resident set size from /proc/self/statm
// (-1 when it cannot be read).
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}
