package resolve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

func TestSplitChain(t *testing.T) {
	for in, want := range map[string]string{
		"s.db.Query()":          "[s db Query()]",
		"r.URL.Query().Get":     "[r URL Query() Get]",
		"a::b::C":               "[a b C]",
		"$this->repo":           "[$this repo]",
		"(x)":                   "[x]",
		"db.Blocks()[0].Meta()": "[db Blocks() Meta()]",
		"f(a.b, c).d":           "[f(a.b, c) d]",
		"x?.y":                  "[x y]",
		"Foo<Bar>::new":         "[Foo<Bar> new]",
	} {
		if got := fmt.Sprint(splitChain(in)); got != want {
			t.Errorf("splitChain(%q) = %s, want %s", in, got, want)
		}
	}
	_, ix := splitChainIdx("la[0].String")
	if fmt.Sprint(ix) != "[true false]" {
		t.Errorf("indexed = %v", ix)
	}
}

func TestParamCount(t *testing.T) {
	for in, want := range map[string]int{
		"Read(p []byte) (n int, err error)": 1,
		"Close() error":                     0,
		"Do(a, b int, f func(x, y int))":    3,
		"NoParens":                          -1,
		"M(m map[string]int, xs ...string)": 2,
	} {
		if got := paramCount(in); got != want {
			t.Errorf("paramCount(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestGoDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/a/b":         "b",
		"gopkg.in/yaml.v3":       "yaml",
		"github.com/x/go-kit/v2": "kit",
		"k8s.io/client-go/rest":  "rest",
		"github.com/foo/bar-baz": "bar_baz",
	} {
		if got := goDefaultName(in); got != want {
			t.Errorf("goDefaultName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestActive(t *testing.T) {
	for _, c := range []struct {
		path, build string
		want        bool
	}{
		{"a.go", "", true},
		{"a_windows.go", "", false},
		{"a_linux.go", "", true},
		{"a_linux_arm64.go", "", false},
		{"a_amd64.go", "", true},
		{"labels.go", "!stringlabels && !dedupelabels", true},
		{"labels_stringlabels.go", "stringlabels", false},
		{"x.go", "go1.21", true},
		{"x.go", "ignore", false},
		{"x.go", "linux && cgo", true},
		{"x.go", "(((", true}, // unparsable: kept
	} {
		if got := Active(&lang.Facts{Path: c.path, Language: "go", BuildConstraint: c.build}); got != c.want {
			t.Errorf("Active(%s, %q) = %v", c.path, c.build, got)
		}
	}
	if !Active(&lang.Facts{Path: "x_windows.py", Language: "python"}) {
		t.Error("non-Go files are always active")
	}
}

func TestFactTableLineAware(t *testing.T) {
	ft := factTable{{Name: "a", Type: "A", Line: 11}, {Name: "db", Type: "Storage", Line: 10}, {Name: "db", Type: "DB", Line: 12}, {Name: "db", Type: "Head", Line: 20}, {Name: "dbx", Type: "X", Line: 1}}
	for line, want := range map[int]string{0: "Storage", 11: "Storage", 12: "DB", 19: "DB", 25: "Head"} {
		if tf, _ := ft.get("db", line); tf.Type != want {
			t.Errorf("line %d: %s, want %s", line, tf.Type, want)
		}
	}
	for _, name := range []string{"", "b", "d", "z"} {
		if tf, ok := ft.get(name, 0); ok {
			t.Errorf("get(%q) = %v", name, tf)
		}
	}
}

// unsortedFacts are a file's type facts in source order: two scopes
// interleaved, return and impl facts among them, a file-level fact.
func unsortedFacts() []lang.TypeFact {
	return []lang.TypeFact{
		{Scope: "f", Name: "y", Type: "Y1", Kind: "local", Line: 3},
		{Scope: "", Name: "g", Type: "G", Kind: "global", Line: 1},
		{Scope: "f", Name: "return", Type: "R1", Kind: "return", Line: 2},
		{Scope: "h", Name: "x", Type: "HX", Kind: "param", Line: 9},
		{Scope: "f", Name: "x", Type: "X1", Kind: "param", Line: 2},
		{Scope: "T", Name: "I", Type: "T", Kind: "impl", Line: 7},
		{Scope: "f", Name: "y", Type: "Y2", Kind: "local", Line: 5},
		{Scope: "f", Name: "return", Type: "R2", Kind: "return", Line: 2},
		{Scope: "T", Name: "m", Type: "a", Kind: "field", Line: 8},
	}
}

// TestFactTablesFromIndex: index sorts each file's type facts in place
// into one run a scope, each name's facts in source order, keeps the
// return and impl facts out of the tables in source order, and merges a
// scope whose facts two files hold (the earlier file's first).
func TestFactTablesFromIndex(t *testing.T) {
	a := &lang.Facts{Path: "a.go", Language: "go", Types: unsortedFacts()}
	b := &lang.Facts{Path: "b.go", Language: "go", Types: []lang.TypeFact{
		{Scope: "T", Name: "m", Type: "b", Kind: "field", Line: 1},
		{Scope: "T", Name: "k", Type: "K", Kind: "field", Line: 2},
	}}
	r := newResolver(Input{Files: []*lang.Facts{a, b}, Paths: []string{"a.go", "b.go"}})
	r.index()
	types := func(ts []lang.TypeFact) string {
		var out []string
		for _, tf := range ts {
			out = append(out, tf.Type)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ scope, name, want string }{
		{"f", "y", "Y1 Y2"}, {"f", "x", "X1"}, {"f", "return", ""}, {"h", "x", "HX"},
		{"file:a.go", "g", "G"}, {"T", "m", "a b"}, {"T", "k", "K"}, {"T", "I", ""},
	} {
		if got := types(r.facts[c.scope].named(c.name)); got != c.want {
			t.Errorf("facts[%s].named(%s) = %q, want %q", c.scope, c.name, got, c.want)
		}
	}
	if got := strings.Join(r.returns["f"], " "); got != "R1 R2" {
		t.Errorf("returns[f] = %q", got)
	}
	if len(r.impls) != 1 || r.impls[0].tf.Type != "T" {
		t.Errorf("impls = %v", r.impls)
	}
	if tf, ok := r.factOf(nil, "a.go", "g", 0); !ok || tf.Type != "G" {
		t.Errorf("factOf(global g) = %v, %v", tf, ok)
	}
}

// TestSortFactsIsIndexOrder: the order SortFacts gives a file's facts
// (at the parse, before they are cached) is the one index would give
// them, so that index finds them sorted and leaves them as they are.
func TestSortFactsIsIndexOrder(t *testing.T) {
	types := unsortedFacts()
	parsed := &lang.Facts{Path: "a.go", Language: "go", Types: slices.Clone(types)}
	SortFacts(parsed)
	if slices.Equal(parsed.Types, types) {
		t.Fatal("SortFacts left unsorted facts as they were")
	}
	sorted := slices.Clone(parsed.Types)
	SortFacts(parsed) // sorted already: unchanged
	if !slices.Equal(parsed.Types, sorted) {
		t.Errorf("SortFacts reordered sorted facts: %v", parsed.Types)
	}
	raw := &lang.Facts{Path: "a.go", Language: "go", Types: slices.Clone(types)}
	r := newResolver(Input{Files: []*lang.Facts{raw}, Paths: []string{"a.go"}})
	r.index()
	if !slices.Equal(raw.Types, sorted) {
		t.Errorf("index's order %v, SortFacts' %v", raw.Types, sorted)
	}
}

func TestTSConfigCandidates(t *testing.T) {
	c := &tsConfig{baseURL: ".", paths: map[string][]string{"@lib/*": {"src/lib/*"}, "exact": {"src/exact.ts"}}}
	if got := fmt.Sprint(c.candidates("@lib/validate")); got != "[src/lib/validate @lib/validate]" {
		t.Errorf("candidates = %s", got)
	}
	if got := c.candidates("exact"); len(got) == 0 || got[0] != "src/exact.ts" {
		t.Errorf("exact = %v", got)
	}
	var nilc *tsConfig
	if nilc.candidates("x") != nil {
		t.Error("nil config has candidates")
	}
}

// edgeBlocks.sorted orders edges by type, source and target and keeps the
// order of edges equal in all three, as a stable sort does, across blocks.
func TestSortedEdgesAreStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 100, 5000, 2*edgeBlock + 5, parallelSortMin - 1, 3*parallelSortMin + 1} {
		edges := make([]schema.Edge, n)
		for i := range edges {
			edges[i] = schema.Edge{
				Type: []schema.RelType{schema.RelCalls, schema.RelExtends}[rng.IntN(2)],
				From: fmt.Sprint("f", rng.IntN(5)), To: fmt.Sprint("t", rng.IntN(5)),
				Line: i, // the original position: equal edges keep their order
			}
		}
		want := slices.Clone(edges)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if a.Type != b.Type {
				return a.Type < b.Type
			}
			if a.From != b.From {
				return a.From < b.From
			}
			return a.To < b.To
		})
		var blocks edgeBlocks
		for _, e := range edges {
			blocks.add(e)
		}
		if len(blocks.blocks) != (n+edgeBlock-1)/edgeBlock {
			t.Fatalf("n=%d: %d blocks", n, len(blocks.blocks))
		}
		for i := range n {
			if *blocks.at(i) != edges[i] {
				t.Fatalf("n=%d: edge %d is not the one added", n, i)
			}
		}
		if got := blocks.sorted(); !slices.Equal(got, want) || (got == nil) != (n == 0) {
			t.Fatalf("n=%d: sorted differs from a stable sort", n)
		}
	}
}
