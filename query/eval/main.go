// Command eval measures keyword search on the labeled queries of
// query/testdata/labeled.json: recall@5 and MRR of several ranking variants
// against a plain-BM25-over-whole-files baseline.
//
//	bash ../shared/bench/corpora.sh gin prometheus django flask requests
//	go run ./query/eval                       # all corpora of the label file
//	go run ./query/eval -corpus gin,flask -v  # some, with per-query ranks
//
// For each corpus it copies the sources to a temporary directory (so no
// index lands in the shared corpus cache), runs the ingest pipeline into a
// graph.Build with text.SearchText filling the searchText column (what
// `gitnexus analyze` does), loads it, adds the experimental full-text
// indexes the variants need, and runs every labeled query through
// query.SearchWith. Nothing is committed; the build is aborted at the end.
//
// Metrics, per query, averaged over queries:
//   - symbol recall@5: labeled symbols (PATH#NAME) among the first 5 hits,
//     over the number labeled;
//   - symbol MRR: 1 / rank of the first labeled symbol (0 if none in the
//     first 20);
//   - file recall@5 and file MRR: the same over the distinct files of the
//     hits, in order of first appearance. The baseline ranks files only, so
//     only the file metrics compare with it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/query"
)

type labeled struct {
	Queries []struct {
		Corpus  string   `json:"corpus"`
		Query   string   `json:"query"`
		Symbols []string `json:"symbols"`
		Files   []string `json:"files"`
	} `json:"queries"`
}

func main() {
	labels := flag.String("labels", "query/testdata/labeled.json", "labeled query file")
	corpora := flag.String("corpora", filepath.Join(os.Getenv("HOME"), ".cache/gitnexus-corpora"), "directory holding the corpora")
	only := flag.String("corpus", "", "comma-separated corpora to run (default: all in the label file)")
	verbose := flag.Bool("v", false, "print each query's first relevant rank per variant")
	noSearchText := flag.Bool("no-searchtext", false, "leave searchText empty (measures what identifier splitting buys)")
	nv := flag.Int("variants", 0, "run only the first N variants (0: all)")
	flag.Parse()
	if *nv > 0 && *nv < len(variants) {
		variants = variants[:*nv]
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := run(*labels, *corpora, *only, *verbose, *noSearchText); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

// variant is one ranking configuration.
type variant struct {
	name string
	opts func() query.Options
}

func plan(specs ...string) []query.Index {
	// spec: "suffix:weight" applied to every symbol table; index name
	// <table>_<suffix> (schema's own are <table>_fts).
	var out []query.Index
	for _, l := range schema.SymbolLabels {
		for _, s := range specs {
			var suffix string
			var w float64
			fmt.Sscanf(strings.Replace(s, ":", " ", 1), "%s %g", &suffix, &w)
			out = append(out, query.Index{Table: l, Name: strings.ToLower(string(l)) + "_" + suffix, Weight: w})
		}
	}
	return out
}

// gplan is the search-table plan with other weights.
func gplan(ident, doc float64) []query.Index {
	return []query.Index{
		{Table: query.SearchTable, Name: query.IndexIdent, Weight: ident},
		{Table: query.SearchTable, Name: query.IndexDoc, Weight: doc},
	}
}

// bodyPlan adds the per-table body indexes (the search table has none).
func bodyPlan(w float64) []query.Index { return plan(fmt.Sprintf("body:%g", w)) }

func ranking(f func(*query.Ranking)) *query.Ranking {
	r := query.DefaultRanking
	f(&r)
	return &r
}

var variants = []variant{
	{"shipped: search table, default ranking", func() query.Options { return query.Options{} }},
	{"  no phrases", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Phrases = 0 })}
	}},
	{"  phrases up to 2 words", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Phrases = 2 })}
	}},
	{"  no prefix terms", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.PrefixWeight = 0 })}
	}},
	{"  prefix weight 0.1", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.PrefixWeight = 0.1 })}
	}},
	{"  prefix weight 1", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.PrefixWeight = 1 })}
	}},
	{"  no test penalty", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.TestFactor = 1 })}
	}},
	{"  test factor 0.5", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.TestFactor = 0.5 })}
	}},
	{"  no expansion", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.ExpandSeeds = 0 })}
	}},
	{"  expansion 2 hops", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.ExpandHops = 2 })}
	}},
	{"  weights ident 1, doc 0.3", func() query.Options { return query.Options{Plan: gplan(1, 0.3)} }},
	{"  weights ident 1, doc 1", func() query.Options { return query.Options{Plan: gplan(1, 1)} }},
	{"  weights ident 2, doc 0.5", func() query.Options { return query.Options{Plan: gplan(2, 0.5)} }},
	{"  + body index 0.2", func() query.Options { return query.Options{Plan: append(gplan(1, 0.5), bodyPlan(0.2)...)} }},
	{"  rrf combine", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Combine = "rrf" })}
	}},
	{"per-table schema indexes (fallback plan)", func() query.Options { return query.Options{Plan: query.FallbackPlan()} }},
	{"per-table, our stop words", func() query.Options { return query.Options{Plan: plan("allsw:1")} }},
	{"per-table ident 1, doc 0.5, body 0.2", func() query.Options {
		return query.Options{Plan: plan("ident:1", "doc:0.5", "body:0.2")}
	}},
}

