package lang

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

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
	if !filepath.IsAbs(rel) {
		lxDump(t, lxParseFixture(t, lang, rel))
		return
	}
	src, err := os.ReadFile(rel)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(context.Background(), strings.TrimPrefix(rel, "/"), ByName(lang), src)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %s", status)
	lxDump(t, fx)
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

// TestLXSmoke parses real source trees with the c, cpp, csharp, rust, ruby
// and php extractors and checks every file's Facts for internal
// consistency. It needs corpora on disk: set LX_SMOKE to a comma-separated
// list of lang=dir (for example
// LX_SMOKE=rust=/tmp/corp/rust,ruby=/usr/lib/ruby). Every regular file under
// dir whose language Detect reports as lang is parsed; with lang=cpp! every
// regular file is parsed as C++ (for extension-less standard headers).
func TestLXSmoke(t *testing.T) {
	spec := os.Getenv("LX_SMOKE")
	if spec == "" {
		t.Skip("set LX_SMOKE=lang=dir[,lang=dir...] to smoke-test the extractors on real code")
	}
	for _, item := range strings.Split(spec, ",") {
		name, dir, ok := strings.Cut(item, "=")
		if !ok {
			t.Fatalf("bad LX_SMOKE item %q", item)
		}
		force := strings.HasSuffix(name, "!")
		name = strings.TrimSuffix(name, "!")
		l := ByName(name)
		if l == nil {
			t.Fatalf("unknown language %q", name)
		}
		t.Run(name+":"+filepath.Base(dir), func(t *testing.T) {
			p := NewParser()
			defer p.Close()
			var files, partial, syms, calls, imports int
			var bytes int64
			start := time.Now()
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !d.Type().IsRegular() {
					return nil
				}
				if !force {
					if dl := Detect(path); dl == nil || dl.Name != name {
						return nil
					}
				}
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, path)
				fx, status, perr := p.Parse(context.Background(), filepath.ToSlash(rel), l, src)
				if errors.Is(perr, ErrParseAborted) {
					t.Logf("%s: %v", rel, perr) // a giant generated file; the timeout is the contract
					return nil
				}
				if perr != nil {
					t.Errorf("%s: %v", rel, perr)
					return nil
				}
				files++
				bytes += int64(len(src))
				if status == schema.ParsePartial {
					partial++
				}
				syms += len(fx.Symbols)
				calls += len(fx.Calls)
				imports += len(fx.Imports)
				lxCheckConsistent(t, rel, src, fx)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			t.Logf("%s: %d files, %.1f MB, %d partial, %d symbols, %d calls, %d imports in %s (%.1f MB/s)",
				name, files, float64(bytes)/1e6, partial, syms, calls, imports, el.Round(time.Millisecond), float64(bytes)/1e6/el.Seconds())
			if files == 0 {
				t.Errorf("no %s files under %s", name, dir)
			}
		})
	}
}

// lxCheckConsistent checks the invariants every extractor's Facts must
// hold: unique ids, sane lines, names without spaces, parents and callers
// that are symbols of the same file.
func lxCheckConsistent(t *testing.T, rel string, src []byte, fx Facts) {
	t.Helper()
	lines := strings.Count(string(src), "\n") + 1
	ids := map[string]bool{}
	for _, s := range fx.Symbols {
		if ids[s.ID] {
			t.Errorf("%s: duplicate symbol id %s", rel, s.ID)
		}
		ids[s.ID] = true
	}
	for _, s := range fx.Symbols {
		switch {
		case s.Name == "" || strings.ContainsAny(s.Name, " \t\n"):
			t.Errorf("%s:%d: bad symbol name %q (%s)", rel, s.StartLine, s.Name, s.Kind)
		case s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > lines:
			t.Errorf("%s: %s lines %d-%d of %d", rel, s.QualifiedName, s.StartLine, s.EndLine, lines)
		case s.ParentID != "" && !ids[s.ParentID]:
			t.Errorf("%s: %s parent %s not in file", rel, s.QualifiedName, s.ParentID)
		case strings.ContainsAny(s.QualifiedName, " \t\n"):
			t.Errorf("%s:%d: bad qualified name %q", rel, s.StartLine, s.QualifiedName)
		}
	}
	for _, c := range fx.Calls {
		switch {
		case c.CallerID != "" && !ids[c.CallerID]:
			t.Errorf("%s:%d: caller %s not in file", rel, c.Line, c.CallerID)
		case c.Name == "" || strings.ContainsAny(c.Name, " \t\n") || (strings.ContainsAny(c.Name, "()") && !strings.HasPrefix(c.Name, "operator")):
			t.Errorf("%s:%d: bad call name %q (receiver %q)", rel, c.Line, c.Name, c.Receiver)
		case c.Kind != "call" && c.Kind != "new" && c.Kind != "reference":
			t.Errorf("%s:%d: bad call kind %q", rel, c.Line, c.Kind)
		case c.Line < 1 || c.Line > lines:
			t.Errorf("%s: call %s at line %d of %d", rel, c.Name, c.Line, lines)
		}
	}
	for _, h := range fx.Heritage {
		if (h.ChildID != "" && !ids[h.ChildID]) || h.Parent == "" {
			t.Errorf("%s:%d: bad heritage %+v", rel, h.Line, h)
		}
	}
	for _, i := range fx.Imports {
		if i.Spec == "" && len(i.Names) == 0 {
			t.Errorf("%s:%d: empty import %+v", rel, i.Line, i)
		}
	}
	for _, tf := range fx.Types {
		if (tf.Scope != "" && !ids[tf.Scope]) || tf.Type == "" || tf.Name == "" {
			t.Errorf("%s:%d: bad type fact %+v", rel, tf.Line, tf)
		}
	}
}

