package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// ErrNoVectors is returned by a vector-mode search when no vector
// retriever is available (the index has no embeddings).
var ErrNoVectors = errors.New("the index has no embeddings: run `gitnexus analyze` without --skip-embeddings, or search with --mode keyword")

// VectorFunc is the vector retriever: the k symbols nearest to the query,
// best first, already filtered by keep. Hybrid and vector searches use it;
// nil means the index has none.
type VectorFunc func(ctx context.Context, query string, k int, keep func(*Hit) bool) ([]Hit, error)

// Search answers q over the index db. See doc.go for the ranking.
func Search(ctx context.Context, db *graph.DB, q string, opts Options) (*Result, error) {
	return SearchWith(ctx, db, q, opts)
}

// SearchWith is Search over any Querier (a *graph.Build before commit, a
// test database).
func SearchWith(ctx context.Context, db Querier, q string, opts Options) (*Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Pack != nil && opts.Snapshot == nil {
		opts.Snapshot = opts.Pack.snap
	}
	if db == nil && (opts.Pack == nil || opts.Files || opts.Content) {
		return nil, errors.New("internal error: a search without a database needs a Pack and neither Files nor Content")
	}
	res := &Result{
		Query:          q,
		Mode:           opts.Mode,
		Tokens:         text.Tokens(q),
		Processes:      []Process{},
		ProcessSymbols: []ProcessSymbol{},
		Definitions:    []Hit{},
	}
	if res.Tokens == nil {
		res.Tokens = []string{}
	}
	if strings.TrimSpace(q) == "" {
		return nil, errors.New("empty query: say what you are looking for, e.g. \"parse config file\"")
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
		words := res.Tokens
		if opts.Ranking.Phrases >= 2 && len(words) > 0 {
			words = append(append([]string(nil), words...), text.Phrases(q, opts.Ranking.Phrases)...)
		}
		ftsq := text.FTSQuery(words)
		prefix := lastWord(q, opts.Ranking.PrefixMin)
		if opts.Ranking.PrefixWeight <= 0 {
			prefix = ""
		}
		if ftsq == "" && !useVector {
			res.Notices = append(res.Notices, "the query has no searchable words (only stop words or symbols)")
			return res, nil
		}
		hits, err := keywordSearch(ctx, db, ftsq, prefix, opts)
		if errors.Is(err, errNoIndexes) && opts.defaultPlan {
			// An index built before SearchTable existed.
			slog.Debug("no search table, using the per-table full-text indexes")
			fb := opts
			fb.Plan = FallbackPlan()
			hits, err = keywordSearch(ctx, db, ftsq, prefix, fb)
		}
		if err != nil {
			return nil, err
		}
		lists = append(lists, rankedOf("keyword", hits, found))
		slog.Debug("keyword search", "hits", len(hits), "at", time.Since(t0))
	}
	if useVector {
		hits, err := opts.Vectors(ctx, q, opts.TopK, opts.keep)
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
		nf := func(ctx context.Context, ids []string, rels []schema.RelType, fanout int) ([]Neighbor, error) {
			if opts.Snapshot != nil {
				return opts.Snapshot.neighbors(ids, rels, fanout, opts.Files), nil
			}
			return neighbors(ctx, db, ids, rels, fanout, opts.Files)
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
		if opts.Ranking.TestFactor > 0 && schema.IsTestPath(hits[i].FilePath) {
			hits[i].Score *= opts.Ranking.TestFactor
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
	if opts.Content {
		if err := fillContent(ctx, db, hits); err != nil {
			return nil, err
		}
	}

	// 5. Group by process.
	var members []Membership
	var procs map[string]Process
	if opts.Snapshot != nil {
		members, procs = opts.Snapshot.processesOf(hits)
	} else if members, procs, err = processesOf(ctx, db, hits); err != nil {
		return nil, err
	}
	slog.Debug("process lookup", "memberships", len(members), "at", time.Since(t0))
	res.Processes, res.ProcessSymbols, res.Definitions = Group(hits, members, procs, opts.MaxProcesses)
	return res, nil
}

// lastWord is the query as one lower-case [a-z0-9] word when the query is
// a single identifier ("validatePass" → "validatepass"), perhaps one being
// typed. "" for a query of several words (completing the last of them
// rewards names that merely start with a common word), for a word shorter
// than min, or when min < 1.
func lastWord(q string, min int) string {
	segs := text.Segments(q)
	if min < 1 || len(segs) != 1 {
		return ""
	}
	w := strings.Join(text.SplitIdentifier(segs[len(segs)-1]), "")
	if len(w) < min {
		return ""
	}
	return w
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
