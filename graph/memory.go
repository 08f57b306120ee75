package graph

// This file owns the resident-memory figure debug logs carry (RSS); the
// C heap is internal/cheap's.

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

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
