package processes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/internal/ordered"
)

// TraceOptions bound the traces.
type TraceOptions struct {
	MinEntryScore    float64 // entry points below are not traced (0: 1.0)
	MinConfidence    float64 // CALLS edges below are not followed (0: 0.5)
	MaxDepth         int     // most steps in one process (0: 10)
	MaxBranch        int     // most callees followed from one step past the second, by importance (0: 4); twice that from the first two
	MinSteps         int     // shortest process kept (0: 3)
	MaxPathsPerEntry int     // most processes from one entry point (0: 12)
	MaxRawPaths      int     // most candidate paths walked from one entry point before selection (0: 64)
	// MaxProcesses bounds the flows of the whole graph (0: one per
	// SymbolsPerProcess symbols, at least MinProcessBudget): entry points
	// are walked best first, walking stops once twice the budget of paths
	// is in hand, and the kept flows are cut to the budget. It binds only
	// on very large graphs: the Linux kernel's million symbols gave 780k
	// flows (530 MB of process rows), which nobody reads and which took
	// most of analyze's load and pack; gin, flask and prometheus stay far
	// below it.
	MaxProcesses int
}

// The default flow budget (TraceOptions.MaxProcesses).
const (
	SymbolsPerProcess = 10
	MinProcessBudget  = 5000
)

func (o *TraceOptions) defaults() {
	if o.MinEntryScore == 0 {
		o.MinEntryScore = 1.0
	}
	if o.MinConfidence == 0 {
		o.MinConfidence = 0.5
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 10
	}
	if o.MaxBranch == 0 {
		o.MaxBranch = 4
	}
	if o.MinSteps == 0 {
		o.MinSteps = 3
	}
	if o.MaxPathsPerEntry == 0 {
		o.MaxPathsPerEntry = 12
	}
	if o.MaxRawPaths == 0 {
		o.MaxRawPaths = 64
	}
}

// Trace is one execution flow: node indexes from the entry point on.
type Trace struct {
	Entry int
	Score float64 // the entry point's score
	Steps []int
	// Closure marks the flow of the func literal Entry returns: its first
	// step is a call made inside that literal (Edge.Later).
	Closure bool
	// Alike counts the other terminal steps the same path reaches — a leaf
	// fan-out the flow stands for (binding's TrySet reaching setIntField,
	// setUintField, …): paths of the entry that differ from this one in
	// their last step only, and were not shown for it.
	Alike int
	// SharedWith is the entry (node index) whose flow this one is after
	// its first step, -1 when none's; SharedSeveral when this entry's
	// dropped flows were several entries'. SharedMore counts the entry's
	// other flows dropped for that (shareTails).
	SharedWith, SharedMore int
}

// TraceStats say what happened to the entry points.
type TraceStats struct {
	Ranked      int `json:"ranked"`       // entry points scored
	Traced      int `json:"traced"`       // at or above MinEntryScore, walked
	BelowScore  int `json:"below_score"`  // not walked: score under MinEntryScore
	TooShort    int `json:"too_short"`    // walked, but no path reached MinSteps
	Subsumed    int `json:"subsumed"`     // walked, but every path lies inside another process
	WithProcess int `json:"with_process"` // entry points that start at least one process
	Processes   int `json:"processes"`
	OverBudget  int `json:"over_budget"`  // entry points not walked: the flow budget was in hand (MaxProcesses)
	CutFlows    int `json:"cut_flows"`    // flows past the budget, dropped (the lowest entry scores)
	SharedTails int `json:"shared_tails"` // flows dropped as another entry's flow after their first step (shareTails)
}

