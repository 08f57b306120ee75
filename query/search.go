package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// ErrNoVectors is returned by a vector-mode search when no vector
// retriever is available (the index has no embeddings).
var ErrNoVectors = errors.New("the index has no embeddings: run `gitnexus analyze` without --skip-embeddings, or search with --mode keyword")

// VectorFunc is the vector retriever: at most k nodes nearest to the query,
// best first, by id with their similarity. Hybrid and vector searches use
// it; nil means the index has none.
type VectorFunc func(ctx context.Context, query string, k int) ([]Scored, error)

// Scored is a node id with a retriever's score.
type Scored struct {
	ID    string
	Score float64
}

// Search answers q from the index's search pack. See doc.go for the
// ranking. The query is parsed once (Parse); keyword retrieval, graph
// expansion, process grouping and source text (opts.Content) read the
// pack; vectors (opts.Vectors) are the only other source. A nil pack is
// ErrNoPack.
func Search(ctx context.Context, pack *Pack, q string, opts Options) (*Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if pack == nil {
		return nil, ErrNoPack
	}
	if strings.TrimSpace(q) == "" {
		return nil, errors.New("empty query: say what you are looking for, e.g. \"parse config file\"")
	}
	parsed := Parse(q)
	res := &Result{
		Query:          q,
		Mode:           opts.Mode,
		Tokens:         append([]string{}, parsed.Words...),
		Processes:      []Process{},
		ProcessSymbols: []ProcessSymbol{},
		Definitions:    []Hit{},
		Files:          []RankedFile{},
	}

	// 1. Retrieve.
	t0 := time.Now()
	defer func() { slog.Debug("search done", "took", time.Since(t0)) }()
	var lists []Ranked
	found := map[string]Hit{}
	useKeyword := opts.Mode != ModeVector
	useVector := opts.Mode != ModeKeyword
	if useVector && opts.Vectors == nil {
		if opts.Mode == ModeVector {
			return nil, ErrNoVectors
		}
		res.Notices = append(res.Notices, "no embeddings in this index: keyword search only")
		useVector = false
	}
	if useKeyword {
		if len(parsed.Words) == 0 && !useVector {
			res.Notices = append(res.Notices, "the query has no searchable words (only stop words or symbols)")
			return res, nil
		}
		hits, err := pack.keyword(parsed, opts)
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		lists = append(lists, rankedOf("keyword", hits, found))
		slog.Debug("keyword search", "hits", len(hits), "at", time.Since(t0))
	}
	if useVector {
		hits, err := vectorHits(ctx, pack, parsed.Raw, opts)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		lists = append(lists, rankedOf("vector", hits, found))
	}

	// 2. Fuse; scores are normalized so that first in every list is 1.
	fused := Fuse(lists...)
	norm := MaxFusedScore(len(lists))
	hits := make([]Hit, 0, len(fused))
	for _, f := range fused {
		h := found[f.ID]
		h.Score = f.Score / norm
		h.Matched = matchedOf(f.Sources)
		hits = append(hits, h)
	}

	// 3. Expand over the graph, then prefer definitions to files and code
	// to tests.
	if opts.Ranking.ExpandSeeds > 0 && opts.Ranking.ExpandHops > 0 {
		nf := func(_ context.Context, ids []string, rels []schema.RelType, fanout int) ([]Neighbor, error) {
			return pack.neighbors(ids, rels, fanout, opts.Files)
		}
		hits, err = Expand(ctx, hits, *opts.Ranking, nf, opts.keep)
		if err != nil {
			return nil, fmt.Errorf("graph expansion: %w", err)
		}
		slog.Debug("graph expansion", "hits", len(hits), "at", time.Since(t0))
	}
	for i := range hits {
		if hits[i].Label == string(schema.LabelFile) {
			hits[i].Score *= opts.Ranking.FileFactor
		}
		if opts.Ranking.TestFactor > 0 && hits[i].IsTest {
			hits[i].Score *= opts.Ranking.TestFactor
		}
	}
	// The files, ranked by their best hit — a class matching strongly
	// makes its file relevant even where the method is the better symbol
	// to answer with — before types are demoted below their methods.
	res.Files = rankFiles(hits, opts.MinScore, opts.Limit)
	if f := opts.Ranking.TypeFactor; f > 0 && f != 1 {
		// in full for a task in prose, not at all for a name looked up
		long := bodyScale(len(parsed.Words), opts.Ranking.BodyWords)
		f = 1 - (1-f)*long*long
		for i := range hits {
			if hits[i].Label == string(schema.LabelClass) || hits[i].Label == string(schema.LabelInterface) {
				hits[i].Score *= f
			}
		}
	}
	hits = derefSorted(ptrs(hits))

	// 4. Cut.
	kept := hits[:0]
	for _, h := range hits {
		if h.Score >= opts.MinScore && len(kept) < opts.Limit {
			kept = append(kept, h)
		}
	}
	hits = kept
	if len(hits) == 0 && opts.filtered() {
		res.Notices = append(res.Notices, "no hit passed the filters (--lang, --kind, --name, --path)")
	}
	if opts.Content && len(hits) > 0 {
		if err := pack.fillSource(hits); err != nil {
			return nil, err
		}
	}

	// 5. Group by process.
	members, procs, err := pack.processesOf(hits)
	if err != nil {
		return nil, fmt.Errorf("process lookup: %w", err)
	}
	slog.Debug("process lookup", "memberships", len(members), "at", time.Since(t0))
	res.Hits = hits
	res.Processes, res.ProcessSymbols, res.Definitions = Group(hits, members, procs, opts.MaxProcesses)
	return res, nil
}

