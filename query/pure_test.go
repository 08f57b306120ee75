package query

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestFuse(t *testing.T) {
	got := Fuse(
		Ranked{"keyword", []string{"a", "b", "c", "a"}},
		Ranked{"vector", []string{"c", "d"}},
	)
	want := map[string]float64{
		"a": 1.0 / 61,
		"b": 1.0 / 62,
		"c": 1.0/63 + 1.0/61,
		"d": 1.0 / 62,
	}
	if len(got) != 4 {
		t.Fatalf("got %d fused, want 4: %+v", len(got), got)
	}
	for _, f := range got {
		if math.Abs(f.Score-want[f.ID]) > 1e-12 {
			t.Errorf("%s: score %v, want %v", f.ID, f.Score, want[f.ID])
		}
	}
	// c is in both lists; a beats b and d (rank 1 vs 2); b and d tie on
	// score and best rank, so id order decides.
	var order []string
	for _, f := range got {
		order = append(order, f.ID)
	}
	if !reflect.DeepEqual(order, []string{"c", "a", "b", "d"}) {
		t.Errorf("order %v", order)
	}
	if c := got[0]; !reflect.DeepEqual(c.Sources, []string{"keyword", "vector"}) || !reflect.DeepEqual(c.Ranks, []int{3, 1}) {
		t.Errorf("c sources %v ranks %v", c.Sources, c.Ranks)
	}
	if math.Abs(MaxFusedScore(2)-2.0/61) > 1e-12 {
		t.Errorf("MaxFusedScore(2) = %v", MaxFusedScore(2))
	}
	if len(Fuse()) != 0 || len(Fuse(Ranked{"k", nil})) != 0 {
		t.Error("empty input must fuse to nothing")
	}
	// Three lists: any number of lists fuses.
	three := Fuse(Ranked{"x", []string{"p"}}, Ranked{"y", []string{"p"}}, Ranked{"z", []string{"q", "p"}})
	if three[0].ID != "p" || math.Abs(three[0].Score-(2.0/61+1.0/62)) > 1e-12 {
		t.Errorf("three lists: %+v", three)
	}
}

// graphNbrs is a NeighborFunc over a hand-made edge list.
func graphNbrs(edges []schema.Edge, nodes map[string]Hit) NeighborFunc {
	return func(_ context.Context, ids []string, rels []schema.RelType, fanout int) ([]Neighbor, error) {
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		okRel := map[schema.RelType]bool{}
		for _, r := range rels {
			okRel[r] = true
		}
		count := map[string]int{}
		var out []Neighbor
		for _, e := range edges {
			if !okRel[e.Type] {
				continue
			}
			for _, d := range []struct {
				from, to string
				out      bool
			}{{e.From, e.To, true}, {e.To, e.From, false}} {
				key := d.from + string(e.Type) + map[bool]string{true: ">", false: "<"}[d.out]
				if want[d.from] && count[key] < fanout {
					count[key]++
					out = append(out, Neighbor{From: d.from, Rel: e.Type, Out: d.out, Hit: nodes[d.to]})
				}
			}
		}
		return out, nil
	}
}

func TestExpand(t *testing.T) {
	nodes := map[string]Hit{}
	for _, id := range []string{"File:a.go", "File:b.go", "File:c.go", "Cls", "Cls.m", "Base", "Iface", "f", "g", "h", "far"} {
		nodes[id] = Hit{ID: id, Name: id, Label: "Function"}
	}
	edges := []schema.Edge{
		{Type: schema.RelHasMethod, From: "Cls", To: "Cls.m"},
		{Type: schema.RelDefines, From: "File:a.go", To: "Cls"},
		{Type: schema.RelExtends, From: "Cls", To: "Base"},
		{Type: schema.RelImplements, From: "Cls", To: "Iface"},
		{Type: schema.RelCalls, From: "f", To: "g"},
		{Type: schema.RelCalls, From: "h", To: "f"},
		{Type: schema.RelImports, From: "File:a.go", To: "File:b.go"},
		{Type: schema.RelImports, From: "File:c.go", To: "File:a.go"}, // incoming to a: not followed
		{Type: schema.RelCalls, From: "g", To: "far"},                 // two hops from f
		{Type: schema.RelMemberOf, From: "f", To: "Cls"},              // not an expansion edge
	}
	r := DefaultRanking
	r.ExpandSeeds = 10
	r.ExpandHops = 1
	seeds := []Hit{
		{ID: "Cls", Score: 1, Matched: "keyword"},
		{ID: "f", Score: 0.5, Matched: "vector"},
		{ID: "File:a.go", Score: 0.4, Matched: "keyword"},
		{ID: "g", Score: 0.1, Matched: "keyword"}, // direct hit, improved by expansion
	}
	got, err := Expand(context.Background(), seeds, r, graphNbrs(edges, nodes), nil)
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	via := map[string]*Via{}
	for _, h := range got {
		score[h.ID] = h.Score
		via[h.ID] = h.Via
	}
	want := map[string]float64{
		"Cls":       1,
		"Cls.m":     0.95,      // HAS_METHOD from Cls
		"Base":      0.85,      // EXTENDS
		"Iface":     0.85,      // IMPLEMENTS
		"File:a.go": 0.95,      // DEFINES, incoming from Cls: beats its own 0.4
		"f":         0.5,       // its own score (h is not a seed)
		"g":         0.5 * 0.8, // CALLS from f beats its own 0.1
		"h":         0.5 * 0.8, // caller of f
		"File:b.go": 0.4 * 0.7, // IMPORTS out of a.go: from a.go's score at the start of the hop
		"far":       0.1 * 0.8, // from g's own score, not g's improved one (that needs a second hop)
	}
	if len(score) != len(want) {
		t.Errorf("got %v, want %v", score, want)
	}
	for id, w := range want {
		if math.Abs(score[id]-w) > 1e-12 {
			t.Errorf("%s: score %v, want %v", id, score[id], w)
		}
	}
	if _, ok := score["File:c.go"]; ok {
		t.Error("incoming IMPORTS was followed")
	}
	if v := via["g"]; v == nil || v.From != "f" || v.Rel != "CALLS" || v.Incoming {
		t.Errorf("g via %+v", v)
	}
	if v := via["h"]; v == nil || v.From != "f" || !v.Incoming {
		t.Errorf("h via %+v", v)
	}
	if via["Cls"] != nil || via["f"] != nil {
		t.Error("direct hits must have no Via")
	}
	for _, h := range got {
		if h.ID == "g" && h.Matched != "vector" {
			t.Errorf("g reached from f must carry f's matched, got %q", h.Matched)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].Score < got[i].Score {
			t.Fatalf("not sorted: %v", got)
		}
	}

	// Two hops reach "far" from f through g: 0.5 × 0.8 × 0.8.
	r.ExpandHops = 2
	got, _ = Expand(context.Background(), seeds, r, graphNbrs(edges, nodes), nil)
	for _, h := range got {
		if h.ID == "far" && math.Abs(h.Score-0.32) > 1e-12 {
			t.Errorf("far: %v", h.Score)
		}
	}

	// Fanout 1 and a filter.
	r.ExpandHops, r.ExpandFanout = 1, 1
	keep := func(h *Hit) bool { return h.ID != "Base" }
	got, _ = Expand(context.Background(), []Hit{{ID: "Cls", Score: 1}}, r, graphNbrs(edges, nodes), keep)
	for _, h := range got {
		if h.ID == "Base" {
			t.Error("filtered neighbor kept")
		}
	}

	// No seeds to expand.
	r.ExpandSeeds = 0
	got, _ = Expand(context.Background(), seeds, r, graphNbrs(edges, nodes), nil)
	if len(got) != len(seeds) {
		t.Errorf("ExpandSeeds=0 expanded: %v", got)
	}
}

