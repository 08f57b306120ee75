// Command eval measures search on the labeled queries of
// query/testdata/labeled.json: recall@5 and MRR of the keyword ranking and
// its variants, and of the vector and hybrid modes when an embedding model
// is at hand, against a plain-BM25-over-whole-files baseline.
//
//	bash ../shared/bench/corpora.sh gin prometheus django flask requests
//	go run ./query/eval                       # all corpora of the label file
//	go run ./query/eval -corpus gin,flask -v  # some, with per-query ranks
//	go run ./query/eval -variants 1           # the shipped keyword ranking only
//	go run ./query/eval -model-dir DIR        # + vector and hybrid modes
//
// For each corpus it copies the sources to a temporary directory (so no
// index lands in the shared corpus cache), indexes the copy with
// index.Build — the pipeline `gitnexus analyze` runs, so the index measured
// is the one users get, processes and search pack included — reads the
// committed search pack back (query.ReadPack), and runs every labeled query
// through query.Search on it: exactly the engine `gitnexus query` and the
// MCP server search. The copy and its index are removed at the end.
//
// # Modes
//
// Keyword: every row but the last two, query.ModeKeyword; the first row is
// the shipped ranking, the indented ones change one thing each.
//
// Vector and hybrid (query.ModeVector, query.ModeHybrid with the shipped
// ranking): only with a model. -model-dir DIR (default $GITNEXUS_MODEL_DIR)
// names a snowflake-arctic-embed-xs directory; -model-file FILE replaces
// its ONNX file, keeping its tokenizer. index.Build embeds the
// corpus with that model on the CPU, as analyze does, and the model loaded
// once here (embed.New) embeds the queries; the retriever is the one
// query.IndexVectors picks for the committed index. A model whose
// vocabulary is smaller than the tokenizer's is refused at start (the
// committed fixture needs its own tokenizer: -model-dir
// embed/testdata/tiny). The vector and hybrid rows are marked
// "[smoke test]" unless the ONNX file and the tokenizer files match the
// sha256 pins of models.ArcticEmbedXS and no -model-file was given: a
// fixture or random-weight model shows that the pipeline runs, its figures
// say nothing about search quality.
//
// Without a model (no directory, no weights in it, no ONNX Runtime) the
// keyword rows are measured and one line says why vector and hybrid were
// not; the exit status is 0. The real weights cannot be downloaded on the
// development machine, so there they are always skipped or smoke-tested:
//
//	go run ./query/eval -corpus requests -model-dir embed/testdata/tiny -model-file embed/testdata/tiny/model.onnx
//
// Metrics, per query, averaged over queries:
//   - symbol recall@5: labeled symbols (PATH#NAME) among the first 5 hits,
//     over the number labeled;
//   - symbol MRR: 1 / rank of the first labeled symbol (0 if none in the
//     first 20);
//   - file recall@5 and file MRR: the same over the distinct files of the
//     hits, in order of first appearance. The baseline ranks files only, so
//     only the file metrics compare with it;
//   - median: search latency per query on the pack (in process, the pack
//     already read), the query's embedding included in the vector and
//     hybrid modes.
//
// The baseline is Kuzu's full-text index (QUERY_FTS_INDEX, Kuzu's default
// stop words) over a Doc table of whole files that only eval creates: a
// reference point, not a search path.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	gnindex "github.com/gitnexus/gitnexus/index"
	"github.com/gitnexus/gitnexus/models"
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
	c := config{out: os.Stdout}
	flag.StringVar(&c.labels, "labels", "query/testdata/labeled.json", "labeled query file")
	flag.StringVar(&c.corpora, "corpora", filepath.Join(os.Getenv("HOME"), ".cache/gitnexus-corpora"), "directory holding the corpora")
	flag.StringVar(&c.only, "corpus", "", "comma-separated corpora to run (default: all in the label file)")
	flag.BoolVar(&c.verbose, "v", false, "print each query's first relevant rank per variant")
	flag.IntVar(&c.variants, "variants", 0, "run only the first N keyword variants (0: all; 1: the shipped ranking only)")
	flag.StringVar(&c.modelDir, "model-dir", os.Getenv(models.EnvModelDir), "embedding model directory for the vector and hybrid modes ($"+models.EnvModelDir+"; empty: keyword only)")
	flag.StringVar(&c.modelFile, "model-file", "", "ONNX file used instead of -model-dir's own, with -model-dir's tokenizer (a fixture: the vector and hybrid rows are then a smoke test)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, c)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

type config struct {
	labels, corpora, only string
	verbose               bool
	modelDir, modelFile   string
	variants              int       // keyword variants run: the first N (0: all)
	out                   io.Writer // where the table goes (stdout)
}

// variant is one ranking configuration.
type variant struct {
	name string
	opts func() query.Options
}

func ranking(f func(*query.Ranking)) *query.Ranking {
	r := query.DefaultRanking
	f(&r)
	return &r
}

// variants are the keyword rankings measured: the shipped one first, then
// one change each.
var variants = []variant{
	{"shipped: search pack, default ranking", func() query.Options { return query.Options{} }},
	{"  phrases up to 2 words", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Phrases = 2 })}
	}},
	{"  phrases up to 3 words", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Phrases = 3 })}
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
	{"  expansion from the best 10 hits", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.ExpandSeeds = 10 })}
	}},
	{"  expansion from 10 hits, 2 hops", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.ExpandSeeds, r.ExpandHops = 10, 2 })}
	}},
	{"  weights ident 1, doc 0.3", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.WeightDoc = 0.3 })}
	}},
	{"  weights ident 1, doc 1", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.WeightDoc = 1 })}
	}},
	{"  weights ident 2, doc 0.5", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.WeightIdent = 2 })}
	}},
	{"  rrf combine", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.Combine = "rrf" })}
	}},
	{"  no body field", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.WeightBody = 0 })}
	}},
	{"  body field in full at any length", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.BodyWords = 0 })}
	}},
	{"  file boost 0.5", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.FileBoost = 0.5 })}
	}},
	{"  code-shaped terms x2", func() query.Options {
		return query.Options{Ranking: ranking(func(r *query.Ranking) { r.IdentTermWeight = 2 })}
	}},
}

