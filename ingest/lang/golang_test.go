package lang

import (
	"bytes"
	"context"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestGoSymbols(t *testing.T) {
	facts := parseFixture(t, "go/engine.go")
	if facts.Package != "web" {
		t.Errorf("package = %q", facts.Package)
	}
	const p = "go/engine.go#"
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
		{"HandlerFunc", schema.KindTypeAlias, 11, 11, true, "", "type HandlerFunc func(*Context)", "HandlerFunc handles a request."},
		{"Engine", schema.KindStruct, 15, 21, true, "", "type Engine struct", "Engine is the framework's instance.\nIt embeds RouterGroup."},
		{"Router", schema.KindInterface, 25, 28, true, "", "type Router interface", "Router routes."},
		{"number", schema.KindInterface, 29, 29, false, "", "type number interface", ""},
		{"New", schema.KindFunction, 33, 38, true, "", "func New() *Engine", "New returns a new blank Engine."},
		{"Engine.ServeHTTP", schema.KindMethod, 41, 49, true, p + "Engine:struct",
			"func (engine *Engine) ServeHTTP(w stdhttp.ResponseWriter, req *stdhttp.Request)", "ServeHTTP conforms to http.Handler."},
		{"Engine.allocateContext", schema.KindMethod, 51, 54, false, p + "Engine:struct", "func (engine *Engine) allocateContext() *Context", ""},
		{"Group.Get", schema.KindMethod, 56, 56, true, "", "func (g *Group[T]) Get(key string) (value T, ok bool)", ""},
		{"helper", schema.KindFunction, 58, 63, false, "", "func helper(a, b int, rest ...string) (int, error)", ""},
	}
	for _, c := range cases {
		s := symbol(t, facts, c.qn, c.kind)
		if s.StartLine != c.start || s.EndLine != c.end || s.IsExported != c.exported || s.ParentID != c.parent ||
			s.Signature != c.sig || s.DocComment != c.doc || s.Label != schema.LabelOf(c.kind) {
			t.Errorf("%s: got lines %d-%d exported %v parent %q sig %q doc %q label %s", c.qn, s.StartLine, s.EndLine, s.IsExported, s.ParentID, s.Signature, s.DocComment, s.Label)
		}
		if s.Content == "" || s.ContentHash == "" {
			t.Errorf("%s: no content", c.qn)
		}
	}
	// Two init funcs: overload numbering.
	ids := map[string]bool{}
	for _, s := range facts.Symbols {
		ids[s.ID] = true
	}
	if !ids[p+"init:function"] || !ids[p+"init:function~2"] {
		t.Errorf("init overloads missing: %v", ids)
	}
	fm := 0
	for _, s := range facts.Symbols {
		if s.Kind == schema.KindFunction || s.Kind == schema.KindMethod {
			fm++
		}
	}
	if fm != 10 { // New ServeHTTP allocateContext Get helper init init useMin useGeneric print; interface methods are not symbols
		t.Errorf("Function+Method = %d, want 10 (func declarations in the file)", fm)
	}
}

func TestGoImportsHeritage(t *testing.T) {
	facts := parseFixture(t, "go/engine.go")
	want := []Import{{Spec: "embed", Alias: "_", Line: 5}, {Spec: "fmt", Line: 6}, {Spec: "net/http", Alias: "stdhttp", Line: 7}}
	if len(facts.Imports) != len(want) {
		t.Fatalf("imports = %+v", facts.Imports)
	}
	for i, w := range want {
		g := facts.Imports[i]
		if g.Spec != w.Spec || g.Alias != w.Alias || g.Line != w.Line {
			t.Errorf("import %d = %+v, want %+v", i, g, w)
		}
	}
	const p = "go/engine.go#"
	wantH := []Heritage{
		{ChildID: p + "Engine:struct", Parent: "RouterGroup", Kind: "embeds", Line: 16},
		{ChildID: p + "Engine:struct", Parent: "sync.Mutex", Kind: "embeds", Line: 17},
		{ChildID: p + "Router:interface", Parent: "fmt.Stringer", Kind: "embeds", Line: 27},
	}
	if len(facts.Heritage) != len(wantH) {
		t.Fatalf("heritage = %+v", facts.Heritage)
	}
	for i, w := range wantH {
		if facts.Heritage[i] != w {
			t.Errorf("heritage %d = %+v, want %+v", i, facts.Heritage[i], w)
		}
	}
}

