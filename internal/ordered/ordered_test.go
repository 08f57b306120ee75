package ordered

import (
	"context"
	"errors"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrder: every index is worked once and applied in order, whatever the
// workers' timing, with each goroutine's own state, for any number of
// workers and windows, including more workers than items.
func TestOrder(t *testing.T) {
	for _, c := range []struct{ n, workers, window int }{{0, 2, 4}, {1, 3, 1}, {10, 1, 1}, {100, 3, 2}, {1000, 4, 16}, {5, 8, 64}} {
		var started, stopped atomic.Int64
		var got []int
		err := Run(context.Background(), c.n, c.workers, c.window, func(context.Context) (func(int) int, func()) {
			started.Add(1)
			rng := rand.New(rand.NewSource(started.Load())) // per goroutine
			return func(i int) int {
				if rng.Intn(10) == 0 {
					time.Sleep(time.Duration(rng.Intn(200)) * time.Microsecond)
				}
				return i * i
			}, func() { stopped.Add(1) }
		}, func(i, r int) error {
			if r != i*i {
				t.Errorf("n %d: item %d got %d", c.n, i, r)
			}
			got = append(got, i)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.n {
			t.Fatalf("%+v: applied %d items", c, len(got))
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("%+v: applied %d at position %d", c, v, i)
			}
		}
		if started.Load() != stopped.Load() {
			t.Errorf("%+v: %d workers started, %d stopped", c, started.Load(), stopped.Load())
		}
	}
}

// TestStop: an apply error, or the context's end, stops the run with that
// error; nothing is applied after it, and the window bounds the work done.
func TestStop(t *testing.T) {
	boom := errors.New("boom")
	var worked atomic.Int64
	applied := 0
	err := Run(context.Background(), 10000, 3, 8, func(context.Context) (func(int) int, func()) {
		return func(i int) int { worked.Add(1); return i }, nil
	}, func(i, _ int) error {
		if i == 50 {
			return boom
		}
		applied++
		return nil
	})
	if !errors.Is(err, boom) || applied != 50 {
		t.Fatalf("err %v, applied %d; want boom after 50", err, applied)
	}
	if w := worked.Load(); w > 50+8+3 {
		t.Errorf("%d items worked after a stop at 50 with a window of 8", w)
	}

	ctx, cancel := context.WithCancel(context.Background())
	last := -1
	err = Run(ctx, 10000, 2, 8, func(context.Context) (func(int) int, func()) {
		return func(i int) int { return i }, nil
	}, func(i, _ int) error {
		last = i
		if i == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || last != 10 {
		t.Fatalf("a run cancelled in item 10 returned %v, last applied %d", err, last)
	}
}
