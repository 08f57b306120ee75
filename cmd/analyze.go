package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/ingest/resolve"
	"github.com/gitnexus/gitnexus/processes"
	"github.com/gitnexus/gitnexus/query"
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
	Use:   "analyze [PATH]",
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

// analyzeSummary is the JSON form of analyze's report.
type analyzeSummary struct {
	Repo        string             `json:"repo"`
	Name        string             `json:"name"`
	Path        string             `json:"path"`
	Commit      string             `json:"commit,omitempty"`
	Git         bool               `json:"git"`
	Files       int                `json:"files"`
	Folders     int                `json:"folders"`
	Symbols     int                `json:"symbols"`
	Languages   map[string]int     `json:"languages"`
	Kinds       map[string]int     `json:"kinds"`
	Nodes       map[string]int     `json:"nodes"`
	Edges       map[string]int     `json:"edges"`
	ParseStatus map[string]int     `json:"parseStatus"`
	Skipped     map[string]int     `json:"skipped"`
	Phases      map[string]float64 `json:"phases"`
	Seconds     float64            `json:"seconds"`
	Embeddings  string             `json:"embeddings"`
	Resolution  *resolve.Stats     `json:"resolution,omitempty"`
	Unresolved  []string           `json:"unresolvedSamples,omitempty"`
	Processes   processes.Stats    `json:"processes"`
}

