package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// Querier runs Cypher: *graph.DB and *graph.Build both are one.
type Querier interface {
	Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// Index is one full-text index the keyword retriever queries, with the
// weight its BM25 score carries when the indexes of a table are combined.
type Index struct {
	Table  schema.Label
	Name   string
	Weight float64
}

// Weights of the SearchTable indexes (see doc.go for how they were
// measured): identifier words dominate, signature and doc comment count
// half as much.
var (
	WeightIdent = 1.0
	WeightDoc   = 0.5
)

// DefaultPlan is what Search queries: the two SearchTable indexes and,
// used only with Options.Files, the File index of schema.FTSIndexes.
func DefaultPlan() []Index {
	out := []Index{
		{Table: SearchTable, Name: IndexIdent, Weight: WeightIdent},
		{Table: SearchTable, Name: IndexDoc, Weight: WeightDoc},
	}
	if ix, ok := schema.FTSIndexOf(schema.LabelFile); ok {
		out = append(out, Index{Table: ix.Table, Name: ix.Name, Weight: 1})
	}
	return out
}

// FallbackPlan is the per-table indexes with weight 1: what an index
// without SearchTable (built before BuildIndexes ran) offers.
func FallbackPlan() []Index {
	var out []Index
	for _, l := range schema.SymbolLabels {
		ix := schema.SymbolFTSIndex(l)
		out = append(out, Index{Table: ix.Table, Name: ix.Name, Weight: 1})
	}
	for _, ix := range schema.FTSIndexes {
		out = append(out, Index{Table: ix.Table, Name: ix.Name, Weight: 1})
	}
	return out
}

// errNoIndexes says that no index of the plan exists.
var errNoIndexes = errors.New("none of the full-text indexes of the search plan exists")

// ftsAllMatches is the top-k asked of QUERY_FTS_INDEX: more than any
// index holds, so that it returns every match (see queryIndex).
const ftsAllMatches = 1 << 30

// parallelIndexes bounds the full-text queries in flight (graph.DB opens 4
// connections by default).
const parallelIndexes = 4

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// indexHit is one row of one index.
type indexHit struct {
	hit  Hit
	bm25 float64
}

// keywordSearch queries every index of the plan in parallel with the
// full-text query string ftsq (text.FTSQuery output: [a-z ] only) and
// returns the hits ranked by their combined score, filtered, at most
// opts.TopK. When prefix is not "" (a [a-z0-9] word), symbols whose name
// starts with it also score (see prefixSearch). A plan index that does not
// exist in the database is skipped (an index built by an older gitnexus);
// errNoIndexes when none exists; any other error fails the search.
func keywordSearch(ctx context.Context, q Querier, ftsq, prefix string, opts Options) ([]Hit, error) {
	if ftsq == "" {
		return nil, nil
	}
	if strings.Trim(ftsq, "abcdefghijklmnopqrstuvwxyz ") != "" || strings.Trim(prefix, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		// graph/text guarantees this; checked again because the strings
		// are inlined into Cypher literals.
		return nil, fmt.Errorf("internal error: unsafe full-text query %q / %q", ftsq, prefix)
	}
	top := opts.TopK
	if opts.filtered() {
		top = min(opts.TopK*8, MaxTopK)
	}
	var plan []Index
	for _, ix := range opts.Plan {
		if ix.Table == schema.LabelFile && !opts.Files {
			continue
		}
		if !identRE.MatchString(string(ix.Table)) || !identRE.MatchString(ix.Name) {
			return nil, fmt.Errorf("bad index %s.%s in search plan", ix.Table, ix.Name)
		}
		if ix.Weight > 0 {
			plan = append(plan, ix)
		}
	}
	lists := make([][]indexHit, len(plan))
	errs := make([]error, len(plan))
	sem := make(chan struct{}, parallelIndexes)
	var wg sync.WaitGroup
	for i, ix := range plan {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if opts.Pack != nil && opts.Pack.covers(ix) {
				lists[i], errs[i] = opts.Pack.queryIndex(ix, ftsq, top)
				return
			}
			if q == nil {
				errs[i] = fmt.Errorf("index %s.%s is not in the pack and no database is open", ix.Table, ix.Name)
				return
			}
			lists[i], errs[i] = queryIndex(ctx, q, ix, ftsq, top)
			if errs[i] != nil && ctx.Err() == nil && !missingIndex(errs[i]) {
				// Kuzu 0.11.3 now and then fails a full-text query with
				// an internal error ("unordered_map::at") that the same
				// query does not repeat: try once more.
				lists[i], errs[i] = queryIndex(ctx, q, ix, ftsq, top)
			}
		}()
	}
	wg.Wait()
	found := 0
	for i, err := range errs {
		switch {
		case err == nil:
			found++
		case missingIndex(err):
			slog.Debug("full-text index missing, skipped", "table", plan[i].Table, "index", plan[i].Name)
		default:
			return nil, fmt.Errorf("full-text search %s: %w", plan[i].Name, err)
		}
	}
	if found == 0 && len(plan) > 0 {
		return nil, errNoIndexes
	}
	hits := combine(plan, lists, opts.Ranking.Combine)
	if prefix != "" && opts.Ranking.PrefixWeight > 0 {
		var err error
		if hits, err = prefixSearch(ctx, q, opts.Pack, prefix, plan, hits, opts.Ranking.PrefixWeight); err != nil {
			return nil, err
		}
	}
	kept := hits[:0]
	for _, h := range hits {
		if opts.keep(&h) {
			h.Matched = "keyword"
			kept = append(kept, h)
		}
	}
	if len(kept) > opts.TopK {
		kept = kept[:opts.TopK]
	}
	return kept, nil
}

