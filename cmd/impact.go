package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var impactIn tools.ImpactInput

var impactCmd = &cobra.Command{
	Use:   "impact TARGET",
	Short: "Blast radius of changing a symbol or file: affected symbols by depth, processes, risk",
	Long: `impact walks the graph from TARGET (a symbol name, qualified name, id, or file
path): upstream (default) lists what depends on it, downstream what it depends
on, level by level, with the processes and communities touched, a risk level,
and whether the answer is exact or a lower bound (unresolved call sites).
--json prints what the MCP impact tool returns.`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := impactIn
		in.Target = args[0]
		return runTool(c.Context(), in, onDB(tools.Impact), printImpact)
	},
}

func printImpact(out *tools.ImpactOutput) error {
	if out.Status == "ambiguous" {
		printCandidates(out.Candidates)
		return nil
	}
	exact := "exact"
	if !out.Exact {
		exact = "lower bound"
	}
	fmt.Printf("%s %s  %s  risk %s  (%d direct, %d total, %d processes; %s)\n", out.Direction, out.Target.Name, out.Target.FilePath,
		out.Risk, out.Summary.Direct, out.Summary.Total, out.Summary.Processes, exact)
	for _, l := range out.ByDepth {
		fmt.Printf("depth %d (%d)\n", l.Depth, l.Count)
		for _, a := range l.Symbols {
			fmt.Printf("  %-40s %s:%d  %s %.2f\n", a.Name, a.FilePath, a.StartLine, a.Via, a.Confidence)
		}
	}
	for _, p := range out.Processes {
		fmt.Printf("process %s  %s  (%d hits)\n", p.ID, p.Label, p.Hits)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := impactCmd.Flags()
	f.StringVar(&impactIn.Direction, "direction", "upstream", "upstream (what depends on it) or downstream (what it depends on)")
	f.IntVar(&impactIn.MaxDepth, "depth", 3, "max relationship depth (1..32)")
	f.StringSliceVar(&impactIn.RelationTypes, "relations", nil, "relationship types to follow (default CALLS,IMPORTS,EXTENDS,IMPLEMENTS)")
	f.Float64Var(&impactIn.MinConfidence, "min-confidence", 0, "ignore edges below this confidence (0..1)")
	f.BoolVar(&impactIn.IncludeTests, "include-tests", false, "include symbols in test files")
	f.IntVar(&impactIn.Limit, "limit", 100, "most symbols listed per depth")
	f.StringVar(&impactIn.TargetUID, "uid", "", "exact symbol id")
	f.StringVar(&impactIn.FilePath, "file", "", "keep symbols in this file (path suffix)")
	f.StringVar(&impactIn.Kind, "kind", "", "keep this table or kind")
	rootCmd.AddCommand(impactCmd)
}