type scores struct{ symR5, symMRR, fileR5, fileMRR float64 }

func (s *scores) add(o scores) {
	s.symR5 += o.symR5
	s.symMRR += o.symMRR
	s.fileR5 += o.fileR5
	s.fileMRR += o.fileMRR
}

// row is one line of the table: a keyword variant or a search mode.
type row struct {
	name string
	opts func() query.Options
	mode query.Mode
	tot  scores
	lat  []time.Duration // per query
}

// modeRows are the vector and hybrid modes, with the shipped ranking and
// the index's vector retriever.
func modeRows(m *model) []*row {
	tag := ""
	if m.smoke {
		tag = " [smoke test]"
	}
	return []*row{
		{name: "vector: cosine over chunk vectors" + tag, opts: func() query.Options { return query.Options{} }, mode: query.ModeVector},
		{name: "hybrid: keyword + vector, RRF k=60" + tag, opts: func() query.Options { return query.Options{} }, mode: query.ModeHybrid},
	}
}

func run(ctx context.Context, c config) error {
	raw, err := os.ReadFile(c.labels)
	if err != nil {
		return err
	}
	var lb labeled
	if err := json.Unmarshal(raw, &lb); err != nil {
		return fmt.Errorf("%s: %w", c.labels, err)
	}
	var names []string
	byCorpus := map[string][]int{}
	for i, q := range lb.Queries {
		if c.only != "" && !contains(strings.Split(c.only, ","), q.Corpus) {
			continue
		}
		if byCorpus[q.Corpus] == nil {
			names = append(names, q.Corpus)
		}
		byCorpus[q.Corpus] = append(byCorpus[q.Corpus], i)
	}
	if len(names) == 0 {
		return fmt.Errorf("no queries selected")
	}
	m, skipped, err := openModel(c.modelDir, c.modelFile)
	if err != nil {
		return err
	}
	defer m.close()
	var rows []*row
	vs := variants
	if c.variants > 0 && c.variants < len(vs) {
		vs = vs[:c.variants]
	}
	for _, v := range vs {
		rows = append(rows, &row{name: v.name, opts: v.opts, mode: query.ModeKeyword})
	}
	if m != nil {
		rows = append(rows, modeRows(m)...)
	}
	var base scores
	n := 0
	for _, cn := range names {
		src := filepath.Join(c.corpora, cn)
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("corpus %s missing (run bash ../shared/bench/corpora.sh %s): %w", cn, cn, err)
		}
		t0 := time.Now()
		ix, err := buildIndex(ctx, src, m, embed.Options{ModelDir: c.modelDir, ModelFile: c.modelFile, Device: embed.DeviceCPU})
		if err != nil {
			return fmt.Errorf("index %s: %w", cn, err)
		}
		fmt.Fprintf(os.Stderr, "%s: indexed in %s%s\n", cn, time.Since(t0).Round(time.Millisecond), ix.embedded)
		for _, qi := range byCorpus[cn] {
			q := lb.Queries[qi]
			n++
			fr, err := baseline(ctx, ix.base, q.Query)
			if err != nil {
				ix.cleanup()
				return err
			}
			base.add(measure(nil, fr, q.Symbols, q.Files))
			line := fmt.Sprintf("%-11s %-45q base f%2d", cn, q.Query, firstRank(fr, q.Files))
			for _, r := range rows {
				o := r.opts()
				o.Mode = r.mode
				o.Limit = 20
				if r.mode != query.ModeKeyword {
					o.Vectors = ix.vectors
				}
				t1 := time.Now()
				res, err := query.Search(ctx, ix.pack, q.Query, o)
				r.lat = append(r.lat, time.Since(t1))
				if err != nil {
					ix.cleanup()
					return fmt.Errorf("%s %q: %w", r.name, q.Query, err)
				}
				var syms, files []string
				seen := map[string]bool{}
				for _, h := range res.Hits {
					syms = append(syms, h.FilePath+"#"+h.Name)
					if !seen[h.FilePath] {
						seen[h.FilePath] = true
						files = append(files, h.FilePath)
					}
				}
				r.tot.add(measure(syms, files, q.Symbols, q.Files))
				line += fmt.Sprintf(" | s%2d f%2d", firstRank(syms, q.Symbols), firstRank(files, q.Files))
			}
			if c.verbose {
				fmt.Fprintln(c.out, line)
			}
		}
		ix.cleanup()
	}
	fn := float64(n)
	fmt.Fprintf(c.out, "\n%d queries over %s\n\n", n, strings.Join(names, ", "))
	fmt.Fprintf(c.out, "%-50s %9s %8s %9s %8s %9s\n", "variant", "sym R@5", "sym MRR", "file R@5", "file MRR", "median")
	fmt.Fprintf(c.out, "%-50s %9s %8s %9.3f %8.3f %9s\n", "baseline: BM25 over whole files", "-", "-", base.fileR5/fn, base.fileMRR/fn, "-")
	for i, r := range rows {
		name := r.name
		if i == 0 {
			name = "keyword, " + name
		}
		t := r.tot
		fmt.Fprintf(c.out, "%-50s %9.3f %8.3f %9.3f %8.3f %9s\n", name, t.symR5/fn, t.symMRR/fn, t.fileR5/fn, t.fileMRR/fn, median(r.lat))
	}
	fmt.Fprintln(c.out)
	switch {
	case m == nil:
		fmt.Fprintf(c.out, "vector, hybrid: not measured — %s\n", skipped)
	case m.smoke:
		fmt.Fprintf(c.out, "vector, hybrid: pipeline smoke test only — the model is not the real one (%s); their figures mean nothing about search quality\n", m.why)
	default:
		fmt.Fprintf(c.out, "vector, hybrid: %s on %s\n", m.emb.ModelID(), deviceOf(m))
	}
	fmt.Fprintf(c.out, "median: search latency per query on the search pack (query embedding included); max of the shipped keyword ranking: %s\n",
		maxOf(rows[0].lat))
	return nil
}