// prefixMatches bounds the symbols a name prefix may match.
const prefixMatches = 50

// prefixSearch completes a partial identifier: symbols whose lower-cased
// name starts with prefix (the query's last word, joined: "validatePass" →
// "validatepass") gain weight × the best full-text score, so that the
// symbol being typed ranks near the top; shorter names first when more than
// prefixMatches match. It is a scan of the symbol names, not a full-text
// query: Kuzu's own "term*" wildcard crashes it (see text.FTSQuery).
func prefixSearch(ctx context.Context, q Querier, pack *Pack, prefix string, plan []Index, hits []Hit, weight float64) ([]Hit, error) {
	tables := map[schema.Label]bool{}
	var order []schema.Label
	for _, ix := range plan {
		if ix.Table != schema.LabelFile && !tables[ix.Table] {
			tables[ix.Table] = true
			order = append(order, ix.Table)
		}
	}
	best := 1.0
	if len(hits) > 0 {
		best = hits[0].Score
	}
	byID := map[string]int{}
	for i, h := range hits {
		byID[h.ID] = i
	}
	for _, t := range order {
		var matches []Hit
		if pack != nil && t == SearchTable {
			matches = pack.prefixHits(prefix)
		} else {
			var err error
			if matches, err = prefixRows(ctx, q, t, prefix); err != nil {
				return nil, err
			}
		}
		for _, h := range matches {
			if i, ok := byID[h.ID]; ok {
				hits[i].Score += weight * best
				continue
			}
			byID[h.ID] = len(hits)
			h.Score = weight * best
			hits = append(hits, h)
		}
	}
	return derefSorted(ptrs(hits)), nil
}

// prefixRows is the name scan of prefixSearch on the database: table t's
// symbols whose lower-cased name starts with prefix, shortest names first,
// then by id, at most prefixMatches; none when t does not exist.
func prefixRows(ctx context.Context, q Querier, t schema.Label, prefix string) ([]Hit, error) {
	if q == nil {
		return nil, fmt.Errorf("name prefix search on %s needs the database", t)
	}
	label := "'" + string(t) + "'"
	if !t.IsSymbol() {
		label = "n.label"
	}
	stmt := fmt.Sprintf("MATCH (n:%s) WHERE lower(n.name) STARTS WITH '%s' "+
		"RETURN n.id, n.name, n.kind, n.filePath, n.startLine, n.endLine, n.language, %s ORDER BY size(n.name), n.id LIMIT %d",
		t, prefix, label, prefixMatches)
	res, err := q.Query(ctx, stmt, nil)
	if err != nil {
		if missingIndex(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("name prefix search: %w", err)
	}
	var out []Hit
	for _, row := range res.Rows {
		if len(row) < 8 {
			continue
		}
		out = append(out, Hit{ID: str(row[0]), Name: str(row[1]), Kind: str(row[2]), FilePath: str(row[3]),
			StartLine: num(row[4]), EndLine: num(row[5]), Language: str(row[6]), Label: str(row[7])})
	}
	return out, nil
}

// missingIndex reports whether err says the index does not exist.
func missingIndex(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "doesn't have an index") ||
		(strings.Contains(msg, "Table ") && strings.Contains(msg, "does not exist"))
}

