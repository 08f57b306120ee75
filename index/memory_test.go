package index

import (
	"os"
	"testing"
)

// The mark of a phase that grows the heap is at least what it grew to.
func TestPeakRSSMarksEachPhase(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: peak memory is not recorded on this system")
	}
	p := newPeakRSS()
	p.mark("before")
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	p.mark("grow")
	if p["before"] <= 0 || p["grow"] <= 0 {
		t.Fatalf("marks not recorded: %v", p)
	}
	if p["grow"] < 64 {
		t.Errorf("the phase that touched 64 MiB peaked at %d MiB", p["grow"])
	}
	_ = buf[len(buf)-1]
}
