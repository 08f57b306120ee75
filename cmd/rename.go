package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	renameIn    tools.RenameInput
	renameFlags struct{ apply, force bool }
)

var renameCmd = &cobra.Command{
	Use:   "rename NAME NEW_NAME | --uid ID NEW_NAME",
	Short: "Rename a symbol: the exact edits for its definition and every call the graph knows, and the occurrences it cannot vouch for",
	Long: `rename previews renaming a symbol: an edit (file, line, column, old, new,
confidence) for its definition and for each call site the graph links to
it, and every other occurrence of the name in the indexed files of its
language, listed as unresolved for you to check (a reference the resolver
missed, or another symbol of that name). "complete" says there are none.
--apply writes the edits (each file atomically, after checking it still
reads the old name where expected); it refuses while unresolved
occurrences remain unless --force. The MCP rename tool only previews.
Re-run analyze after applying.`,
	Example: `  gitnexus rename parseConfig loadConfig
  gitnexus rename --uid 'store/store.go#Store.Save:method' Persist --apply`,
	Args: cobra.RangeArgs(1, 2),
	RunE: func(c *cobra.Command, args []string) error {
		in := renameIn
		switch {
		case in.UID != "" && len(args) == 1:
			in.NewName = args[0]
		case in.UID == "" && len(args) == 2:
			in.Name, in.NewName = args[0], args[1]
		default:
			return Usage("rename takes NAME NEW_NAME, or --uid ID NEW_NAME")
		}
		var refused error
		return runToolChecked(c.Context(), in, onIndexRoot(func(ctx context.Context, ix tools.Index, root string, in tools.RenameInput) (*tools.RenameOutput, error) {
			out, err := tools.Rename(ctx, ix, root, in)
			if err != nil || !renameFlags.apply || out.Status != "found" {
				return out, err
			}
			if !out.Complete && !renameFlags.force {
				refused = fmt.Errorf("nothing written: %d occurrences are not linked to this symbol (listed above): check them, then --apply --force to write the %d edits", len(out.Unresolved), len(out.Edits))
				return out, nil
			}
			in.MaxTokens = tools.MaxBudgetTokens // apply every edit, whatever the preview's budget
			full, err := tools.Rename(ctx, ix, root, in)
			if err != nil {
				return nil, err
			}
			written, err := tools.ApplyRename(root, full.Edits)
			if err != nil {
				return nil, err
			}
			out.Notices = append(out.Notices, fmt.Sprintf("applied %d edits in %d files: run `gitnexus analyze` to refresh the index", len(full.Edits), len(written)))
			return out, nil
		}), printRename, func(out *tools.RenameOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("%q", in.Name), len(out.Candidates))
			}
			return refused
		})
	},
}

func printRename(out *tools.RenameOutput) error {
	if out.Status == "ambiguous" {
		printCandidates(out.Candidates)
		return nil
	}
	scr := stdout()
	scr.linef("%s → %s  (%d edits, %d unresolved, complete: %v)", out.Symbol.Name, scr.paint(styleBold, out.NewName), len(out.Edits), len(out.Unresolved), out.Complete)
	for _, e := range out.Edits {
		scr.linef("  %-10s %s:%d:%d  (%.2f)", e.Kind, e.FilePath, e.Line, e.Column, e.Confidence)
	}
	if len(out.Unresolved) > 0 {
		scr.line(scr.paint(styleDim, "unresolved (not edited):"))
		for _, s := range out.Unresolved {
			scr.linef("  %s:%d:%d  %s", s.FilePath, s.Line, s.Column, s.Text)
		}
	}
	printNotices(out.Notices)
	return nil
}

func init() {
	f := renameCmd.Flags()
	budgetFlag(f, &renameIn.Budget)
	f.StringVar(&renameIn.UID, "uid", "", "exact symbol id (as printed by context, query, impact, trace: path#Name:kind)")
	f.StringVar(&renameIn.FilePath, "file", "", "keep symbols in this file or folder (path suffix)")
	f.StringVar(&renameIn.Kind, "kind", "", "keep symbols of this kind or table")
	f.BoolVar(&renameFlags.apply, "apply", false, "write the edits")
	f.BoolVar(&renameFlags.force, "force", false, "with --apply: write the edits even though unresolved occurrences remain")
	rootCmd.AddCommand(renameCmd)
}
