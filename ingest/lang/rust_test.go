package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestRustExtract(t *testing.T) {
	fx := lxParseFixture(t, "rust", "rust/src/net/server.rs")
	// The fixture path is testdata-relative, so its module path comes from
	// "rust/src/net/server.rs".
	if fx.Package != "net::server" {
		t.Errorf("package %q, want net::server", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "tests", kind: schema.KindModule, line: 6, endLine: 8, exported: true},
		{qname: "tests.helper", kind: schema.KindFunction, line: 7, exported: false},
		{qname: "Server", kind: schema.KindStruct, line: 13, endLine: 16, exported: true, doc: "A server.\nServes things.", sig: "pub struct Server"},
		{qname: "Event", kind: schema.KindEnum, line: 18, exported: true},
		{qname: "Handler", kind: schema.KindTrait, line: 20, exported: true},
		{qname: "Handler.handle", kind: schema.KindMethod, line: 21, exported: true, parent: "Handler"},
		{qname: "Routes", kind: schema.KindTypeAlias, line: 24, exported: true},
		{qname: "Bits", kind: schema.KindUnion, line: 26, exported: false},
		{qname: "Server.new", kind: schema.KindMethod, line: 30, endLine: 33, exported: true, parent: "Server",
			doc: "Creates a server.", sig: "pub fn new(addr: &str) -> Self"},
		{qname: "Server.run", kind: schema.KindMethod, line: 35, exported: false, parent: "Server"},
		{qname: "Server.handle", kind: schema.KindMethod, line: 45, exported: true, parent: "Server"},
		{qname: "Remote.fmt", kind: schema.KindMethod, line: 49, exported: true},
		{qname: "start", kind: schema.KindFunction, line: 52, exported: false, sig: "pub(crate) fn start(s: Server)"},
	})
	lxContains(t, "imports", lxImports(fx), []string{
		"|std::collections|HashMap||1",
		"|crate::config|Config||2",
		"|crate::config|Mode|RunMode|2",
		"wildcard|super::util|||3",
		"crate|serde|||4",
		"mod|handlers|||5",
	})
	calls := lxCalls(fx)
	lxContains(t, "calls", calls, []string{
		"Server.new|Config|load|call|31",
		"Server.new|HashMap|new|call|32",
		"Server.new|addr|to_string|call|32",
		"Server.run|h|handle|call|36",
		"Server.run|self|log|call|37",
		"Server.run|self.routes|keys|call|38",
		"Server.run|Self|fmt|reference|38",
		"Server.handle||dispatch|call|45",
		"start|Server|new|call|53",
		"start|srv|run|call|54",
		"start||spawn|call|55",
		"start||worker|reference|55",
	})
	// println! is a macro, not a call, but the calls in its arguments are.
	lxContains(t, "macro calls", calls, []string{"Server.run|names|len|call|39"})
	// `&Logger` is a unit struct value.
	for _, c := range fx.Calls {
		if c.Name == "println" || c.Name == "Logger" {
			t.Errorf("unexpected call %+v", c)
		}
	}
	lxContains(t, "heritage", lxHeritage(fx), []string{"Server|implements|Handler|44"})
	lxContains(t, "types", lxTypes(fx), []string{
		"Server|field|routes|HashMap",
		"Server.new|return|return|Server", // Self → Server
		"Server.new|local|cfg|Config",
		"Server.run|param|h|Handler", // &dyn Handler
		"start|param|s|Server",
		"Remote.fmt|receiver|receiver|Remote", // Remote is not declared here
		"|impl|Remote|Display",
	})
	lxLacks(t, "types", lxTypes(fx), []string{"Server.new|receiver|receiver|Server"})
}

func TestRustModulePath(t *testing.T) {
	for in, want := range map[string]string{
		"src/lib.rs":               "",
		"src/main.rs":              "",
		"src/net/server.rs":        "net::server",
		"src/net/mod.rs":           "net",
		"crates/core/src/a/b.rs":   "a::b",
		"crates/core/src/lib.rs":   "",
		"build.rs":                 "build",
		"examples/demo/src/cli.rs": "cli",
	} {
		if got := rustModulePath(in); got != want {
			t.Errorf("rustModulePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRustUseTrees(t *testing.T) {
	src := []byte("use a::{b::{c, d}, e, self};\nuse x::y as z;\nuse serde;\npub trait Sub: Super + Clone {}\nextern crate foo as bar;\n")
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "src/lib.rs", ByName("rust"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	lxContains(t, "imports", lxImports(fx), []string{
		"|a::b|c,d||1", "|a|e,self||1", "|x|y|z|2", "|serde|||3", "crate|foo||bar|5",
	})
	lxContains(t, "heritage", lxHeritage(fx), []string{"Sub|extends|Super|4", "Sub|extends|Clone|4"})
}

func TestRustPatternBindingsAreLocals(t *testing.T) {
	src := []byte(`fn f(r: Result<u8, E>, xs: Vec<u8>) {
    match r { Ok(v) => use_it(v), Err(e) => log(e) }
    if let Some(w) = opt { keep(w); }
    for (i, x) in xs.iter().enumerate() { show(i, x); }
    run(callback);
}
`)
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "src/lib.rs", ByName("rust"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	var refs []string
	for _, c := range fx.Calls {
		if c.Kind == "reference" {
			refs = append(refs, c.Name)
		}
	}
	if len(refs) != 1 || refs[0] != "callback" {
		t.Errorf("references %v, want only [callback]", refs)
	}
}
