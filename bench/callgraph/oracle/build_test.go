package oracle

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// buildFixture runs the oracle on testdata/fixture once per test binary.
func buildFixture(t *testing.T) *Graph {
	t.Helper()
	fixtureOnce.Do(func() {
		env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		fixtureGraph, fixtureBuilder, fixtureErr = build(context.Background(), filepath.Join("testdata", "fixture"),
			Options{Env: env, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	})
	if fixtureErr != nil {
		t.Fatalf("Build(testdata/fixture): %v", fixtureErr)
	}
	return fixtureGraph
}

// funcLine returns the 1-based line of the line of file starting with prefix.
func funcLine(t *testing.T, file, prefix string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixture", file))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), prefix) {
			return n
		}
	}
	t.Fatalf("%s: no line starts with %q", file, prefix)
	return 0
}

func TestFixtureFunctions(t *testing.T) {
	g := buildFixture(t)
	if g.Module != "example.com/fixture" {
		t.Errorf("Module = %q, want example.com/fixture", g.Module)
	}
	if want := []string{"generic.go", "more.go", "shapes.go", "sub/sub.go"}; !reflect.DeepEqual(g.Files, want) {
		t.Errorf("Files = %v, want %v (no test files, no build-ignored files)", g.Files, want)
	}
	byName := map[string]Func{}
	for _, f := range g.Funcs {
		byName[f.Name] = f
	}
	for _, c := range []struct{ name, file, prefix string }{
		{"fixture.Square.Area", "shapes.go", "func (s Square) Area"},
		{"fixture.(*Circle).Area", "shapes.go", "func (c *Circle) Area"},
		{"fixture.helper", "shapes.go", "func helper"},
		{"fixture.Map", "generic.go", "func Map"},
		{"sub.Twice", "sub/sub.go", "func Twice"},
		{"fixture.(*stack).push", "more.go", "func (s *stack[T]) push"},
	} {
		f, ok := byName[c.name]
		if !ok {
			t.Errorf("function %s missing", c.name)
			continue
		}
		if want := (Func{File: c.file, Line: funcLine(t, c.file, c.prefix), Name: c.name}); f != want {
			t.Errorf("function %s = %+v, want %+v (line of the func keyword, not of the doc comment)", c.name, f, want)
		}
	}
	for _, absent := range []string{"fixture.helperForTests", "fixture.TestDirect", "fixture.notLoaded"} {
		if _, ok := byName[absent]; ok {
			t.Errorf("function %s is in the oracle; test files and build-ignored files must not be", absent)
		}
	}
	if len(g.Funcs) != 25 {
		t.Errorf("%d functions, want 25: %v", len(g.Funcs), g.Funcs)
	}
}

func edgeName(g *Graph, from, to int) string { return g.Funcs[from].Name + " -> " + g.Funcs[to].Name }

func TestFixtureStatic(t *testing.T) {
	g := buildFixture(t)
	got := map[string]Kind{}
	closure := map[string]bool{}
	for _, e := range g.Static {
		n := edgeName(g, e.Caller, e.Callee)
		got[n] = e.Kind
		closure[n] = e.InClosure
		if e.Site == "" {
			t.Errorf("static edge %s has no site", n)
		}
	}
	want := map[string]Kind{
		"fixture.Direct -> fixture.helper":              KindFunc,
		"fixture.WithClosure -> fixture.helper":         KindFunc, // from the closure
		"fixture.Promoted -> fixture.Base.Hello":        KindPromoted,
		"fixture.MethodExpr -> fixture.Square.Area":     KindMethodExpr,
		"fixture.UseSub -> sub.Twice":                   KindPkgFunc,
		"fixture.(*Holder).Area -> fixture.Square.Area": KindMethodOnField,
		"fixture.Chain -> fixture.NewSquare":            KindFunc,
		"fixture.Chain -> fixture.Square.Area":          KindMethodOnCall,
		"fixture.UseGeneric -> fixture.Map":             KindGeneric,
		// calls inside generic methods, from a closure passed as a
		// callback, and from a method nothing calls
		"fixture.UseStack -> fixture.(*stack).push":       KindGeneric,
		"fixture.(*stack).push -> fixture.(*stack).touch": KindMethodOnVar,
		"fixture.(*stack).touch -> fixture.helper":        KindFunc,
		"fixture.Callback -> fixture.apply":               KindFunc,
		"fixture.Callback -> fixture.Direct":              KindFunc,
		"fixture.unused.dead -> fixture.helper":           KindFunc,
		// SSA follows f to the bound method s.Area.
		"fixture.MethodValue -> fixture.Square.Area": KindFuncValue,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("static edges:\n got %v\nwant %v", sorted(got), sorted(want))
	}
	if !closure["fixture.WithClosure -> fixture.helper"] || !closure["fixture.Callback -> fixture.Direct"] || closure["fixture.Direct -> fixture.helper"] {
		t.Errorf("InClosure wrong: %v", closure)
	}
}

func TestFixtureCHA(t *testing.T) {
	g := buildFixture(t)
	cha := map[string]bool{}
	for _, e := range g.CHA {
		if e[0] == e[1] {
			t.Errorf("CHA self-edge %s", edgeName(g, e[0], e[1]))
		}
		cha[edgeName(g, e[0], e[1])] = true
	}
	for _, e := range g.Static {
		if n := edgeName(g, e.Caller, e.Callee); !cha[n] {
			t.Errorf("static edge %s is not in CHA", n)
		}
	}
	for _, n := range []string{
		// interface dispatch to every implementation
		"fixture.Total -> fixture.Square.Area",
		"fixture.Total -> fixture.(*Circle).Area",
		"fixture.Total -> fixture.(*Holder).Area",
		// a method value's bound wrapper is seen through
		"fixture.MethodValue -> fixture.Square.Area",
		// a function-value call reaches every function of its signature
		"fixture.apply -> fixture.helper",
		"fixture.apply -> fixture.Direct",
	} {
		if !cha[n] {
			t.Errorf("CHA lacks %s", n)
		}
	}
	for n := range cha {
		if strings.HasPrefix(n, "fixture.Fact -> fixture.Fact") || strings.Contains(n, "helperForTests") || strings.Contains(n, "notLoaded") {
			t.Errorf("CHA has %s", n)
		}
	}
}

func TestWriteRead(t *testing.T) {
	g := buildFixture(t)
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, g) {
		t.Error("Read(Write(g)) differs from g")
	}
	bad := *g
	bad.CHA = append([][2]int{{0, len(g.Funcs)}}, g.CHA...)
	buf.Reset()
	if err := bad.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf); err == nil {
		t.Error("Read accepted an out-of-range edge")
	}
}

func sorted(m map[string]Kind) []string {
	var s []string
	for k, v := range m {
		s = append(s, k+" ["+string(v)+"]")
	}
	sort.Strings(s)
	return s
}