// TraceAll walks every entry point scoring at least MinEntryScore, best
// first, within the flow budget (MaxProcesses), and returns the
// deduplicated processes, ordered by entry score then id.
func TraceAll(g *Graph, entries []EntryPoint, opts TraceOptions) ([]Trace, TraceStats) {
	budget, importance, hub := traceInputs(g, &opts)
	st := TraceStats{Ranked: len(entries)}
	var all []Trace
	walked := map[entryKey]int{} // entry → number of raw paths
	own := map[int]bool{}        // entries whose flows stay even inside another's
	// An entry's flows are a function of the graph and the entry alone;
	// whether it is walked at all depends on the flows of the entries
	// before it (the budget). So the entries are walked on workers
	// goroutines and their flows taken in entry order (internal/ordered),
	// as if walked one after the other: the same traces, at most
	// traceWindow entries walked for nothing once the budget is in hand.
	var walkable []EntryPoint
	for _, ep := range entries {
		if ep.Score < opts.MinEntryScore {
			st.BelowScore++
			continue
		}
		walkable = append(walkable, ep)
	}
	walkOne := func(ep EntryPoint) walkedFlows {
		cands := trimHubTails(walk(g, ep.Node, importance, opts, ep.Closure), hub, opts.MinSteps)
		paths := selectPaths(cands, hub, opts, g.realCallees(ep.Node))
		return walkedFlows{paths, leafAlike(paths, cands)}
	}
	_ = ordered.Run(context.Background(), len(walkable), workers, traceWindow,
		func(context.Context) (func(int) walkedFlows, func()) {
			return func(i int) walkedFlows { return walkOne(walkable[i]) }, nil
		},
		func(i int, f walkedFlows) error {
			if len(all) >= 2*budget {
				return errBudgetInHand
			}
			ep := walkable[i]
			st.Traced++
			if ep.ownRight() {
				own[ep.Node] = true
			}
			walked[entryKey{ep.Node, ep.Closure}] = len(f.paths)
			if len(f.paths) == 0 {
				st.TooShort++
			}
			for k, p := range f.paths {
				all = append(all, Trace{Entry: ep.Node, Score: ep.Score, Steps: p, Closure: ep.Closure, Alike: f.alike[k], SharedWith: -1})
			}
			return nil
		}) // errBudgetInHand or nil: its context never ends
	st.OverBudget = len(walkable) - st.Traced // the walkable entries whose flows were not taken
	return finishTraces(g, all, walked, own, budget, opts, st)
}

// traceInputs sets opts' defaults and returns what every walk of g reads:
// the flow budget, each symbol's importance as a branch and the hubs.
func traceInputs(g *Graph, opts *TraceOptions) (budget int, importance []float64, hub []bool) {
	opts.defaults()
	budget = opts.MaxProcesses
	if budget <= 0 {
		budget = max(MinProcessBudget, g.Len()/SymbolsPerProcess)
	}
	return budget, branchImportance(g, opts.MinConfidence), hubs(g)
}

// finishTraces makes TraceAll's result of the flows of the entries walked
// (all, in entry order): deduplicated, tails shared, cut to the budget.
func finishTraces(g *Graph, all []Trace, walked map[entryKey]int, own map[int]bool, budget int, opts TraceOptions, st TraceStats) ([]Trace, TraceStats) {
	kept, shared := shareTails(g, nearDupes(dedupe(all, opts.MinSteps, own)))
	st.SharedTails = shared
	if len(kept) > budget { // in entry-score order: the weakest entries' flows go
		st.CutFlows = len(kept) - budget
		kept = kept[:budget]
	}
	have := map[entryKey]bool{}
	for _, t := range kept {
		have[entryKey{t.Entry, t.Closure}] = true
	}
	for e, n := range walked {
		if n > 0 && !have[e] {
			st.Subsumed++
		}
	}
	st.WithProcess = len(have)
	st.Processes = len(kept)
	return kept, st
}

// traceWindow is how far TraceAll's walks run ahead of the entry whose
// flows are taken next.
const traceWindow = 64

// errBudgetInHand stops TraceAll's walks once the flows in hand reach
// twice the budget.
var errBudgetInHand = errors.New("flow budget in hand")

// walkedFlows is what walking one entry point gave: its flows and, for
// each, the other leaves of the same path (leafAlike).
type walkedFlows struct {
	paths [][]int
	alike []int
}

