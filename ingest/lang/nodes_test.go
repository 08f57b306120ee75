package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
)

// Every test of the package runs with the walk's nodes zeroed once their
// callback returns (walkPoison): an extractor that kept one would read a
// zero node, and its fixtures' facts (or the process) would fail.
func init() { walkPoison = true }

// A node a walk hands its callback is the walk's until the callback
// returns: kept past that, it is zeroed (under walkPoison), not a later
// node, and a nested walk inside the callback leaves the callback's node
// as it was.
func TestWalkNodeIsTheCallbacks(t *testing.T) {
	if !cWalkOK {
		t.Skip("sitter.Node layout differs from TSNode: the C walk is disabled")
	}
	src, l, p, tree := parseTestdata(t, "c/sample.c")
	defer p.Close()
	defer tree.Close()
	f := NewFile("c/sample.c", l.Name, src)
	var kept []*sitter.Node
	visits := 0
	f.walkNamedKind(tree.RootNode(), func(n *sitter.Node, kind string) bool {
		before := *n
		f.walkNamedKind(n, func(*sitter.Node, string) bool { visits++; return true })
		if *n != before {
			t.Fatalf("a nested walk moved its caller's node (%s@%d)", kind, before.StartByte())
		}
		kept = append(kept, n)
		return true
	})
	if len(kept) < 20 || visits == 0 {
		t.Fatalf("%d nodes visited, %d nested visits", len(kept), visits)
	}
	for _, n := range kept {
		if *n != (sitter.Node{}) {
			t.Fatalf("a node kept past its callback is %v, not zeroed", *n)
		}
	}
}

// eachField in one cgo call (eachFieldC) hands the same children as the
// cursor walk, and eachNamedChild the same as namedChildren, for every
// node of the C, C++, Java, Python and TypeScript fixtures and every field
// of its grammar; a node with more children under a field than one call
// returns (a declaration of many names) is handed over too.
func TestFieldAndChildHelpersMatch(t *testing.T) {
	if !cWalkOK {
		t.Skip("sitter.Node layout differs from TSNode: the C walk is disabled")
	}
	span := func(c *sitter.Node) string { return fmt.Sprintf("%s@%d-%d", c.Kind(), c.StartByte(), c.EndByte()) }
	for _, rel := range []string{"c/sample.c", "cpp/shapes.cpp", "java/com/acme/OrderService.java", "python/pkg/sub/service.py", "typescript/service.ts"} {
		_, _, p, tree := parseTestdata(t, rel)
		lang := tree.RootNode().Language()
		fields := int(lang.FieldCount())
		checked := 0
		walkNamedCursor(tree.RootNode(), func(n *sitter.Node) bool {
			for id := uint16(1); int(id) <= fields; id++ {
				var a, b []string
				viaC := eachFieldC(n, id, func(c *sitter.Node) { a = append(a, span(c)) })
				eachFieldCursor(n, id, func(c *sitter.Node) { b = append(b, span(c)) })
				if !viaC {
					a = nil
					eachField(n, lang.FieldNameForId(id), func(c *sitter.Node) { a = append(a, span(c)) })
				}
				if strings.Join(a, " ") != strings.Join(b, " ") {
					t.Fatalf("%s: field %s of %s: %v, the cursor %v", rel, lang.FieldNameForId(id), span(n), a, b)
				}
				checked += len(b)
			}
			var a, b []string
			eachNamedChild(n, func(c *sitter.Node) { a = append(a, span(c)) })
			namedChildren(n, func(c *sitter.Node) { b = append(b, span(c)) })
			if strings.Join(a, " ") != strings.Join(b, " ") {
				t.Fatalf("%s: children of %s: %v, namedChildren %v", rel, span(n), a, b)
			}
			return true
		})
		if checked < 20 {
			t.Errorf("%s: only %d field children checked", rel, checked)
		}
		tree.Close()
		p.Close()
	}
	src := []byte("int a, b, c, d, e, f;\n")
	l := Detect("x.c")
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(testGrammar(l)); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse(src, nil)
	defer tree.Close()
	decl := tree.RootNode().NamedChild(0)
	var names []string
	eachField(decl, "declarator", func(c *sitter.Node) { names = append(names, string(src[c.StartByte():c.EndByte()])) })
	if strings.Join(names, ",") != "a,b,c,d,e,f" {
		t.Errorf("declarators of %q: %v", src, names)
	}
	if eachFieldC(decl, fieldID(decl, "declarator"), func(*sitter.Node) {}) {
		t.Errorf("eachFieldC handled %d declarators in one call", len(names))
	}
}

