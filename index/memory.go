package index

import (
	"sync"
	"time"

	"github.com/gitnexus/gitnexus/graph"
)

// peakRSS records the process's peak resident memory per stage of a build,
// in MiB, by sampling it every 20 ms (graph.ResidentBytes) from a
// goroutine: mark(stage) stores the largest sample since the previous
// mark. A sampler, not the kernel's high-water mark (VmHWM): resetting that
// one (/proc/self/clear_refs) would also reset the figure `time -v` and
// getrusage report for the whole process. A spike shorter than the period
// can be missed. Without /proc nothing is recorded.
type peakRSS struct {
	mu    sync.Mutex
	max   int64
	marks map[string]int
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

const peakPeriod = 20 * time.Millisecond

// newPeakRSS starts sampling; close stops it.
func newPeakRSS() *peakRSS {
	p := &peakRSS{marks: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	p.sample()
	go func() {
		defer close(p.done)
		t := time.NewTicker(peakPeriod)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.sample()
			}
		}
	}()
	return p
}

func (p *peakRSS) sample() {
	b := graph.ResidentBytes()
	p.mu.Lock()
	if b > p.max {
		p.max = b
	}
	p.mu.Unlock()
}

// mark records stage's peak (the largest sample since the previous mark,
// and the memory now) and starts the next stage from the memory now.
func (p *peakRSS) mark(stage string) {
	p.sample()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.max > 0 {
		p.marks[stage] = int(p.max >> 20)
	}
	p.max = 0
	if b := graph.ResidentBytes(); b > 0 {
		p.max = b
	}
}

// close stops the sampler and returns the marks. Safe to call twice.
func (p *peakRSS) close() map[string]int {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.marks
}