// entryKey tells an entry point's own flows from those of the func
// literal it returns.
type entryKey struct {
	node    int
	closure bool
}

// maxReach caps the two-level reach branchImportance counts.
const maxReach = 64

// branchImportance ranks each symbol as a branch of a flow: how much of
// the repository's own behaviour lies behind it (the calls it makes and
// the calls those make, two levels, capped; not the calls inside a func
// literal it returns, which a flow through it does not take), discounted by how many
// callers it has — a symbol everything calls (logging, asserts,
// conversions, debug printing) is a utility, rarely the step a reader
// follows:
//
//	importance = (1 + reach₂) / (1 + log₂(1 + callers))
//
// Learned from the graph alone, no list of names.
func branchImportance(g *Graph, minConf float64) []float64 {
	follow := func(a arc) bool { return !a.callback && !a.later && a.conf >= minConf }
	out1 := make([]int, g.Len())
	for i := range out1 {
		for _, a := range g.out[i] {
			if follow(a) {
				out1[i]++
			}
		}
	}
	imp := make([]float64, g.Len())
	for i := range imp {
		reach := out1[i]
		for _, a := range g.out[i] {
			if follow(a) {
				reach += out1[a.to]
			}
		}
		if reach > maxReach {
			reach = maxReach
		}
		callers := 0
		for _, a := range g.in[i] {
			if !a.callback {
				callers++
			}
		}
		imp[i] = (1 + float64(reach)) / (1 + math.Log2(1+float64(callers)))
	}
	return imp
}

// hubCallers is how many distinct non-test callers make a symbol a hub.
const hubCallers = 3

// hubs marks the symbols called (really, not as callbacks) from at least
// hubCallers non-test symbols.
func hubs(g *Graph) []bool {
	h := make([]bool, g.Len())
	for i := range h {
		h[i] = g.realCallers(i) >= hubCallers
	}
	return h
}

// delegateFactor is how much a callee of the caller's own name (a wrapper
// delegating: Engine.Run → RouterGroup... , ginS.GET → RouterGroup.GET)
// weighs above its importance when branches are ordered.
const delegateFactor = 4

// walk enumerates maximal call paths from start, depth-first, callees by
// importance (branchImportance × confidence, a delegate first, then id),
// never revisiting a node on the path. Callbacks are not followed, nor
// calls made inside a returned func literal (they happen later) — except
// from start when closure is set: then the walk is the returned literal's
// flow, and its first steps are exactly those calls.
func walk(g *Graph, start int, importance []float64, opts TraceOptions, closure bool) [][]int {
	var out [][]int
	onPath := map[int]bool{start: true}
	path := []int{start}
	// rec walks below u and emits at most budget paths; the budget is
	// shared among u's branches in importance order (each gets an equal
	// share of what is left), so the last branches of a wide step are
	// walked too instead of the first one using up every path.
	var rec func(u, budget int) int
	rec = func(u, budget int) int {
		if budget <= 0 {
			return 0
		}
		var next []arc
		if len(path) < opts.MaxDepth {
			for _, a := range g.out[u] {
				if a.conf >= opts.MinConfidence && !a.callback && !onPath[a.to] && a.later == (closure && u == start) {
					next = append(next, a)
				}
			}
		}
		if len(next) == 0 {
			if len(path) >= opts.MinSteps {
				out = append(out, append([]int(nil), path...))
				return 1
			}
			return 0
		}
		weight := func(a arc) float64 {
			w := importance[a.to] * a.conf
			if g.Nodes[a.to].Name == g.Nodes[u].Name {
				w *= delegateFactor
			}
			return w
		}
		sort.Slice(next, func(a, b int) bool {
			ia, ib := weight(next[a]), weight(next[b])
			if ia != ib {
				return ia > ib
			}
			return g.Nodes[next[a].to].ID < g.Nodes[next[b].to].ID
		})
		branch := opts.MaxBranch
		switch len(path) {
		case 1:
			branch *= 8 // what the entry does is the behaviour: go wide there
		case 2:
			branch *= 2
		}
		if len(next) > branch {
			next = next[:branch]
		}
		used := 0
		for i, a := range next {
			left := budget - used
			share := (left + len(next) - i - 1) / (len(next) - i) // ceil(left / branches left)
			onPath[a.to] = true
			path = append(path, a.to)
			used += rec(a.to, share)
			path = path[:len(path)-1]
			delete(onPath, a.to)
		}
		return used
	}
	rec(start, opts.MaxRawPaths)
	return out
}

