package processes

import (
	"context"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/internal/ordered"
)

// EntryPoint is a scored candidate start of a flow.
type EntryPoint struct {
	Node    int
	Score   float64
	Reasons []string // why it scored: "shape", "exported", "name:main", "framework:net/http", "closure", ...
	// Closure marks the start of the flow of the func literal Node
	// returns (a middleware's per-request handler), apart from Node's own.
	Closure bool
}

// Framework knowledge: each rule adds Bonus when it matches. A rule sees
// the node's language, name, signature, decorator lines and file path.
type frameworkRule struct {
	Name  string
	Lang  []string // empty: any
	Bonus float64
	Match func(n *Node) bool
}

var (
	reHTTPDecorator = regexp.MustCompile(`^@\w+(\.\w+)*\.(route|get|post|put|patch|delete|head|options|websocket|api_route)\s*\(`)
	reSpring        = regexp.MustCompile(`^@(Get|Post|Put|Patch|Delete|Request)Mapping\b`)
	reHTTPVerb      = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$`)
	reCSyscall      = regexp.MustCompile(`^(COMPAT_)?SYSCALL_DEFINE\d\(`)
)

var frameworkRules = []frameworkRule{
	{"go:main", []string{"go"}, 3, func(n *Node) bool { return n.Name == "main" && n.Label == schema.LabelFunction }},
	{"go:net/http handler", []string{"go"}, 2, func(n *Node) bool {
		return strings.Contains(n.Signature, "http.ResponseWriter") && strings.Contains(n.Signature, "*http.Request")
	}},
	{"go:gin handler", []string{"go"}, 1.5, func(n *Node) bool { return strings.Contains(n.Signature, "*gin.Context") }},
	{"go:cobra command", []string{"go"}, 2, func(n *Node) bool {
		return strings.Contains(n.Signature, "*cobra.Command") && strings.Contains(n.Signature, "[]string")
	}},
	{"python:route decorator", []string{"python"}, 2, func(n *Node) bool { return anyDecorator(n, reHTTPDecorator) }},
	{"python:django view", []string{"python"}, 1.5, func(n *Node) bool {
		return path.Base(n.FilePath) == "views.py" && n.Label == schema.LabelFunction && strings.Contains(n.Signature, "(request")
	}},
	{"python:main", []string{"python"}, 2, func(n *Node) bool { return n.Name == "main" && n.Label == schema.LabelFunction }},
	{"python:management command", []string{"python"}, 2, func(n *Node) bool {
		return n.Name == "handle" && strings.Contains(n.FilePath, "/management/commands/")
	}},
	{"js:next route handler", []string{"javascript", "typescript", "tsx"}, 2, func(n *Node) bool {
		b := strings.TrimSuffix(path.Base(n.FilePath), path.Ext(n.FilePath))
		return n.IsExported && b == "route" && reHTTPVerb.MatchString(n.Name)
	}},
	{"js:api route", []string{"javascript", "typescript", "tsx"}, 1.5, func(n *Node) bool {
		return n.IsExported && strings.Contains(n.FilePath, "pages/api/")
	}},
	{"java:main", []string{"java"}, 3, func(n *Node) bool {
		return n.Name == "main" && strings.Contains(n.Signature, "static") && strings.Contains(n.Signature, "String")
	}},
	{"java:spring mapping", []string{"java"}, 2, func(n *Node) bool { return anyDecorator(n, reSpring) }},
	{"c:main", []string{"c", "cpp", "rust", "csharp"}, 3, func(n *Node) bool { return n.Name == "main" || n.Name == "Main" }},
	{"go:goroutine", []string{"go"}, 1.5, func(n *Node) bool { return n.Goroutine }},
	// C registrations (FromIndex turns them into decorator lines): the
	// kernel enters a syscall from user space, and calls what a file
	// registers with it — init/exit functions, IRQ handlers, ops-table
	// members — from its own dispatch code.
	{"c:syscall", []string{"c"}, 3, func(n *Node) bool { return anyDecorator(n, reCSyscall) }},
	{"c:registered callback", []string{"c"}, 2, func(n *Node) bool {
		return len(n.Decorators) > 0 && !anyDecorator(n, reCSyscall)
	}},
}

func anyDecorator(n *Node, re *regexp.Regexp) bool {
	for _, d := range n.Decorators {
		if re.MatchString(strings.TrimSpace(d)) {
			return true
		}
	}
	return false
}

// Name conventions that suggest an entry point.
var (
	reHandler = regexp.MustCompile(`^(handle|Handle)[A-Z_]|Handler$|Controller$|^on[A-Z]`)
	runNames  = map[string]bool{"Run": true, "Serve": true, "Execute": true, "ServeHTTP": true, "run": true, "serve": true, "execute": true, "Start": true, "start": true}
)

// apiBonus is what an exported symbol with callees and at most apiCallers
// callers in the repository's own non-test code adds to its score: the
// core API a user of a library calls (route registration, Run, Bind, a
// middleware constructor) is an entry point even when a wrapper or a
// set-up function of the repository also calls it.
const (
	apiBonus   = 0.75
	apiCallers = 2
)

// ScoreEntryPoints scores every non-test (Node.IsTest false) Function and
// Method of g that is not a returned nested function (Node.Returned: its
// enclosing function's closure flow covers it) and returns those with a positive score, best first (ties by
// id). Callees and callers count real calls only (a callback named as a
// value is not one), callers only from non-test code.
//
// A symbol that returns a func literal making calls (a middleware
// constructor, a handler factory) is also the entry of that literal's
// flow (Closure), scored (1 + log2(1 + its calls)) × 1.3 if exported: what
// runs per request is a flow of its own, not a branch of the set-up.
//
// score = shape × (1.3 if exported) + API bonus + name bonus + framework
// bonus, where shape = log2(1 + callees) / (1 + callers): a symbol many
// others call is a utility, one that calls much and is called by few is
// where a flow starts. A symbol with no callees scores only through its
// bonuses. A thin wrapper — at most two callees, one of them of its own
// name (gin's ginS.GET calls engine() and RouterGroup.GET) — is not an
// entry point: the symbol it delegates to is, and its flows say it all.
func ScoreEntryPoints(g *Graph) []EntryPoint {
	// A node's score is a function of the node and its arcs alone: the
	// nodes are scored a chunk at a time on one goroutine per core and
	// the chunks' entries joined in node order, as one loop over the nodes
	// would list them (the Linux kernel: 870k nodes, name and decorator
	// patterns matched for each).
	var out []EntryPoint
	chunks := (len(g.Nodes) + scoreChunk - 1) / scoreChunk
	_ = ordered.Run(context.Background(), chunks, workers, 2*workers,
		func(context.Context) (func(int) []EntryPoint, func()) {
			return func(c int) []EntryPoint {
				return g.scoreNodes(c*scoreChunk, min(len(g.Nodes), (c+1)*scoreChunk))
			}, nil
		},
		func(_ int, es []EntryPoint) error {
			out = append(out, es...)
			return nil
		}) // no error: its context never ends and the apply never fails
	g.sortEntries(out)
	return out
}

// sortEntries orders entry points best first: by score, then node id,
// a symbol's own entry before its closure's.
func (g *Graph) sortEntries(out []EntryPoint) {
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		if out[a].Node != out[b].Node {
			return g.Nodes[out[a].Node].ID < g.Nodes[out[b].Node].ID
		}
		return !out[a].Closure && out[b].Closure
	})
}

// scoreChunk is how many nodes ScoreEntryPoints scores at a time.
const scoreChunk = 4096

// scoreNodes is ScoreEntryPoints' entries for the nodes [lo, hi), in node
// order, unsorted.
func (g *Graph) scoreNodes(lo, hi int) []EntryPoint {
	var out []EntryPoint
	for i := lo; i < hi; i++ {
		n := &g.Nodes[i]
		if n.Label != schema.LabelFunction && n.Label != schema.LabelMethod {
			continue
		}
		if n.IsTest || n.Returned {
			continue
		}
		callees, callers := g.realCallees(i), g.realCallers(i)
		if g.isWrapper(i) {
			continue
		}
		var reasons []string
		shape := math.Log2(1+float64(callees)) / (1 + float64(callers))
		if shape > 0 {
			reasons = append(reasons, "shape")
		}
		score := shape
		if n.IsExported {
			score *= 1.3
			if shape > 0 {
				reasons = append(reasons, "exported")
			}
			if callees > 0 && callers-g.wrappedBy(i) <= apiCallers {
				score += apiBonus
				reasons = append(reasons, "api")
			}
		}
		if reHandler.MatchString(n.Name) || runNames[n.Name] {
			score += 1
			reasons = append(reasons, "name:"+n.Name)
		}
		for _, r := range frameworkRules {
			if len(r.Lang) > 0 && !contains(r.Lang, n.Language) {
				continue
			}
			if r.Match(n) {
				score += r.Bonus
				reasons = append(reasons, "framework:"+r.Name)
			}
		}
		if score > 0 {
			out = append(out, EntryPoint{Node: i, Score: score, Reasons: reasons})
		}
		if later := g.laterCallees(i); later > 0 {
			cs := 1 + math.Log2(1+float64(later))
			if n.IsExported {
				cs *= 1.3
			}
			out = append(out, EntryPoint{Node: i, Score: cs, Reasons: []string{"closure"}, Closure: true})
		}
	}
	return out
}

// laterCallees counts the symbols i calls inside a func literal it
// returns (Edge.Later).
func (g *Graph) laterCallees(i int) int {
	n := 0
	for _, a := range g.out[i] {
		if a.later && !a.callback {
			n++
		}
	}
	return n
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// realCallees counts the symbols i calls (callbacks it names excluded).
func (g *Graph) realCallees(i int) int {
	n := 0
	for _, a := range g.out[i] {
		if !a.callback {
			n++
		}
	}
	return n
}

// realCallers counts the non-test symbols that call i (callbacks excluded).
func (g *Graph) realCallers(i int) int {
	n := 0
	for _, a := range g.in[i] {
		if !a.callback && !g.Nodes[a.to].IsTest {
			n++
		}
	}
	return n
}

// wrappedBy counts the thin wrappers that delegate to i: a wrapper of the
// same name calling it (ginS.GET → RouterGroup.GET) says i is API, not
// that i is a utility.
func (g *Graph) wrappedBy(i int) int {
	n := 0
	for _, a := range g.in[i] {
		if !a.callback && !g.Nodes[a.to].IsTest && g.Nodes[a.to].Name == g.Nodes[i].Name && g.isWrapper(a.to) {
			n++
		}
	}
	return n
}

// isWrapper reports whether i only delegates: at most two callees, one of
// them a function or method of the same name.
func (g *Graph) isWrapper(i int) bool {
	if g.realCallees(i) > 2 {
		return false
	}
	for _, a := range g.out[i] {
		if !a.callback && g.Nodes[a.to].Name == g.Nodes[i].Name {
			return true
		}
	}
	return false
}

// ownRight reports whether an entry point stands on its own — known to a
// framework, or public API — rather than by the shape of the call graph or
// a conventional name (main → run → ...: run's flows are main's): its
// flows are kept even when another entry's flow passes through it.
func (ep EntryPoint) ownRight() bool {
	for _, r := range ep.Reasons {
		if r == "api" || strings.HasPrefix(r, "framework:") {
			return true
		}
	}
	return false
}
