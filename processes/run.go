package processes

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"runtime"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Options configure Run.
type Options struct {
	Community CommunityOptions
	Trace     TraceOptions
}

// Result is everything Run derives, ready to load.
type Result struct {
	Communities []schema.Community
	Processes   []schema.Process
	Entries     []EntryPoint
	Stats       Stats

	// The MEMBER_OF and STEP_IN_PROCESS edges, kept as node indexes of g
	// (EachEdge makes the records): on the Linux kernel there are millions,
	// and a schema.Edge each took most of the phase's memory.
	g       *Graph
	members [][]int // per community
	steps   [][]int // per process
}

// EachEdge calls fn with every MEMBER_OF edge (symbol → Community) and
// then every STEP_IN_PROCESS edge (symbol → Process, 1-based Step), in a
// fixed order, and stops at fn's first error.
func (r *Result) EachEdge(fn func(schema.Edge) error) error {
	for c, members := range r.members {
		for _, m := range members {
			n := &r.g.Nodes[m]
			if err := fn(schema.Edge{
				Type: schema.RelMemberOf, From: n.ID, FromLabel: n.Label,
				To: r.Communities[c].ID, ToLabel: schema.LabelCommunity, Confidence: 1, Reason: "louvain",
			}); err != nil {
				return err
			}
		}
	}
	for p, steps := range r.steps {
		for i, s := range steps {
			n := &r.g.Nodes[s]
			if err := fn(schema.Edge{
				Type: schema.RelStepInProcess, From: n.ID, FromLabel: n.Label,
				To: r.Processes[p].ID, ToLabel: schema.LabelProcess, Confidence: 1, Reason: "trace", Step: i + 1,
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Edges is every edge EachEdge yields, as one slice (for small graphs and
// tests; a build streams them with EachEdge).
func (r *Result) Edges() []schema.Edge {
	var out []schema.Edge
	_ = r.EachEdge(func(e schema.Edge) error { out = append(out, e); return nil })
	return out
}

// Stats summarise a run for analyze's report.
type Stats struct {
	Communities        int        `json:"communities"`
	CommunityTimedOut  bool       `json:"community_timed_out"`
	SymbolsInCommunity int        `json:"symbols_in_community"`
	Trace              TraceStats `json:"trace"`
	Seconds            float64    `json:"seconds"`
	// Reused: the result is the previous analyze's (LoadSaved), whose
	// graph had this one's Key; Seconds is that run's.
	Reused bool `json:"reused,omitempty"`
}

// workers is how many goroutines the steps that go node by node or entry
// by entry run on (ScoreEntryPoints, TraceAll): one per core. A variable
// for tests.
var workers = runtime.GOMAXPROCS(0)

// concurrentSymbols: Run detects the communities of a graph of at most
// this many symbols beside the traces. The Linux kernel's (870k) did so
// in one run at a processes-phase peak of 3,864 MiB (two others: 3,116
// and 3,399; before, 3,198), against the 4 GiB the issue allows it.
var concurrentSymbols = 500_000 // a variable for tests

// Run detects communities, scores entry points and traces processes.
func Run(g *Graph, opts Options) *Result {
	t0 := time.Now()
	res := &Result{g: g}
	// Communities and traces read g and nothing of each other until the
	// processes are made below: the communities are detected and labelled
	// on a goroutine of their own while the entry points are scored and
	// traced (kubernetes: Louvain is about half of the phase), up to
	// concurrentSymbols; a larger graph does one after the other, so that
	// Louvain's levels and the traces are not held at once.
	var part Partition
	var commID []string
	done := make(chan struct{})
	communities := func() {
		defer close(done)
		t0 := time.Now()
		defer func() { slog.Debug("processes: communities", "took", time.Since(t0)) }()
		part = DetectCommunities(g, opts.Community)
		res.Stats.CommunityTimedOut = part.TimedOut
		lab := newLabeller(g)
		commID = make([]string, len(part.Members))
		for c, members := range part.Members {
			kw := lab.keywords(g, members, 5)
			commID[c] = communityID(g, members)
			res.Communities = append(res.Communities, schema.Community{
				ID:          commID[c],
				Label:       lab.label(g, members, kw),
				Keywords:    kw,
				Cohesion:    cohesion(g, members),
				SymbolCount: len(members),
			})
			res.members = append(res.members, members)
			res.Stats.SymbolsInCommunity += len(members)
		}
		res.Stats.Communities = len(res.Communities)
	}
	if g.Len() <= concurrentSymbols {
		go communities()
	} else {
		communities()
	}
	t1 := time.Now()
	entries := ScoreEntryPoints(g)
	traces, ts := TraceAll(g, entries, opts.Trace)
	slog.Debug("processes: entry points and traces", "took", time.Since(t1))
	<-done
	res.Entries = entries
	res.Stats.Trace = ts
	for _, t := range traces {
		ids := make([]string, len(t.Steps))
		names := make([]string, len(t.Steps))
		var comms []string
		seenComm := map[string]bool{}
		for i, s := range t.Steps {
			ids[i], names[i] = g.Nodes[s].ID, g.Nodes[s].Name
			if c := part.Of[s]; c >= 0 && !seenComm[commID[c]] {
				seenComm[commID[c]] = true
				comms = append(comms, commID[c])
			}
		}
		ptype := "intra_community"
		if len(comms) > 1 {
			ptype = "cross_community"
		}
		if t.Closure {
			names[0] += " (returned func)"
		}
		p := schema.Process{
			ID:           ProcessID(ids),
			Label:        FlowLabel(names),
			Description:  describe(g, t),
			ProcessType:  ptype,
			StepCount:    len(ids),
			Communities:  comms,
			EntryPointID: ids[0],
			TerminalID:   ids[len(ids)-1],
			Priority:     t.Score,
		}
		if p.Communities == nil {
			p.Communities = []string{}
		}
		res.Processes = append(res.Processes, p)
		res.steps = append(res.steps, t.Steps)
	}
	res.Stats.Seconds = time.Since(t0).Seconds()
	return res
}

// communityID derives a community's id from its smallest member id, so a
// community keeps its id while its core stays.
func communityID(g *Graph, members []int) string {
	h := sha256.Sum256([]byte(g.Nodes[members[0]].ID))
	return "comm_" + hex.EncodeToString(h[:8])
}
