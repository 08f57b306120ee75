package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph/schema"

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
description or an identifier, ranks them (BM25 over identifier-aware full-text
indexes, fused with vector similarity when the index has embeddings, spread
over calls, methods and inheritance), and groups them into the execution flows
they take part in.

Identifiers are split the way code spells them: "getUserById", "get user by
id" and "user_repository" all match. Examples:

  gitnexus query "auth middleware"
  gitnexus query validatePassword --kind function,method
  gitnexus query "parse config" --lang go --path internal/ --json

In keyword mode (and hybrid mode on an index without embeddings) the answer
comes from the search pack analyze writes beside the database, without
opening it; GITNEXUS_NO_PACK=1 queries the database's full-text indexes
instead (the same answer, slower).`,
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
	res, ok, err := packSearch(c.Context(), e.Path, q, opts)
	if err != nil {
		return err
	}
	if !ok {
		db, err := openRepo(c.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		if res, err = searchOne(c.Context(), db, q, opts); err != nil {
			return err
		}
	}
	for _, n := range res.Notices {
		fmt.Fprintf(os.Stderr, "gitnexus: %s\n", n)
	}
	if flagJSON {
		return printJSON(res)
	}
	printResult(os.Stdout, res)
	return nil
}

// searchOne runs the search on one open index, with its vectors when the
// index has them and the model is here.
func searchOne(ctx context.Context, db *graph.DB, q string, opts query.Options) (*query.Result, error) {
	if opts.Mode != query.ModeKeyword {
		vf, closeEmb, notice := vectorRetriever(db, queryFlags.modelDir, queryFlags.device)
		defer closeEmb()
		opts.Vectors = vf
		if notice != "" && opts.Mode == query.ModeHybrid {
			fmt.Fprintf(os.Stderr, "gitnexus: %s\n", notice)
		}
	}
	res, err := query.Search(ctx, db, q, opts)
	if err != nil {
		return nil, searchError(err)
	}
	return res, nil
}

// searchError gives a search error its exit code.
func searchError(err error) error {
	if errors.Is(err, query.ErrNoVectors) {
		return &Error{Code: ExitNotFound, Err: err}
	}
	if strings.Contains(err.Error(), "bad name pattern") {
		return Usage("%v", err)
	}
	return err
}

// packSearch answers a keyword search from the index's search pack
// (query.Pack) without opening the database: the pack holds what such a
// search reads and answers as the database does, in a fraction of the time
// (opening Kuzu costs about 100 ms on prometheus). ok is false when the
// search needs the database (vectors, --files, --content) or the index has
// no readable pack; the caller then opens the database, which also reports
// a missing or incompatible index.
func packSearch(ctx context.Context, root, q string, opts query.Options) (*query.Result, bool, error) {
	if opts.Mode == query.ModeVector || opts.Files || opts.Content || os.Getenv("GITNEXUS_NO_PACK") != "" {
		return nil, false, nil
	}
	meta, err := graph.ReadMeta(root)
	if err != nil || meta.SchemaVersion != schema.Version {
		return nil, false, nil
	}
	if opts.Mode == query.ModeHybrid && meta.Embeddings.Count > 0 {
		return nil, false, nil
	}
	t0 := time.Now()
	pack, err := query.ReadPack(graph.CompanionPath(root, meta, graph.PackSuffix))
	if err != nil {
		// An index from before packs, or one swapped since meta.json was
		// read: the database answers.
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("search pack unreadable, searching the database", "repo", root, "err", err)
		}
		return nil, false, nil
	}
	slog.Debug("search pack read", "took", time.Since(t0))
	opts.Pack = pack
	res, err := query.SearchWith(ctx, nil, q, opts)
	if err != nil {
		return nil, true, searchError(err)
	}
	return res, true, nil
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
