package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/query"
)

// QueryInput is the query tool's input (the reference tool's names).
type QueryInput struct {
	SearchQuery    string `json:"search_query" jsonschema:"Natural language or keyword search query"`
	TaskContext    string `json:"task_context,omitempty" jsonschema:"What you are working on (e.g. adding OAuth support). Helps ranking."`
	Goal           string `json:"goal,omitempty" jsonschema:"What you want to find (e.g. existing auth validation logic). Helps ranking."`
	Limit          int    `json:"limit,omitempty" jsonschema:"Max processes to return (default 5, max 100)"`
	MaxSymbols     int    `json:"max_symbols,omitempty" jsonschema:"Max symbols per process, and max definitions (default 10, max 200)"`
	IncludeContent bool   `json:"include_content,omitempty" jsonschema:"Include the source text of matching symbols (default false)"`
	Repo           string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
}

// ContextWeight is the weight of the task_context + goal ranked list in
// the fusion with the search_query list (which has weight 1): a hint that
// reorders near-ties and adds context-only hits below the query's own.
const ContextWeight = 0.5

// Query answers the query tool: query.Search on search_query, and, when
// task_context or goal is given, a second search on their words whose
// ranked list is fused with the first by weighted reciprocal rank fusion
// (weights 1 and ContextWeight). Results are grouped into processes, at
// most limit processes with at most max_symbols symbols each.
//
// pack is the index's search pack (the keyword engine and the graph behind
// search); db supplies source text for include_content.
func Query(ctx context.Context, db Querier, pack *query.Pack, in QueryInput, vectors query.VectorFunc) (*query.Result, error) {
	for _, f := range []struct{ name, v string }{{"search_query", in.SearchQuery}, {"task_context", in.TaskContext}, {"goal", in.Goal}} {
		if err := checkLen(f.name, f.v, MaxTextBytes); err != nil {
			return nil, err
		}
	}
	q := strings.TrimSpace(in.SearchQuery)
	if q == "" {
		return nil, inputErr("search_query is required: say what you are looking for, e.g. \"parse config file\"")
	}
	limit := clamp(in.Limit, 5, 1, 100)
	maxSym := clamp(in.MaxSymbols, 10, 1, 200)
	// Hits searched: enough to fill limit processes and max_symbols
	// definitions; more costs expansion and grouping time (measured: 50
	// hits take ~1.5x the time of 20 on prometheus).
	hits := min(max(limit*4, maxSym, 20), 200)
	opts := query.Options{Limit: hits, MaxProcesses: limit, Content: in.IncludeContent, Vectors: vectors, Source: query.DBSource(db)}
	res, err := query.Search(ctx, pack, q, opts)
	if err != nil {
		if errors.Is(err, query.ErrNoVectors) || errors.Is(err, query.ErrNoPack) {
			return nil, err
		}
		return nil, fmt.Errorf("search: %w", err)
	}
	extra := strings.TrimSpace(strings.TrimSpace(in.TaskContext) + " " + strings.TrimSpace(in.Goal))
	if extra != "" {
		cres, err := query.Search(ctx, pack, extra, opts)
		if err != nil {
			return nil, fmt.Errorf("search task_context/goal: %w", err)
		}
		res = fuseContext(res, cres, hits, limit)
		res.Notices = append(res.Notices, "ranked with task_context/goal")
	}
	capResult(res, limit, maxSym)
	return res, nil
}

// ranked lists a result's hits best first with their memberships.
func ranked(r *query.Result) ([]query.Hit, []query.Membership, map[string]query.Process) {
	byID := map[string]query.Hit{}
	var members []query.Membership
	procs := map[string]query.Process{}
	for _, p := range r.Processes {
		procs[p.ID] = p
	}
	for _, ps := range r.ProcessSymbols {
		byID[ps.ID] = ps.Hit
		members = append(members, query.Membership{SymbolID: ps.ID, ProcessID: ps.ProcessID, Step: ps.StepIndex})
	}
	for _, h := range r.Definitions {
		byID[h.ID] = h
	}
	hits := make([]query.Hit, 0, len(byID))
	for _, h := range byID {
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits, members, procs
}

// fuseContext fuses the main and the context result by weighted RRF and
// regroups the fused hits into processes.
func fuseContext(main, extra *query.Result, n, maxProcesses int) *query.Result {
	mh, mm, mp := ranked(main)
	ch, cm, cp := ranked(extra)
	score := map[string]float64{}
	hit := map[string]query.Hit{}
	for i, h := range mh {
		score[h.ID] += 1 / float64(query.RRFK+i+1)
		hit[h.ID] = h
	}
	for i, h := range ch {
		score[h.ID] += ContextWeight / float64(query.RRFK+i+1)
		if _, ok := hit[h.ID]; !ok {
			hit[h.ID] = h
		}
	}
	ceiling := (1 + ContextWeight) / float64(query.RRFK+1)
	hits := make([]query.Hit, 0, len(hit))
	for id, h := range hit {
		h.Score = score[id] / ceiling
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	for id, p := range cp {
		if _, ok := mp[id]; !ok {
			mp[id] = p
		}
	}
	out := *main
	out.Processes, out.ProcessSymbols, out.Definitions = query.Group(hits, append(mm, cm...), mp, maxProcesses)
	return &out
}

// capResult keeps the best limit processes, at most maxSym symbols of
// each, and at most maxSym definitions, saying what it cut.
func capResult(r *query.Result, limit, maxSym int) {
	cut := 0
	if len(r.Processes) > limit {
		cut = len(r.Processes) - limit
		r.Processes = r.Processes[:limit]
	}
	keep := map[string]bool{}
	for _, p := range r.Processes {
		keep[p.ID] = true
	}
	per := map[string]int{}
	ps := r.ProcessSymbols[:0]
	for _, s := range r.ProcessSymbols {
		if keep[s.ProcessID] && per[s.ProcessID] < maxSym {
			per[s.ProcessID]++
			ps = append(ps, s)
		}
	}
	r.ProcessSymbols = ps
	dcut := 0
	if len(r.Definitions) > maxSym {
		dcut = len(r.Definitions) - maxSym
		r.Definitions = r.Definitions[:maxSym]
	}
	if cut > 0 || dcut > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d more processes and %d more definitions matched: raise limit / max_symbols to see them", cut, dcut))
	}
}

// QueryOutput is the query tool's output: query.Result, whose JSON uses
// the reference tool's field names (processes, process_symbols,
// definitions).
type QueryOutput = query.Result
