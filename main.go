// Command gitnexus is a code knowledge-graph explorer: see DEVELOPERS.md and
// README.md, or run `gitnexus --help`.
//
// GITNEXUS_CPUPROFILE=FILE writes a CPU profile of the whole run, for
// performance work.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/gitnexus/gitnexus/cmd"
)

func main() {
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