// A .h file written in C++ is detected as C; the extractor notices the C
// parse failing on C++ syntax and extracts it with the C++ grammar.
func TestCHeaderWithCppSyntax(t *testing.T) {
	src, err := os.ReadFile("testdata/c/widget.h")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	defer p.Close()
	fx, _, err := p.Parse(context.Background(), "c/widget.h", Detect("widget.h"), src)
	if err != nil {
		t.Fatal(err)
	}
	if fx.Language != "c" || fx.Package != "ui" {
		t.Errorf("language %q package %q, want c and ui", fx.Language, fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "ui.Widget", kind: schema.KindClass, line: 7, endLine: 13, exported: true, doc: "A widget on screen."},
		{qname: "ui.Widget.draw", kind: schema.KindMethod, line: 10, exported: true, parent: "ui.Widget"},
	})
	lxContains(t, "heritage", lxHeritage(fx), []string{"ui.Widget|extends|Base|7"})
	lxContains(t, "calls", lxCalls(fx), []string{"ui.Widget.draw||paint|call|10"})
	// The same text in a .c file is C: a C file is never re-parsed.
	fc, _, err := p.Parse(context.Background(), "c/widget.c", Detect("widget.c"), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fc.Symbols {
		if s.Kind == schema.KindClass || s.Kind == schema.KindMethod {
			t.Errorf("widget.c: %s %s, want no C++ symbols from a .c file", s.Kind, s.QualifiedName)
		}
	}
	for src, want := range map[string]bool{
		"struct s { int x; };\nint f(void);\n":                                    false,
		"struct class *cls = dev->class;\n":                                       false, // the kernel's struct class
		"struct user_namespace *ns;\nstatic struct class foo_class = {":           false,
		"asm volatile(\"\" ::: \"memory\");\nasm(\"mov\" : \"=r\"(x) :: \"cc\");": false,
		"/* the class of device */ int a;\nswitch (x) { case 1: public_fn(); }":   false,
		"namespace ui {\n":                true,
		"template <typename T> T f(T x);": true,
		"class Widget : public Base {":    true,
		"class Widget;":                   true,
		"  public:\n  int x;":             true,
		"std::string name;":               true,
		"Widget::~Widget() {}":            true,
	} {
		if got := cLooksLikeCpp([]byte(src)); got != want {
			t.Errorf("cLooksLikeCpp(%q) = %v, want %v", src, got, want)
		}
	}
}

