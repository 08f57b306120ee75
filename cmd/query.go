package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/gitnexus/gitnexus/embed"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

var queryFlags struct {
	mode     string
	limit    int
	flows    int
	lang     []string
	kind     []string
	name     string
	path     string
	minScore float64
	content  bool
	files    bool
	modelDir string
	device   string
	all      bool
}

var queryCmd = &cobra.Command{
	Use:   `query "<what you are looking for>"`,
	Short: "Search the index by keyword and meaning; hits grouped into execution flows",
	Long: `query finds the symbols (functions, methods, classes, interfaces) that match a
description or an identifier, ranks them (BM25 over identifier-aware words in
the search pack, fused with vector similarity when the index has embeddings, spread
over calls, methods and inheritance), and groups them into the execution flows
they take part in.

Identifiers are split the way code spells them: "getUserById", "get user by
id" and "user_repository" all match. Examples:

  gitnexus query "auth middleware"
  gitnexus query validatePassword --kind function,method
  gitnexus query "parse config" --lang go --path internal/ --json

Every search reads the search pack analyze writes beside the database (the
keyword index and the graph behind search); the database is opened only for
vectors (hybrid and vector modes on an index with embeddings) and --content.
An index without a pack (from an older gitnexus) must be rebuilt with
gitnexus analyze (exit 3).`,
	Args: cobra.ExactArgs(1),
	RunE: runQuery,
}

func init() {
	f := queryCmd.Flags()
	f.StringVar(&queryFlags.mode, "mode", "hybrid", "retrievers: hybrid, keyword or vector (hybrid without embeddings falls back to keyword)")
	f.IntVarP(&queryFlags.limit, "limit", "n", query.DefaultLimit, "most hits to return")
	f.IntVar(&queryFlags.flows, "flows", query.DefaultMaxProcesses, "most execution flows to list")
	f.StringSliceVar(&queryFlags.lang, "lang", nil, "keep these languages (comma-separated: go,python)")
	f.StringSliceVar(&queryFlags.kind, "kind", nil, "keep these kinds (function, method, class, struct, interface, file, ...)")
	f.StringVar(&queryFlags.name, "name", "", "keep symbols whose name matches this glob (case-insensitive: '*Handler')")
	f.StringVar(&queryFlags.path, "path", "", "keep hits under this repo-relative path prefix")
	f.Float64Var(&queryFlags.minScore, "min-score", 0, "drop hits scoring below this (0..1; the best possible hit scores 1)")
	f.BoolVar(&queryFlags.content, "content", false, "include each symbol's signature and source")
	f.BoolVar(&queryFlags.files, "files", false, "also search files by path and name")
	f.BoolVar(&queryFlags.all, "all", false, "search every registered repository (or name several with -r a,b)")
	f.StringVar(&queryFlags.modelDir, "model-dir", "", "embedding model directory (default: $GITNEXUS_MODEL_DIR or $GITNEXUS_HOME/models/snowflake-arctic-embed-xs)")
	f.StringVar(&queryFlags.device, "device", "auto", "embedding device for the query: auto, cpu, cuda or dml")
	rootCmd.AddCommand(queryCmd)
}

func runQuery(c *cobra.Command, args []string) error {
	q := strings.TrimSpace(args[0])
	if q == "" {
		return Usage("empty query: say what you are looking for, e.g. gitnexus query \"parse config file\"")
	}
	opts := query.Options{
		Mode:         query.Mode(strings.ToLower(queryFlags.mode)),
		Limit:        queryFlags.limit,
		MaxProcesses: queryFlags.flows,
		MinScore:     queryFlags.minScore,
		Lang:         queryFlags.lang,
		Kind:         queryFlags.kind,
		NameGlob:     queryFlags.name,
		PathPrefix:   queryFlags.path,
		Files:        queryFlags.files,
		Content:      queryFlags.content,
	}
	switch opts.Mode {
	case query.ModeHybrid, query.ModeKeyword, query.ModeVector:
	default:
		return Usage("unknown --mode %q: use hybrid, keyword or vector", queryFlags.mode)
	}
	if opts.Limit <= 0 {
		return Usage("--limit must be at least 1 (got %d)", opts.Limit)
	}
	if opts.MaxProcesses < 1 {
		return Usage("--flows must be at least 1 (got %d)", opts.MaxProcesses)
	}
	if opts.MinScore < 0 || opts.MinScore > 1 {
		return Usage("--min-score must be between 0 and 1 (got %v)", opts.MinScore)
	}
	if queryFlags.all || strings.Contains(flagRepo, ",") {
		return runMultiQuery(c.Context(), q, opts)
	}
	e, err := resolveRepo("")
	if err != nil {
		return err
	}
	res, err := searchRepo(c.Context(), e.Path, q, opts)
	if err != nil {
		return err
	}
	for _, n := range res.Notices {
		fmt.Fprintf(os.Stderr, "gitnexus: %s\n", n)
	}
	if flagJSON {
		res.SetRepo(e)
		return printJSON(res)
	}
	printResult(os.Stdout, res)
	return nil
}

