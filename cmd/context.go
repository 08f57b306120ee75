package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	contextIn    tools.ContextInput
	contextKinds []string
)

var contextCmd = &cobra.Command{
	Use:   "context NAME | --uid ID",
	Short: "One symbol in depth: callers, callees and other edges by type, its processes and community",
	Long: `context shows a symbol's incoming and outgoing edges grouped by type (CALLS,
HAS_METHOD, IMPORTS, EXTENDS, IMPLEMENTS, DEFINES) with confidence, the
execution flows it is a step of, and whether its callers are complete or a
lower bound (unresolved call sites). NAME may be a name, a qualified name
(Server.HandleOrder) or an id; when several symbols match, they are listed
(exit 3) for you to pick one with --uid, or narrow with --file or --kind.
--json prints what the MCP context tool returns.`,
	Example: `  gitnexus context Server.HandleOrder
  gitnexus context --uid 'server/server.go#Server.HandleOrder:method'
  gitnexus context open --kind function,method --file store/`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := contextIn
		name, err := nameOrUID(args, in.UID, "--uid")
		if err != nil {
			return err
		}
		in.Name = name
		if in.Kind, err = checkKinds(contextKinds); err != nil {
			return err
		}
		if err := checkRange("--limit", in.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		return runToolChecked(c.Context(), in, onIndex(tools.Context), printContext, func(out *tools.ContextOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("%q", in.Name), len(out.Candidates))
			}
			return nil
		})
	},
}

func printContext(out *tools.ContextOutput) error {
	if out.Status == "ambiguous" {
		printCandidates(out.Candidates)
		return nil
	}
	scr := stdout()
	s := out.Symbol
	scr.linef("%s %s  %s", s.Kind, scr.paint(styleBold, s.QualifiedName), loc(s.FilePath, s.StartLine)+lineEnd(s.EndLine))
	scr.linef("  id %s", scr.paint(styleCyan, s.ID))
	if s.Signature != "" {
		scr.linef("  %s", firstLine(s.Signature))
	}
	if s.Content != "" {
		for _, l := range splitLines(s.Content) {
			scr.linef("  │ %s", l)
		}
	}
	for _, side := range []struct {
		name   string
		groups []tools.RefGroup
	}{{"incoming", out.Incoming}, {"outgoing", out.Outgoing}} {
		for _, g := range side.groups {
			var names []string
			for _, r := range g.Refs {
				names = append(names, r.Name)
			}
			nw := nameWidth(names...)
			scr.line(scr.paint(styleBold, fmt.Sprintf("%s %s (%d)", side.name, g.Type, g.Total)))
			for _, r := range g.Refs {
				scr.linef("  %s %s  %.2f %s", pad(r.Name, nw), loc(r.FilePath, refLine(side.name, r)), r.Confidence, r.Reason)
			}
			if g.Truncated {
				scr.linef("  … %d more (raise --limit)", g.Total-len(g.Refs))
			}
		}
	}
	for _, p := range out.Processes {
		scr.linef("process %s  step %d/%d  %s", scr.paint(styleCyan, p.ID), p.StepIndex, p.StepCount, p.Label)
	}
	for _, cm := range out.Communities {
		scr.linef("community %s  %s", scr.paint(styleCyan, cm.ID), cm.Label)
	}
	printNotices(out.Notices)
	return nil
}

// refLine is the line an edge is shown at in the other end's file: for an
// incoming edge its call or import site when known (that file holds it),
// else where the other symbol starts (0 for a file: no line).
func refLine(side string, r tools.Ref) int {
	if side == "incoming" && r.Line > 0 {
		return r.Line
	}
	return r.StartLine
}

// lineEnd is "-N" for an end line, or "".
func lineEnd(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("-%d", n)
}

func init() {
	f := contextCmd.Flags()
	budgetFlag(f, &contextIn.Budget)
	f.StringVar(&contextIn.UID, "uid", "", "exact symbol id (as printed by context, query, impact, trace: path#Name:kind)")
	f.StringVar(&contextIn.FilePath, "file", "", "keep symbols in this file or folder (path suffix)")
	f.StringSliceVar(&contextKinds, "kind", nil, "keep these kinds or tables, comma-separated: function,method,class,struct,...")
	f.BoolVar(&contextIn.IncludeContent, "content", false, "include the source text")
	f.IntVarP(&contextIn.Limit, "limit", "n", 50, fmt.Sprintf("most edges listed per type and direction (1..%d)", tools.MaxRows))
	rootCmd.AddCommand(contextCmd)
}
