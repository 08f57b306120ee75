package processes

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Node is a symbol as the algorithms see it.
type Node struct {
	ID    string
	Label schema.Label
	Kind  schema.Kind
	Name  string
	// QualifiedName and Doc (the doc comment's first sentence, all that
	// ingest keeps of it: text.FirstSentence) serve the flow descriptions.
	QualifiedName string
	Doc           string
	FilePath      string
	StartLine     int
	Language      string
	Signature     string
	IsExported    bool
	// IsTest is the symbol's stored isTest property (schema.Symbol.IsTest,
	// set by ingest): test code is never an entry point.
	IsTest bool
	// Decorators holds annotation/decorator lines written just above the
	// declaration (`@app.route("/x")`, `@GetMapping`), when known; for C,
	// the registrations of the function in its file ("module_init(f)",
	// ".read = f in struct file_operations", see FromIndex). Used for
	// framework entry points.
	Decorators []string
	// Goroutine is set when the repository starts the symbol as a
	// goroutine somewhere (`go s.runShard(...)`): it begins a concurrent
	// flow of its own.
	Goroutine bool
	// Returned is set when the symbol is a nested function its enclosing
	// function returns (lang.Returned): its flows are the enclosing
	// function's closure flows, so it is no entry point of its own.
	Returned bool
}

// Edge is a directed relationship between two symbols.
type Edge struct {
	From, To   string
	Type       schema.RelType // CALLS, EXTENDS or IMPLEMENTS
	Confidence float64
	// Reason is why resolution drew the edge (schema.Reason*); a CALLS
	// edge with reason "reference" is a callback named, not a call made:
	// it ties communities together but is never a step of a flow.
	Reason string
	// Later marks a call made inside a func literal the caller returns
	// (lang.CallSite kind "closure"): it runs when the returned func is
	// called — per request for a middleware — so a flow through the
	// caller does not take it; the caller's closure flow starts with it.
	Later bool
}

// Graph is the symbol graph: nodes by dense index, adjacency by index.
type Graph struct {
	Nodes []Node
	index map[string]int
	out   [][]arc // CALLS successors
	in    [][]arc // CALLS predecessors
	// und is the undirected weighted graph of every edge: each node's
	// neighbours sorted by index, weights of parallel edges summed. A
	// sorted slice per node, not a map: on the Linux kernel (a million
	// symbols) the maps alone took hundreds of MiB.
	und [][]wedge
}

type arc struct {
	to       int
	conf     float64
	callback bool // a function named as a value, not called here
	later    bool // called inside a func literal the caller returns (Edge.Later)
}

// NewGraph builds a Graph. Nodes are sorted by id so that every algorithm
// downstream sees the same order whatever order the caller used; edges
// whose endpoints are not nodes are ignored.
func NewGraph(nodes []Node, edges []Edge) *Graph {
	return newGraph(append([]Node(nil), nodes...), append([]Edge(nil), edges...))
}

