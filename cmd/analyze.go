package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

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
code, lock files, minified bundles), binaries and files over --max-file-size.`,
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
	warn := func(msg string) { fmt.Fprintln(os.Stderr, "gitnexus: "+msg) }

	sum, err := index.Build(ctx, abs, index.Options{
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
		Progress:       prog.Update,
		Warn:           warn,
	})
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

	if reg, err := graph.LoadRegistry(); err != nil {
		warn(fmt.Sprintf("repository registry: %v", err))
	} else if err := reg.Register(graph.EntryFromMeta(sum.Meta)); err != nil {
		warn(fmt.Sprintf("register %s: %v", sum.Name, err))
	}
	if flagJSON {
		return printJSON(sum)
	}
	printAnalyzeSummary(*sum, sum.Discovery)
	return nil
}

// interrupted turns an error caused by Ctrl-C into a clear message.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return Fail(130, "interrupted: the previous index, if any, is unchanged")
	}
	return err
}

func printAnalyzeSummary(s index.Summary, d *discover.Result) {
	w := os.Stdout
	fmt.Fprintf(w, "Indexed %s (%s) in %.1fs\n", s.Name, s.Path, s.Seconds)
	if s.Commit != "" {
		fmt.Fprintf(w, "  commit      %s\n", shortSHA(s.Commit))
	}
	fmt.Fprintf(w, "  files       %d in %d folders: %s\n", s.Files, s.Folders, formatCounts(s.Languages))
	fmt.Fprintf(w, "  symbols     %d: %s\n", s.Symbols, formatCounts(s.Kinds))
	fmt.Fprintf(w, "  edges       %s\n", formatCounts(s.Edges))
	fmt.Fprintf(w, "  parse       %s\n", formatCounts(s.ParseStatus))
	if r := s.Resolution; r != nil {
		fmt.Fprintf(w, "  calls       %d sites: %d resolved, %d external, %d dynamic, %d unresolved (callers of a symbol are a lower bound where its file has unresolved calls)\n",
			r.CallSites, r.Resolved, r.External, r.Dynamic, r.Unresolved)
	}
	ps := s.Processes
	fmt.Fprintf(w, "  flows       %d communities, %d processes; entry points: %d ranked, %d traced, %d below the score threshold, %d with no flow of 3+ steps, %d inside other flows\n",
		ps.Communities, ps.Trace.Processes, ps.Trace.Ranked, ps.Trace.Traced, ps.Trace.BelowScore, ps.Trace.TooShort, ps.Trace.Subsumed)
	if len(s.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped     %s\n", formatCounts(s.Skipped))
		if d != nil {
			for _, r := range sortedKeys(d.Examples) {
				fmt.Fprintf(w, "              %s: %s\n", r, strings.Join(d.Examples[r], ", "))
			}
		}
	}
	fmt.Fprintf(w, "  time        %s\n", formatPhases(s.Phases))
	fmt.Fprintf(w, "  embeddings  %s\n", s.Embeddings)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// formatCounts prints "a 3, b 2" sorted by count, largest first.
func formatCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func formatPhases(m map[string]float64) string {
	order := []string{"discover", "parse", "structure", "resolve", "load", "processes", "embed", "total"}
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2fs", k, v))
			seen[k] = true
		}
	}
	for _, k := range sortedKeys(m) {
		if !seen[k] {
			parts = append(parts, fmt.Sprintf("%s %.2fs", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
