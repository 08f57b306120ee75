package processes

import (
	"cmp"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

func fn(id, file string) Node {
	// IsTest as ingest sets it.
	return Node{ID: id, Label: schema.LabelFunction, Kind: schema.KindFunction, Name: id, FilePath: file, Language: "go", IsTest: schema.IsTestPath(file)}
}

func call(a, b string) Edge { return Edge{From: a, To: b, Type: schema.RelCalls, Confidence: 1} }

// twoCliques: a0..a3 fully connected in pkg/a, b0..b3 in pkg/b, one bridge.
func twoCliques() ([]Node, []Edge) {
	var ns []Node
	var es []Edge
	for _, p := range []string{"a", "b"} {
		for i := 0; i < 4; i++ {
			ns = append(ns, fn(fmt.Sprintf("%s%d", p, i), "pkg/"+p+"/x.go"))
			for j := 0; j < i; j++ {
				es = append(es, call(fmt.Sprintf("%s%d", p, i), fmt.Sprintf("%s%d", p, j)))
			}
		}
	}
	es = append(es, call("a0", "b0"))
	return ns, es
}

func TestCommunitiesFindCliques(t *testing.T) {
	ns, es := twoCliques()
	g := NewGraph(ns, es)
	p := DetectCommunities(g, CommunityOptions{})
	if len(p.Members) != 2 {
		t.Fatalf("communities = %d, want 2: %v", len(p.Members), p.Members)
	}
	for _, m := range p.Members {
		first := g.Nodes[m[0]].ID[:1]
		for _, i := range m {
			if g.Nodes[i].ID[:1] != first {
				t.Errorf("community mixes cliques: %v", m)
			}
		}
	}
}

func TestCommunitiesDeterministicUnderInputOrder(t *testing.T) {
	ns, es := twoCliques()
	want := Run(NewGraph(ns, es), Options{})
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 5; k++ {
		r.Shuffle(len(ns), func(i, j int) { ns[i], ns[j] = ns[j], ns[i] })
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		got := Run(NewGraph(ns, es), Options{})
		if !reflect.DeepEqual(got.Communities, want.Communities) || !reflect.DeepEqual(got.Processes, want.Processes) {
			t.Fatalf("shuffle %d changed the result", k)
		}
	}
}

// TestRunSameBesideOrAfter: the communities detected beside the traces
// (a graph of at most concurrentSymbols) and after them give one result.
func TestRunSameBesideOrAfter(t *testing.T) {
	ns, es := twoCliques()
	beside := Run(NewGraph(ns, es), Options{})
	old := concurrentSymbols
	concurrentSymbols = 0
	defer func() { concurrentSymbols = old }()
	after := Run(NewGraph(ns, es), Options{})
	if len(beside.Communities) == 0 || len(beside.Processes) == 0 {
		t.Fatalf("the fixture gives %d communities, %d processes: nothing to compare", len(beside.Communities), len(beside.Processes))
	}
	beside.Stats.Seconds, after.Stats.Seconds = 0, 0
	if !reflect.DeepEqual(beside.Communities, after.Communities) || !reflect.DeepEqual(beside.Processes, after.Processes) ||
		!reflect.DeepEqual(beside.Entries, after.Entries) || !reflect.DeepEqual(beside.Stats, after.Stats) {
		t.Errorf("the communities detected beside the traces changed the result")
	}
}

func TestCommunitiesAreConnected(t *testing.T) {
	// Two triangles with no edge between them can never share a community.
	ns := []Node{fn("a", "x.go"), fn("b", "x.go"), fn("c", "x.go"), fn("d", "y.go"), fn("e", "y.go"), fn("f", "y.go")}
	es := []Edge{call("a", "b"), call("b", "c"), call("c", "a"), call("d", "e"), call("e", "f"), call("f", "d")}
	g := NewGraph(ns, es)
	p := DetectCommunities(g, CommunityOptions{})
	if len(p.Members) != 2 {
		t.Fatalf("got %v", p.Members)
	}
}

func TestCommunityBudgetKeepsProgress(t *testing.T) {
	// A budget already spent still yields the first pass's communities,
	// never one big community.
	ns, es := twoCliques()
	g := NewGraph(ns, es)
	p := DetectCommunities(g, CommunityOptions{Budget: time.Nanosecond})
	if len(p.Members) < 2 {
		t.Fatalf("timeout collapsed communities: %v", p.Members)
	}
}

func TestLabelsNeverClusterN(t *testing.T) {
	ns := []Node{fn("validateToken", "auth/jwt.go"), fn("parseToken", "auth/jwt.go"), fn("signToken", "auth/jwt.go"),
		fn("parseConfig", "cfg/load.go"), fn("validateConfig", "cfg/check.go"), fn("lonely", "x.go")}
	es := []Edge{call("validateToken", "parseToken"), call("signToken", "parseToken")}
	res := Run(NewGraph(ns, es), Options{})
	if len(res.Communities) != 1 {
		t.Fatalf("communities: %+v", res.Communities)
	}
	c := res.Communities[0]
	if !strings.HasPrefix(c.Label, "auth: ") || !strings.Contains(c.Label, "token") {
		t.Errorf("label = %q, want the dir and the dominant word", c.Label)
	}
	if strings.Contains(c.Label, "Cluster") || c.SymbolCount != 3 || c.Cohesion != 1 {
		t.Errorf("community = %+v", c)
	}
}

// TestNameWords: community keywords are the words of member names as
// graph/text splits them.
func TestNameWords(t *testing.T) {
	for in, want := range map[string]string{
		"getUserByID": "get user by id", "HTTPServer": "http server", "user_repo": "user repo",
		"parseJSON": "parse json", "ServeHTTP": "serve http", "v2Client": "v2 client",
	} {
		if got := strings.Join(text.SplitIdentifier(in), " "); got != want {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEntryPoints(t *testing.T) {
	h := fn("HandleLogin", "server/login.go")
	h.IsExported = true
	h.Label, h.Kind = schema.LabelMethod, schema.KindMethod
	h.Signature = "func (s *Server) HandleLogin(w http.ResponseWriter, r *http.Request)"
	util := fn("clamp", "util/math.go")
	tst := fn("TestLogin", "server/login_test.go")
	helper := fn("loginHelper", "server/testing/helper.go")
	ns := []Node{h, util, tst, helper, fn("validate", "server/v.go"), fn("session", "server/s.go")}
	es := []Edge{call("HandleLogin", "validate"), call("HandleLogin", "session"), call("validate", "clamp"),
		call("session", "clamp"), call("TestLogin", "HandleLogin"), call("loginHelper", "validate")}
	g := NewGraph(ns, es)
	eps := ScoreEntryPoints(g)
	if len(eps) == 0 || g.Nodes[eps[0].Node].Name != "HandleLogin" {
		t.Fatalf("best entry point = %+v", eps)
	}
	if r := strings.Join(eps[0].Reasons, ","); !strings.Contains(r, "framework:go:net/http handler") || !strings.Contains(r, "name:HandleLogin") {
		t.Errorf("reasons = %s", r)
	}
	for _, ep := range eps {
		switch g.Nodes[ep.Node].Name {
		case "TestLogin", "loginHelper":
			t.Errorf("test code scored as entry point: %s", g.Nodes[ep.Node].Name)
		}
	}
}

func TestTracesFollowFlowsAndDedupe(t *testing.T) {
	// main → run → load → parse ; run → serve → handle ; serve's flow is
	// also reachable from its own entry but lies inside main's.
	m := fn("main", "cmd/main.go")
	ns := []Node{m, fn("run", "cmd/run.go"), fn("load", "cfg/load.go"), fn("parse", "cfg/parse.go"),
		fn("Serve", "srv/serve.go"), fn("handle", "srv/handle.go")}
	es := []Edge{call("main", "run"), call("run", "load"), call("load", "parse"), call("run", "Serve"), call("Serve", "handle")}
	g := NewGraph(ns, es)
	res := Run(g, Options{})
	var labels []string
	for _, p := range res.Processes {
		labels = append(labels, p.Label)
		if p.StepCount < 3 {
			t.Errorf("process shorter than 3 steps: %+v", p)
		}
		if !strings.HasPrefix(p.ID, "proc_") {
			t.Errorf("id %q", p.ID)
		}
	}
	// Equal importance (fan-out 1 each): ties go by id, "Serve" < "load".
	want := []string{"main → run → Serve → handle", "main → run → load → parse"}
	if fmt.Sprint(labels) != fmt.Sprint(want) {
		t.Errorf("processes = %q, want %q", labels, want)
	}
	// STEP_IN_PROCESS edges carry 1-based steps in order.
	var steps []string
	for _, e := range res.Edges() {
		if e.Type == schema.RelStepInProcess && e.To == res.Processes[0].ID {
			steps = append(steps, fmt.Sprintf("%d:%s", e.Step, e.From))
		}
	}
	if fmt.Sprint(steps) != "[1:main 2:run 3:Serve 4:handle]" {
		t.Errorf("steps = %v", steps)
	}
	if res.Stats.Trace.Subsumed == 0 {
		t.Errorf("Serve's own flow should be reported as subsumed: %+v", res.Stats.Trace)
	}
}

func TestTraceBranchingByImportanceNotInsertionOrder(t *testing.T) {
	// entry calls six leaves and one callee with a deep flow; with
	// MaxBranch 1 the deep one must be chosen whatever the edge order.
	ns := []Node{fn("Run", "a.go"), fn("deep", "a.go"), fn("deeper", "a.go"), fn("deepest", "a.go")}
	es := []Edge{}
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("leaf%d", i)
		ns = append(ns, fn(id, "a.go"))
		es = append(es, call("Run", id))
	}
	es = append(es, call("Run", "deep"), call("deep", "deeper"), call("deeper", "deepest"))
	g := NewGraph(ns, es)
	res := Run(g, Options{Trace: TraceOptions{MaxBranch: 1}})
	if len(res.Processes) != 1 || res.Processes[0].Label != "Run → deep → deeper → deepest" {
		t.Errorf("processes = %+v", res.Processes)
	}
}

func TestProcessIDStable(t *testing.T) {
	a := ProcessID([]string{"x.go#a:function", "x.go#b:function"})
	b := ProcessID([]string{"x.go#a:function", "x.go#b:function"})
	c := ProcessID([]string{"x.go#a:function", "x.go#c:function"})
	if a != b || a == c {
		t.Errorf("ids: %s %s %s", a, b, c)
	}
}

// TestEntryPointsReadStoredIsTest: ScoreEntryPoints trusts the isTest
// property ingest stored, not the path: a flagged symbol outside any test
// path is skipped, an unflagged one is scored.
func TestEntryPointsReadStoredIsTest(t *testing.T) {
	flagged := fn("HandleA", "server/a.go")
	flagged.IsTest = true
	plain := fn("HandleB", "server/b.go")
	ns := []Node{flagged, plain, fn("work", "server/w.go")}
	g := NewGraph(ns, []Edge{call("HandleA", "work"), call("HandleB", "work")})
	var names []string
	for _, ep := range ScoreEntryPoints(g) {
		names = append(names, g.Nodes[ep.Node].Name)
	}
	if strings.Join(names, ",") != "HandleB" {
		t.Errorf("entry points %v, want [HandleB]", names)
	}
}

// TestNearDupes: among one entry's flows, one that lies mostly (80%)
// inside a longer sibling is dropped; short flows that differ in their
// last step, other entries' flows and distinct branches stay.
func TestNearDupes(t *testing.T) {
	in := []Trace{
		{Entry: 1, Steps: []int{1, 2, 3, 4, 5, 6}},
		{Entry: 1, Steps: []int{1, 2, 3, 4, 7}}, // 4 of 5 inside the first: near-duplicate
		{Entry: 1, Steps: []int{1, 8, 9}},
		{Entry: 1, Steps: []int{1, 8, 10}}, // 2 of 3 shared: another behaviour
		{Entry: 1, Steps: []int{1, 11, 12, 13}},
		{Entry: 20, Steps: []int{20, 2, 3, 4, 5, 6}}, // another entry: kept
	}
	got := nearDupes(in)
	var firsts [][]int
	for _, tr := range got {
		firsts = append(firsts, tr.Steps)
	}
	want := [][]int{{1, 2, 3, 4, 5, 6}, {1, 8, 9}, {1, 8, 10}, {1, 11, 12, 13}, {20, 2, 3, 4, 5, 6}}
	if fmt.Sprint(firsts) != fmt.Sprint(want) {
		t.Errorf("nearDupes kept %v, want %v", firsts, want)
	}
}

// TestEntryPointsSkipWrappersAndCallbacks: a thin wrapper (two callees, one
// of its own name) is not an entry point; a callback named as a value is
// not a callee, so it is never a step of a flow.
func TestEntryPointsSkipWrappersAndCallbacks(t *testing.T) {
	wrapper := fn("w.go#GET", "w.go")
	wrapper.Name = "GET"
	target := fn("r.go#GET", "r.go")
	target.Name, target.IsExported = "GET", true
	ns := []Node{wrapper, target, fn("engine", "w.go"), fn("handle", "r.go"), fn("addRoute", "r.go"),
		fn("insert", "r.go"), fn("Serve", "s.go"), fn("onRequest", "s.go")}
	cb := call("Serve", "onRequest")
	cb.Reason, cb.Confidence = schema.ReasonReference, 0.55
	es := []Edge{call("w.go#GET", "engine"), call("w.go#GET", "r.go#GET"), call("r.go#GET", "handle"),
		call("handle", "addRoute"), call("addRoute", "insert"), cb, call("onRequest", "handle")}
	g := NewGraph(ns, es)
	for _, ep := range ScoreEntryPoints(g) {
		if g.Nodes[ep.Node].ID == "w.go#GET" {
			t.Errorf("the wrapper w.go#GET is an entry point: %+v", ep)
		}
	}
	res := Run(g, Options{})
	var labels []string
	for _, p := range res.Processes {
		labels = append(labels, p.Label)
		if strings.HasPrefix(p.Label, "Serve → onRequest") {
			t.Errorf("a callback became a step: %s", p.Label)
		}
	}
	if !slices.Contains(labels, "GET → handle → addRoute → insert") {
		t.Errorf("the public GET (called only by a wrapper) should start route registration: %q", labels)
	}
}

// TestSelectPathsShowsEachBranchOnce: from an entry with one deep branch
// fanning out into leaves and a shallow one, the flows show the shallow
// branch and one variant of the leaf fan-out, not every leaf.
func TestSelectPathsShowsEachBranchOnce(t *testing.T) {
	ns := []Node{fn("Run", "a.go"), fn("load", "a.go"), fn("parse", "a.go"), fn("check", "a.go")}
	es := []Edge{call("Run", "load"), call("load", "parse"), call("Run", "check")}
	for i := 0; i < 5; i++ {
		leaf := fmt.Sprintf("leaf%d", i)
		ns = append(ns, fn(leaf, "a.go"))
		es = append(es, call("parse", leaf))
	}
	g := NewGraph(ns, es)
	res := Run(g, Options{})
	var labels []string
	for _, p := range res.Processes {
		labels = append(labels, p.Label)
	}
	// Run → load → parse → leafN: one kept, the other four add one deep
	// leaf each; Run → check is two steps (too short).
	if len(labels) != 1 || !strings.HasPrefix(labels[0], "Run → load → parse → leaf") {
		t.Errorf("flows = %q, want one Run → load → parse → leaf*", labels)
	}
}

// dedupe drops repeats and traces that run inside a longer one, and keeps
// the first of each, in input order.
func TestDedupeRepeatsAndInnerRuns(t *testing.T) {
	tr := func(steps ...int) Trace { return Trace{Steps: steps} }
	in := []Trace{tr(1, 2, 3, 4), tr(2, 3, 4), tr(5, 6, 7), tr(1, 2, 3, 4), tr(5, 6, 7), tr(9, 2, 3), tr(3, 4, 1)}
	got := dedupe(in, 3, nil)
	var keys []string
	for _, g := range got {
		keys = append(keys, fmt.Sprint(g.Steps))
	}
	if want := "[[1 2 3 4] [5 6 7] [9 2 3] [3 4 1]]"; fmt.Sprint(keys) != want {
		t.Errorf("dedupe = %v, want %s", keys, want)
	}
}

// TestFlowBudget: over MaxProcesses, the best entries' flows are kept, the
// walk stops once twice the budget is in hand, and the stats say so.
func TestFlowBudget(t *testing.T) {
	var ns []Node
	var es []Edge
	// 40 independent chains main_i → s_i → t_i → u_i; entry i calls i+1
	// helpers more, so scores differ.
	for i := 0; i < 40; i++ {
		e, s, u, v := fmt.Sprintf("e%02d", i), fmt.Sprintf("s%02d", i), fmt.Sprintf("t%02d", i), fmt.Sprintf("u%02d", i)
		ns = append(ns, fn(e, "p/x.go"), fn(s, "p/x.go"), fn(u, "p/x.go"), fn(v, "p/x.go"))
		es = append(es, call(e, s), call(s, u), call(u, v))
		for k := 0; k <= i%5; k++ {
			h := fmt.Sprintf("h%02d_%d", i, k)
			ns = append(ns, fn(h, "p/x.go"))
			es = append(es, call(e, h))
		}
	}
	g := NewGraph(ns, es)
	entries := ScoreEntryPoints(g)
	all, st := TraceAll(g, entries, TraceOptions{MaxProcesses: 1000})
	if st.OverBudget != 0 || st.CutFlows != 0 || len(all) < 10 {
		t.Fatalf("unbounded: %d flows, stats %+v", len(all), st)
	}
	ts, st := TraceAll(g, entries, TraceOptions{MaxProcesses: 5})
	if len(ts) != 5 || st.Processes != 5 || st.OverBudget == 0 {
		t.Fatalf("budget 5: %d flows, stats %+v", len(ts), st)
	}
	for i, tr := range ts { // the first five flows of the unbounded run: best entries first
		if !slices.Equal(tr.Steps, all[i].Steps) {
			t.Errorf("flow %d: %v, want %v", i, tr.Steps, all[i].Steps)
		}
	}
}

// TestSortByID: sortByID leaves the nodes in id order, each node whole
// (the same nodes as before, ids clashing now and then), for permutations
// with long cycles, short ones and none.
func TestSortByID(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	key := func(a, b Node) int { return cmp.Or(strings.Compare(a.ID, b.ID), cmp.Compare(a.StartLine, b.StartLine)) }
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		ns := make([]Node, n)
		for i := range ns {
			ns[i] = Node{ID: fmt.Sprintf("id%04d", rng.Intn(2*n+1)), StartLine: i}
		}
		if n == 7 {
			slices.SortFunc(ns, key) // sorted already: no cycle
		}
		want := slices.SortedFunc(slices.Values(ns), key)
		sortByID(ns)
		if !slices.IsSortedFunc(ns, func(a, b Node) int { return strings.Compare(a.ID, b.ID) }) {
			t.Fatalf("n=%d: not in id order", n)
		}
		if got := slices.SortedFunc(slices.Values(ns), key); !slices.EqualFunc(got, want, func(a, b Node) bool { return key(a, b) == 0 }) {
			t.Fatalf("n=%d: the nodes changed", n)
		}
	}
}

// TestParallelCalls: the CALLS edges of one pair of symbols make one arc
// each way, with the best confidence, a callback only if every edge is
// one, and later only if every call is made later; other pairs' arcs are
// their own, and an EXTENDS edge between the same pair makes no arc.
func TestParallelCalls(t *testing.T) {
	nodes := []Node{fn("c", "x.go"), fn("a", "x.go"), fn("b", "x.go"), fn("d", "x.go")}
	edges := []Edge{
		{From: "a", To: "b", Type: schema.RelCalls, Confidence: 0.5, Reason: schema.ReasonReference, Later: true},
		{From: "a", To: "c", Type: schema.RelCalls, Confidence: 0.4, Later: true},
		{From: "a", To: "b", Type: schema.RelExtends, Confidence: 1},
		{From: "a", To: "b", Type: schema.RelCalls, Confidence: 0.9, Reason: schema.ReasonSameFile, Later: true},
		{From: "a", To: "b", Type: schema.RelCalls, Confidence: 0.7, Reason: schema.ReasonSameFile},
		{From: "d", To: "b", Type: schema.RelCalls, Confidence: 0.3, Reason: schema.ReasonReference},
	}
	g := NewGraph(nodes, edges)
	a, b, c, d := g.index["a"], g.index["b"], g.index["c"], g.index["d"]
	if want := []arc{{b, 0.9, false, false}, {c, 0.4, false, true}}; !slices.Equal(g.out[a], want) {
		t.Errorf("a's calls %+v, want %+v", g.out[a], want)
	}
	if want := []arc{{a, 0.9, false, false}, {d, 0.3, true, false}}; !slices.Equal(g.in[b], want) {
		t.Errorf("b's callers %+v, want %+v", g.in[b], want)
	}
	if want := []arc{{b, 0.3, true, false}}; !slices.Equal(g.out[d], want) {
		t.Errorf("d's calls %+v, want %+v", g.out[d], want)
	}
}

// traceAllSequential is TraceAll's walk as it reads, one entry after the
// other: the reference TestTraceAllParallel holds TraceAll to.
func traceAllSequential(g *Graph, entries []EntryPoint, opts TraceOptions) ([]Trace, TraceStats) {
	budget, importance, hub := traceInputs(g, &opts)
	st := TraceStats{Ranked: len(entries)}
	var all []Trace
	walked := map[entryKey]int{}
	own := map[int]bool{}
	for _, ep := range entries {
		if ep.Score < opts.MinEntryScore {
			st.BelowScore++
			continue
		}
		if len(all) >= 2*budget {
			st.OverBudget++
			continue
		}
		st.Traced++
		if ep.ownRight() {
			own[ep.Node] = true
		}
		cands := trimHubTails(walk(g, ep.Node, importance, opts, ep.Closure), hub, opts.MinSteps)
		paths := selectPaths(cands, hub, opts, g.realCallees(ep.Node))
		walked[entryKey{ep.Node, ep.Closure}] = len(paths)
		if len(paths) == 0 {
			st.TooShort++
		}
		alike := leafAlike(paths, cands)
		for i, p := range paths {
			all = append(all, Trace{Entry: ep.Node, Score: ep.Score, Steps: p, Closure: ep.Closure, Alike: alike[i], SharedWith: -1})
		}
	}
	return finishTraces(g, all, walked, own, budget, opts, st)
}

// TestTraceAllParallel: TraceAll walks the entry points on several
// goroutines and takes their flows in entry order; its traces and stats
// are those of a walk one entry after the other (traceAllSequential),
// whatever the number of goroutines and wherever the flow budget binds.
func TestTraceAllParallel(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var ns []Node
	var es []Edge
	const n = 600
	for i := range n {
		ns = append(ns, fn(fmt.Sprintf("f%03d", i), fmt.Sprintf("p%d/x.go", i%7)))
	}
	for i := range n {
		for range 1 + rng.Intn(4) {
			if j := rng.Intn(n); j != i {
				es = append(es, call(fmt.Sprintf("f%03d", i), fmt.Sprintf("f%03d", j)))
			}
		}
	}
	g := NewGraph(ns, es)
	entries := ScoreEntryPoints(g)
	defer func(w int) { workers = w }(workers)
	for _, budget := range []int{0, 3, 40, traceWindow / 2, 2 * traceWindow, 500} {
		want, wst := traceAllSequential(g, entries, TraceOptions{MaxProcesses: budget})
		if budget == 3 && wst.OverBudget == 0 {
			t.Errorf("budget 3 never bound: %+v", wst)
		}
		for _, w := range []int{1, 2, 4} {
			workers = w
			got, gst := TraceAll(g, entries, TraceOptions{MaxProcesses: budget})
			if gst != wst {
				t.Errorf("budget %d, %d workers: stats %+v, one after the other %+v", budget, w, gst, wst)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("budget %d, %d workers: %d traces differ from the %d of one after the other", budget, w, len(got), len(want))
			}
		}
	}
}

// TestScoreEntryPointsChunks: ScoreEntryPoints scores the nodes a chunk
// at a time beside one another; its entries are those of one pass over
// every node, sorted, with none lost or doubled at a chunk's edge.
func TestScoreEntryPointsChunks(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var ns []Node
	var es []Edge
	n := 2*scoreChunk + 123
	for i := range n {
		nd := fn(fmt.Sprintf("f%05d", i), fmt.Sprintf("p%d/x.go", i%11))
		nd.IsExported = i%3 == 0
		if i%17 == 0 {
			nd.Name = fmt.Sprintf("Handle%d", i)
		}
		ns = append(ns, nd)
	}
	for i := range n {
		for range rng.Intn(4) {
			if j := rng.Intn(n); j != i {
				es = append(es, call(fmt.Sprintf("f%05d", i), fmt.Sprintf("f%05d", j)))
			}
		}
	}
	g := NewGraph(ns, es)
	want := g.scoreNodes(0, len(g.Nodes))
	g.sortEntries(want)
	if len(want) < scoreChunk/4 {
		t.Fatalf("only %d entries: the graph does not exercise the chunks", len(want))
	}
	defer func(w int) { workers = w }(workers)
	for _, w := range []int{1, 2, 4} {
		workers = w
		if got := ScoreEntryPoints(g); !reflect.DeepEqual(got, want) {
			t.Errorf("ScoreEntryPoints, %d workers: %d entries, one pass over the nodes %d, or another order", w, len(got), len(want))
		}
	}
}