func runAnalyze(c *cobra.Command, args []string) error {
	start := time.Now()
	root := "."
	if len(args) == 1 {
		root = args[0]
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

	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newProgress()
	defer prog.Done()

	b, err := graph.NewBuild(ctx, abs, graph.BuildOptions{})
	if err != nil {
		if errors.Is(err, graph.ErrLocked) {
			return &Error{Code: ExitLocked, Err: err}
		}
		return fmt.Errorf("start index build: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			b.Abort()
		}
	}()

	var emb *embedStage
	embeddings := "skipped (--skip-embeddings)"
	if !analyzeFlags.skipEmbeddings {
		var msg string
		if emb, msg, err = startEmbedding(ctx, abs, b, analyzeFlags.modelDir, analyzeFlags.device); err != nil {
			return err
		}
		if emb == nil {
			embeddings = msg
		} else {
			defer emb.close()
		}
	}

	res, err := ingest.Run(ctx, abs, emb.sink(b), ingest.Options{
		Discover: discover.Options{
			MaxFileSize:       analyzeFlags.maxFileSize,
			Excludes:          analyzeFlags.excludes,
			Includes:          analyzeFlags.includes,
			NoDefaultExcludes: analyzeFlags.noDefaultExcludes,
		},
		Workers:  analyzeFlags.workers,
		Progress: prog.Update,
	})
	if err != nil {
		return interrupted(ctx, fmt.Errorf("analyze %s: %w", abs, err))
	}
	st := res.Stats

	t0 := time.Now()
	prog.Update("processes", 0, 0)
	pres := processes.Run(processes.FromIndex(res.Index, res.Edges), processes.Options{})
	for _, cm := range pres.Communities {
		if err := b.AddCommunity(cm); err != nil {
			return fmt.Errorf("write community: %w", err)
		}
	}
	for _, p := range pres.Processes {
		if err := b.AddProcess(p); err != nil {
			return fmt.Errorf("write process: %w", err)
		}
	}
	for _, e := range pres.Edges {
		if err := b.AddEdge(e); err != nil {
			return fmt.Errorf("write %s edge: %w", e.Type, err)
		}
		st.Edges[string(e.Type)]++
	}
	st.Labels["Community"] = len(pres.Communities)
	st.Labels["Process"] = len(pres.Processes)
	st.Phases["processes"] = time.Since(t0).Seconds()

	// The last symbols are embedded and the model closed before the load
	// (see embedStage.drain).
	var embWait time.Duration
	if emb != nil {
		t1 := time.Now()
		prog.Update("embed", 0, 0)
		if err := emb.drain(); err != nil {
			return interrupted(ctx, err)
		}
		embWait = time.Since(t1)
	}

	// The index and edges are loaded from the NDJSON files now: give their
	// memory back before Kuzu needs its own.
	samples, resolution, procStats, discovery := res.Samples, res.Resolution, pres.Stats, res.Discovery
	unresolvedByFile := res.Unresolved
	res, pres = nil, nil
	slog.Debug("before release", "heap", heapMiB())
	ingest.ReleaseMemory()
	slog.Debug("after release", "heap", heapMiB())

	t0 = time.Now()
	if err := b.Load(ctx, prog.Update); err != nil {
		return interrupted(ctx, fmt.Errorf("load graph: %w", err))
	}
	prog.Update("search", 0, 0)
	if st.Phases["pack"], err = writePack(ctx, b); err != nil {
		return interrupted(ctx, fmt.Errorf("build search pack: %w", err))
	}
	var embInfo graph.EmbeddingInfo
	if emb != nil {
		t1 := time.Now()
		prog.Update("embed", 0, 0)
		if embInfo, err = emb.finish(ctx, b); err != nil {
			return interrupted(ctx, err)
		}
		embeddings = emb.status
		st.Phases["embed"] = (embWait + time.Since(t1)).Seconds()
	}
	st.Phases["load"] = time.Since(t0).Seconds()

	name := analyzeFlags.name
	if name == "" {
		name = filepath.Base(abs)
	}
	counts := map[string]int{}
	for k, v := range st.Labels {
		counts[k] = v
	}
	for k, v := range st.Edges {
		counts[k] = v
	}
	meta := &graph.Meta{
		SchemaVersion: schema.Version,
		ToolVersion:   Version,
		RepoRoot:      abs,
		RepoName:      name,
		Commit:        discovery.Commit,
		Branch:        discovery.Branch,
		IndexedAt:     time.Now().UTC(),
		Counts:        counts,
		Files:         st.FileHashes,
		ParseStatus:   st.ParseStatus,
		Skipped:       st.Skipped,
		Languages:     st.Languages,
		Kinds:         st.Kinds,
		Phases:        st.Phases,
		Embeddings:    embInfo,
	}
	if resolution != nil {
		meta.Calls = map[string]int{"callSites": resolution.CallSites, "resolved": resolution.Resolved,
			"external": resolution.External, "dynamic": resolution.Dynamic, "unresolved": resolution.Unresolved}
		meta.Unresolved = unresolvedByFile
	}
	st.Phases["total"] = time.Since(start).Seconds()
	if err := b.Commit(meta); err != nil {
		return fmt.Errorf("swap in the new index: %w", err)
	}
	committed = true
	prog.Done()

	if err := discover.EnsureGitExclude(abs, ".gitnexus/"); err != nil {
		fmt.Fprintf(os.Stderr, "warning: could not add .gitnexus/ to .git/info/exclude: %v\n", err)
	}
	if reg, err := graph.LoadRegistry(); err != nil {
		fmt.Fprintf(os.Stderr, "warning: repository registry: %v\n", err)
	} else if err := reg.Register(graph.EntryFromMeta(meta)); err != nil {
		fmt.Fprintf(os.Stderr, "warning: register %s: %v\n", name, err)
	}

	sum := analyzeSummary{
		Repo: name, Name: name, Path: abs, Commit: meta.Commit, Git: discovery.Git,
		Files: st.Files, Folders: st.Folders, Symbols: st.Symbols,
		Languages: st.Languages, Kinds: st.Kinds, Nodes: st.Labels, Edges: st.Edges,
		ParseStatus: st.ParseStatus, Skipped: st.Skipped, Phases: st.Phases,
		Seconds: time.Since(start).Seconds(), Embeddings: embeddings,
		Resolution: resolution, Unresolved: samples, Processes: procStats,
	}
	if flagJSON {
		return printJSON(sum)
	}
	printAnalyzeSummary(sum, discovery)
	return nil
}

// interrupted turns an error caused by Ctrl-C into a clear message.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return Fail(130, "interrupted: the previous index, if any, is unchanged")
	}
	return err
}

func printAnalyzeSummary(s analyzeSummary, d *discover.Result) {
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

// heapMiB describes the Go heap and the process's resident memory, for the
// debug log around the release before the load.
func heapMiB() string {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("heapInuse=%dMiB sys=%dMiB rss=%sMiB", m.HeapInuse>>20, m.Sys>>20, graph.RSSMiB())
}

// writePack writes the search pack (query.Pack) of the database being
// built and attaches it to the build, and returns the seconds it took.
// Every search reads it: without one the index cannot be searched.
func writePack(ctx context.Context, b *graph.Build) (float64, error) {
	t0 := time.Now()
	// Start from an empty buffer pool: the load before this left it full
	// (see graph.Build.Settle).
	if err := b.Settle(); err != nil {
		return 0, err
	}
	p, err := query.BuildPack(ctx, b)
	if err != nil {
		return 0, err
	}
	path := filepath.Join(b.StagingDir(), "search.pack")
	if err := p.WriteFile(path); err != nil {
		return 0, err
	}
	if err := b.Attach(graph.PackSuffix, path); err != nil {
		return 0, err
	}
	slog.Debug("search pack written", "took", time.Since(t0), "rss_MiB", graph.RSS)
	return time.Since(t0).Seconds(), nil
}