func TestCleanComment(t *testing.T) {
	cases := []struct{ in, want string }{
		{"// Foo does x.", "Foo does x."},
		{"/// triple", "triple"},
		{"# python", "python"},
		{"/**\n * Javadoc line one.\n * @param x the x\n */", "Javadoc line one.\n@param x the x"},
		{"/* one-liner */", "one-liner"},
		{"//", ""},
	}
	for _, c := range cases {
		if got := cleanComment(c.in); got != c.want {
			t.Errorf("cleanComment(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBaseType(t *testing.T) {
	cases := map[string]string{
		"*Engine":          "Engine",
		"[]*pkg.T":         "pkg.T",
		"List<Foo>":        "List",
		"Optional[Foo]":    "Optional",
		"const Foo&":       "Foo",
		"&'a mut T":        "T",
		"[4]int":           "int",
		"...string":        "string",
		"Map<K, List<V>>":  "Map",
		"map[string]int":   "map[string]int",
		"func(x int) bool": "func(x int) bool",
		"Foo?":             "Foo",
		"String[]":         "String",
	}
	for in, want := range cases {
		if got := baseType(in); got != want {
			t.Errorf("baseType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollapseSpace(t *testing.T) {
	if got := collapseSpace([]byte("  func  f(\n\ta int,\n) "), 300); got != "func f( a int, )" {
		t.Errorf("collapse = %q", got)
	}
	long := collapseSpace([]byte(strings.Repeat("é", 400)), 300)
	if !strings.HasSuffix(long, "…") || len(long) > 300+len("…")+1 {
		t.Errorf("cap: len %d, %q", len(long), long[len(long)-8:])
	}
}

// testGrammar is l's tree-sitter grammar; for Go, which analyze parses
// with go/parser, the tree-sitter Go grammar these tests of the
// tree-sitter helpers use as a sample.
func testGrammar(l *Language) *sitter.Language {
	if l.Grammar == nil && l.Name == "go" {
		return sitter.NewLanguage(tsgo.Language())
	}
	return l.Grammar()
}

// parseGoForTest parses src with the Go grammar directly (no extractor).
func parseGoForTest(t *testing.T, src string) (*sitter.Tree, *File) {
	t.Helper()
	p := sitter.NewParser()
	t.Cleanup(p.Close)
	if err := p.SetLanguage(sitter.NewLanguage(tsgo.Language())); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse([]byte(src), nil)
	t.Cleanup(tree.Close)
	return tree, NewFile("x.go", "go", []byte(src))
}

func TestWalkNamedPruneAndDocComment(t *testing.T) {
	src := `package p

// trailing of nothing

// Doc line one.
// Doc line two.
func A() { B(func() { C() }) }

func D() {} // trailing

func E() {}
`
	tree, f := parseGoForTest(t, src)
	root := tree.RootNode()
	var funcs, calls []string
	walkNamed(root, func(n *sitter.Node) bool {
		switch n.Kind() {
		case "function_declaration":
			funcs = append(funcs, fieldText(f, n, "name"))
		case "call_expression":
			calls = append(calls, fieldText(f, n, "function"))
		case "func_literal":
			return false // prune: C() is not visited
		}
		return true
	})
	if strings.Join(funcs, ",") != "A,D,E" || strings.Join(calls, ",") != "B" {
		t.Errorf("funcs %v calls %v", funcs, calls)
	}
	docs := map[string]string{}
	var sigs []string
	namedChildren(root, func(n *sitter.Node) {
		if n.Kind() == "function_declaration" {
			docs[fieldText(f, n, "name")] = docComment(f, n)
			sigs = append(sigs, signatureOf(f, n, field(n, "body")))
		}
	})
	if docs["A"] != "Doc line one.\nDoc line two." || docs["D"] != "" || docs["E"] != "" {
		t.Errorf("docs = %q", docs)
	}
	if sigs[0] != "func A()" {
		t.Errorf("sig = %q", sigs[0])
	}
}

// parseTestdata parses testdata/rel with the grammar Detect gives it; the
// caller closes the tree and the parser.
func parseTestdata(t *testing.T, rel string) ([]byte, *Language, *sitter.Parser, *sitter.Tree) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	l := Detect(rel)
	p := sitter.NewParser()
	if err := p.SetLanguage(testGrammar(l)); err != nil {
		t.Fatal(err)
	}
	return src, l, p, p.Parse(src, nil)
}

// The C traversal and the Go cursor traversal visit the same nodes in the
// same order, with the same pruning, on every fixture.
func TestWalkNamedCMatchesCursor(t *testing.T) {
	if !cWalkOK {
		t.Skip("sitter.Node layout differs from TSNode: the C walk is disabled")
	}
	fixtures := []string{
		"go/engine.go", "python/pkg/sub/service.py", "javascript/app.js",
		"typescript/service.ts", "typescript/view.tsx", "java/com/acme/OrderService.java",
	}
	for _, rel := range fixtures {
		_, _, p, tree := parseTestdata(t, rel)
		record := func(walk func(*sitter.Node, func(*sitter.Node) bool), prune bool) []string {
			var seen []string
			walk(tree.RootNode(), func(n *sitter.Node) bool {
				seen = append(seen, fmt.Sprintf("%s@%d-%d", n.Kind(), n.StartByte(), n.EndByte()))
				k := n.Kind()
				return !prune || !(strings.Contains(k, "call") || strings.HasSuffix(k, "block") || strings.HasSuffix(k, "body"))
			})
			return seen
		}
		for _, prune := range []bool{false, true} {
			a, b := record(walkNamedC, prune), record(walkNamedCursor, prune)
			if strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("%s prune=%v: C walk visited %d nodes, cursor walk %d", rel, prune, len(a), len(b))
			}
			if len(a) < 20 {
				t.Errorf("%s prune=%v: only %d nodes visited", rel, prune, len(a))
			}
		}
		mismatch := 0
		walkNamedKind(tree.RootNode(), func(n *sitter.Node, kind string) bool {
			if kind != n.Kind() {
				mismatch++
			}
			return true
		})
		if mismatch > 0 {
			t.Errorf("%s: walkNamedKind gave %d wrong kinds", rel, mismatch)
		}
		tree.Close()
		p.Close()
	}
}

// A walk started inside another walk of the same file, over a node the
// outer walk collected, visits what a walk of its own would, without
// collecting again; a node the outer walk does not hold (an ancestor, an
// unnamed node) is collected as before.
func TestNestedWalkReadsTheOuterWalk(t *testing.T) {
	if !cWalkOK {
		t.Skip("sitter.Node layout differs from TSNode: the C walk is disabled")
	}
	for _, rel := range []string{"c/sample.c", "go/engine.go", "java/com/acme/OrderService.java"} {
		src, l, p, tree := parseTestdata(t, rel)
		f := NewFile(rel, l.Name, src)
		record := func(f *File, n *sitter.Node) []string {
			var seen []string
			f.walkNamedKind(n, func(c *sitter.Node, kind string) bool {
				seen = append(seen, fmt.Sprintf("%s@%d-%d", kind, c.StartByte(), c.EndByte()))
				return !strings.Contains(kind, "call") // prune some subtrees
			})
			return seen
		}
		nested := 0
		f.walkNamedKind(tree.RootNode(), func(n *sitter.Node, kind string) bool {
			targets := []*sitter.Node{n}
			if b := n.ChildByFieldName("body"); b != nil {
				targets = append(targets, b)
			}
			if n.NamedChildCount() > 0 {
				targets = append(targets, n.NamedChild(n.NamedChildCount()-1))
			}
			for i, m := range append(targets, n.Parent()) {
				before := walkCollects.Load()
				got := record(f, m)
				collected := walkCollects.Load() - before
				if want := record(nil, m); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Fatalf("%s: nested walk of %s@%d visited %d nodes, a walk of its own %d", rel, m.Kind(), m.StartByte(), len(got), len(want))
				}
				inside := i < len(targets) // the parent is outside the entry visited
				if m.DescendantCount() > 1 && inside != (collected == 0) {
					t.Fatalf("%s: nested walk of %s@%d (inside the outer walk: %v) collected %d times", rel, m.Kind(), m.StartByte(), inside, collected)
				}
				nested++
			}
			return true
		})
		if len(f.walks) != 0 {
			t.Errorf("%s: %d walks left open", rel, len(f.walks))
		}
		if nested < 50 {
			t.Errorf("%s: only %d nested walks", rel, nested)
		}
		tree.Close()
		p.Close()
	}
}
