package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/embed"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

// queryIn is the query tool's input the flags fill (search_query is the
// argument); queryFlags are the flags that are not tool input.
var (
	queryIn    tools.QueryInput
	queryFlags struct {
		modelDir string
		device   string
		all      bool
	}
)

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

query drives the MCP query tool: --json prints exactly what the tool returns
for the same input. The flags are its fields: --flows is limit (most
execution flows listed, default 5, max 100), -n is max_symbols (most hits
listed per flow and most definitions outside flows, default 10, max 200),
--task-context and --goal are task_context and goal, --content is
include_content, --files is include_files, --min-score is min_score, and
--mode, --lang, --kind, --name, --path are the fields of the same names.

Every search reads the search pack analyze writes beside the database (the
keyword index, the graph behind search and the source text --content shows);
the database is opened only for vectors (hybrid and vector modes on an index
with embeddings).
An index without a pack (from an older gitnexus) must be rebuilt with
gitnexus analyze (exit 3).

With --all or -r a,b every repository is searched with the same input and
the answers are merged by score, each entry tagged with its repository
(definitions capped at -n overall).`,
	Example: `  gitnexus query "auth middleware"
  gitnexus query validatePassword --kind function,method -n 5`,
	Args: argsNamed(`"TEXT"`),
	RunE: runQuery,
}

func init() {
	f := queryCmd.Flags()
	budgetFlag(f, &queryIn.Budget)
	f.StringVar(&queryIn.Mode, "mode", string(query.ModeHybrid), "retrievers: hybrid, keyword or vector (hybrid without embeddings falls back to keyword)")
	f.IntVarP(&queryIn.MaxSymbols, "limit", "n", tools.DefaultMaxSymbols, fmt.Sprintf("most hits listed per flow, and most definitions (the tool's max_symbols; max %d)", tools.MaxMaxSymbols))
	f.IntVar(&queryIn.Limit, "flows", tools.DefaultQueryLimit, fmt.Sprintf("most execution flows to list (the tool's limit; max %d)", tools.MaxQueryLimit))
	f.StringVar(&queryIn.TaskContext, "task-context", "", "what you are working on; takes part in ranking (the tool's task_context)")
	f.StringVar(&queryIn.Goal, "goal", "", "what you want to find; takes part in ranking")
	f.StringSliceVar(&queryIn.Lang, "lang", nil, "keep these languages (comma-separated: go,python)")
	f.StringSliceVar(&queryIn.Kind, "kind", nil, "keep these kinds: "+strings.Join(tools.QueryKinds(), ", "))
	f.StringVar(&queryIn.Name, "name", "", "keep symbols whose name matches this glob (case-insensitive: '*Handler')")
	f.StringVar(&queryIn.Path, "path", "", "keep hits under this repo-relative path prefix")
	f.Float64Var(&queryIn.MinScore, "min-score", 0, "drop hits scoring below this (0..1; the best possible hit scores 1)")
	f.BoolVar(&queryIn.IncludeContent, "content", false, "include each symbol's signature and source")
	f.BoolVar(&queryIn.IncludeFiles, "files", false, "also search files by path and name")
	f.BoolVar(&queryFlags.all, "all", false, "search every registered repository (or name several with -r a,b)")
	f.StringVar(&queryFlags.modelDir, "model-dir", "", "embedding model directory (default: $GITNEXUS_MODEL_DIR or $GITNEXUS_HOME/models/snowflake-arctic-embed-xs)")
	f.StringVar(&queryFlags.device, "device", "auto", "embedding device for the query: auto, cpu, cuda or dml")
	rootCmd.AddCommand(queryCmd)
}

func runQuery(c *cobra.Command, args []string) error {
	in := queryIn
	in.SearchQuery = args[0]
	// Flags the tool would take as "default" or clamp are refused here: a
	// user who typed -n 0 or --flows 1000 meant something else.
	if in.MaxSymbols < 1 || in.MaxSymbols > tools.MaxMaxSymbols {
		return Usage("--limit must be 1..%d (got %d)", tools.MaxMaxSymbols, in.MaxSymbols)
	}
	if in.Limit < 1 || in.Limit > tools.MaxQueryLimit {
		return Usage("--flows must be 1..%d (got %d)", tools.MaxQueryLimit, in.Limit)
	}
	if err := checkEnum("--mode", in.Mode, string(query.ModeHybrid), string(query.ModeKeyword), string(query.ModeVector)); err != nil {
		return err
	}
	if err := checkEnum("--device", queryFlags.device, "auto", "cpu", "cuda", "dml"); err != nil {
		return err
	}
	if _, err := checkKinds(in.Kind); err != nil {
		return err
	}
	if err := tools.ValidateQuery(in); err != nil {
		return toolError(err)
	}
	if queryFlags.all || strings.Contains(flagRepo, ",") {
		return runMultiQuery(c.Context(), in)
	}
	e, err := resolveRepo("")
	if err != nil {
		return err
	}
	res, err := searchRepo(c.Context(), e.Path, in)
	if err != nil {
		return err
	}
	if res.Stale != nil && !flagJSON {
		res.Notices = append(res.Notices, res.Stale.Note)
	}
	printNotices(res.Notices)
	if flagJSON {
		res.SetRepo(e)
		err = printAnswer(res)
	} else {
		printResult(stdout(), res)
	}
	if err == nil && len(res.Processes) == 0 && len(res.Definitions) == 0 {
		return noMatches(in.SearchQuery)
	}
	return err
}

// noMatches is the exit error of a search that found nothing (exit 3).
func noMatches(q string) error {
	return &Error{Code: ExitNotFound, Err: fmt.Errorf("no matches for %.80q", q), Answered: true}
}

// searchRepo runs the query tool on the index of the repository at root:
// its search pack (query.Pack), plus its database for what the pack does
// not hold — vectors (hybrid and vector modes on an index with
// embeddings) — checked and opened read-only only then (graph.NewLazy). The answer is marked stale when the
// repository moved on from the index (from the head of meta.json, read
// once here; checked while it searches). This is runTool's sibling that
// does not check the database file before the search: it may not need it.
func searchRepo(ctx context.Context, root string, in tools.QueryInput) (res *query.Result, err error) {
	// The pack is mapped (query.MapPack): a file cut short under us
	// faults, which this makes an error instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, queryError(fmt.Errorf("%w (reading it failed: %v)", query.ErrPackDamaged, r))
		}
	}()
	// The search needs the live pack's name, not the list of every indexed
	// file: that is read, and the repository stat'ed against it (whether
	// it moved on), beside the search, on the other core, unless a command
	// checked this index less than two seconds ago (graph.CheckStaleShared).
	meta, err := graph.ReadMetaHead(root)
	if err != nil {
		return nil, queryError(err)
	}
	staleness := staleBeside(root, meta)
	defer func() { staleness() }()
	t0 := time.Now()
	pack, err := query.MapPack(graph.CompanionPath(root, meta, graph.PackSuffix))
	if err != nil {
		return nil, queryError(err)
	}
	slog.Debug("search pack read", "took", time.Since(t0))
	db := graph.NewLazy(root, meta, oneShotOpen)
	defer db.Close()
	var vf query.VectorFunc
	var notice string
	if query.Mode(strings.ToLower(strings.TrimSpace(in.Mode))) != query.ModeKeyword && meta.Embeddings.Count > 0 {
		if _, err := db.DB(ctx); err != nil {
			return nil, queryError(err)
		}
		var closeEmb func()
		vf, closeEmb, notice = vectorRetriever(db, queryFlags.modelDir, queryFlags.device)
		defer closeEmb()
	}
	res, err = tools.Query(ctx, pack, in, vf)
	if err != nil {
		return nil, queryError(err)
	}
	if notice != "" {
		// As the MCP server does: the notice is part of the answer.
		res.Notices = append(res.Notices, notice)
	}
	tools.MarkStaleWith(res, staleness())
	return res, nil
}

// queryError gives a search error its exit code: a missing pack or
// missing vectors is "not found", the rest as toolError.
func queryError(err error) error {
	if errors.Is(err, query.ErrNoVectors) || errors.Is(err, query.ErrNoPack) || errors.Is(err, query.ErrPackDamaged) {
		return &Error{Code: ExitNotFound, Err: err}
	}
	return toolError(err)
}

// printResult draws the terminal view: flows first (A → B → C, the hits
// among their steps marked), then the definitions in no flow.
func printResult(scr *screen, r *query.Result) {
	if len(r.Processes) == 0 && len(r.Definitions) == 0 {
		scr.linef("no matches for %q (searched: %s)", r.Query, strings.Join(r.Tokens, " "))
		return
	}
	var names []string
	for _, h := range r.ProcessSymbols {
		names = append(names, h.Name)
	}
	for _, h := range r.Definitions {
		names = append(names, h.Name)
	}
	nw := nameWidth(names...)
	if len(r.Processes) > 0 {
		scr.line(scr.paint(styleBold, "Flows"))
		for i, p := range r.Processes {
			scr.linef("  %d. %s  (%s, %d steps, score %.2f)  %s", i+1, scr.paint(styleBold, p.Summary), p.ProcessType, p.StepCount, p.Score, scr.paint(styleDim, p.ID))
			if p.Description != "" {
				scr.linef("     %s", p.Description)
			}
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
					names[j] = scr.paint(styleGreen, "["+s.Name+"]")
				}
			}
			scr.linef("     %s", strings.Join(names, " → "))
			for _, ps := range r.ProcessSymbols {
				if ps.ProcessID == p.ID {
					scr.linef("     %d. %-8s %s %s", ps.StepIndex, ps.Kind, pad(ps.Name, nw), location(ps.Hit))
				}
			}
		}
		if len(r.Definitions) > 0 {
			scr.line("")
		}
	}
	if len(r.Definitions) > 0 {
		scr.line(scr.paint(styleBold, "Definitions"))
		for _, h := range r.Definitions {
			via := ""
			if h.Via != nil {
				via = "  (via " + strings.ToLower(h.Via.Rel) + ")"
			}
			scr.linef("  %.2f  %-10s %s %s%s", h.Score, h.Kind, pad(h.Name, nw), location(h), via)
			if h.Signature != "" {
				scr.linef("        %s", firstLine(h.Signature))
			}
			if h.Content != "" {
				for _, l := range splitLines(h.Content) {
					scr.linef("        │ %s", l)
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
func vectorRetriever(db *graph.Lazy, modelDir, device string) (query.VectorFunc, func(), string) {
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