// trimHubTails cuts from the end of each path the steps that are hubs
// (debugPrint → IsDebugging, WriteHeaderNow → Written: utilities called
// from everywhere, the same detail at the end of every flow), down to
// minSteps at the shortest; paths that become identical are kept once.
func trimHubTails(paths [][]int, hub []bool, minSteps int) [][]int {
	seen := map[string]bool{}
	var out [][]int
	for _, p := range paths {
		for len(p) > minSteps && hub[p[len(p)-1]] {
			p = p[:len(p)-1]
		}
		k := fmt.Sprint(p)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// depthWeight is what a new step at depth d adds to a candidate path's
// worth in selectPaths.
func depthWeight(d int) float64 { _ = d; return 1 }

// selectPaths picks, from the candidate paths of one entry point (in walk
// order: most important branches first), the ones a reader needs: greedily
// the path that adds the most steps not yet shown by a path already
// picked, a step at depth d weighing 1/(1+d) so that what the entry does
// itself comes before the detail of one branch (ties: walk order), as
// long as it adds two new steps, or one
// within the first three steps (a different thing the entry or its first
// callee does: dispatch reaching getValue as well as Next). A path that
// only swaps one deep leaf for another adds nothing and is not picked. At
// most MaxPathsPerEntry, plus one per eight callees of the entry.
//
// What lies below a hub (a symbol many call: Context.Render under every
// render method, WriteHeaderNow, debugPrint) is the hub's own behaviour,
// the same under every caller: it counts as nothing new, so an entry shows
// its path into the hub once, not every leaf behind it.
func selectPaths(paths [][]int, hub []bool, opts TraceOptions, callees int) [][]int {
	if len(paths) == 0 {
		return nil
	}
	limit := opts.MaxPathsPerEntry + callees/8 // a main calling 75 functions does more than a handler calling 5
	shown := map[int]bool{}
	used := make([]bool, len(paths))
	var out [][]int
	for len(out) < limit {
		best, bestGain, bestShallow, bestWeight := -1, 0, false, 0.0
		for i, p := range paths {
			if used[i] {
				continue
			}
			gain, shallow, weight := 0, false, 0.0
			for d, s := range p {
				if !shown[s] {
					gain++
					weight += depthWeight(d)
					if d < 3 {
						shallow = true
					}
				}
				if d > 0 && hub[s] && len(out) > 0 {
					break
				}
			}
			if weight > bestWeight {
				best, bestGain, bestShallow, bestWeight = i, gain, shallow, weight
			}
		}
		if best < 0 || len(out) > 0 && bestGain < 2 && !bestShallow {
			break
		}
		used[best] = true
		out = append(out, paths[best])
		for _, s := range paths[best] {
			shown[s] = true
		}
	}
	return out
}

// SharedSeveral is Trace.SharedWith when an entry's flows were those of
// several other entries.
const SharedSeveral = -2

// shareTails emits a sub-path that several entries share once: where
// flows of different entries are the same after their first step
// (ServeHTTP and HandleContext both run handleHTTPRequest → …, Run,
// RunTLS and RunUnix the same start-up), the best entry (score, then its
// first callee's directory, then the order of ts) keeps all of them, and each other
// entry keeps its first such flow, which says how many more continue as
// the first entry's (SharedWith, SharedMore). It returns the kept flows in
// order and how many were dropped.
func shareTails(g *Graph, ts []Trace) ([]Trace, int) {
	type tailKey struct {
		h       uint64
		closure bool
	}
	same := func(a, b Trace) bool { return a.Closure == b.Closure && slices.Equal(a.Steps[1:], b.Steps[1:]) }
	// better reports whether trace a should own a tail it shares with b:
	// the higher score, then the entry in its first callee's directory
	// (sys_read in fs/ over an arch wrapper delegating to ksys_read), then
	// the order of ts
	home := func(t Trace) bool {
		return len(t.Steps) > 1 && path.Dir(g.Nodes[t.Steps[0]].FilePath) == path.Dir(g.Nodes[t.Steps[1]].FilePath)
	}
	better := func(a, b Trace) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return home(a) && !home(b)
	}
	// the owning trace of each distinct tail
	owners := map[tailKey][]int{}
	ownerOf := make([]int, len(ts))
	for i, t := range ts {
		k := tailKey{hashSteps(t.Steps[1:]), t.Closure}
		found := false
		for n, j := range owners[k] {
			if same(ts[j], t) {
				found = true
				if better(t, ts[j]) {
					owners[k][n] = i
				}
				break
			}
		}
		if !found {
			owners[k] = append(owners[k], i)
		}
	}
	for i, t := range ts {
		for _, j := range owners[tailKey{hashSteps(t.Steps[1:]), t.Closure}] {
			if same(ts[j], t) {
				ownerOf[i] = j
				break
			}
		}
	}
	kept := make([]bool, len(ts))
	first := map[entryKey]int{} // entry → its kept shared flow
	dropped := 0
	for i, t := range ts {
		j := ownerOf[i]
		if ts[j].Entry == t.Entry {
			kept[i] = true
			continue
		}
		k := entryKey{t.Entry, t.Closure}
		if f, ok := first[k]; ok {
			dropped++
			ts[f].SharedMore++
			if ts[f].SharedWith != ts[j].Entry {
				ts[f].SharedWith = SharedSeveral
			}
			continue
		}
		first[k] = i
		kept[i] = true
		ts[i].SharedWith = ts[j].Entry
	}
	out := make([]Trace, 0, len(ts)-dropped)
	for i, t := range ts {
		if kept[i] {
			out = append(out, t)
		}
	}
	return out, dropped
}

// leafAlike counts, for each picked path, the distinct last steps of the
// candidate paths that share all its other steps, leaving out the last
// steps the picked paths show: the leaf fan-out it stands for. Where
// several picked paths share those steps, the first stands for them.
func leafAlike(picked, cands [][]int) []int {
	out := make([]int, len(picked))
	// the first picked path with the given steps but the last
	stand := func(c []int) int {
		for i, p := range picked {
			if len(p) == len(c) && slices.Equal(p[:len(p)-1], c[:len(c)-1]) {
				return i
			}
		}
		return -1
	}
	shown := map[int]map[int]bool{} // standing path → last steps shown or counted
	for _, p := range picked {
		if len(p) < 2 {
			continue
		}
		k := stand(p)
		if shown[k] == nil {
			shown[k] = map[int]bool{}
		}
		shown[k][p[len(p)-1]] = true
	}
	for _, c := range cands {
		if len(c) < 2 {
			continue
		}
		k := stand(c)
		if k < 0 || shown[k][c[len(c)-1]] {
			continue
		}
		shown[k][c[len(c)-1]] = true
		out[k]++
	}
	return out
}

// dedupe drops identical traces and every trace that appears as a
// contiguous run inside a longer one, keeping the order of the input —
// except that a trace from an entry point in its own right (own) is kept
// when the longer one starts elsewhere: route registration from GET stays
// a flow even though StaticFS's flow runs through GET.
func dedupe(ts []Trace, minSteps int, own map[int]bool) []Trace {
	// Every trace by the hash of its steps (a hit is checked step by step,
	// so a collision costs a comparison, never a wrong answer). Then every
	// contiguous run of every trace, of at least minSteps steps and shorter
	// than the trace, marks the traces equal to it as inner (innerSame when
	// the run starts the longer trace). Only the traces are stored, not
	// their runs: on the Linux kernel a set of every run took gigabytes.
	byHash := make(map[uint64][]int, len(ts))
	for i, t := range ts {
		h := hashSteps(t.Steps)
		byHash[h] = append(byHash[h], i)
	}
	find := func(steps []int) []int {
		var out []int
		for _, i := range byHash[hashSteps(steps)] {
			if slices.Equal(ts[i].Steps, steps) {
				out = append(out, i)
			}
		}
		return out
	}
	inner := make([]bool, len(ts))
	innerSame := make([]bool, len(ts))
	for _, t := range ts {
		n := len(t.Steps)
		for l := minSteps; l < n; l++ {
			for s := 0; s+l <= n; s++ {
				for _, i := range find(t.Steps[s : s+l]) {
					inner[i] = true
					if s == 0 {
						innerSame[i] = true
					}
				}
			}
		}
	}
	seen := make([]bool, len(ts)) // an earlier identical trace was kept
	var out []Trace
	for i, t := range ts {
		if seen[i] || innerSame[i] || inner[i] && !own[t.Entry] {
			continue
		}
		for _, j := range find(t.Steps) {
			seen[j] = true
		}
		out = append(out, t)
	}
	return out
}

// hashSteps is the FNV-1a hash of a trace's node indexes.
func hashSteps(steps []int) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range steps {
		for v, k := uint64(s), 0; k < 8; k, v = k+1, v>>8 {
			h ^= v & 0xff
			h *= 1099511628211
		}
	}
	return h
}