func TestGoCalls(t *testing.T) {
	facts := parseFixture(t, "go/engine.go")
	const p = "go/engine.go#"
	want := []CallSite{
		{CallerID: p + "New:function", Name: "allocateContext", Receiver: "e", Kind: "call", Args: 0, Line: 35}, // inside a func literal
		{CallerID: p + "New:function", Name: "Use", Receiver: "e", Kind: "call", Args: 2, Line: 36},
		{CallerID: p + "New:function", Name: "Logger", Kind: "call", Args: 0, Line: 36},
		{CallerID: p + "New:function", Name: "recovery", Kind: "reference", Args: -1, Line: 36},
		{CallerID: p + "Engine.ServeHTTP:method", Name: "Get", Receiver: "engine.pool", Kind: "call", Args: 0, Line: 42},
		{CallerID: p + "Engine.ServeHTTP:method", Name: "handleHTTPRequest", Receiver: "engine", Kind: "call", Args: 1, Line: 44},
		{CallerID: p + "Engine.ServeHTTP:method", Name: "serve", Receiver: "engine", Kind: "reference", Args: -1, Line: 45},
		{CallerID: p + "Engine.ServeHTTP:method", Name: "HandleFunc", Receiver: "stdhttp", Kind: "call", Args: 2, Line: 45},
		{CallerID: p + "Engine.ServeHTTP:method", Name: "Println", Receiver: "fmt", Kind: "call", Args: 1, Line: 46},
		{CallerID: p + "helper:function", Name: "DoWork", Receiver: "Service(db)", Kind: "call", Args: 0, Line: 59},
		{CallerID: p + "helper:function", Name: "Service", Kind: "call", Args: 1, Line: 59},
		{CallerID: p + "helper:function", Name: "ServeHTTP", Receiver: "x", Kind: "call", Args: 2, Line: 61},
		{CallerID: "", Name: "New", Kind: "call", Args: 0, Line: 68}, // package-level var initializer
		{CallerID: p + "useMin:function", Name: "min", Kind: "call", Args: 2, Line: 70},
		// explicit instantiations parse as conversions to a generic type
		{CallerID: p + "useGeneric:function", Name: "is", Kind: "call", Args: 1, Line: 71},
		{CallerID: p + "useGeneric:function", Name: "Has", Receiver: "pkg", Kind: "call", Args: 1, Line: 71},
		{CallerID: p + "useGeneric:function", Name: "print", Kind: "call", Args: 1, Line: 71}, // the package's own print
	}
	for _, w := range want {
		if !hasCall(facts, w) {
			t.Errorf("missing call %+v; have:\n%s", w, callsString(facts))
		}
	}
	for _, c := range facts.Calls {
		switch c.Name {
		case "len", "new", "Engine", "Context", "w", "req", "c":
			t.Errorf("builtin, composite literal or local recorded as call/reference: %+v", c)
		}
	}
}

func TestGoTypeFacts(t *testing.T) {
	facts := parseFixture(t, "go/engine.go")
	const p = "go/engine.go#"
	want := []TypeFact{
		{Scope: p + "Engine:struct", Name: "pool", Type: "Pool", Kind: "field"},
		{Scope: p + "Engine:struct", Name: "trees", Type: "node", Kind: "field"},
		{Scope: p + "Engine:struct", Name: "RouterGroup", Type: "RouterGroup", Kind: "field"},
		{Scope: p + "Router:interface", Name: "Handle", Type: "Handle(method, path string, h HandlerFunc) Router", Kind: "method"},
		{Scope: p + "New:function", Name: "return", Type: "Engine", Kind: "return"},
		{Scope: p + "New:function", Name: "e", Type: "Engine", Kind: "local"},
		{Scope: p + "Engine.ServeHTTP:method", Name: "receiver", Type: "Engine", Kind: "receiver"},
		{Scope: p + "Engine.ServeHTTP:method", Name: "engine", Type: "Engine", Kind: "param"},
		{Scope: p + "Engine.ServeHTTP:method", Name: "req", Type: "stdhttp.Request", Kind: "param"},
		{Scope: p + "Engine.ServeHTTP:method", Name: "c", Type: "Context", Kind: "local"},
		{Scope: p + "Engine.ServeHTTP:method", Name: "ctx", Type: "call:NewContext", Kind: "local"},
		{Scope: p + "Engine.allocateContext:method", Name: "v", Type: "Context", Kind: "local"},
		{Scope: p + "Group.Get:method", Name: "receiver", Type: "Group", Kind: "receiver"},
		{Scope: p + "helper:function", Name: "rest", Type: "string", Kind: "param"},
		{Scope: p + "helper:function", Name: "return", Type: "error", Kind: "return"},
		{Scope: p + "helper:function", Name: "x", Type: "Engine", Kind: "local"},
		{Scope: "", Name: "defaultEngine", Type: "call:New", Kind: "global"},
	}
	for _, w := range want {
		if !hasType(facts, w) {
			t.Errorf("missing type fact %+v; have:\n%s", w, typesString(facts))
		}
	}
}

