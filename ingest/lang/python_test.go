package lang

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestPyModule(t *testing.T) {
	cases := map[string]string{
		"pkg/sub/mod.py":     "pkg.sub.mod",
		"pkg/__init__.py":    "pkg",
		"__init__.py":        "",
		"stubs/typing_x.pyi": "stubs.typing_x",
		"setup.py":           "setup",
	}
	for in, want := range cases {
		if got := pyModule(in); got != want {
			t.Errorf("pyModule(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestPythonSymbols(t *testing.T) {
	const path = "python/pkg/sub/service.py"
	facts := parseFixture(t, path)
	if facts.Package != "python.pkg.sub.service" {
		t.Errorf("package = %q", facts.Package)
	}
	const p = path + "#"
	cases := []struct {
		qn       string
		kind     schema.Kind
		start    int
		end      int
		exported bool
		parent   string
		sig      string
		doc      string
	}{
		{"helper", schema.KindFunction, 11, 18, true, "", `def helper(x: int, name="n") -> Optional["Result"]`, "Compute a helper value.\n\nMore detail here."},
		{"Service", schema.KindClass, 21, 55, true, "", "class Service(Base, mixins.Loggable, metaclass=Meta)", "A service."},
		{"Service.__init__", schema.KindConstructor, 27, 31, true, p + "Service:class", "def __init__(self, db: DB, cache=None)", ""},
		{"Service.do_work", schema.KindMethod, 33, 43, true, p + "Service:class", `def do_work(self, items: List[str]) -> "Report"`, ""},
		{"Service.do_work.inner", schema.KindFunction, 40, 41, true, "", "def inner(y)", ""},
		{"Service._key", schema.KindMethod, 46, 47, false, p + "Service:class", "def _key(v)", ""},
		{"Service.routed", schema.KindMethod, 50, 51, true, p + "Service:class", "def routed(self)", ""},
		{"Service.Inner", schema.KindClass, 53, 55, true, "", "class Inner", ""},
		{"Service.Inner.method", schema.KindMethod, 54, 55, true, p + "Service.Inner:class", "def method(self)", ""},
		{"Proto", schema.KindProtocol, 58, 59, true, "", "class Proto(typing.Protocol)", ""},
	}
	for _, c := range cases {
		s := symbol(t, facts, c.qn, c.kind)
		if s.StartLine != c.start || s.EndLine != c.end || s.IsExported != c.exported || s.ParentID != c.parent ||
			s.Signature != c.sig || s.DocComment != c.doc {
			t.Errorf("%s: got lines %d-%d exported %v parent %q sig %q doc %q", c.qn, s.StartLine, s.EndLine, s.IsExported, s.ParentID, s.Signature, s.DocComment)
		}
	}
}

func TestPythonImports(t *testing.T) {
	facts := parseFixture(t, "python/pkg/sub/service.py")
	want := []Import{
		{Spec: "os", Line: 2},
		{Spec: "os.path", Alias: "osp", Line: 3},
		{Spec: "typing", Names: []string{"Optional", "List"}, Line: 4},
		{Spec: ".", Names: []string{"models"}, Kind: "relative", Line: 5},
		{Spec: "..core.db", Names: []string{"Database as DB", "connect"}, Kind: "relative", Line: 6},
		{Spec: ".helpers", Names: []string{"*"}, Kind: "relative", Line: 7},
	}
	checkImports(t, facts, want)
}

func TestPythonCallsHeritageTypes(t *testing.T) {
	const p = "python/pkg/sub/service.py#"
	facts := parseFixture(t, "python/pkg/sub/service.py")
	calls := []CallSite{
		{CallerID: p + "helper:function", Name: "Result", Kind: "call", Args: 1, Line: 16},
		{CallerID: p + "Service.__init__:constructor", Name: "Repository", Kind: "call", Args: 1, Line: 29},
		{CallerID: p + "Service.do_work:method", Name: "query", Receiver: "self.db", Kind: "call", Args: 1, Line: 34},
		{CallerID: p + "Service.do_work:method", Name: "do_work", Receiver: "Service(self.db)", Kind: "call", Args: 1, Line: 35},
		{CallerID: p + "Service.do_work:method", Name: "Service", Kind: "call", Args: 1, Line: 35},
		{CallerID: p + "Service.do_work:method", Name: "_key", Receiver: "self", Kind: "reference", Args: -1, Line: 37},
		{CallerID: p + "Service.do_work:method", Name: "helper", Kind: "reference", Args: -1, Line: 38},
		{CallerID: p + "Service.do_work.inner:function", Name: "transform", Kind: "call", Args: 1, Line: 41},
		{CallerID: p + "Service.do_work:method", Name: "inner", Kind: "call", Args: 1, Line: 43},
		{CallerID: "", Name: "route", Receiver: "app", Kind: "call", Args: 1, Line: 49},
		{CallerID: p + "Service.Inner.method:method", Name: "go", Receiver: "self", Kind: "call", Args: 0, Line: 55},
		{CallerID: "", Name: "do_work", Receiver: "svc", Kind: "call", Args: 1, Line: 63},
	}
	for _, w := range calls {
		if !hasCall(facts, w) {
			t.Errorf("missing call %+v; have:\n%s", w, callsString(facts))
		}
	}
	for _, c := range facts.Calls {
		if c.Name == "print" || c.Name == "len" || c.Name == "out" || c.Name == "items" {
			t.Errorf("builtin or local recorded: %+v", c)
		}
	}
	wantH := []Heritage{
		{ChildID: p + "Service:class", Parent: "Base", Kind: "extends", Line: 21},
		{ChildID: p + "Service:class", Parent: "mixins.Loggable", Kind: "extends", Line: 21},
		{ChildID: p + "Proto:protocol", Parent: "typing.Protocol", Kind: "extends", Line: 58},
	}
	if len(facts.Heritage) != len(wantH) {
		t.Fatalf("heritage = %+v", facts.Heritage)
	}
	for i, w := range wantH {
		if facts.Heritage[i] != w {
			t.Errorf("heritage %d = %+v, want %+v", i, facts.Heritage[i], w)
		}
	}
	types := []TypeFact{
		{Scope: p + "helper:function", Name: "x", Type: "int", Kind: "param"},
		{Scope: p + "helper:function", Name: "return", Type: "Result", Kind: "return"},
		{Scope: p + "helper:function", Name: "r", Type: "Result", Kind: "local"},
		{Scope: p + "Service:class", Name: "timeout", Type: "float", Kind: "field"},
		{Scope: p + "Service:class", Name: "objects", Type: "Manager", Kind: "field"},
		{Scope: p + "Service:class", Name: "db", Type: "DB", Kind: "field"},
		{Scope: p + "Service:class", Name: "repo", Type: "Repository", Kind: "field"},
		{Scope: p + "Service:class", Name: "cache", Type: "Cache", Kind: "field"},
		{Scope: p + "Service.do_work:method", Name: "self", Type: "Service", Kind: "param"},
		{Scope: p + "Service.do_work:method", Name: "items", Type: "List", Kind: "param"},
		{Scope: p + "Service.do_work:method", Name: "return", Type: "Report", Kind: "return"},
		{Scope: p + "Service.do_work:method", Name: "out", Type: "call:build_report", Kind: "local"},
		{Scope: p + "Service.Inner.method:method", Name: "self", Type: "Inner", Kind: "param"},
		{Scope: "", Name: "svc", Type: "Service", Kind: "global"},
	}
	for _, w := range types {
		if !hasType(facts, w) {
			t.Errorf("missing type fact %+v; have:\n%s", w, typesString(facts))
		}
	}
	if hasType(facts, TypeFact{Scope: p + "Service._key:method", Name: "v", Type: "Service", Kind: "param"}) {
		t.Error("staticmethod's first parameter typed as the class")
	}
}

// TestPythonReturnedNested: a nested def its function returns — bare, in
// a tuple, wrapped by functools.wraps or update_wrapper — is a Returned
// fact; the result of calling a nested def, a nested def that is not
// returned, a returned parameter and a method are not.
func TestPythonReturnedNested(t *testing.T) {
	src := []byte(`import functools

def traced(f):
    def unused(x):
        return x
    def wrapper(*a):
        return f(*a)
    return functools.wraps(f)(wrapper)

def route(rule):
    def decorator(f):
        return f
    return decorator

def pair():
    def a():
        pass
    def b():
        pass
    return (a, b)

def factory():
    def helper(x):
        return x
    return helper(1)

def passthrough(f):
    return f

def wrapped(f):
    def w():
        pass
    return functools.update_wrapper(wrapper=w, wrapped=f)

class C:
    def m(self):
        def inner():
            pass
        return inner
`)
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "deco.py", Detect("deco.py"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %s %v", status, err)
	}
	qn := map[string]string{}
	for _, s := range facts.Symbols {
		qn[s.ID] = s.QualifiedName
	}
	var got []string
	for _, r := range facts.Returned {
		got = append(got, fmt.Sprintf("%s>%s:%d", qn[r.OuterID], qn[r.InnerID], r.Line))
	}
	want := []string{"traced>traced.wrapper:8", "route>route.decorator:13",
		"pair>pair.a:20", "pair>pair.b:20", "wrapped>wrapped.w:33", "C.m>C.m.inner:39"}
	if !slices.Equal(got, want) {
		t.Errorf("Returned = %q\nwant %q", got, want)
	}
}
