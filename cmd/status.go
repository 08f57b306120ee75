package cmd

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/tools"
)

var statusCmd = &cobra.Command{
	Use:   "status [PATH]",
	Short: "Show what the index of a repository holds and whether it is up to date",
	Long: `status shows what the index of a repository holds, whether it is up to
date, and whether it is intact: every file of the index is read and compared
with the checksums its analyze recorded. A damaged index is reported
("integrity DAMAGED"), and status then exits 3 as with no index at all
(with --json it prints only the error object, as every command does):
run ` + "`gitnexus analyze`" + ` to rebuild it.`,
	Example: `  gitnexus status
  gitnexus status ~/src/myrepo --json`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) (err error) {
		var p string
		if len(args) == 1 {
			p = args[0]
		}
		e, err := resolveRepo(p)
		if err != nil {
			return err
		}
		m, err := graph.ReadMeta(e.Path)
		if err != nil {
			return toolError(err) // no index, or damaged meta.json: exit 3
		}
		// Every file of the index against the checksums its commit
		// recorded: a damaged index is reported, and exits 3 (no usable
		// index) after the report.
		verr := graph.Verify(e.Path, m)
		if verr != nil {
			// An analyze may have swapped the index (and removed the
			// files m names) meanwhile: then check the new one.
			if again, err := graph.ReadMeta(e.Path); err == nil && again.DBFile != m.DBFile {
				m, verr = again, graph.Verify(e.Path, again)
			}
		}
		var damage *graph.DamageError
		if verr != nil && !errors.As(verr, &damage) {
			return verr
		}
		integrity := "ok"
		switch {
		case damage != nil:
			integrity = "damaged: " + damage.File + ": " + damage.Reason
		case len(m.Sums) == 0:
			integrity = "unverified: no checksums recorded (an index from an older gitnexus)"
		}
		head := discover.HeadCommit(e.Path)
		var packBytes int64
		if fi, err := os.Stat(graph.CompanionPath(e.Path, m, graph.PackSuffix)); err == nil {
			packBytes = fi.Size()
		}
		out := newStatusJSON(m, head, packBytes, integrity)
		if flagJSON {
			if damage != nil {
				return toolError(verr) // one object: the error and its code
			}
			return printJSON(out)
		}
		defer func() {
			if damage != nil {
				err = toolError(verr)
			}
		}()
		scr := stdout()
		w := &fitWriter{s: scr}
		defer w.Flush()
		fmt.Fprintf(w, "%s  %s\n", scr.paint(styleBold, m.RepoName), m.RepoRoot)
		if damage != nil {
			fmt.Fprintf(w, "  integrity   DAMAGED — %s: %s; run `gitnexus analyze`\n", damage.File, damage.Reason)
		} else {
			fmt.Fprintf(w, "  integrity   %s\n", integrity)
		}
		fmt.Fprintf(w, "  indexed     %s (%s ago) by gitnexus %s, schema v%d\n", m.IndexedAt.Local().Format(time.DateTime), time.Since(m.IndexedAt).Round(time.Second), m.ToolVersion, m.SchemaVersion)
		switch {
		case m.Commit == "" && out.Stale:
			fmt.Fprintf(w, "  commit      none — STALE: indexed outside git, HEAD is now %s; run `gitnexus analyze`\n", shortSHA(head))
		case m.Commit == "":
			fmt.Fprintf(w, "  commit      (not a git repository)\n")
		case out.Stale:
			fmt.Fprintf(w, "  commit      %s — STALE: HEAD is now %s; run `gitnexus analyze`\n", shortSHA(m.Commit), shortSHA(head))
		default:
			fmt.Fprintf(w, "  commit      %s (HEAD)\n", shortSHA(m.Commit))
		}
		scr.field("files", append([]string{fmt.Sprintf("%d:", len(m.Files))}, countItems(m.Languages)...))
		scr.field("symbols", countItems(m.Kinds))
		scr.field("counts", countItems(m.Counts))
		scr.field("parse", countItems(m.ParseStatus))
		if c := m.Calls; c != nil {
			scr.field("calls", []string{fmt.Sprintf("%d sites:", c["callSites"]), fmt.Sprintf("%d resolved", c["resolved"]), fmt.Sprintf("%d external", c["external"]),
				fmt.Sprintf("%d dynamic", c["dynamic"]), fmt.Sprintf("%d unresolved in %d files", c["unresolved"], len(m.Unresolved))})
			type fc struct {
				f string
				n int
			}
			var worst []fc
			for f, n := range m.Unresolved {
				worst = append(worst, fc{f, n})
			}
			sort.Slice(worst, func(i, j int) bool {
				return worst[i].n > worst[j].n || worst[i].n == worst[j].n && worst[i].f < worst[j].f
			})
			for i := 0; i < len(worst) && i < 5; i++ {
				fmt.Fprintf(w, "              %4d unresolved  %s\n", worst[i].n, worst[i].f)
			}
		}
		if len(m.Skipped) > 0 {
			scr.field("skipped", countItems(m.Skipped))
		}
		if packBytes > 0 {
			fmt.Fprintf(w, "  search      pack of %.1f MB: keyword queries do not open the database\n", float64(packBytes)/1e6)
		} else {
			fmt.Fprintf(w, "  search      no search pack (an index from an older gitnexus): searches fail until `gitnexus analyze` writes one\n")
		}
		if db, ok := m.Sums[m.DBFile]; ok {
			line := fmt.Sprintf("  disk        database %.1f MB", float64(db.Size)/1e6)
			if f, ok := m.Sums[m.DBFile+graph.FactsSuffix]; ok {
				line += fmt.Sprintf(", parse cache %.1f MB (what the next analyze reuses)", float64(f.Size)/1e6)
			}
			fmt.Fprintln(w, line)
		}
		scr.field("time", phaseItems(m.Phases))
		return nil
	},
}