// queryIndex runs one full-text index. Its table is File, a symbol table,
// or a search table: any node table whose rows carry the symbol columns
// id, name, kind, filePath, startLine, endLine, language and label (the
// symbol table the row stands for), so that one index can hold every
// symbol with one set of BM25 statistics.
func queryIndex(ctx context.Context, q Querier, ix Index, ftsq string, top int) ([]indexHit, error) {
	ret := "node.id, node.name, node.kind, node.filePath, node.startLine, node.endLine, node.language, score"
	switch {
	case ix.Table == schema.LabelFile:
		ret = "node.id, node.name, 'file', node.path, 1, node.lines, node.language, score"
	case !ix.Table.IsSymbol():
		ret += ", node.label"
	}
	// Kuzu's own top-k cuts among equal scores arbitrarily (a symbol in a
	// tie at the cut was in one run's list and not the next one's, and with
	// its other index's score it ranked sixth or not at all): score every
	// match and cut here, ties broken by id, so a search always ranks alike.
	// On prometheus this costs about 2 ms a statement.
	stmt := fmt.Sprintf("CALL QUERY_FTS_INDEX('%s', '%s', '%s', top := %d) WITH node, score "+
		"ORDER BY score DESC, node.id LIMIT %d RETURN %s",
		ix.Table, ix.Name, ftsq, ftsAllMatches, top, ret)
	res, err := q.Query(ctx, stmt, nil)
	if err != nil {
		return nil, err
	}
	out := make([]indexHit, 0, len(res.Rows))
	for _, row := range res.Rows {
		if len(row) < 8 {
			return nil, fmt.Errorf("%s: short row %v", ix.Name, row)
		}
		h := Hit{
			ID:        str(row[0]),
			Name:      str(row[1]),
			Kind:      str(row[2]),
			Label:     string(ix.Table),
			FilePath:  str(row[3]),
			StartLine: num(row[4]),
			EndLine:   num(row[5]),
			Language:  str(row[6]),
		}
		if len(row) > 8 {
			h.Label = str(row[8])
		}
		out = append(out, indexHit{hit: h, bm25: flt(row[7])})
	}
	return out, nil
}

// combine merges the per-index lists into one ranked list. Indexes of
// the same table are merged by Combine ("sum": Σ weight × BM25; "rrf":
// Σ weight / (RRFK + rank)); tables are then merged by that score, which
// for "sum" compares BM25 across tables (each table's index has its own
// statistics; measured to work better than per-table rank fusion, see
// doc.go).
func combine(plan []Index, lists [][]indexHit, how string) []Hit {
	byID := map[string]*Hit{}
	var order []*Hit
	for i, l := range lists {
		// Kuzu returns index rows unordered, and ties in no fixed order:
		// break them by id so that a search always ranks alike.
		sort.SliceStable(l, func(a, b int) bool {
			if l[a].bm25 != l[b].bm25 {
				return l[a].bm25 > l[b].bm25
			}
			return l[a].hit.ID < l[b].hit.ID
		})
		for rank, ih := range l {
			var s float64
			if how == "rrf" {
				s = plan[i].Weight / float64(RRFK+rank+1)
			} else {
				s = plan[i].Weight * ih.bm25
			}
			h := byID[ih.hit.ID]
			if h == nil {
				nh := ih.hit
				h = &nh
				byID[nh.ID] = h
				order = append(order, h)
			}
			h.Score += s
		}
	}
	return derefSorted(order)
}

// Result cells as Go values.
var (
	str = graph.String
	num = graph.Int
	flt = graph.Float
)
