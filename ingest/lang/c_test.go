package lang

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// lxParseFixture parses testdata/<rel> as the named language through the
// real Parser and returns its Facts; it fails the test on any error or a
// parse that is not clean.
func lxParseFixture(t *testing.T, language, rel string) Facts {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	l := ByName(language)
	if l == nil {
		t.Fatalf("language %q not registered", language)
	}
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), rel, l, src)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	if status != schema.ParseOK {
		t.Fatalf("parse %s: status %s, want ok", rel, status)
	}
	return facts
}

// lxSym finds a symbol by qualified name and kind.
func lxSym(t *testing.T, fx Facts, qname string, kind schema.Kind) schema.Symbol {
	t.Helper()
	for _, s := range fx.Symbols {
		if s.QualifiedName == qname && s.Kind == kind {
			return s
		}
	}
	var have []string
	for _, s := range fx.Symbols {
		have = append(have, s.QualifiedName+":"+string(s.Kind))
	}
	t.Fatalf("no symbol %s:%s; have %v", qname, kind, have)
	return schema.Symbol{}
}

// lxSymWant is one expected symbol; zero-valued optional fields are not
// checked (Line 0, Parent "", Doc "", Sig "").
type lxSymWant struct {
	qname    string
	kind     schema.Kind
	name     string
	line     int
	endLine  int
	exported bool
	parent   string // qualified name of the parent, "" for none
	doc      string
	sig      string
}

func lxCheckSymbols(t *testing.T, fx Facts, wants []lxSymWant) {
	t.Helper()
	byID := map[string]schema.Symbol{}
	for _, s := range fx.Symbols {
		byID[s.ID] = s
	}
	for _, w := range wants {
		s := lxSym(t, fx, w.qname, w.kind)
		if w.name != "" && s.Name != w.name {
			t.Errorf("%s: name %q, want %q", w.qname, s.Name, w.name)
		}
		if w.line != 0 && s.StartLine != w.line {
			t.Errorf("%s: start line %d, want %d", w.qname, s.StartLine, w.line)
		}
		if w.endLine != 0 && s.EndLine != w.endLine {
			t.Errorf("%s: end line %d, want %d", w.qname, s.EndLine, w.endLine)
		}
		if s.IsExported != w.exported {
			t.Errorf("%s: exported %v, want %v", w.qname, s.IsExported, w.exported)
		}
		parent := ""
		if s.ParentID != "" {
			p, ok := byID[s.ParentID]
			if !ok {
				t.Errorf("%s: parent id %q is not a symbol of the file", w.qname, s.ParentID)
			}
			parent = p.QualifiedName
		}
		if parent != w.parent {
			t.Errorf("%s: parent %q, want %q", w.qname, parent, w.parent)
		}
		if w.doc != "" && s.DocComment != w.doc {
			t.Errorf("%s: doc %q, want %q", w.qname, s.DocComment, w.doc)
		}
		if w.sig != "" && s.Signature != w.sig {
			t.Errorf("%s: signature %q, want %q", w.qname, s.Signature, w.sig)
		}
		if s.Label != schema.LabelOf(w.kind) || s.ContentHash == "" || s.Content == "" {
			t.Errorf("%s: label %q hash %q content %d bytes", w.qname, s.Label, s.ContentHash, len(s.Content))
		}
	}
}

// lxQName maps a symbol id to its qualified name ("" → "").
func lxQName(fx Facts, id string) string {
	if id == "" {
		return ""
	}
	for _, s := range fx.Symbols {
		if s.ID == id {
			return s.QualifiedName
		}
	}
	return "?" + id
}

// lxCalls renders call sites as "caller|receiver|name|kind|line" strings,
// sorted, with the caller as a qualified name.
func lxCalls(fx Facts) []string {
	var out []string
	for _, c := range fx.Calls {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d", lxQName(fx, c.CallerID), c.Receiver, c.Name, c.Kind, c.Line))
	}
	sort.Strings(out)
	return out
}

// lxImports renders imports as "kind|spec|names|alias|line".
func lxImports(fx Facts) []string {
	var out []string
	for _, i := range fx.Imports {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d", i.Kind, i.Spec, strings.Join(i.Names, ","), i.Alias, i.Line))
	}
	return out
}

// lxHeritage renders heritage as "child|kind|parent|line".
func lxHeritage(fx Facts) []string {
	var out []string
	for _, h := range fx.Heritage {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d", lxQName(fx, h.ChildID), h.Kind, h.Parent, h.Line))
	}
	return out
}

// lxTypes renders type facts as "scope|kind|name|type".
func lxTypes(fx Facts) []string {
	var out []string
	for _, tf := range fx.Types {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", lxQName(fx, tf.Scope), tf.Kind, tf.Name, tf.Type))
	}
	return out
}

