package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/index"
	"github.com/gitnexus/gitnexus/ingest/discover"
)

var analyzeFlags struct {
	maxFileSize       int64
	excludes          []string
	includes          []string
	noDefaultExcludes bool
	workers           int
	skipEmbeddings    bool
	modelDir          string
	device            string
	name              string
	force             bool
	watch             bool
}

var analyzeCmd = &cobra.Command{
	Use:   "analyze [PATH | -r NAME]",
	Short: "Index a repository into a code graph (PATH defaults to the current directory)",
	Long: `analyze parses every source file of the repository at PATH with tree-sitter
and writes a Kuzu graph to PATH/.gitnexus/: folders, files, symbols and their
relationships, and beside it the search pack every search reads.

The new index is built beside the old one and swapped in atomically when it
is complete: an interrupted or failed analyze leaves the previous index as it
was. Files are chosen as git would (tracked plus untracked-but-not-ignored),
minus .gitnexusignore patterns, default excludes (vendored and generated
code, lock files, minified bundles), binaries and files over --max-file-size.

A re-analyze parses only the files whose content changed: the parse result
of every file is kept beside the index, by content hash, and reused (the
index is the same as a cold analyze gives; --force parses everything).

With --watch, analyze stays running after the first index and re-analyzes
after each burst of changes (a save, a git checkout) to the directories
holding indexed files, printing one line per update; a running
'gitnexus mcp' sees each update without a restart.`,
	Example: `  gitnexus analyze ~/src/myrepo
  gitnexus analyze -r myrepo --skip-embeddings
  gitnexus analyze . --exclude 'testdata/' --include vendor/
  gitnexus analyze --watch --skip-embeddings`,
	Args: cobra.MaximumNArgs(1),
	RunE: runAnalyze,
}

func init() {
	f := analyzeCmd.Flags()
	f.Int64Var(&analyzeFlags.maxFileSize, "max-file-size", discover.DefaultMaxFileSize, "skip files larger than this many bytes")
	f.StringArrayVar(&analyzeFlags.excludes, "exclude", nil, "extra gitignore-style pattern to leave out (repeatable)")
	f.StringArrayVar(&analyzeFlags.includes, "include", nil, "gitignore-style pattern to keep although a default exclude drops it, e.g. vendor/ (repeatable)")
	f.BoolVar(&analyzeFlags.noDefaultExcludes, "no-default-excludes", false, "do not leave out vendored/generated code and lock files")
	f.IntVar(&analyzeFlags.workers, "workers", 0, "parse workers (default: one per core)")
	f.BoolVar(&analyzeFlags.skipEmbeddings, "skip-embeddings", false, "build a keyword-only index (no vectors)")
	f.StringVar(&analyzeFlags.modelDir, "model-dir", "", "embedding model directory (default: $GITNEXUS_MODEL_DIR or $GITNEXUS_HOME/models/snowflake-arctic-embed-xs)")
	f.StringVar(&analyzeFlags.device, "device", "auto", "embedding device: auto, cpu, cuda or dml")
	f.StringVar(&analyzeFlags.name, "name", "", "name to register the repository under (default: the directory name)")
	f.BoolVar(&analyzeFlags.watch, "watch", false, "stay running: re-analyze after each burst of changes to the repository and print one line per update (with --json, one object per line) until interrupted")
	f.BoolVar(&analyzeFlags.force, "force", false, "parse every file again instead of reusing the last analyze's parse results for files whose content is unchanged")
	rootCmd.AddCommand(analyzeCmd)
}