// A method whose receiver type lives in another file has no ParentID but
// always a receiver fact, so HAS_METHOD can be linked across files.
func TestGoMethodOtherFile(t *testing.T) {
	facts := parseFixture(t, "go/other.go")
	s := symbol(t, facts, "Context.reset", schema.KindMethod)
	if s.ParentID != "" {
		t.Errorf("ParentID = %q, want empty", s.ParentID)
	}
	if !hasType(facts, TypeFact{Scope: s.ID, Name: "receiver", Type: "Context", Kind: "receiver"}) {
		t.Errorf("no receiver fact:\n%s", typesString(facts))
	}
	if s.DocComment != "reset clears the context; Context is declared in another file." {
		t.Errorf("doc = %q", s.DocComment)
	}
}

// parseGoSource runs the Go extractor on src as the file x/a.go.
func parseGoSource(t *testing.T, src string) (Facts, schema.ParseStatus) {
	t.Helper()
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "x/a.go", ByName("go"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return facts, status
}

// Names a select case declares (`case v, ok := <-ch:`) are locals: an
// argument naming one is not a reference to a function v. Neither is a
// spread slice (f(xs...)) nor the type make and new take.
func TestGoLocalsAndNonReferences(t *testing.T) {
	facts, status := parseGoSource(t, `package x

func run(ch chan func(), done chan error, xs []func()) {
	select {
	case ev, ok := <-ch:
		handle(ev, ok)
	case err := <-done:
		report(err)
	}
	apply(xs...)
	m := make(Table)
	p := new(Table)
	use(m, p, helper)
}
`)
	if status != schema.ParseOK {
		t.Fatalf("status %s", status)
	}
	const run = "x/a.go#run:function"
	for _, name := range []string{"ev", "ok", "err", "xs", "Table", "m", "p"} {
		if hasCall(facts, CallSite{CallerID: run, Name: name, Kind: "reference", Args: -2}) {
			t.Errorf("%s recorded as a reference:\n%s", name, callsString(facts))
		}
	}
	for _, name := range []string{"handle", "report", "apply", "use"} {
		if !hasCall(facts, CallSite{CallerID: run, Name: name, Kind: "call", Args: -2}) {
			t.Errorf("call of %s missing:\n%s", name, callsString(facts))
		}
	}
	if !hasCall(facts, CallSite{CallerID: run, Name: "helper", Kind: "reference", Args: -1}) {
		t.Errorf("the reference to helper is missing:\n%s", callsString(facts))
	}
}

// Every name of a parameter list is a parameter, blanks among them (the
// tree-sitter extractor lost the first of `host, workspace, _, _ string`).
func TestGoParamsWithBlanks(t *testing.T) {
	facts, _ := parseGoSource(t, "package x\n\nfunc (r *R) Run(host, workspace, _, _ string, n int) {}\n")
	id := "x/a.go#R.Run:method"
	for _, name := range []string{"host", "workspace"} {
		if !hasType(facts, TypeFact{Scope: id, Name: name, Type: "string", Kind: "param"}) {
			t.Errorf("param %s missing:\n%s", name, typesString(facts))
		}
	}
}

// Lines are the file's own: a //line directive (cgo's and yacc's output)
// does not move them.
func TestGoLineDirectiveIgnored(t *testing.T) {
	facts, _ := parseGoSource(t, "package x\n\n//line other.y:100\nfunc A() {\n\tB()\n}\n")
	s := symbol(t, facts, "A", schema.KindFunction)
	if s.StartLine != 4 || s.EndLine != 6 {
		t.Errorf("A at %d-%d, want 4-6", s.StartLine, s.EndLine)
	}
	if !hasCall(facts, CallSite{CallerID: s.ID, Name: "B", Args: 0, Line: 5}) {
		t.Errorf("call of B not at line 5:\n%s", callsString(facts))
	}
}

// A file with syntax errors keeps the declarations around the broken
// one, even one an unclosed body runs on to, with their lines.
func TestGoRecoversAroundBrokenDeclarations(t *testing.T) {
	facts, status := parseGoSource(t, `package x

// First is fine.
func First() { a() }

func Open() {
	if x {

// Last is fine too.
func Last() int { return b() }

type T struct{ n int }
`)
	if status != schema.ParsePartial {
		t.Fatalf("status %s, want partial", status)
	}
	if s := symbol(t, facts, "First", schema.KindFunction); s.StartLine != 4 || s.DocComment != "First is fine." {
		t.Errorf("First: line %d doc %q", s.StartLine, s.DocComment)
	}
	if s := symbol(t, facts, "Last", schema.KindFunction); s.StartLine != 10 || s.DocComment != "Last is fine too." {
		t.Errorf("Last: line %d doc %q", s.StartLine, s.DocComment)
	}
	symbol(t, facts, "T", schema.KindStruct)
	if !hasCall(facts, CallSite{CallerID: "x/a.go#Last:function", Name: "b", Args: 0, Line: 10}) {
		t.Errorf("call in Last lost:\n%s", callsString(facts))
	}
}

// Source that is not valid UTF-8 (or holds NULs) is parsed all the same:
// doc comments keep the source's bytes, names read them as U+FFFD (names
// are keys of rows), and the file is partial.
func TestGoInvalidUTF8(t *testing.T) {
	facts, status := parseGoSource(t, "package x\n\n// Doc \xff here.\nfunc caf\xe9Name() { g\x00() }\n\nfunc After() {}\n")
	if status != schema.ParsePartial {
		t.Errorf("status %s, want partial", status)
	}
	s := symbol(t, facts, "caf\uFFFDName", schema.KindFunction)
	if s.DocComment != "Doc \xff here." {
		t.Errorf("doc %q", s.DocComment)
	}
	symbol(t, facts, "After", schema.KindFunction)
}

// FuzzGoExtract: any source, broken or not, is extracted without a panic
// (a recovered panic is a ParseError), every symbol's lines lie within
// the file, and its content is the file's bytes at those lines.
func FuzzGoExtract(f *testing.F) {
	for _, seed := range []string{
		"package p\nfunc A() { B() }\n",
		"package p\n\nfunc Open() {\n\tif x {\n\nfunc Last() int { return b() }\n",
		"package p\n//line x.y:9\ntype T struct{ a, b int; *U }\nfunc (t *T) M(xs ...int) { go t.M(xs...) }\n",
		"package p\nvar f = func() { select { case v := <-ch: use(v) } }\n",
		"package p\nfunc caf\xe9() {}\n\x00",
		"package",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p := NewParser()
		defer p.Close()
		facts, status, err := p.Parse(context.Background(), "x/a.go", ByName("go"), src)
		if err != nil || status == schema.ParseError {
			t.Fatalf("status %s err %v", status, err)
		}
		lines := bytes.Count(src, []byte{'\n'}) + 1
		for _, s := range facts.Symbols {
			if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > lines {
				t.Fatalf("%s at lines %d-%d of %d", s.ID, s.StartLine, s.EndLine, lines)
			}
			if !bytes.Contains(src, []byte(s.Content)) {
				t.Fatalf("%s content is not the file's: %q", s.ID, s.Content)
			}
		}
		for _, c := range facts.Calls {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call %s at line %d of %d", c.Name, c.Line, lines)
			}
		}
	})
}
