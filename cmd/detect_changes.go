package cmd

import (
	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var changesIn tools.DetectChangesInput

var detectChangesCmd = &cobra.Command{
	Use:   "detect-changes",
	Short: "Map the git diff to changed symbols and the execution flows they are in",
	Long: `detect-changes runs git diff (--scope unstaged, staged, all, or compare with
--base REF; --base alone implies compare), turns the hunks into changed line ranges, and lists the indexed
symbols they overlap and the processes those symbols are steps of.
--json prints what the MCP detect_changes tool returns.`,
	Example: `  gitnexus detect-changes
  gitnexus detect-changes --scope staged
  gitnexus detect-changes --base main`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		in := changesIn
		// --base alone means --scope compare; with another scope it is an
		// error (it was once silently ignored).
		if in.BaseRef != "" {
			switch {
			case !c.Flags().Changed("scope"):
				in.Scope = "compare"
			case in.Scope != "compare":
				return Usage("--base is only for --scope compare (got --scope %s)", in.Scope)
			}
		}
		if err := checkEnum("--scope", in.Scope, "unstaged", "staged", "all", "compare"); err != nil {
			return err
		}
		if in.Scope == "compare" && in.BaseRef == "" {
			return Usage("--scope compare needs --base REF (a branch or commit, e.g. main)")
		}
		return runTool(c.Context(), in, onIndexRoot(tools.DetectChanges), printChanges)
	},
}

func printChanges(out *tools.DetectChangesOutput) error {
	scr := stdout()
	scr.linef("%d files, %d symbols, %d processes changed (risk %s)", out.Summary.Files, out.Summary.Symbols, out.Summary.Processes, out.Risk)
	for _, s := range out.Symbols {
		scr.linef("  %-10s %s %s  (%d lines)", s.Kind, pad(s.QualifiedName, 32), loc(s.FilePath, s.StartLine), s.ChangedLines)
	}
	for _, p := range out.Processes {
		scr.linef("  process %s  %s", scr.paint(styleCyan, p.ID), p.Label)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := detectChangesCmd.Flags()
	budgetFlag(f, &changesIn.Budget)
	f.StringVar(&changesIn.Scope, "scope", "unstaged", "unstaged, staged, all (against HEAD) or compare (against --base)")
	f.StringVar(&changesIn.BaseRef, "base", "", "branch or commit to compare against (implies --scope compare)")
	rootCmd.AddCommand(detectChangesCmd)
}
