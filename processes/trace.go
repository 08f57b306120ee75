package processes

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
)

// TraceOptions bound the traces.
type TraceOptions struct {
	MinEntryScore    float64 // entry points below are not traced (0: 1.0)
	MinConfidence    float64 // CALLS edges below are not followed (0: 0.5)
	MaxDepth         int     // most steps in one process (0: 10)
	MaxBranch        int     // most callees followed from one step, by importance (0: 4)
	MinSteps         int     // shortest process kept (0: 3)
	MaxPathsPerEntry int     // most processes from one entry point (0: 12)
}

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
}

// Trace is one execution flow: node indexes from the entry point on.
type Trace struct {
	Entry int
	Score float64 // the entry point's score
	Steps []int
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
}

// TraceAll walks every entry point scoring at least MinEntryScore and
// returns the deduplicated processes, ordered by entry score then id.
func TraceAll(g *Graph, entries []EntryPoint, opts TraceOptions) ([]Trace, TraceStats) {
	opts.defaults()
	st := TraceStats{Ranked: len(entries)}
	importance := make([]float64, g.Len())
	for i := range importance {
		importance[i] = float64(len(g.out[i]))
	}
	var all []Trace
	walked := map[int]int{} // entry → number of raw paths
	for _, ep := range entries {
		if ep.Score < opts.MinEntryScore {
			st.BelowScore++
			continue
		}
		st.Traced++
		paths := walk(g, ep.Node, importance, opts)
		walked[ep.Node] = len(paths)
		if len(paths) == 0 {
			st.TooShort++
		}
		for _, p := range paths {
			all = append(all, Trace{Entry: ep.Node, Score: ep.Score, Steps: p})
		}
	}
	kept := nearDupes(dedupe(all, opts.MinSteps))
	have := map[int]bool{}
	for _, t := range kept {
		have[t.Entry] = true
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

// walk enumerates maximal call paths from start, depth-first, callees by
// importance (fan-out, then id), never revisiting a node on the path.
func walk(g *Graph, start int, importance []float64, opts TraceOptions) [][]int {
	var out [][]int
	onPath := map[int]bool{start: true}
	path := []int{start}
	var rec func(u int)
	rec = func(u int) {
		if len(out) >= opts.MaxPathsPerEntry {
			return
		}
		var next []arc
		if len(path) < opts.MaxDepth {
			for _, a := range g.out[u] {
				if a.conf >= opts.MinConfidence && !onPath[a.to] {
					next = append(next, a)
				}
			}
		}
		if len(next) == 0 {
			if len(path) >= opts.MinSteps {
				out = append(out, append([]int(nil), path...))
			}
			return
		}
		sort.Slice(next, func(a, b int) bool {
			ia, ib := importance[next[a].to]*next[a].conf, importance[next[b].to]*next[b].conf
			if ia != ib {
				return ia > ib
			}
			return g.Nodes[next[a].to].ID < g.Nodes[next[b].to].ID
		})
		if len(next) > opts.MaxBranch {
			next = next[:opts.MaxBranch]
		}
		for _, a := range next {
			onPath[a.to] = true
			path = append(path, a.to)
			rec(a.to)
			path = path[:len(path)-1]
			delete(onPath, a.to)
		}
	}
	rec(start)
	return out
}

// dedupe drops identical traces and every trace that appears as a
// contiguous run inside a longer one, keeping the order of the input.
func dedupe(ts []Trace, minSteps int) []Trace {
	// Every trace by the hash of its steps (a hit is checked step by step,
	// so a collision costs a comparison, never a wrong answer). Then every
	// contiguous run of every trace, of at least minSteps steps and shorter
	// than the trace, marks the traces equal to it as inner. Only the
	// traces are stored, not their runs: on the Linux kernel a set of every
	// run took gigabytes.
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
	for _, t := range ts {
		n := len(t.Steps)
		for l := minSteps; l < n; l++ {
			for s := 0; s+l <= n; s++ {
				for _, i := range find(t.Steps[s : s+l]) {
					inner[i] = true
				}
			}
		}
	}
	seen := make([]bool, len(ts)) // an earlier identical trace was kept
	var out []Trace
	for i, t := range ts {
		if seen[i] || inner[i] {
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
	byEntry := map[int][]int{}
	var entries []int
	for i, t := range ts {
		if _, ok := byEntry[t.Entry]; !ok {
			entries = append(entries, t.Entry)
		}
		byEntry[t.Entry] = append(byEntry[t.Entry], i)
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
