package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var changesIn tools.DetectChangesInput

var detectChangesCmd = &cobra.Command{
	Use:   "detect-changes",
	Short: "Map the git diff to changed symbols and the execution flows they are in",
	Long: `detect-changes runs git diff (--scope unstaged, staged, all, or compare with
--base REF), turns the hunks into changed line ranges, and lists the indexed
symbols they overlap and the processes those symbols are steps of.
--json prints what the MCP detect_changes tool returns.`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		return runTool(c.Context(), changesIn, func(ctx context.Context, r toolRepo, in tools.DetectChangesInput) (*tools.DetectChangesOutput, error) {
			return tools.DetectChanges(ctx, r.DB, r.Entry.Path, in)
		}, printChanges)
	},
}

func printChanges(out *tools.DetectChangesOutput) error {
	fmt.Printf("%d files, %d symbols, %d processes changed (risk %s)\n", out.Summary.Files, out.Summary.Symbols, out.Summary.Processes, out.Risk)
	for _, s := range out.Symbols {
		fmt.Printf("  %-10s %-40s %s:%d  (%d lines)\n", s.Kind, s.QualifiedName, s.FilePath, s.StartLine, s.ChangedLines)
	}
	for _, p := range out.Processes {
		fmt.Printf("  process %s  %s\n", p.ID, p.Label)
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := detectChangesCmd.Flags()
	f.StringVar(&changesIn.Scope, "scope", "unstaged", "unstaged, staged, all (against HEAD) or compare (against --base)")
	f.StringVar(&changesIn.BaseRef, "base", "", "branch or commit for --scope compare")
	rootCmd.AddCommand(detectChangesCmd)
}