// BenchmarkLXExtract measures tree-sitter parsing alone against parsing
// plus extraction on a real tree: LX_BENCH=lang=dir (files Detect assigns
// to lang, at most 64 MB read into memory first).
func BenchmarkLXExtract(b *testing.B) {
	spec := os.Getenv("LX_BENCH")
	if spec == "" {
		b.Skip("set LX_BENCH=lang=dir to benchmark an extractor on real code")
	}
	name, dir, _ := strings.Cut(spec, "=")
	l := ByName(name)
	if l == nil {
		b.Fatalf("unknown language %q", name)
	}
	type file struct {
		path string
		src  []byte
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || total > 64<<20 {
			return nil
		}
		if dl := Detect(path); dl == nil || dl.Name != name {
			return nil
		}
		src, err := os.ReadFile(path)
		if err == nil {
			files = append(files, file{path, src})
			total += int64(len(src))
		}
		return nil
	})
	if len(files) == 0 {
		b.Fatalf("no %s files under %s", name, dir)
	}
	b.Run("parse", func(b *testing.B) {
		sp := sitter.NewParser()
		defer sp.Close()
		if err := sp.SetLanguage(l.Grammar()); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(total)
		for b.Loop() {
			for _, f := range files {
				sp.Parse(f.src, nil).Close()
			}
		}
	})
	b.Run("parse+extract", func(b *testing.B) {
		p := NewParser()
		defer p.Close()
		b.SetBytes(total)
		for b.Loop() {
			for _, f := range files {
				if _, _, err := p.Parse(context.Background(), f.path, l, f.src); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func TestLXTextDoc(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		style     lxDocStyle
		want      string
	}{
		{"line comments", "x;\n// one\n// two\nint f();", lxDocStyle{}, "one\ntwo"},
		{"blank line gap", "// far\n\nint f();", lxDocStyle{}, ""},
		{"trailing comment of code", "int x; // note\nint f();", lxDocStyle{}, ""},
		{"javadoc block", "/**\n * Does it.\n * @return x\n */\nint f();", lxDocStyle{}, "Does it.\n@return x"},
		{"block after code", "int y; /* c\n d */\nint f();", lxDocStyle{}, ""},
		{"block then line", "/* a */\n// b\nint f();", lxDocStyle{}, "a\nb"},
		{"first line of file", "int f();", lxDocStyle{}, ""},
		{"preprocessor is not a comment", "#include <x.h>\nint f();", lxDocStyle{}, ""},
		{"rust attributes skipped", "/// Doc.\n#[derive(Debug)]\n#[repr(C)]\npub struct S;", lxDocStyle{rustAttrs: true}, "Doc."},
		{"ruby hash comments", "  # Total.\n  # Sum.\n  def total", lxDocStyle{hash: true}, "Total.\nSum."},
		{"cpp template header", "// Max.\ntemplate <typename T>\nT max(T a);", lxDocStyle{templates: true}, "Max."},
		{"csharp xml doc", "    /// <summary>\n    /// Runs.\n    /// </summary>\n    public void Run()", lxDocStyle{}, "<summary>\nRuns.\n</summary>"},
	} {
		src := []byte(tc.src)
		start := strings.LastIndexByte(tc.src, '\n') + 1
		for start < len(src) && (src[start] == ' ' || src[start] == '\t') {
			start++
		}
		if got := lxTextDoc(src, uint(start), tc.style); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A loop macro with a block after `else` (`else list_for_each_entry(pos,
// head, member) { ... }`) parses, by error recovery, as a function
// definition inside the function's body: it is no function, and the calls
// in its block are the enclosing function's.
func TestCMacroBlockInBodyIsNoFunction(t *testing.T) {
	src := []byte(`void drv_validation_res_unreserve(struct drv_validation_context *ctx,
				 bool backoff)
{
	struct drv_validation_res_node *val;

	list_splice_init(&ctx->resource_ctx_list, &ctx->resource_list);
	if (backoff)
		list_for_each_entry(val, &ctx->resource_list, head) {
			if (val->reserved)
				drv_resource_unreserve(val->res,
						       false, false, false,
						       NULL, 0);
		}
	else
		list_for_each_entry(val, &ctx->resource_list, head) {
			if (val->reserved)
				drv_resource_unreserve(val->res,
						       val->dirty_set,
						       val->dirty,
						       val->switching_backing_memory,
						       val->new_backing_memory,
						       val->new_backing_mem_offset);
		}
}
`)
	p := NewParser()
	defer p.Close()
	fx, _, err := p.Parse(context.Background(), "drivers/v.c", Detect("v.c"), src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range fx.Symbols {
		if s.Kind == schema.KindFunction {
			names = append(names, s.Name)
		}
	}
	if !slices.Equal(names, []string{"drv_validation_res_unreserve"}) {
		t.Errorf("functions %v, want only drv_validation_res_unreserve", names)
	}
	lxContains(t, "calls", lxCalls(fx), []string{
		"drv_validation_res_unreserve||list_splice_init|call|6",
		"drv_validation_res_unreserve||drv_resource_unreserve|call|10",
		"drv_validation_res_unreserve||drv_resource_unreserve|call|17",
	})
}

// cCppSyntax is cLooksLikeCpp's meaning as one regular expression (what it
// ran before it looked for the keywords first): C++ and not C is a
// namespace block, a template, a class definition or declaration, an
// access specifier, or a qualified name.
var cCppSyntax = regexp.MustCompile(`(?:^|[^\w])(?:namespace\s+\w*\s*\{|template\s*<|(?:public|private|protected)\s*:[^:]|class\s+\w+\s*(?:final\s*)?[{:;])|\w::[~\w]`)

// TestCLooksLikeCppIsTheRegexp: on text made of the pattern's pieces in
// random order (keywords, colons, braces, word and non-word bytes, white
// space), cLooksLikeCpp answers as cCppSyntax does.
func TestCLooksLikeCppIsTheRegexp(t *testing.T) {
	pieces := []string{"namespace", "template", "public", "private", "protected", "class", "final",
		"::", ":", ":::", "~", "{", ";", "<", " ", "\t", "\n", "x", "_", "9", "(", "*", "struct ", "a_class", "asm(\"\" ::: \"m\")"}
	rng := rand.New(rand.NewSource(18))
	matched := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		src := []byte(b.String())
		want := cCppSyntax.Match(src)
		if got := cLooksLikeCpp(src); got != want {
			t.Fatalf("cLooksLikeCpp(%q) = %v, the regexp %v", src, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 500 {
		t.Errorf("only %d of the random texts matched: the test says little", matched)
	}
}