func TestGroup(t *testing.T) {
	hits := []Hit{
		{ID: "a", Score: 0.9}, {ID: "b", Score: 0.8}, {ID: "c", Score: 0.7}, {ID: "d", Score: 0.6},
	}
	members := []Membership{
		{"b", "p1", 2}, {"a", "p2", 1}, {"c", "p1", 1}, {"b", "p2", 3}, {"b", "p2", 5},
	}
	procs := map[string]Process{"p1": {Summary: "one", Priority: 5}, "p2": {Summary: "two", Priority: 1}}
	ps, syms, defs := Group(hits, members, procs, 0)
	if len(ps) != 2 || ps[0].ID != "p2" || ps[1].ID != "p1" {
		t.Fatalf("processes %+v", ps) // p2 holds a and b (1.7), p1 c and b (1.5)
	}
	if ps[0].SymbolCount != 2 || ps[1].SymbolCount != 2 || ps[0].Summary != "two" || math.Abs(ps[0].Score-1.7) > 1e-12 {
		t.Errorf("process fields %+v", ps)
	}
	var got []string
	for _, s := range syms {
		got = append(got, s.ProcessID+":"+s.ID+":"+string(rune('0'+s.StepIndex)))
	}
	if !reflect.DeepEqual(got, []string{"p2:a:1", "p2:b:3", "p1:c:1", "p1:b:2"}) {
		t.Errorf("process symbols %v", got)
	}
	if len(defs) != 1 || defs[0].ID != "d" {
		t.Errorf("definitions %v", defs)
	}
	// Only the best process kept: c, in p1 only, becomes a definition.
	ps, syms, defs = Group(hits, members, procs, 1)
	if len(ps) != 1 || ps[0].ID != "p2" || len(syms) != 2 || len(defs) != 2 || defs[0].ID != "c" || defs[1].ID != "d" {
		t.Errorf("max 1 process: %v %v %v", ps, syms, defs)
	}
	// No processes at all: everything is a definition, slices non-nil.
	ps, syms, defs = Group(hits, nil, nil, 0)
	if ps == nil || syms == nil || len(ps) != 0 || len(defs) != 4 {
		t.Errorf("no processes: %v %v %v", ps, syms, defs)
	}
}

func TestOptions(t *testing.T) {
	o, err := Options{Lang: []string{"Go, python"}, Kind: []string{"FUNCTION"}, PathPrefix: `./pkg\auth`}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != ModeHybrid || o.Limit != DefaultLimit || o.TopK != DefaultTopK ||
		!reflect.DeepEqual(o.Lang, []string{"go", "python"}) || o.PathPrefix != "pkg/auth" {
		t.Errorf("defaults %+v", o)
	}
	h := Hit{Name: "HandleLogin", Kind: "function", Label: "Function", Language: "go", FilePath: "pkg/auth/login.go"}
	if !o.keep(&h) {
		t.Error("matching hit dropped")
	}
	o.NameGlob = "handle*"
	if !o.keep(&h) {
		t.Error("glob is case-insensitive")
	}
	for _, bad := range []Options{{Mode: "fuzzy"}, {Limit: -1}, {MinScore: 2}, {NameGlob: "["}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	o, _ = Options{Kind: []string{"class"}}.withDefaults()
	if !o.keep(&Hit{Kind: "struct", Label: "Class"}) || o.keep(&Hit{Kind: "function", Label: "Function"}) {
		t.Error("kind class must keep structs (Class table) and drop functions")
	}
}