func runAnalyze(c *cobra.Command, args []string) error {
	root := "."
	if len(args) == 1 {
		root = args[0]
	}
	if flagRepo != "" {
		// -r names an indexed repository to re-analyze (a registered name
		// or a path); it was once ignored, indexing the working directory.
		if len(args) == 1 {
			return Usage("give the repository either as PATH or with -r, not both")
		}
		e, err := resolveRepo("")
		if err != nil {
			return err
		}
		root = e.Path
		if analyzeFlags.name == "" {
			analyzeFlags.name = e.Name
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Usage("bad path %q: %v", root, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return Fail(ExitNotFound, "cannot analyze %s: %v (give the path of a repository directory)", root, err)
	} else if !fi.IsDir() {
		return Usage("cannot analyze %s: not a directory (give the path of a repository directory)", root)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return Fail(ExitError, "resolve %s: %w", root, err)
	}
	if analyzeFlags.maxFileSize <= 0 {
		return Usage("--max-file-size must be positive, got %d", analyzeFlags.maxFileSize)
	}
	if reg, err := graph.LoadRegistry(); err == nil { // a name of another repo: refuse before the work
		if err := reg.CheckName(analyzeFlags.name, abs); err != nil {
			return &Error{Code: ExitUsage, Err: err}
		}
	}
	dev, err := embed.ParseDevice(analyzeFlags.device)
	if err != nil {
		return Usage("%v", err)
	}

	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newProgress()
	defer prog.Done()
	var warned []string
	warn := func(msg string) {
		warned = append(warned, msg)
		newScreen(os.Stderr).message("gitnexus: " + msg)
	}

	opts := index.Options{
		Discover: discover.Options{
			MaxFileSize:       analyzeFlags.maxFileSize,
			Excludes:          analyzeFlags.excludes,
			Includes:          analyzeFlags.includes,
			NoDefaultExcludes: analyzeFlags.noDefaultExcludes,
		},
		Workers:        analyzeFlags.workers,
		SkipEmbeddings: analyzeFlags.skipEmbeddings,
		Embed:          embed.Options{ModelDir: analyzeFlags.modelDir, Device: dev},
		Name:           analyzeFlags.name,
		ToolVersion:    Version,
		Force:          analyzeFlags.force,
		Progress:       prog.Update,
		Warn:           warn,
	}
	if analyzeFlags.watch {
		opts.Graph.Retire = retireConcurrently
		return watchAnalyze(ctx, abs, opts, prog, &warned)
	}
	opts.Graph.Retire = retireDetached()
	sum, err := index.Build(ctx, abs, opts)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return interrupted(ctx, err)
	case errors.Is(err, graph.ErrLocked):
		return &Error{Code: ExitLocked, Err: err}
	case errors.Is(err, embed.ErrDeviceUnavailable):
		return Fail(ExitUsage, "%v (use --device auto or cpu)", err)
	default:
		return err
	}
	prog.Done()

	register(sum, warn)
	if flagJSON {
		return printJSON(sum)
	}
	printAnalyzeSummary(stdout(), *sum, sum.Discovery, warned)
	return nil
}

// register records the index sum committed in the repository registry; a
// registry that cannot be updated is a warning, not a failed analyze.
func register(sum *index.Summary, warn func(string)) {
	if reg, err := graph.LoadRegistry(); err != nil {
		warn(fmt.Sprintf("repository registry: %v", err))
	} else if err := reg.Register(graph.EntryFromMeta(sum.Meta)); err != nil {
		warn(fmt.Sprintf("register %s: %v", sum.Name, err))
	}
}

// watchAnalyze runs analyze --watch: the first update prints the usual
// summary, each later one a line; --json prints one object per update.
func watchAnalyze(ctx context.Context, abs string, opts index.Options, prog *progress, warned *[]string) error {
	updates := 0
	err := index.Watch(ctx, abs, opts, index.WatchOptions{OnUpdate: func(u index.WatchUpdate) {
		updates++
		if updates == 1 {
			prog.Done()
		}
		if u.Err == nil {
			register(u.Summary, opts.Warn)
		}
		if flagJSON {
			line := map[string]any{"update": updates, "changed": u.Changed, "events": u.Events}
			if u.Err != nil {
				line["error"] = u.Err.Error()
			} else {
				line["summary"] = u.Summary
			}
			if err := json.NewEncoder(os.Stdout).Encode(line); err != nil { // one compact line
				slog.Warn("write update", "err", err)
			}
			return
		}
		switch {
		case u.Err != nil:
			newScreen(os.Stderr).message(fmt.Sprintf("gitnexus: update failed (the previous index stays live): %v", u.Err))
		case updates == 1:
			printAnalyzeSummary(stdout(), *u.Summary, u.Summary.Discovery, *warned)
			stdout().linef("Watching %s for changes (Ctrl-C to stop)", abs)
		default:
			s := u.Summary
			ch := ""
			if c := s.Changes; c != nil {
				ch = fmt.Sprintf("%d added, %d changed, %d deleted; ", c.Added, c.Changed, c.Deleted)
			}
			what := "updated"
			switch {
			case s.UpToDate:
				what = "up to date (index kept)"
			case s.Load.InPlace:
				what = "updated in place"
			}
			stdout().linef("%s %s in %.1fs: %s%d parsed, %d unchanged; %d files, %d symbols, %d flows (%s)",
				time.Now().Format(time.TimeOnly), what, s.Seconds, ch, s.Parsed, s.Reused, s.Files, s.Symbols,
				s.Nodes["Process"], changedItems(u.Changed, u.Events))
		}
	}})
	code := ExitError
	if ctx.Err() != nil {
		code, err = 130, errors.New("interrupted: stopped watching; the index is the last update's")
	}
	if err == nil {
		return nil
	}
	if !flagJSON {
		return &Error{Code: code, Err: err}
	}
	// --json: the end is one more compact line, like the updates.
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"error": err.Error(), "code": code})
	newScreen(os.Stderr).message("gitnexus: " + err.Error())
	return &Error{Code: code, Err: err, Answered: true}
}

