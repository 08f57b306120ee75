package oracle

import (
	"testing"

	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/static"
)

// TestSupersetOfXTools checks that the oracle's graphs contain what
// go/callgraph/static and go/callgraph/cha give under the same projection,
// and that they add to them exactly the edges those packages' root sets
// miss in the fixture (see resolve).
func TestSupersetOfXTools(t *testing.T) {
	g := buildFixture(t)
	b := fixtureBuilder
	name := func(e [2]int) string { return edgeName(g, e[0], e[1]) }

	ours := map[[2]int]bool{}
	for _, e := range g.Static {
		ours[[2]int{e.Caller, e.Callee}] = true
	}
	xs := project(b, static.CallGraph(b.prog))
	for _, e := range g.Static {
		if e.XTools != xs[[2]int{e.Caller, e.Callee}] {
			t.Errorf("static edge %s: XTools = %v, want %v", edgeName(g, e.Caller, e.Callee), e.XTools, !e.XTools)
		}
	}
	for e := range xs {
		if !ours[e] {
			t.Errorf("static.CallGraph has %s; the oracle's static graph does not", name(e))
		}
	}
	extra := map[string]bool{}
	for e := range ours {
		if !xs[e] {
			extra[name(e)] = true
		}
	}
	// static.CallGraph does not reach a closure passed as a value.
	if !extra["fixture.Callback -> fixture.Direct"] || len(extra) != 1 {
		t.Errorf("static edges beyond static.CallGraph: %v, want only Callback -> Direct", extra)
	}

	oursCHA := map[[2]int]bool{}
	for _, e := range g.CHA {
		oursCHA[e] = true
	}
	xc := project(b, cha.CallGraph(b.prog))
	for e := range xc {
		if !oursCHA[e] {
			t.Errorf("cha.CallGraph has %s; the oracle's CHA graph does not", name(e))
		}
	}
	// cha.CallGraph does not see the method of a type nothing uses.
	if e := "fixture.unused.dead -> fixture.helper"; !oursCHA[[2]int{indexOf(g, "fixture.unused.dead"), indexOf(g, "fixture.helper")}] {
		t.Errorf("the oracle's CHA graph lacks %s", e)
	}
}

func indexOf(g *Graph, name string) int {
	for i, f := range g.Funcs {
		if f.Name == name {
			return i
		}
	}
	return -1
}
