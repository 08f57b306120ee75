package index

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// peakRSS records the process's peak resident memory per phase of a build,
// in MiB: the kernel's high-water mark (VmHWM in /proc/self/status) read at
// the end of each phase, then reset (writing 5 to /proc/self/clear_refs) so
// the next phase starts from the memory it inherits. Where /proc is not
// there (or refuses the reset) the map holds what could be read: a phase
// whose mark cannot be reset reports the peak so far.
type peakRSS map[string]int

// newPeakRSS resets the high-water mark and starts recording.
func newPeakRSS() peakRSS {
	resetHWM()
	return peakRSS{}
}

// mark records phase's peak and resets the mark for the next phase.
func (p peakRSS) mark(phase string) {
	if mib := readHWM(); mib > 0 {
		p[phase] = mib
	}
	resetHWM()
}

func resetHWM() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// readHWM is VmHWM in MiB (0 when it cannot be read).
func readHWM() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest) // "123456 kB"
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.Atoi(string(f[0]))
		if err != nil {
			return 0
		}
		return kb >> 10
	}
	return 0
}