func deviceOf(m *model) string {
	d, why := m.emb.Device()
	return fmt.Sprintf("%s (%s)", d, why)
}

func median(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Microsecond).String()
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m.Round(time.Microsecond)
}

// index is one corpus's eval index: the one analyze ships (index.Build),
// and beside it the baseline's own build.
type index struct {
	base     *graph.Build     // the baseline: a Doc table of whole files with a Kuzu full-text index
	pack     *query.Pack      // what every search reads, read back from the committed index
	db       *graph.DB        // the committed index, open only for vectors
	vectors  query.VectorFunc // nil without a model
	embedded string           // what the embedding stage did, for the log line
	cleanup  func()
}

// buildIndex copies the corpus to a temp dir and indexes it with
// index.Build — the pipeline `gitnexus analyze` runs, processes and search
// pack included — embedding with m's model when m is set. It then builds
// the baseline in a separate database of its own.
func buildIndex(ctx context.Context, src string, m *model, embOpts embed.Options) (*index, error) {
	tmp, err := os.MkdirTemp("", "gitnexus-eval-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, filepath.Base(src))
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("copy corpus: %v: %s", err, out)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	ix := &index{}
	ix.cleanup = func() {
		if ix.base != nil {
			ix.base.Abort()
		}
		if ix.db != nil {
			ix.db.Close()
		}
		os.RemoveAll(tmp)
	}
	sum, err := gnindex.Build(ctx, dir, gnindex.Options{
		SkipEmbeddings: m == nil,
		Embed:          embOpts,
		Graph:          graph.BuildOptions{MaxThreads: 2},
		ToolVersion:    "eval",
	})
	if err != nil {
		ix.cleanup()
		return nil, err
	}
	if ix.pack, err = query.ReadPack(graph.CompanionPath(dir, sum.Meta, graph.PackSuffix)); err != nil {
		ix.cleanup()
		return nil, err
	}
	if m != nil {
		if ix.db, err = graph.Open(ctx, dir, graph.OpenOptions{}); err != nil {
			ix.cleanup()
			return nil, err
		}
		vf, notice := query.IndexVectors(ix.db, sum.Meta, m.emb, nil)
		if vf == nil {
			if notice == "" {
				notice = "no symbol was embedded"
			}
			ix.cleanup()
			return nil, fmt.Errorf("vector search: %s", notice)
		}
		ix.vectors = vf
		ix.embedded = "; embeddings: " + sum.Embeddings
	}

	// The baseline, in a database of its own: every indexed file's whole
	// text, 1 GiB of pool (address space, filled as needed) for its large
	// full-text index.
	baseRoot := filepath.Join(tmp, "baseline")
	if err := os.Mkdir(baseRoot, 0o755); err != nil {
		ix.cleanup()
		return nil, err
	}
	if ix.base, err = graph.NewBuild(ctx, baseRoot, graph.BuildOptions{MaxThreads: 2, BufferPoolSize: 1 << 30}); err != nil {
		ix.cleanup()
		return nil, err
	}
	if err := ix.base.Load(ctx, nil); err != nil {
		ix.cleanup()
		return nil, fmt.Errorf("baseline: %w", err)
	}
	files := make([]string, 0, len(sum.Meta.Files))
	for p := range sum.Meta.Files {
		files = append(files, p)
	}
	sort.Strings(files)
	docs := filepath.Join(tmp, "docs.json")
	if err := writeDocs(dir, files, docs); err != nil {
		ix.cleanup()
		return nil, err
	}
	for _, s := range []string{
		"CREATE NODE TABLE Doc(id STRING, body STRING, PRIMARY KEY(id))",
		"COPY Doc FROM " + schema.Quote(docs),
		"CALL CREATE_FTS_INDEX('Doc', 'doc_fts', ['body'])",
	} {
		if err := ix.base.Exec(ctx, s); err != nil {
			ix.cleanup()
			return nil, fmt.Errorf("baseline: %.60s: %w", s, err)
		}
	}
	return ix, nil
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
