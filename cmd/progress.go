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
// neither --json nor --quiet is set; otherwise every call is a no-op. Each
// redraw is cut to one column less than the terminal's width (read at
// every redraw, so a resize is followed): a line that wrapped could not be
// redrawn in place by "\r".
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
	cols := 80
	if f, ok := p.w.(*os.File); ok {
		cols = termWidth(f)
	}
	if total <= 0 {
		// A phase with no count says only its name (and its time once it
		// takes any): "discover 0 0s" said nothing.
		line := phase
		if done > 0 {
			line = fmt.Sprintf("%-10s %8d", phase, done)
		}
		if el > 0 {
			line = fmt.Sprintf("%-19s  %s", line, el)
		}
		fmt.Fprintf(p.w, "\r%s\x1b[K", fit(line, cols-1))
		return
	}
	counts := fmt.Sprintf(" %d/%d", done, total)
	if el > 0 {
		counts += "  " + el.String()
	}
	// The bar takes what the phase name and counts leave, 30 at most.
	width := min(30, cols-1-11-2-len(counts))
	line := fmt.Sprintf("%-10s %s", phase, counts)
	if width >= 5 {
		fill := done * width / total
		line = fmt.Sprintf("%-10s [%s%s]%s", phase, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), counts)
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", fit(line, cols-1))
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
