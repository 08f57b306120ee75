package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var traceIn tools.TraceInput

var traceCmd = &cobra.Command{
	Use:   "trace FROM TO",
	Short: "Shortest call path from one symbol to another",
	Long: `trace finds the shortest directed path from FROM to TO over CALLS and
HAS_METHOD edges and prints each hop with its file:line and confidence.
--json prints what the MCP trace tool returns.`,
	Args: cobra.ExactArgs(2),
	RunE: func(c *cobra.Command, args []string) error {
		in := traceIn
		in.From, in.To = args[0], args[1]
		return runTool(c.Context(), in, onDB(tools.Trace), printTrace)
	},
}

func printTrace(out *tools.TraceOutput) error {
	switch out.Status {
	case "ambiguous":
		fmt.Printf("%s is ambiguous. ", out.Ambiguous)
		printCandidates(out.Candidates)
	case "no_path":
		fmt.Printf("no path from %s to %s\n", out.From.Name, out.To.Name)
	default:
		for i, h := range out.Path {
			if i == 0 {
				fmt.Printf("  %s  %s:%d\n", h.Name, h.FilePath, h.StartLine)
				continue
			}
			fmt.Printf("  -%s(%.2f, line %d)-> %s  %s:%d\n", h.Edge, h.Confidence, h.Line, h.Name, h.FilePath, h.StartLine)
		}
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := traceCmd.Flags()
	f.IntVar(&traceIn.MaxDepth, "max-depth", 10, "longest path searched, in hops (max 30)")
	f.StringVar(&traceIn.FromUID, "from-uid", "", "exact id of FROM")
	f.StringVar(&traceIn.ToUID, "to-uid", "", "exact id of TO")
	f.StringVar(&traceIn.FromFile, "from-file", "", "file of FROM (path suffix)")
	f.StringVar(&traceIn.ToFile, "to-file", "", "file of TO (path suffix)")
	rootCmd.AddCommand(traceCmd)
}