// newGraph is NewGraph on slices it may reorder and keep (FromIndex's own:
// no copy of a million nodes).
func newGraph(ns []Node, es []Edge) *Graph {
	sortByID(ns)
	g := &Graph{Nodes: ns, index: make(map[string]int, len(ns))}
	for i, n := range ns {
		g.index[n.ID] = i
	}
	g.out = make([][]arc, len(ns))
	g.in = make([][]arc, len(ns))
	g.und = make([][]wedge, len(ns))
	// The edges in order of their ends' indexes (the ids' order: the
	// nodes are sorted by id), then type, then input order; an edge with
	// an end that is not a node, or a loop, is left out. Sorted as
	// integers, not ids (kubernetes: 0.17 s of string comparisons).
	type endsOf struct{ a, b, i int32 }
	ends := make([]endsOf, 0, len(es))
	for i, e := range es {
		a, ok1 := g.index[e.From]
		b, ok2 := g.index[e.To]
		if ok1 && ok2 && a != b {
			ends = append(ends, endsOf{int32(a), int32(b), int32(i)})
		}
	}
	slices.SortFunc(ends, func(x, y endsOf) int {
		// Not one cmp.Or of the four: its arguments are all evaluated,
		// the types' (two reads far apart in es) at every comparison.
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		if c := cmp.Compare(x.b, y.b); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(es[x.i].Type, es[y.i].Type), cmp.Compare(x.i, y.i))
	})
	// The CALLS edges of one pair of ends are next to each other in ends:
	// the first makes the arcs, the others (parallel calls) only amend
	// them. callA, callB are the ends of the last arcs made, callAt the
	// out arc's index in g.out[callA] (a map of pairs had taken the
	// kernel's 2.8M calls some hundreds of MB).
	callA, callB, callAt := -1, -1, 0
	for _, en := range ends {
		e, a, b := &es[en.i], int(en.a), int(en.b)
		w := e.Confidence
		if w <= 0 {
			w = 1
		}
		if e.Type == schema.RelCalls {
			cb := e.Reason == schema.ReasonReference
			if a == callA && b == callB { // keep the best confidence of parallel call edges; a real call beats a callback
				i := callAt
				if !e.Later && g.out[a][i].later { // a call made now as well: not only later
					g.out[a][i].later = false
					for j := range g.in[b] {
						if g.in[b][j].to == a {
							g.in[b][j].later = false
						}
					}
				}
				if w > g.out[a][i].conf || g.out[a][i].callback && !cb {
					g.out[a][i].conf, g.out[a][i].callback = max(w, g.out[a][i].conf), g.out[a][i].callback && cb
					for j := range g.in[b] {
						if g.in[b][j].to == a {
							g.in[b][j].conf, g.in[b][j].callback = g.out[a][i].conf, g.out[a][i].callback
						}
					}
				}
			} else {
				callA, callB, callAt = a, b, len(g.out[a])
				g.out[a] = append(g.out[a], arc{b, w, cb, e.Later})
				g.in[b] = append(g.in[b], arc{a, w, cb, e.Later})
			}
		}
		g.und[a] = append(g.und[a], wedge{b, w})
		g.und[b] = append(g.und[b], wedge{a, w})
	}
	for i, ws := range g.und {
		g.und[i] = mergeWedges(ws)
	}
	return g
}

// sortByID sorts ns by id: the order of indexes sorted by the ids, then
// each node moved once to its place (cycle by cycle), rather than the
// nodes themselves swapped about by the sort (a Node is some 180 bytes:
// kubernetes' 50k nodes, 75 ms of a one-body update's processes phase).
// Nodes of one id keep no particular order, as with a sort of the nodes.
func sortByID(ns []Node) {
	order := make([]int32, len(ns))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(ns[a].ID, ns[b].ID) })
	// ns[i] must become the node at order[i]: follow each cycle of the
	// permutation, marking the places done by setting order[i] = i.
	for i := range ns {
		if order[i] == int32(i) {
			continue
		}
		tmp := ns[i]
		j := i
		for {
			k := int(order[j])
			order[j] = int32(j)
			if k == i {
				ns[j] = tmp
				break
			}
			ns[j] = ns[k]
			j = k
		}
	}
}

// mergeWedges sorts a node's neighbours by index and sums the weights of
// repeated ones, in the order they were added (a stable sort), so the sums
// do not depend on the sort.
func mergeWedges(ws []wedge) []wedge {
	if len(ws) < 2 {
		return ws
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].to < ws[b].to })
	out := ws[:1]
	for _, e := range ws[1:] {
		if last := &out[len(out)-1]; last.to == e.to {
			last.w += e.w
			continue
		}
		out = append(out, e)
	}
	return slices.Clip(out)
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.Nodes) }

// Index returns the dense index of a node id.
func (g *Graph) Index(id string) (int, bool) {
	i, ok := g.index[id]
	return i, ok
}
