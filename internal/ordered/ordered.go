// Package ordered runs work on several goroutines and hands the results
// back in order: the one pipeline behind ingest's parse and resolve's call
// sites, whose output must not depend on the workers' timing.
package ordered

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls work(i) for every i in [0, n) on workers goroutines, and
// apply(i, result) for each i in increasing order on the calling
// goroutine. Each goroutine gets its own work function (and a stop, nil
// or called when it is done) from worker, so that scratch state is never
// shared; the context worker gets ends when Run stops. worker and work
// run beside apply: they must not read what apply writes. Work runs at most window indexes ahead of the one apply is
// waiting for: the results in between are what waits in memory. Indexes
// are taken one at a time, so one slow item holds one goroutine while the
// others go on.
//
// The first error of apply, or ctx's end, stops it: no more work starts,
// apply is not called again, and Run returns that error once every
// goroutine has finished.
func Run[T any](ctx context.Context, n, workers, window int, worker func(ctx context.Context) (work func(i int) T, stop func()), apply func(i int, r T) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	workers = max(1, min(workers, n))
	window = max(window, workers+1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i int
		r T
	}
	results := make(chan result, workers)
	tokens := make(chan struct{}, window) // one per index taken and not yet applied
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work, stop := worker(ctx)
			if stop != nil {
				defer stop()
			}
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				r := work(i)
				select {
				case results <- result{i, r}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]T{}
	applied := 0
	var err error
	for res := range results {
		if err != nil {
			continue // drain: the goroutines are stopping
		}
		pending[res.i] = res.r
		for {
			r, ok := pending[applied]
			if !ok {
				break
			}
			if err = ctx.Err(); err != nil {
				break
			}
			delete(pending, applied)
			if err = apply(applied, r); err != nil {
				cancel()
				break
			}
			applied++
			<-tokens
		}
	}
	if err == nil && applied < n { // the context ended with nothing left to apply
		err = ctx.Err()
	}
	return err
}
