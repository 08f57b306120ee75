package index

import (
	"os"
	"testing"
)

// The mark of a stage that grows the heap is at least what it grew to.
func TestPeakRSSMarksEachStage(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc: peak memory is not recorded on this system")
	}
	p := newPeakRSS()
	p.mark("before")
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	p.mark("grow")
	m := p.close()
	if m["before"] <= 0 || m["grow"] <= 0 {
		t.Fatalf("marks not recorded: %v", m)
	}
	if m["grow"] < 64 {
		t.Errorf("the stage that touched 64 MiB peaked at %d MiB", m["grow"])
	}
	_ = buf[len(buf)-1]
}
