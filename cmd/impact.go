package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	impactIn    tools.ImpactInput
	impactKinds []string
)

// impactRelations are the relationship types --relations accepts.
var impactRelations = []string{"CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "HAS_METHOD", "DEFINES"}

// maxImpactDepth is the deepest impact walks (the tool clamps to it).
const maxImpactDepth = 32

var impactCmd = &cobra.Command{
	Use:   "impact TARGET | --uid ID",
	Short: "Blast radius of changing a symbol or file: affected symbols by depth, processes, risk",
	Long: `impact walks the graph from TARGET (a symbol name, qualified name, id, or file
path): upstream (default) lists what depends on it, downstream what it depends
on, level by level, with the processes and communities touched, a risk level,
and whether the answer is exact or a lower bound (unresolved call sites).
When several symbols match TARGET they are listed (exit 3): pick one with
--uid, or narrow with --file or --kind.
--json prints what the MCP impact tool returns.`,
	Example: `  gitnexus impact Store.SaveOrder
  gitnexus impact store/store.go --direction downstream --depth 2
  gitnexus impact --uid 'store/store.go#Open:function' --relations CALLS`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := impactIn
		target, err := nameOrUID(args, in.TargetUID, "--uid")
		if err != nil {
			return err
		}
		in.Target = target
		if err := checkEnum("--direction", in.Direction, "upstream", "downstream"); err != nil {
			return err
		}
		in.Direction = strings.ToLower(in.Direction)
		for _, r := range in.RelationTypes {
			if err := checkEnum("--relations", strings.TrimSpace(r), impactRelations...); err != nil {
				return err
			}
		}
		if err := checkRange("--depth", in.MaxDepth, 1, maxImpactDepth); err != nil {
			return err
		}
		if err := checkRange("--limit", in.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		if in.MinConfidence < 0 || in.MinConfidence > 1 {
			return Usage("--min-confidence must be 0..1 (got %v)", in.MinConfidence)
		}
		if in.Kind, err = checkKinds(impactKinds); err != nil {
			return err
		}
		return runToolChecked(c.Context(), in, onIndex(tools.Impact), printImpact, func(out *tools.ImpactOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("%q", in.Target), len(out.Candidates))
			}
			return nil
		})
	},
}

func printImpact(out *tools.ImpactOutput) error {
	if out.Status == "ambiguous" {
		printCandidatesFor("TARGET", out.Candidates, "--uid", "--file / --kind")
		return nil
	}
	scr := stdout()
	exact := "exact"
	if !out.Exact {
		exact = "lower bound"
	}
	risk := out.Risk
	switch risk {
	case "HIGH", "CRITICAL":
		risk = scr.paint(styleRed, risk)
	case "MEDIUM":
		risk = scr.paint(styleYel, risk)
	default:
		risk = scr.paint(styleGreen, risk)
	}
	scr.linef("%s %s  %s  risk %s", out.Direction, scr.paint(styleBold, out.Target.Name), loc(out.Target.FilePath, out.Target.StartLine), risk)
	scr.linef("  %d direct, %d total, %d processes (%s)", out.Summary.Direct, out.Summary.Total, out.Summary.Processes, exact)
	var names []string
	for _, l := range out.ByDepth {
		for _, a := range l.Symbols {
			names = append(names, a.Name)
		}
	}
	nw := nameWidth(names...)
	for _, l := range out.ByDepth {
		scr.line(scr.paint(styleBold, fmt.Sprintf("depth %d (%d)", l.Depth, l.Count)))
		for _, a := range l.Symbols {
			scr.linef("  %s %s  %s %.2f", pad(a.Name, nw), loc(a.FilePath, a.StartLine), a.Via, a.Confidence)
		}
	}
	for _, p := range out.Processes {
		scr.linef("process %s  %s  (%d hits)", scr.paint(styleCyan, p.ID), p.Label, p.Hits)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := impactCmd.Flags()
	budgetFlag(f, &impactIn.Budget)
	f.StringVar(&impactIn.Direction, "direction", "upstream", "upstream (what depends on it) or downstream (what it depends on)")
	f.IntVar(&impactIn.MaxDepth, "depth", 3, fmt.Sprintf("most relationship hops walked (1..%d)", maxImpactDepth))
	f.StringSliceVar(&impactIn.RelationTypes, "relations", nil, "relationship types to follow, comma-separated: "+strings.Join(impactRelations, ",")+" (default CALLS,IMPORTS,EXTENDS,IMPLEMENTS)")
	f.Float64Var(&impactIn.MinConfidence, "min-confidence", 0, "ignore edges below this confidence (0..1)")
	f.BoolVar(&impactIn.IncludeTests, "include-tests", false, "include symbols in test files")
	f.IntVarP(&impactIn.Limit, "limit", "n", 100, fmt.Sprintf("most symbols listed per depth (1..%d)", tools.MaxRows))
	f.StringVar(&impactIn.TargetUID, "uid", "", "exact symbol id (as printed by context, query, impact, trace: path#Name:kind)")
	f.StringVar(&impactIn.FilePath, "file", "", "keep symbols in this file or folder (path suffix)")
	f.StringSliceVar(&impactKinds, "kind", nil, "keep these kinds or tables, comma-separated: function,method,class,...")
	rootCmd.AddCommand(impactCmd)
}
