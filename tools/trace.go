package tools

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// TraceInput is the trace tool's input (the reference tool's names).
type TraceInput struct {
	From     string `json:"from,omitempty" jsonschema:"Source symbol name"`
	FromUID  string `json:"from_uid,omitempty" jsonschema:"Source symbol UID (zero-ambiguity)"`
	FromFile string `json:"from_file,omitempty" jsonschema:"Source file path hint for disambiguation"`
	File     string `json:"file,omitempty" jsonschema:"Alias for from_file"`
	To       string `json:"to,omitempty" jsonschema:"Target symbol name"`
	ToUID    string `json:"to_uid,omitempty" jsonschema:"Target symbol UID (zero-ambiguity)"`
	ToFile   string `json:"to_file,omitempty" jsonschema:"Target file path hint for disambiguation"`
	MaxDepth int    `json:"maxDepth,omitempty" jsonschema:"Maximum path length in hops (default 10, max 30)"`
	Depth    int    `json:"depth,omitempty" jsonschema:"Compatibility alias for maxDepth"`
	Repo     string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// Hop is one step of a traced path: the symbol, and the edge that reached
// it from the previous step (empty on the first).
type Hop struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Label      string  `json:"label"`
	FilePath   string  `json:"filePath"`
	StartLine  int     `json:"startLine"`
	Edge       string  `json:"edge,omitempty"` // CALLS or HAS_METHOD
	Confidence float64 `json:"confidence,omitempty"`
	Line       int     `json:"line,omitempty"` // call site in the previous step
}

// TraceOutput is the shortest directed path between two symbols.
type TraceOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status     string   `json:"status"` // found | no_path | ambiguous
	From       *Symbol  `json:"from,omitempty"`
	To         *Symbol  `json:"to,omitempty"`
	Candidates []Symbol `json:"candidates,omitempty"` // when from or to is ambiguous
	Ambiguous  string   `json:"ambiguous,omitempty"`  // "from" or "to"
	Hops       int      `json:"hops"`
	Path       []Hop    `json:"path"`
	// Confidence is the product of the edges' confidences.
	Confidence float64           `json:"confidence"`
	Notices    []string          `json:"notices,omitempty"`
	Budget     *query.BudgetNote `json:"budget,omitempty"`
}

// Trace finds the shortest directed path from one symbol to another over
// CALLS and HAS_METHOD edges (a class reaches its methods): a breadth-first
// search over the graph snapshot, edges taken in the snapshot's order
// (relationship, then id), so the path is the same on every call.
func Trace(ctx context.Context, ix Index, in TraceInput) (*TraceOutput, error) {
	g := ix.Graph
	if in.MaxDepth != 0 && in.Depth != 0 && in.MaxDepth != in.Depth {
		return nil, inputErr("maxDepth %d and depth %d disagree: give one", in.MaxDepth, in.Depth)
	}
	depth := clamp(max(in.MaxDepth, in.Depth), 10, 1, 30)
	budget, err := in.Budget.tokens(DefaultTraceTokens)
	if err != nil {
		return nil, err
	}
	fromFile, err := alias("from_file", in.FromFile, "file", in.File)
	if err != nil {
		return nil, err
	}
	out := &TraceOutput{Path: []Hop{}}
	from, amb, err := resolveOne(ctx, g, Lookup{Name: in.From, UID: in.FromUID, FilePath: fromFile}, "source symbol")
	if err != nil {
		return nil, err
	}
	if amb != nil {
		defer func() { out.Budget = fit(out, budget, out.shrink, "raise max_tokens, or pick one candidate by uid") }()
		out.Status, out.Candidates, out.Ambiguous = amb.Status, amb.Candidates, "from"
		out.Notices = append(out.Notices, "several symbols match from: pass from_uid or from_file")
		return out, nil
	}
	to, amb, err := resolveOne(ctx, g, Lookup{Name: in.To, UID: in.ToUID, FilePath: in.ToFile}, "target symbol")
	if err != nil {
		return nil, err
	}
	if amb != nil {
		defer func() { out.Budget = fit(out, budget, out.shrink, "raise max_tokens, or pick one candidate by uid") }()
		out.Status, out.Candidates, out.Ambiguous = amb.Status, amb.Candidates, "to"
		out.From = from
		out.Notices = append(out.Notices, "several symbols match to: pass to_uid or to_file")
		return out, nil
	}
	out.From, out.To = from, to
	if from.ID == to.ID {
		out.Status = "found"
		out.Path = []Hop{{ID: from.ID, Name: from.Name, Label: from.Label, FilePath: from.FilePath, StartLine: from.StartLine}}
		out.Confidence = 1
		return out, nil
	}
	path, err := shortestPath(ctx, g, from.ID, to.ID, depth)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if path == nil {
		out.Status = "no_path"
		out.Notices = append(out.Notices, fmt.Sprintf("no call path of at most %d hops from %s to %s (calls the resolver could not link are not in the graph)", depth, from.Name, to.Name))
		return out, nil
	}
	out.Status = "found"
	out.Confidence = 1
	out.Path = append(out.Path, Hop{ID: from.ID, Name: from.Name, Label: from.Label, FilePath: from.FilePath, StartLine: from.StartLine})
	for _, e := range path {
		m := e.Other
		out.Path = append(out.Path, Hop{ID: m.ID, Name: m.Name, Label: m.Label, FilePath: m.FilePath, StartLine: m.StartLine,
			Edge: string(e.Rel), Confidence: e.Confidence, Line: e.Line})
		out.Confidence *= e.Confidence
	}
	out.Hops = len(out.Path) - 1
	return out, nil
}

// maxTraceVisits bounds the nodes one trace visits.
const maxTraceVisits = 200_000

// shortestPath is the edges of a shortest path from → to of at most depth
// hops over CALLS and HAS_METHOD, nil when there is none.
func shortestPath(ctx context.Context, g *query.Snapshot, from, to string, depth int) ([]query.Edge, error) {
	type back struct {
		prev string
		edge query.Edge
	}
	seen := map[string]back{from: {}}
	frontier := []string{from}
	for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var next []string
		for _, id := range frontier {
			es, err := g.Edges(id, true, schema.RelCalls, schema.RelHasMethod)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				if _, ok := seen[e.Other.ID]; ok {
					continue
				}
				seen[e.Other.ID] = back{prev: id, edge: e}
				if e.Other.ID == to {
					var path []query.Edge
					for at := to; at != from; at = seen[at].prev {
						path = append(path, seen[at].edge)
					}
					for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
						path[i], path[j] = path[j], path[i]
					}
					return path, nil
				}
				next = append(next, e.Other.ID)
				if len(seen) > maxTraceVisits {
					return nil, fmt.Errorf("more than %d symbols within %d hops: lower the depth", maxTraceVisits, depth)
				}
			}
		}
		frontier = next
	}
	return nil, nil
}

// shrink cuts an ambiguous trace's candidates (a path is never cut: its
// hops are the answer).
func (o *TraceOutput) shrink() (string, bool) {
	return halve(&o.Candidates, 1, len(o.Candidates), "candidates")
}
