// Command gitnexus is a code knowledge-graph explorer: see DEVELOPERS.md and
// README.md, or run `gitnexus --help`.
//
// Process-wide tuning lives here and nowhere else: graph.TuneMalloc
// bounds glibc's malloc arenas and trim threshold (Kuzu allocates from many
// threads; without it analyze of prometheus peaks about 8% higher).
//
// GITNEXUS_CPUPROFILE=FILE writes a CPU profile of the whole run, for
// performance work.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/gitnexus/gitnexus/cmd"
	"github.com/gitnexus/gitnexus/graph"
)

func main() {
	graph.TuneMalloc()
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
