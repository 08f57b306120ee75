package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress draws one line per phase on stderr: a bar when the total is
// known, a counter otherwise. It draws only when stderr is a terminal and
// neither --json nor --quiet is set; otherwise every call is a no-op.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	phase   string
	started time.Time
	last    time.Time
}

func newProgress() *progress {
	return &progress{w: os.Stderr, on: !flagJSON && !flagQuiet && isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Update reports that phase has done of total units (total 0: unknown).
func (p *progress) Update(phase string, done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if phase != p.phase {
		if p.phase != "" {
			fmt.Fprintln(p.w)
		}
		p.phase, p.started = phase, now
	} else if now.Sub(p.last) < 80*time.Millisecond && done != total {
		return
	}
	p.last = now
	el := now.Sub(p.started).Round(100 * time.Millisecond)
	if total <= 0 {
		fmt.Fprintf(p.w, "\r%-10s %8d  %s\x1b[K", phase, done, el)
		return
	}
	const width = 30
	fill := done * width / total
	fmt.Fprintf(p.w, "\r%-10s [%s%s] %d/%d  %s\x1b[K", phase,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, el)
}

// Done ends the current line.
func (p *progress) Done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase != "" {
		fmt.Fprintln(p.w)
		p.phase = ""
	}
}