// searchRepo searches the index of the repository at root: its search
// pack (query.Pack), plus its database for what the pack does not hold —
// vectors (hybrid and vector modes on an index with embeddings) and source
// text (--content) — opened read-only only then.
func searchRepo(ctx context.Context, root, q string, opts query.Options) (*query.Result, error) {
	meta, err := graph.ReadMeta(root)
	if err != nil {
		if errors.Is(err, graph.ErrNoIndex) {
			return nil, &Error{Code: ExitNotFound, Err: err}
		}
		return nil, err
	}
	t0 := time.Now()
	pack, err := query.ReadPack(graph.CompanionPath(root, meta, graph.PackSuffix))
	if err != nil {
		if errors.Is(err, query.ErrNoPack) {
			return nil, &Error{Code: ExitNotFound, Err: err}
		}
		return nil, err
	}
	slog.Debug("search pack read", "took", time.Since(t0))
	db := &lazyDB{root: root}
	defer db.close()
	if opts.Mode != query.ModeKeyword && meta.Embeddings.Count > 0 {
		d, err := db.open(ctx)
		if err != nil {
			return nil, err
		}
		vf, closeEmb, notice := vectorRetriever(d, queryFlags.modelDir, queryFlags.device)
		defer closeEmb()
		opts.Vectors = vf
		if notice != "" && opts.Mode == query.ModeHybrid {
			fmt.Fprintf(os.Stderr, "gitnexus: %s\n", notice)
		}
	}
	if opts.Content {
		opts.Source = query.DBSource(db)
	}
	// No collection while a pack is decoded and searched: all of it stays
	// live to the answer, so a collection would only scan it.
	gc := debug.SetGCPercent(-1)
	res, err := query.Search(ctx, pack, q, opts)
	debug.SetGCPercent(gc)
	if err != nil {
		return nil, searchError(err)
	}
	return res, nil
}

// lazyDB is the index database of root, opened read-only on its first
// statement (a search that reads no source text never opens it).
type lazyDB struct {
	root string
	db   *graph.DB
	err  error
	once sync.Once
}

func (l *lazyDB) open(ctx context.Context) (*graph.DB, error) {
	l.once.Do(func() { l.db, l.err = graph.Open(ctx, l.root, graph.OpenOptions{}) })
	return l.db, l.err
}

// Query makes lazyDB a query.Querier.
func (l *lazyDB) Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error) {
	db, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	return db.Query(ctx, cypher, params)
}

func (l *lazyDB) close() {
	if l.db != nil {
		l.db.Close()
	}
}

// searchError gives a search error its exit code.
func searchError(err error) error {
	if errors.Is(err, query.ErrNoVectors) || errors.Is(err, query.ErrNoPack) {
		return &Error{Code: ExitNotFound, Err: err}
	}
	if strings.Contains(err.Error(), "bad name pattern") {
		return Usage("%v", err)
	}
	return err
}

// printResult draws the terminal view: flows first (A → B → C, the hits
// among their steps marked), then the definitions in no flow.
func printResult(w io.Writer, r *query.Result) {
	if len(r.Processes) == 0 && len(r.Definitions) == 0 {
		fmt.Fprintf(w, "no matches for %q (searched: %s)\n", r.Query, strings.Join(r.Tokens, " "))
		return
	}
	if len(r.Processes) > 0 {
		fmt.Fprintln(w, "Flows")
		for i, p := range r.Processes {
			fmt.Fprintf(w, "  %d. %s  (%s, %d steps, score %.2f)\n", i+1, p.Summary, p.ProcessType, p.StepCount, p.Score)
			hit := map[string]bool{}
			for _, ps := range r.ProcessSymbols {
				if ps.ProcessID == p.ID {
					hit[ps.ID] = true
				}
			}
			names := make([]string, len(p.Steps))
			for j, s := range p.Steps {
				names[j] = s.Name
				if hit[s.ID] {
					names[j] = "[" + s.Name + "]"
				}
			}
			fmt.Fprintf(w, "     %s\n", strings.Join(names, " → "))
			for _, ps := range r.ProcessSymbols {
				if ps.ProcessID == p.ID {
					fmt.Fprintf(w, "     %d. %-8s %-32s %s\n", ps.StepIndex, ps.Kind, ps.Name, location(ps.Hit))
				}
			}
		}
		if len(r.Definitions) > 0 {
			fmt.Fprintln(w)
		}
	}
	if len(r.Definitions) > 0 {
		fmt.Fprintln(w, "Definitions")
		for _, h := range r.Definitions {
			via := ""
			if h.Via != nil {
				via = "  (via " + strings.ToLower(h.Via.Rel) + ")"
			}
			fmt.Fprintf(w, "  %.2f  %-10s %-32s %s%s\n", h.Score, h.Kind, h.Name, location(h), via)
			if h.Signature != "" {
				fmt.Fprintf(w, "        %s\n", firstLine(h.Signature))
			}
			if h.Content != "" {
				for _, l := range strings.Split(strings.TrimRight(h.Content, "\n"), "\n") {
					fmt.Fprintf(w, "        │ %s\n", l)
				}
			}
		}
	}
}

func location(h query.Hit) string {
	if h.Kind == "file" || h.StartLine == 0 {
		return h.FilePath
	}
	return fmt.Sprintf("%s:%d", h.FilePath, h.StartLine)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// vectorRetriever opens the embedding model and returns the index's
// vector retriever, or nil with a reason (the search then runs
// keyword-only).
func vectorRetriever(db *graph.DB, modelDir, device string) (query.VectorFunc, func(), string) {
	none := func() {}
	if m := db.Meta(); m == nil || m.Embeddings.Count == 0 {
		return nil, none, ""
	}
	dev, err := embed.ParseDevice(device)
	if err != nil {
		return nil, none, err.Error()
	}
	emb, err := embed.New(embed.Options{ModelDir: modelDir, Device: dev})
	vf, notice := query.IndexVectors(db, db.Meta(), emb, err)
	if vf == nil {
		if emb != nil {
			emb.Close()
		}
		return nil, none, notice
	}
	return vf, func() { emb.Close() }, ""
}