// lxContains fails for every want missing from have.
func lxContains(t *testing.T, what string, have, wants []string) {
	t.Helper()
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range wants {
		if !set[w] {
			t.Errorf("%s: missing %q\nhave:\n  %s", what, w, strings.Join(have, "\n  "))
		}
	}
}

// lxLacks fails for every unwanted entry present in have.
func lxLacks(t *testing.T, what string, have, unwanted []string) {
	t.Helper()
	for _, h := range have {
		for _, u := range unwanted {
			if h == u {
				t.Errorf("%s: unexpected %q", what, u)
			}
		}
	}
}

// lxDump logs every fact, for writing expectations (go test -v -run Dump).
func lxDump(t *testing.T, fx Facts) {
	t.Logf("package %q", fx.Package)
	for _, s := range fx.Symbols {
		t.Logf("sym %s kind=%s name=%s lines=%d-%d exp=%v parent=%s sig=%q doc=%q", s.QualifiedName, s.Kind, s.Name, s.StartLine, s.EndLine, s.IsExported, lxQName(fx, s.ParentID), s.Signature, s.DocComment)
	}
	for _, x := range lxImports(fx) {
		t.Logf("import %s", x)
	}
	for _, x := range lxCalls(fx) {
		t.Logf("call %s", x)
	}
	for _, x := range lxHeritage(fx) {
		t.Logf("heritage %s", x)
	}
	for _, x := range lxTypes(fx) {
		t.Logf("type %s", x)
	}
}

func TestDumpLX(t *testing.T) {
	spec := os.Getenv("LX_DUMP") // "lang:rel/path"
	if spec == "" {
		t.Skip("set LX_DUMP=lang:path to dump a fixture's facts")
	}
	lang, rel, _ := strings.Cut(spec, ":")
	lxDump(t, lxParseFixture(t, lang, rel))
}

func TestCExtract(t *testing.T) {
	fx := lxParseFixture(t, "c", "c/sample.c")
	if fx.Package != "" {
		t.Errorf("package %q, want empty for C", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "point", kind: schema.KindStruct, line: 5, endLine: 8, exported: true, doc: "A point in the plane.", sig: "struct point"},
		{qname: "node", kind: schema.KindStruct, line: 10, exported: true},
		{qname: "node_t", kind: schema.KindTypeAlias, line: 10, exported: true},
		{qname: "value", kind: schema.KindUnion, line: 15, exported: true},
		{qname: "color", kind: schema.KindEnum, line: 17, exported: true},
		{qname: "cmp_fn", kind: schema.KindTypeAlias, line: 19, exported: true},
		{qname: "cmp", kind: schema.KindFunction, line: 25, endLine: 27, exported: false, doc: "compare two ints\nused by qsort",
			sig: "static int cmp(const void *a, const void *b)"},
		{qname: "sort_all", kind: schema.KindFunction, line: 32, exported: true, doc: "Sort and print."},
		{qname: "make_node", kind: schema.KindFunction, line: 41, exported: true, sig: "char *make_node(const char *name)"},
	})
	if len(fx.Symbols) != 9 {
		t.Errorf("%d symbols, want 9 (no symbol for globals or prototypes)", len(fx.Symbols))
	}
	lxContains(t, "imports", lxImports(fx), []string{"system|stdio.h|||1", "quoted|util/list.h|||2"})
	calls := lxCalls(fx)
	lxContains(t, "calls", calls, []string{
		"sort_all||make_node|call|33",
		"sort_all||qsort|call|34",
		"sort_all||cmp|reference|34",
		"sort_all||list_push|call|36",
		"sort_all||printf|call|37",
		"sort_all||helper|call|38",
		"make_node||strdup|call|42",
	})
	// Parameters and locals passed as arguments are not references.
	lxLacks(t, "calls", calls, []string{"sort_all||xs|reference|34", "sort_all||n|reference|34", "sort_all||p|reference|36"})
	lxContains(t, "types", lxTypes(fx), []string{"node|field|next|node", "sort_all|param|p|point", "sort_all|local|head|node_t"})
}
func TestDetectCFamily(t *testing.T) {
	for path, want := range map[string]string{
		"a/b.c": "c", "x.h": "c", "x.cc": "cpp", "x.cpp": "cpp", "x.hpp": "cpp", "x.hh": "cpp", "x.cxx": "cpp",
		"Svc.cs": "csharp", "lib.rs": "rust", "a.rb": "ruby", "Rakefile": "ruby", "Gemfile": "ruby", "x.gemspec": "ruby",
		"x.rake": "ruby", "index.php": "php", "v.phtml": "php",
	} {
		l := Detect(path)
		if l == nil || l.Name != want {
			got := "<nil>"
			if l != nil {
				got = l.Name
			}
			t.Errorf("Detect(%q) = %s, want %s", path, got, want)
		}
	}
}