var listIn tools.ListReposInput

var listCmd = &cobra.Command{
	Use:   "list",
	Short: "List the registered repositories",
	Long: `list pages through the registered repositories, sorted by name.
--json prints what the MCP list_repos tool returns.`,
	Example: `  gitnexus list
  gitnexus list --json`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		reg, err := tools.RegisteredRepos()
		if err != nil {
			return err
		}
		out, err := tools.ListRepos(reg, listIn)
		if err != nil {
			return toolError(err)
		}
		if flagJSON {
			return printJSON(out)
		}
		if out.Pagination.Total == 0 {
			fmt.Println("No repositories registered. Index one with `gitnexus analyze PATH`.")
			return nil
		}
		scr := stdout()
		nameW := len("NAME")
		for _, r := range out.Repos {
			nameW = max(nameW, min(visibleWidth(r.Name), 32))
		}
		scr.line(scr.paint(styleDim, fmt.Sprintf("%s  %-20s  %s", pad("NAME", nameW), "INDEXED", "PATH")))
		for _, r := range out.Repos {
			state := r.IndexedAt
			if t, err := time.Parse(time.RFC3339, r.IndexedAt); err == nil {
				state = t.Local().Format(time.DateTime)
			}
			if !r.Indexed {
				state = scr.paint(styleRed, pad("index missing", 20))
			}
			scr.linef("%s  %s  %s", pad(r.Name, nameW), pad(state, 20), r.Path)
		}
		for _, r := range out.Repos {
			if !r.Indexed {
				printNotices([]string{fmt.Sprintf("%s has no index: run `gitnexus analyze %s` (or `gitnexus clean %s` to unregister it)", r.Name, r.Path, r.Path)})
			}
		}
		if out.Pagination.HasMore {
			printNotices([]string{fmt.Sprintf("%d of %d repositories listed: --offset %d for more", out.Pagination.Returned, out.Pagination.Total, out.Pagination.NextOffset)})
		}
		return nil
	},
}

func init() {
	listCmd.Flags().IntVarP(&listIn.Limit, "limit", "n", tools.MaxReposPage, fmt.Sprintf("most repositories listed (max %d)", tools.MaxReposPage))
	listCmd.Flags().IntVar(&listIn.Offset, "offset", 0, "repositories to skip")
	rootCmd.AddCommand(statusCmd, listCmd)
}
