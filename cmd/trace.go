package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var traceIn tools.TraceInput

// maxTraceDepth is the longest path trace searches (the tool's bound).
const maxTraceDepth = 30

var traceCmd = &cobra.Command{
	Use:   "trace FROM TO  (or --from-uid ID / --to-uid ID in place of FROM / TO)",
	Short: "Shortest call path from one symbol to another",
	Long: `trace finds the shortest directed path from FROM to TO over CALLS and
HAS_METHOD edges and prints each hop with its file:line, the line of the
call and its confidence. No path within --depth hops exits 3; when FROM or TO
matches several symbols they are listed (exit 3): pick with --from-uid or
--to-uid, or narrow with --from-file or --to-file.
--json prints what the MCP trace tool returns.`,
	Example: `  gitnexus trace main Store.SaveOrder
  gitnexus trace main audit --depth 5
  gitnexus trace main open --to-file store/`,
	Args: cobra.MaximumNArgs(2),
	RunE: func(c *cobra.Command, args []string) error {
		in := traceIn
		// FROM and TO are positional unless given by id.
		want := 2
		if in.FromUID != "" {
			want--
		}
		if in.ToUID != "" {
			want--
		}
		if len(args) != want {
			return Usage("trace takes FROM and TO, each as an argument or with --from-uid / --to-uid (got %d argument%s for %d)%s", len(args), plural(len(args)), want, exampleHint(c))
		}
		if in.FromUID == "" {
			in.From, args = args[0], args[1:]
		}
		if in.ToUID == "" {
			in.To = args[0]
		}
		if err := checkRange("--depth", in.MaxDepth, 1, maxTraceDepth); err != nil {
			return err
		}
		return runToolChecked(c.Context(), in, onIndex(tools.Trace), printTrace, func(out *tools.TraceOutput) error {
			switch out.Status {
			case "ambiguous":
				what := in.From + in.FromUID
				if out.Ambiguous == "to" {
					what = in.To + in.ToUID
				}
				return ambiguousErr(fmt.Sprintf("%s %q", out.Ambiguous, what), len(out.Candidates))
			case "no_path":
				return fmt.Errorf("no call path from %s to %s within %d hops", out.From.Name, out.To.Name, in.MaxDepth)
			}
			return nil
		})
	},
}

func printTrace(out *tools.TraceOutput) error {
	scr := stdout()
	switch out.Status {
	case "ambiguous":
		flag, what, narrow := "--from-uid", "FROM", "--from-file"
		if out.Ambiguous == "to" {
			flag, what, narrow = "--to-uid", "TO", "--to-file"
		}
		printCandidatesFor(what, out.Candidates, flag, narrow)
		return nil
	case "no_path":
		scr.linef("no path from %s to %s", out.From.Name, out.To.Name)
	default:
		for i, h := range out.Path {
			if i == 0 {
				scr.linef("  %s  %s", scr.paint(styleBold, h.Name), loc(h.FilePath, h.StartLine))
				continue
			}
			site := "" // the call's line; none for HAS_METHOD
			if h.Line > 0 {
				site = fmt.Sprintf(", line %d", h.Line)
			}
			scr.linef("  -%s(%.2f%s)-> %s  %s", h.Edge, h.Confidence, site, scr.paint(styleBold, h.Name), loc(h.FilePath, h.StartLine))
		}
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := traceCmd.Flags()
	budgetFlag(f, &traceIn.Budget)
	f.IntVar(&traceIn.MaxDepth, "depth", 10, fmt.Sprintf("longest path searched, in hops (1..%d)", maxTraceDepth))
	f.IntVar(&traceIn.MaxDepth, "max-depth", 10, "old name of --depth")
	_ = f.MarkDeprecated("max-depth", "use --depth")
	f.StringVar(&traceIn.FromUID, "from-uid", "", "exact id of FROM (path#Name:kind)")
	f.StringVar(&traceIn.ToUID, "to-uid", "", "exact id of TO (path#Name:kind)")
	f.StringVar(&traceIn.FromFile, "from-file", "", "file or folder of FROM (path suffix)")
	f.StringVar(&traceIn.ToFile, "to-file", "", "file or folder of TO (path suffix)")
	rootCmd.AddCommand(traceCmd)
}
