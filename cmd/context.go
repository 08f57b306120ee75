package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var contextIn tools.ContextInput

var contextCmd = &cobra.Command{
	Use:   "context NAME",
	Short: "One symbol in depth: callers, callees and other edges by type, its processes and community",
	Long: `context shows a symbol's incoming and outgoing edges grouped by type (CALLS,
HAS_METHOD, IMPORTS, EXTENDS, IMPLEMENTS, DEFINES) with confidence, the
execution flows it is a step of, and whether its callers are complete or a
lower bound (unresolved call sites). NAME may be a qualified name
(Server.HandleOrder) or an id; several matches are listed for you to pick with
--uid, --file or --kind. --json prints what the MCP context tool returns.`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := contextIn
		in.Name = args[0]
		return runTool(c.Context(), in, onDB(tools.Context), printContext)
	},
}

func printContext(out *tools.ContextOutput) error {
	if out.Status == "ambiguous" {
		printCandidates(out.Candidates)
		return nil
	}
	s := out.Symbol
	fmt.Printf("%s %s  %s:%d-%d\n", s.Kind, s.QualifiedName, s.FilePath, s.StartLine, s.EndLine)
	if s.Signature != "" {
		fmt.Printf("  %s\n", s.Signature)
	}
	for _, side := range []struct {
		name   string
		groups []tools.RefGroup
	}{{"incoming", out.Incoming}, {"outgoing", out.Outgoing}} {
		for _, g := range side.groups {
			fmt.Printf("%s %s (%d)\n", side.name, g.Type, g.Total)
			for _, r := range g.Refs {
				fmt.Printf("  %-40s %s:%d  %.2f %s\n", r.Name, r.FilePath, r.StartLine, r.Confidence, r.Reason)
			}
			if g.Truncated {
				fmt.Printf("  ... %d more (--limit)\n", g.Total-len(g.Refs))
			}
		}
	}
	for _, p := range out.Processes {
		fmt.Printf("process %s  step %d/%d  %s\n", p.ID, p.StepIndex, p.StepCount, p.Label)
	}
	for _, cm := range out.Communities {
		fmt.Printf("community %s  %s\n", cm.ID, cm.Label)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := contextCmd.Flags()
	f.StringVar(&contextIn.UID, "uid", "", "exact symbol id (from earlier output)")
	f.StringVar(&contextIn.FilePath, "file", "", "keep symbols in this file (path suffix)")
	f.StringVar(&contextIn.Kind, "kind", "", "keep this table or kind: Function, Method, Class, Interface, struct, ...")
	f.BoolVar(&contextIn.IncludeContent, "content", false, "include the source text")
	f.IntVar(&contextIn.Limit, "limit", 50, "most edges listed per type and direction")
	rootCmd.AddCommand(contextCmd)
}
