// Command gitnexus is a code knowledge-graph explorer: see DEVELOPERS.md and
// README.md, or run `gitnexus --help`.
//
// Process-wide tuning lives here and nowhere else: cheap.Tune bounds
// glibc's malloc arenas and trim threshold (Kuzu allocates from many
// threads; without it analyze of prometheus peaks about 8% higher), and a
// one-shot command (cmd.OneShot: query, context, impact, ...) runs without
// the garbage collector, which would only scan a heap that stays live to the
// answer, with a 1 GiB soft memory limit as the safety net that brings the
// collector back should one ever grow. Every other command (analyze above
// all) runs with a 3 GiB soft memory limit unless GOMEMLIMIT says
// otherwise: the collector's default lets the heap grow to twice what is
// live, and on the Linux kernel ingest holds about 2.5 GiB live at its
// peak, so analyze reached 6 GiB; under the limit the collector runs more
// often near the top instead (a heap that outgrows the limit still grows:
// the limit is soft). Below the limit they collect when the heap has grown
// by half (GOGC=50) instead of doubled: kubernetes' analyze peaked at
// 486-504 MiB with the default and 407-452 MiB with this, for the same
// CPU time (user 35.6-44.3 s against 39.6-43.9 s, three runs each
// alternating). The MCP server (cmd.Server) collects when its heap has
// grown by a quarter (GOGC=25): its heap is mostly the indexes it keeps
// open. An analyze that updates a small index in place collects at 100
// while it builds (index.updateGCPercent): its peak is far below the cold
// run's. GOGC, when set, wins.
//
// GITNEXUS_CPUPROFILE=FILE writes a CPU profile of the whole run, for
// performance work; GITNEXUS_HEAPPROFILE=PREFIX (analyze) the live heap
// at the end of resolution (PREFIX.resolve, ingest's peak) and of ingest
// (PREFIX.ingest).
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/gitnexus/gitnexus/cmd"
	"github.com/gitnexus/gitnexus/internal/cheap"
)

func main() {
	cheap.Tune()
	cmd.Exe, _ = os.Executable() // "": analyze removes a replaced database itself
	if cmd.OneShot(os.Args[1:]) {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(1 << 30)
	} else {
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(3 << 30)
		}
		if os.Getenv("GOGC") == "" {
			if cmd.Server(os.Args[1:]) {
				debug.SetGCPercent(25)
			} else {
				debug.SetGCPercent(50)
			}
		}
	}
	if p := os.Getenv("GITNEXUS_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gitnexus: GITNEXUS_CPUPROFILE:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "gitnexus: GITNEXUS_CPUPROFILE:", err)
			os.Exit(1)
		}
		code := cmd.Execute()
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(cmd.Execute())
}