// changedItems names what started an update: its first paths, and how
// many events it coalesced.
func changedItems(paths []string, events int) string {
	s := strings.Join(paths, ", ")
	if events > len(paths) {
		s += fmt.Sprintf("; %d events", events)
	}
	return s
}

// interrupted turns an error caused by Ctrl-C into a clear message.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return Fail(130, "interrupted: the previous index, if any, is unchanged")
	}
	return err
}

// printAnalyzeSummary prints what analyze did; a warning already printed
// (warned: the embeddings one) is referred to, not repeated.
func printAnalyzeSummary(scr *screen, s index.Summary, d *discover.Result, warned []string) {
	if s.UpToDate {
		scr.linef("%s (%s) is up to date: its %d files are unchanged since the last analyze; the index was kept (%.1fs; --force rebuilds it)",
			scr.paint(styleBold, s.Name), s.Path, s.Files, s.Seconds)
		if s.Commit != "" {
			scr.linef("  commit      %s", shortSHA(s.Commit))
		}
		scr.field("symbols", append([]string{fmt.Sprintf("%d:", s.Symbols)}, countItems(s.Kinds)...))
		scr.field("flows", []string{fmt.Sprintf("%d communities", s.Nodes["Community"]), fmt.Sprintf("%d processes", s.Nodes["Process"])})
		scr.field("time", phaseItems(s.Phases))
		return
	}
	scr.linef("Indexed %s (%s) in %.1fs", scr.paint(styleBold, s.Name), s.Path, s.Seconds)
	if s.Commit != "" {
		scr.linef("  commit      %s", shortSHA(s.Commit))
	}
	scr.field("files", append([]string{fmt.Sprintf("%d in %d folders:", s.Files, s.Folders)}, countItems(s.Languages)...))
	scr.field("symbols", append([]string{fmt.Sprintf("%d:", s.Symbols)}, countItems(s.Kinds)...))
	scr.field("edges", countItems(s.Edges))
	parse := fmt.Sprintf("(%d parsed, %d unchanged since the last analyze)", s.Parsed, s.Reused)
	if s.Unread > 0 {
		parse = fmt.Sprintf("(%d parsed, %d unchanged since the last analyze; %d files not read, their inode, size and times as when last read)", s.Parsed, s.Reused, s.Unread)
	}
	scr.field("parse", append(countItems(s.ParseStatus), parse))
	if c := s.Changes; c != nil {
		scr.field("changes", []string{fmt.Sprintf("%d files added, %d changed, %d deleted since the last analyze", c.Added, c.Changed, c.Deleted)})
	}
	if l := s.Load; l.InPlace {
		scr.field("database", []string{"updated in place:", fmt.Sprintf("%d nodes added", l.NodesAdded), fmt.Sprintf("%d changed", l.NodesChanged),
			fmt.Sprintf("%d removed;", l.NodesRemoved), fmt.Sprintf("%d edges created", l.EdgesCreated), fmt.Sprintf("%d deleted", l.EdgesDeleted),
			fmt.Sprintf("%d moved", l.EdgesMoved)})
	} else if l.Whole != "" {
		scr.field("database", []string{"loaded whole:", l.Whole})
	}
	if p := s.Pack; p.Reused > 0 {
		scr.field("search", []string{fmt.Sprintf("pack built from the last one: %d of %d nodes reused", p.Reused, p.Nodes)})
	} else if p.NoBase != "" {
		scr.field("search", []string{"pack built whole:", p.NoBase})
	}
	if r := s.Resolution; r != nil {
		scr.field("calls", []string{fmt.Sprintf("%d sites:", r.CallSites), fmt.Sprintf("%d resolved", r.Resolved),
			fmt.Sprintf("%d external", r.External), fmt.Sprintf("%d dynamic", r.Dynamic), fmt.Sprintf("%d unresolved", r.Unresolved)})
		if r.SitesReused > 0 {
			scr.field("", []string{fmt.Sprintf("the call sites of %d unchanged files as the last analyze resolved them", r.SitesReused)})
		}
	}
	ps := s.Processes
	scr.field("flows", []string{fmt.Sprintf("%d communities", ps.Communities), fmt.Sprintf("%d processes;", ps.Trace.Processes),
		fmt.Sprintf("entry points: %d ranked", ps.Trace.Ranked), fmt.Sprintf("%d traced", ps.Trace.Traced),
		fmt.Sprintf("%d below the score threshold", ps.Trace.BelowScore), fmt.Sprintf("%d with no flow of 3+ steps", ps.Trace.TooShort),
		fmt.Sprintf("%d inside other flows;", ps.Trace.Subsumed), fmt.Sprintf("%d flows shown under another entry (same steps after the entry)", ps.Trace.SharedTails)})
	if len(s.Skipped) > 0 {
		scr.field("skipped", countItems(s.Skipped))
		if d != nil {
			for _, r := range sortedKeys(d.Examples) {
				scr.linef("              %s: %s", r, strings.Join(d.Examples[r], ", "))
			}
		}
	}
	scr.field("time", phaseItems(s.Phases))
	if len(s.PeakRSS) > 0 {
		scr.field("peak memory", peakItems(s.PeakRSS))
	}
	emb := s.Embeddings
	for _, w := range warned {
		if strings.Contains(w, emb) {
			emb = "none (see the warning above)"
		}
	}
	scr.linef("  embeddings  %s", emb)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// countItems is m as "a 3", "b 2", sorted by count, largest first.
func countItems(m map[string]int) []string {
	if len(m) == 0 {
		return []string{"none"}
	}
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return parts
}

// peakItems prints the peak resident memory of each stage in run order.
func peakItems(m map[string]int) []string {
	var parts []string
	for _, k := range []string{"ingest", "processes", "load", "pack", "embed", "commit"} {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %d MiB", k, v))
		}
	}
	return parts
}

// phaseOrder is the order analyze's phases run in; total comes last.
var phaseOrder = []string{"discover", "parse", "structure", "resolve", "processes", "load", "pack", "embed"}

// phaseItems prints phase durations in run order, total last: seconds
// from one second, else milliseconds; phases under a millisecond are
// named together at the end, not printed as "0s".
func phaseItems(m map[string]float64) []string {
	var keys []string
	seen := map[string]bool{"total": true}
	for _, k := range phaseOrder {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	for _, k := range sortedKeys(m) {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	var parts, quick []string
	for _, k := range keys {
		if m[k] < 0.0005 {
			quick = append(quick, k)
			continue
		}
		parts = append(parts, k+" "+duration(m[k]))
	}
	if t, ok := m["total"]; ok {
		parts = append(parts, "total "+duration(t))
	}
	if len(quick) > 0 {
		parts = append(parts, "(under 1 ms: "+strings.Join(quick, ", ")+")")
	}
	return parts
}

// duration prints seconds as "1.23s" from one second, else "45ms".
func duration(sec float64) string {
	if sec >= 1 {
		return fmt.Sprintf("%.2fs", sec)
	}
	return fmt.Sprintf("%.0fms", sec*1000)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
