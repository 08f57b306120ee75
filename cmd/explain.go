package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	explainIn    tools.ExplainInput
	explainKinds []string
)

var explainCmd = &cobra.Command{
	Use:   "explain NAME | --uid ID",
	Short: "One symbol's role in a few lines: its cluster, the flows it is part of and as what, its callers and callees",
	Long: `explain says what part a symbol plays: the community (cluster) it belongs
to, the execution flows it takes part in (as their entry, a step or their
last step), its most confident callers and callees with the call-site
lines, their counts, and one summary sentence. It is context reduced to
a role; context lists every edge, impact the transitive callers. When
several symbols match NAME they are listed (exit 3): pick one with --uid,
or narrow with --file or --kind. --json prints what the MCP explain tool
returns.`,
	Example: `  gitnexus explain Engine.ServeHTTP
  gitnexus explain --uid 'gin.go#Engine.ServeHTTP:method' --json`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := explainIn
		name, err := nameOrUID(args, in.UID, "--uid")
		if err != nil {
			return err
		}
		in.Name = name
		if in.Kind, err = checkKinds(explainKinds); err != nil {
			return err
		}
		return runToolChecked(c.Context(), in, onIndex(tools.Explain), printExplain, func(out *tools.ExplainOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("%q", in.Name), len(out.Candidates))
			}
			return nil
		})
	},
}

func printExplain(out *tools.ExplainOutput) error {
	if out.Status == "ambiguous" {
		printCandidates(out.Candidates)
		return nil
	}
	scr := stdout()
	s := out.Symbol
	scr.linef("%s %s  %s", s.Kind, scr.paint(styleBold, s.QualifiedName), loc(s.FilePath, s.StartLine))
	scr.message(out.Summary)
	if len(out.Processes) > 0 {
		scr.line(scr.paint(styleDim, fmt.Sprintf("flows (%d)", out.FlowCount)))
		for _, p := range out.Processes {
			scr.linef("  %-8s step %d/%d  %s  %s", p.Role, p.StepIndex, p.StepCount, p.Label, scr.paint(styleCyan, p.ID))
		}
	}
	for _, l := range []struct {
		title string
		n     int
		refs  []tools.ExplainRef
	}{{"callers", out.CallerCount, out.Callers}, {"callees", out.CalleeCount, out.Callees}} {
		if l.n == 0 {
			continue
		}
		scr.line(scr.paint(styleDim, fmt.Sprintf("%s (%d)", l.title, l.n)))
		for _, r := range l.refs {
			scr.linef("  %-32s %s", r.Name, loc(r.FilePath, r.Line))
		}
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := explainCmd.Flags()
	budgetFlag(f, &explainIn.Budget)
	f.StringVar(&explainIn.UID, "uid", "", "exact symbol id (as printed by context, query, impact, trace: path#Name:kind)")
	f.StringVar(&explainIn.FilePath, "file", "", "keep symbols in this file or folder (path suffix)")
	f.StringSliceVar(&explainKinds, "kind", nil, "keep these kinds or tables, comma-separated: function,method,class,struct,...")
	rootCmd.AddCommand(explainCmd)
}