// extraIndexes are the experimental indexes, per symbol table.
func extraIndexes(stopCSV string) []string {
	var out []string
	for _, l := range schema.SymbolLabels {
		t := string(l)
		p := strings.ToLower(t) + "_"
		sw := fmt.Sprintf("stemmer := 'english', stopWords := '%s'", stopCSV)
		out = append(out,
			fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%sallsw', ['name', 'searchText', 'signature', 'docComment'], %s)", t, p, sw),
			fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%sident', ['name', 'searchText'], %s)", t, p, sw),
			fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%sdoc', ['signature', 'docComment'], %s)", t, p, sw),
			fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%sbody', ['content'], %s)", t, p, sw),
		)
	}
	return out
}

type scores struct{ symR5, symMRR, fileR5, fileMRR float64 }

func (s *scores) add(o scores) {
	s.symR5 += o.symR5
	s.symMRR += o.symMRR
	s.fileR5 += o.fileR5
	s.fileMRR += o.fileMRR
}

func run(labelsPath, corporaDir, only string, verbose, noSearchText bool) error {
	ctx := context.Background()
	raw, err := os.ReadFile(labelsPath)
	if err != nil {
		return err
	}
	var lb labeled
	if err := json.Unmarshal(raw, &lb); err != nil {
		return fmt.Errorf("%s: %w", labelsPath, err)
	}
	var names []string
	byCorpus := map[string][]int{}
	for i, q := range lb.Queries {
		if only != "" && !contains(strings.Split(only, ","), q.Corpus) {
			continue
		}
		if byCorpus[q.Corpus] == nil {
			names = append(names, q.Corpus)
		}
		byCorpus[q.Corpus] = append(byCorpus[q.Corpus], i)
	}
	total := make([]scores, len(variants))
	var base scores
	var lat []time.Duration // shipped variant, per query
	n := 0
	for _, c := range names {
		src := filepath.Join(corporaDir, c)
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("corpus %s missing (run bash ../shared/bench/corpora.sh %s): %w", c, c, err)
		}
		t0 := time.Now()
		b, cleanup, err := buildIndex(ctx, src, noSearchText)
		if err != nil {
			return fmt.Errorf("index %s: %w", c, err)
		}
		fmt.Fprintf(os.Stderr, "%s: indexed in %s\n", c, time.Since(t0).Round(time.Millisecond))
		for _, qi := range byCorpus[c] {
			q := lb.Queries[qi]
			n++
			fr, err := baseline(ctx, b, q.Query)
			if err != nil {
				cleanup()
				return err
			}
			bs := measure(nil, fr, q.Symbols, q.Files)
			base.add(bs)
			line := fmt.Sprintf("%-11s %-45q base f%2d", c, q.Query, firstRank(fr, q.Files))
			for vi, v := range variants {
				o := v.opts()
				o.Mode = query.ModeKeyword
				o.Limit = 20
				t1 := time.Now()
				res, err := query.SearchWith(ctx, b, q.Query, o)
				if vi == 0 {
					lat = append(lat, time.Since(t1))
				}
				if err != nil {
					cleanup()
					return fmt.Errorf("%s %q: %w", v.name, q.Query, err)
				}
				hits := res.Definitions
				var syms, files []string
				seen := map[string]bool{}
				for _, h := range hits {
					syms = append(syms, h.FilePath+"#"+h.Name)
					if !seen[h.FilePath] {
						seen[h.FilePath] = true
						files = append(files, h.FilePath)
					}
				}
				total[vi].add(measure(syms, files, q.Symbols, q.Files))
				line += fmt.Sprintf(" | s%2d f%2d", firstRank(syms, q.Symbols), firstRank(files, q.Files))
			}
			if verbose {
				fmt.Println(line)
			}
		}
		cleanup()
	}
	if n == 0 {
		return fmt.Errorf("no queries selected")
	}
	fn := float64(n)
	fmt.Printf("\n%d queries over %s\n\n", n, strings.Join(names, ", "))
	fmt.Printf("%-46s %9s %8s %9s %8s\n", "variant", "sym R@5", "sym MRR", "file R@5", "file MRR")
	fmt.Printf("%-46s %9s %8s %9.3f %8.3f\n", "baseline: BM25 over whole files", "-", "-", base.fileR5/fn, base.fileMRR/fn)
	for i, v := range variants {
		t := total[i]
		fmt.Printf("%-46s %9.3f %8.3f %9.3f %8.3f\n", v.name, t.symR5/fn, t.symMRR/fn, t.fileR5/fn, t.fileMRR/fn)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("\nshipped variant, search latency over a graph.Build connection: median %s, max %s\n",
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	return nil
}

// buildIndex copies the corpus to a temp dir, ingests and loads it, and
// adds the experimental indexes and the baseline table.
func buildIndex(ctx context.Context, src string, noSearchText bool) (*graph.Build, func(), error) {
	tmp, err := os.MkdirTemp("", "gitnexus-eval-")
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(tmp, filepath.Base(src))
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, fmt.Errorf("copy corpus: %v: %s", err, out)
	}
	b, err := graph.NewBuild(ctx, dir, graph.BuildOptions{MaxThreads: 2})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	cleanup := func() { b.Abort(); os.RemoveAll(tmp) }
	sink := &textSink{Build: b, off: noSearchText}
	if _, err := ingest.Run(ctx, dir, sink, ingest.Options{}); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("ingest: %w", err)
	}
	if err := b.Load(ctx, nil); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("load: %w", err)
	}
	stop := filepath.Join(tmp, "stopwords.csv")
	if err := os.WriteFile(stop, []byte(text.StopWordsCSV()), 0o644); err != nil {
		cleanup()
		return nil, nil, err
	}
	if err := query.BuildIndexes(ctx, b, tmp); err != nil {
		cleanup()
		return nil, nil, err
	}
	stmts := append(extraIndexes(stop),
		"CREATE NODE TABLE Doc(id STRING, body STRING, PRIMARY KEY(id))")
	for _, s := range stmts {
		if err := b.Exec(ctx, s); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	// Baseline documents: every file's whole text, as NDJSON.
	docs := filepath.Join(tmp, "docs.json")
	if err := writeDocs(dir, sink.files, docs); err != nil {
		cleanup()
		return nil, nil, err
	}
	for _, s := range []string{
		fmt.Sprintf("COPY Doc FROM '%s'", docs),
		"CALL CREATE_FTS_INDEX('Doc', 'doc_fts', ['body'])",
	} {
		if err := b.Exec(ctx, s); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	return b, cleanup, nil
}

// textSink fills searchText the way analyze does, and remembers file paths
// for the baseline.
type textSink struct {
	*graph.Build
	off   bool
	files []string
}

func (s *textSink) AddSymbol(sym schema.Symbol) error {
	if s.off {
		sym.SearchText = ""
	} else {
		sym.SearchText = text.SearchText(sym.Name, sym.QualifiedName, sym.FilePath)
	}
	return s.Build.AddSymbol(sym)
}

func (s *textSink) AddFile(f schema.File) error {
	s.files = append(s.files, f.Path)
	return s.Build.AddFile(f)
}

func writeDocs(root string, files []string, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, p := range files {
		body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		if err := enc.Encode(map[string]string{"id": p, "body": strings.ToValidUTF8(strings.ReplaceAll(string(body), "\x00", ""), "")}); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// baseline ranks files by plain BM25 of the query words over their whole
// text: no identifier splitting, no aliases, Kuzu's default stop words.
func baseline(ctx context.Context, b *graph.Build, q string) ([]string, error) {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return r < 'a' || r > 'z' })
	if len(words) == 0 {
		return nil, nil
	}
	res, err := b.Query(ctx, fmt.Sprintf("CALL QUERY_FTS_INDEX('Doc', 'doc_fts', '%s', top := 20) RETURN node.id, score ORDER BY score DESC", strings.Join(words, " ")), nil)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var out []string
	for _, r := range res.Rows {
		out = append(out, fmt.Sprint(r[0]))
	}
	return out, nil
}

// measure computes one query's metrics; syms nil skips the symbol ones.
func measure(syms, files, wantSyms, wantFiles []string) scores {
	return scores{
		symR5:   recallAt(syms, wantSyms, 5),
		symMRR:  rr(syms, wantSyms),
		fileR5:  recallAt(files, wantFiles, 5),
		fileMRR: rr(files, wantFiles),
	}
}

func recallAt(got, want []string, k int) float64 {
	if len(want) == 0 {
		return 0
	}
	found := 0
	for _, w := range want {
		for i, g := range got {
			if i >= k {
				break
			}
			if g == w {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(want))
}

func rr(got, want []string) float64 {
	if r := firstRank(got, want); r > 0 {
		return 1 / float64(r)
	}
	return 0
}

// firstRank is the 1-based rank of the first relevant item in the first
// 20, 0 if none.
func firstRank(got, want []string) int {
	for i, g := range got {
		if i >= 20 {
			break
		}
		if contains(want, g) {
			return i + 1
		}
	}
	return 0
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
