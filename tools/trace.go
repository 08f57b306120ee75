package tools

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
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
	Confidence float64  `json:"confidence"`
	Notices    []string `json:"notices,omitempty"`
}

// Trace finds the shortest directed path from one symbol to another over
// CALLS and HAS_METHOD edges (a class reaches its methods), using Kuzu's
// shortest-path search.
func Trace(ctx context.Context, db Querier, in TraceInput) (*TraceOutput, error) {
	if in.MaxDepth != 0 && in.Depth != 0 && in.MaxDepth != in.Depth {
		return nil, inputErr("maxDepth %d and depth %d disagree: give one", in.MaxDepth, in.Depth)
	}
	depth := clamp(max(in.MaxDepth, in.Depth), 10, 1, 30)
	fromFile, err := alias("from_file", in.FromFile, "file", in.File)
	if err != nil {
		return nil, err
	}
	out := &TraceOutput{Path: []Hop{}}
	from, amb, err := resolveOne(ctx, db, Lookup{Name: in.From, UID: in.FromUID, FilePath: fromFile}, "source symbol")
	if err != nil {
		return nil, err
	}
	if amb != nil {
		out.Status, out.Candidates, out.Ambiguous = amb.Status, amb.Candidates, "from"
		out.Notices = append(out.Notices, "several symbols match from: pass from_uid or from_file")
		return out, nil
	}
	to, amb, err := resolveOne(ctx, db, Lookup{Name: in.To, UID: in.ToUID, FilePath: in.ToFile}, "target symbol")
	if err != nil {
		return nil, err
	}
	if amb != nil {
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
	if !safeLabel(from.Label) || !safeLabel(to.Label) {
		return nil, fmt.Errorf("trace: unknown tables %q, %q", from.Label, to.Label)
	}
	q := fmt.Sprintf("MATCH p = (a:%s)-[:CALLS|HAS_METHOD* SHORTEST 1..%d]->(b:%s) WHERE a.id = %s AND b.id = %s "+
		"RETURN properties(nodes(p), 'id'), properties(nodes(p), 'name'), properties(nodes(p), 'filePath'), properties(nodes(p), 'startLine'), "+
		"properties(rels(p), 'confidence'), properties(rels(p), 'line'), list_transform(nodes(p), x -> label(x)), list_transform(rels(p), x -> label(x)) LIMIT 1",
		from.Label, depth, to.Label, schema.Quote(from.ID), schema.Quote(to.ID))
	res, err := db.Query(ctx, q, nil)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if len(res.Rows) == 0 {
		out.Status = "no_path"
		out.Notices = append(out.Notices, fmt.Sprintf("no call path of at most %d hops from %s to %s (calls the resolver could not link are not in the graph)", depth, from.Name, to.Name))
		return out, nil
	}
	r := res.Rows[0]
	ids, names, files, lines := list(r[0]), list(r[1]), list(r[2]), list(r[3])
	confs, sites, labels, rels := list(r[4]), list(r[5]), list(r[6]), list(r[7])
	out.Status = "found"
	out.Confidence = 1
	for i := range ids {
		h := Hop{ID: str(ids[i]), Name: str(at(names, i)), Label: str(at(labels, i)), FilePath: str(at(files, i)), StartLine: num(at(lines, i))}
		if i > 0 {
			h.Edge, h.Confidence, h.Line = str(at(rels, i-1)), flt(at(confs, i-1)), num(at(sites, i-1))
			out.Confidence *= h.Confidence
		}
		out.Path = append(out.Path, h)
	}
	out.Hops = len(out.Path) - 1
	return out, nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}
