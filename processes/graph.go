package processes

import (
	"sort"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Node is a symbol as the algorithms see it.
type Node struct {
	ID         string
	Label      schema.Label
	Kind       schema.Kind
	Name       string
	FilePath   string
	StartLine  int
	Language   string
	Signature  string
	IsExported bool
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
}

// Graph is the symbol graph: nodes by dense index, adjacency by index.
type Graph struct {
	Nodes []Node
	index map[string]int
	out   [][]arc // CALLS successors
	in    [][]arc // CALLS predecessors
	und   []map[int]float64
}

type arc struct {
	to       int
	conf     float64
	callback bool // a function named as a value, not called here
}

// NewGraph builds a Graph. Nodes are sorted by id so that every algorithm
// downstream sees the same order whatever order the caller used; edges
// whose endpoints are not nodes are ignored.
func NewGraph(nodes []Node, edges []Edge) *Graph {
	ns := append([]Node(nil), nodes...)
	sort.Slice(ns, func(i, j int) bool { return ns[i].ID < ns[j].ID })
	g := &Graph{Nodes: ns, index: make(map[string]int, len(ns))}
	for i, n := range ns {
		g.index[n.ID] = i
	}
	g.out = make([][]arc, len(ns))
	g.in = make([][]arc, len(ns))
	g.und = make([]map[int]float64, len(ns))
	es := append([]Edge(nil), edges...)
	sort.Slice(es, func(i, j int) bool {
		if es[i].From != es[j].From {
			return es[i].From < es[j].From
		}
		if es[i].To != es[j].To {
			return es[i].To < es[j].To
		}
		return es[i].Type < es[j].Type
	})
	seenCall := map[[2]int]int{}
	for _, e := range es {
		a, ok1 := g.index[e.From]
		b, ok2 := g.index[e.To]
		if !ok1 || !ok2 || a == b {
			continue
		}
		w := e.Confidence
		if w <= 0 {
			w = 1
		}
		if e.Type == schema.RelCalls {
			k := [2]int{a, b}
			cb := e.Reason == schema.ReasonReference
			if i, dup := seenCall[k]; dup { // keep the best confidence of parallel call edges; a real call beats a callback
				if w > g.out[a][i].conf || g.out[a][i].callback && !cb {
					g.out[a][i].conf, g.out[a][i].callback = max(w, g.out[a][i].conf), g.out[a][i].callback && cb
					for j := range g.in[b] {
						if g.in[b][j].to == a {
							g.in[b][j].conf, g.in[b][j].callback = g.out[a][i].conf, g.out[a][i].callback
						}
					}
				}
			} else {
				seenCall[k] = len(g.out[a])
				g.out[a] = append(g.out[a], arc{b, w, cb})
				g.in[b] = append(g.in[b], arc{a, w, cb})
			}
		}
		g.addUndirected(a, b, w)
	}
	return g
}

func (g *Graph) addUndirected(a, b int, w float64) {
	if g.und[a] == nil {
		g.und[a] = map[int]float64{}
	}
	if g.und[b] == nil {
		g.und[b] = map[int]float64{}
	}
	g.und[a][b] += w
	g.und[b][a] += w
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.Nodes) }

// Index returns the dense index of a node id.
func (g *Graph) Index(id string) (int, bool) {
	i, ok := g.index[id]
	return i, ok
}