// vectorHits runs the vector retriever and turns its ids into hits
// through the snapshot (ids the pack does not know are dropped), filtered,
// at most opts.TopK.
func vectorHits(ctx context.Context, pack *Pack, q string, opts Options) ([]Hit, error) {
	k := opts.TopK
	if opts.filtered() {
		k = min(opts.TopK*8, MaxTopK) // room for what the filters drop
	}
	scored, err := opts.Vectors(ctx, q, k)
	if err != nil {
		return nil, err
	}
	var out []Hit
	for _, sc := range scored {
		h, ok, err := pack.node(sc.ID)
		if err != nil {
			return nil, err
		}
		if !ok || !opts.keep(&h) {
			continue
		}
		h.Score = sc.Score
		out = append(out, h)
		if len(out) == opts.TopK {
			break
		}
	}
	return out, nil
}

// rankedOf records hits in found (first retriever wins the metadata) and
// returns their ids as a ranked list.
func rankedOf(name string, hits []Hit, found map[string]Hit) Ranked {
	r := Ranked{Name: name, IDs: make([]string, len(hits))}
	for i, h := range hits {
		r.IDs[i] = h.ID
		if _, ok := found[h.ID]; !ok {
			found[h.ID] = h
		}
	}
	return r
}

func matchedOf(sources []string) string {
	if len(sources) > 1 {
		return "both"
	}
	if len(sources) == 1 {
		return sources[0]
	}
	return ""
}

func ptrs(hs []Hit) []*Hit {
	out := make([]*Hit, len(hs))
	for i := range hs {
		out[i] = &hs[i]
	}
	return out
}

// rankFiles returns the files of hits ranked by their best hit's score
// (ties by path), those scoring at least minScore, at most limit.
func rankFiles(hits []Hit, minScore float64, limit int) []RankedFile {
	best := map[string]float64{}
	for _, h := range hits {
		if h.FilePath != "" && h.Score >= minScore && h.Score > best[h.FilePath] {
			best[h.FilePath] = h.Score
		}
	}
	out := make([]RankedFile, 0, len(best))
	for p, sc := range best {
		out = append(out, RankedFile{FilePath: p, Score: sc})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].FilePath < out[j].FilePath
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