// nearDupShare is how much of a flow's steps a longer sibling (same entry)
// may share before the flow is dropped as a near-duplicate of it.
const nearDupShare = 0.8

// nearDupes drops, among the flows of one entry point, each flow whose
// steps lie mostly (nearDupShare) inside a sibling kept before it: a
// long path that differs from a kept one in a step or two (a leaf
// fan-out at depth 5 and more) adds nothing a reader needs. Siblings are
// considered longest first (then in walk order), so the longest variant
// is the one kept; the result keeps the input's order. Short flows that
// differ in their last step (main → handle → validate, main → handle →
// save) are different behaviours and are all kept.
func nearDupes(ts []Trace) []Trace {
	byEntry := map[entryKey][]int{}
	var entries []entryKey
	for i, t := range ts {
		k := entryKey{t.Entry, t.Closure}
		if _, ok := byEntry[k]; !ok {
			entries = append(entries, k)
		}
		byEntry[k] = append(byEntry[k], i)
	}
	drop := make([]bool, len(ts))
	for _, e := range entries {
		idx := byEntry[e]
		sort.SliceStable(idx, func(a, b int) bool { return len(ts[idx[a]].Steps) > len(ts[idx[b]].Steps) })
		var kept []int
		for _, i := range idx {
			if nearDupOfAny(ts[i].Steps, ts, kept) {
				drop[i] = true
				continue
			}
			kept = append(kept, i)
		}
	}
	var out []Trace
	for i, t := range ts {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out
}

// nearDupOfAny reports whether steps lie mostly inside one of the kept
// traces.
func nearDupOfAny(steps []int, ts []Trace, kept []int) bool {
	for _, k := range kept {
		other := ts[k].Steps // at most MaxDepth steps: a scan beats a map
		shared := 0
		for _, s := range steps {
			if slices.Contains(other, s) {
				shared++
			}
		}
		if float64(shared) >= nearDupShare*float64(len(steps)) {
			return true
		}
	}
	return false
}

// ProcessID is the stable id of a flow: a hash of its step symbol ids, so
// the same flow through unchanged code keeps its id across analyzes.
func ProcessID(stepIDs []string) string {
	h := sha256.Sum256([]byte(strings.Join(stepIDs, "\x00")))
	return "proc_" + hex.EncodeToString(h[:8])
}

// FlowLabel reads as the flow: "A → B → C", eliding the middle of long
// flows ("A → B → … → Z").
func FlowLabel(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, " → ")
	}
	return strings.Join([]string{names[0], names[1], "…", names[len(names)-1]}, " → ")
}
