package resolve

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// TestFactsKeyCoversFacts: every field of the facts resolution is given
// is either in factsKey or named here as left out on purpose, so that a
// field added to the facts fails this test until someone decides whether
// the site cache's key must hold it.
func TestFactsKeyCoversFacts(t *testing.T) {
	for typ, want := range map[reflect.Type][]string{
		// Calls: only their own file's resolveSites reads them (a file
		// whose content changed is resolved again).
		reflect.TypeOf(lang.Facts{}): {"Path", "Language", "Package", "BuildConstraint", "Symbols", "Imports", "Calls", "Heritage",
			"Types", "Prototypes", "Macros", "ConfigStubs", "Registrations", "Returned"},
		// ConfigStubs: in each function's digest (funcScopes.appendEntries).
		// StartLine, EndLine, DocComment, Content, ContentHash and
		// SearchText: resolution reads none of them.
		reflect.TypeOf(schema.Symbol{}): {"ID", "Label", "Kind", "Name", "QualifiedName", "FilePath", "StartLine", "EndLine", "Language",
			"Signature", "DocComment", "IsExported", "Content", "ContentHash", "ParentID", "SearchText", "IsTest"},
		// Import and Heritage lines are their edges' (made every run).
		reflect.TypeOf(lang.Import{}):       {"Spec", "Names", "Alias", "Kind", "Line"},
		reflect.TypeOf(lang.Heritage{}):     {"ChildID", "Parent", "Kind", "Line"},
		reflect.TypeOf(lang.TypeFact{}):     {"Scope", "Name", "Type", "Kind", "Line"},
		reflect.TypeOf(lang.Registration{}): {"CallerID", "Name", "Via", "Field", "Type", "Receiver", "Line"},
		reflect.TypeOf(lang.Returned{}):     {"OuterID", "InnerID", "Line"},
	} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields %v; factsKey was written for %v: decide whether the site cache's key must hold the new ones", typ, got, want)
		}
	}
}

// TestSitesKeyOrdersLines: moving a file's code down (every fact line
// shifted) keeps the key; facts whose order changes, a fact moved to or
// from line 1, and a renamed symbol change it.
func TestSitesKeyOrdersLines(t *testing.T) {
	key := func(edit func(f *lang.Facts)) [32]byte {
		files := sitesFixture()
		if edit != nil {
			edit(files[0])
		}
		r := &resolver{in: Input{Files: files, Paths: []string{"a.go", "b.go"}, Stamp: "s"}}
		k, fsums := r.sitesKey()
		b := k[:]
		for _, p := range []string{"a.go", "b.go"} {
			sum := fsums[p]
			b = append(append(b, p...), sum[:]...)
		}
		return sha256.Sum256(b)
	}
	base := key(nil)
	if key(func(f *lang.Facts) {
		for i := range f.Types {
			f.Types[i].Line += 7
		}
		for i := range f.Symbols {
			f.Symbols[i].StartLine += 7
			f.Symbols[i].Content += "\n// more"
		}
	}) != base {
		t.Error("lines moved down changed the key")
	}
	for name, edit := range map[string]func(f *lang.Facts){
		"order":  func(f *lang.Facts) { f.Types[0].Line, f.Types[1].Line = f.Types[1].Line, f.Types[0].Line },
		"line 1": func(f *lang.Facts) { f.Types[0].Line = 1 },
		"rename": func(f *lang.Facts) { f.Symbols[1].Name = "helper2" },
		"type":   func(f *lang.Facts) { f.Types[1].Type = "Other" },
	} {
		if key(edit) == base {
			t.Errorf("%s: the key did not change", name)
		}
	}
}

// sitesFixture is two Go files of one package: main calls helper and a
// method through a typed local, other calls helper and fmt.
func sitesFixture() []*lang.Facts {
	sym := func(path, name string, l schema.Label, k schema.Kind, parent string) schema.Symbol {
		return schema.Symbol{ID: schema.SymbolID(path, name, k, 1), Label: l, Kind: k, Name: name, QualifiedName: name,
			FilePath: path, Language: "go", ParentID: parent, StartLine: 3}
	}
	a := &lang.Facts{Path: "a.go", Language: "go", Package: "main", Symbols: []schema.Symbol{
		sym("a.go", "main", schema.LabelFunction, schema.KindFunction, ""),
		sym("a.go", "helper", schema.LabelFunction, schema.KindFunction, ""),
		sym("a.go", "T", schema.LabelClass, schema.KindStruct, ""),
	}}
	run := sym("a.go", "T.Run", schema.LabelMethod, schema.KindMethod, a.Symbols[2].ID)
	run.Name = "Run"
	a.Symbols = append(a.Symbols, run)
	mainID := a.Symbols[0].ID
	a.Types = []lang.TypeFact{{Scope: mainID, Name: "t", Type: "T", Kind: "local", Line: 4}, {Scope: mainID, Name: "u", Type: "T", Kind: "local", Line: 6}}
	a.Calls = []lang.CallSite{
		{CallerID: mainID, Name: "helper", Kind: "call", Line: 5},
		{CallerID: mainID, Name: "Run", Receiver: "t", Kind: "call", Line: 7},
		{CallerID: "", Name: "init", Kind: "call", Line: 1},
		{CallerID: mainID, Name: "nowhere", Kind: "call", Line: 8},
	}
	b := &lang.Facts{Path: "b.go", Language: "go", Package: "main", Symbols: []schema.Symbol{sym("b.go", "other", schema.LabelFunction, schema.KindFunction, "")},
		Imports: []lang.Import{{Spec: "fmt", Line: 1}}}
	b.Calls = []lang.CallSite{
		{CallerID: b.Symbols[0].ID, Name: "helper", Kind: "call", Line: 4},
		{CallerID: b.Symbols[0].ID, Name: "Println", Receiver: "fmt", Kind: "call", Line: 5},
	}
	return []*lang.Facts{a, b}
}

// TestSiteCacheServesUnchangedFiles: a resolution over the last one's
// site cache gives exactly its output, reading every file's sites from
// the cache (also from a cache written of reused records); a file whose
// content hash differs, and a damaged record, are resolved again (same
// output); tables that changed (a symbol added), a truncated, foreign or
// missing file serve none of it, and say why.
func TestSiteCacheServesUnchangedFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hashes := map[string]string{"a.go": "ha", "b.go": "hb"}
	resolveWith := func(files []*lang.Facts, cache, out string) *Output {
		t.Helper()
		o, err := Resolve(ctx, Input{Files: files, Paths: []string{"a.go", "b.go"}, Workers: 2, Sites: cache, SitesOut: out, Hashes: hashes, Stamp: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	same := func(what string, got, want *Output, reused int) {
		t.Helper()
		if got.Stats.SitesReused != reused {
			t.Errorf("%s: %d files' sites reused, want %d", what, got.Stats.SitesReused, reused)
		}
		g, w := got.Stats, want.Stats
		g.SitesReused, w.SitesReused = 0, 0
		if !reflect.DeepEqual(got.Edges, want.Edges) || !reflect.DeepEqual(g, w) || !reflect.DeepEqual(got.Samples, want.Samples) ||
			!reflect.DeepEqual(got.Unresolved, want.Unresolved) {
			t.Errorf("%s: the output differs from a resolution without the cache:\n got %+v %v\nwant %+v %v", what, got.Stats, got.Edges, want.Stats, want.Edges)
		}
	}
	first := filepath.Join(dir, "first")
	want := resolveWith(sitesFixture(), "", first)
	if want.Stats.Resolved < 2 || want.Stats.Unresolved < 1 {
		t.Fatalf("the fixture resolves too little to test with: %+v", want.Stats)
	}
	second := filepath.Join(dir, "second")
	same("reused", resolveWith(sitesFixture(), first, second), want, 2)
	// The cache written from reused blocks serves as well.
	same("reused twice", resolveWith(sitesFixture(), second, ""), want, 2)

	hashes["b.go"] = "hb2"
	same("b.go changed", resolveWith(sitesFixture(), first, ""), want, 1)
	hashes["b.go"] = "hb"

	// a.go's record (the first, right after the magic and the key's 64
	// hex digits) damaged: resolved again.
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	data[len(sitesMagic)+1+64+2] ^= 0x55
	damaged := filepath.Join(dir, "damaged")
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	same("a.go damaged", resolveWith(sitesFixture(), damaged, ""), want, 1)

	// A type added: the key differs, nothing is read from the cache.
	files := sitesFixture()
	files[1].Symbols = append(files[1].Symbols, schema.Symbol{ID: "b.go#U:struct", Label: schema.LabelClass,
		Kind: schema.KindStruct, Name: "U", QualifiedName: "U", FilePath: "b.go", Language: "go"})
	fresh := resolveWith(files, "", "")
	got := resolveWith(files, first, "")
	same("type added", got, fresh, 0)
	if got.SitesMiss == "" {
		t.Error("type added: no reason given for the cache's miss")
	}

	// A truncated file, a foreign one, none: no cache, and why.
	for name, b := range map[string][]byte{"truncated": data[:len(data)-3], "foreign": []byte("hello, not a cache at all, long enough")} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		got := resolveWith(sitesFixture(), p, "")
		same(name, got, want, 0)
		if got.SitesMiss == "" {
			t.Errorf("%s: no reason given for the cache's miss", name)
		}
	}
	if got := resolveWith(sitesFixture(), filepath.Join(dir, "none"), ""); got.SitesMiss == "" || got.Stats.SitesReused != 0 {
		t.Errorf("a missing cache: reused %d, why %q", got.Stats.SitesReused, got.SitesMiss)
	}
}

// TestSiteCacheFunctionChanges: a function added, removed or changed keeps
// the site cache's key (factsKey leaves Function symbols out of it), and
// staleSites resolves again exactly the files it can reach: each edit
// below gives the output of a resolution without the cache, and reuses
// the files it should.
func TestSiteCacheFunctionChanges(t *testing.T) {
	ctx := context.Background()
	fn := func(path, name, lang string, exported bool) schema.Symbol {
		return schema.Symbol{ID: schema.SymbolID(path, name, schema.KindFunction, 1), Label: schema.LabelFunction, Kind: schema.KindFunction,
			Name: name, QualifiedName: name, FilePath: path, Language: lang, IsExported: exported, StartLine: 2}
	}
	// Go: a.go defines helper and mk, b.go calls helper and fmt, c.go
	// calls nothing of them; JS: m.js's only exported function is u.js's
	// default import bar.
	base := func() []*lang.Facts {
		files := sitesFixture()
		files[0].Symbols = append(files[0].Symbols, fn("a.go", "mk", "go", false))
		c := &lang.Facts{Path: "c.go", Language: "go", Package: "main", Symbols: []schema.Symbol{fn("c.go", "lonely", "go", false)}}
		c.Calls = []lang.CallSite{{CallerID: c.Symbols[0].ID, Name: "Sprintf", Receiver: "fmt", Kind: "call", Line: 3},
			{CallerID: c.Symbols[0].ID, Name: "Run", Receiver: "mk()", Kind: "call", Line: 4}}
		c.Imports = []lang.Import{{Spec: "fmt", Line: 1}}
		m := &lang.Facts{Path: "m.js", Language: "javascript", Symbols: []schema.Symbol{fn("m.js", "foo", "javascript", true)}}
		u := &lang.Facts{Path: "u.js", Language: "javascript", Symbols: []schema.Symbol{fn("u.js", "main", "javascript", false)},
			Imports: []lang.Import{{Spec: "./m", Alias: "bar", Line: 1}}}
		u.Calls = []lang.CallSite{{CallerID: u.Symbols[0].ID, Name: "bar", Kind: "call", Line: 3}}
		return append(files, c, m, u)
	}
	paths := []string{"a.go", "b.go", "c.go", "m.js", "u.js"}
	hashes := func() map[string]string {
		return map[string]string{"a.go": "ha", "b.go": "hb", "c.go": "hc", "m.js": "hm", "u.js": "hu"}
	}
	resolveWith := func(files []*lang.Facts, h map[string]string, cache, out string) *Output {
		t.Helper()
		o, err := Resolve(ctx, Input{Files: files, Paths: paths, Workers: 2, Sites: cache, SitesOut: out, Hashes: h, Stamp: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	cache := filepath.Join(t.TempDir(), "sites")
	was := resolveWith(base(), hashes(), "", cache)
	if was.Stats.Resolved < 3 {
		t.Fatalf("the fixture resolves too little to test with: %+v %v", was.Stats, was.Edges)
	}
	calls := func(o *Output, from string) []string {
		var out []string
		for _, e := range o.Edges {
			if e.Type == schema.RelCalls && e.From == from {
				out = append(out, e.To)
			}
		}
		return out
	}
	if got := calls(was, "u.js#main:function"); !slices.Equal(got, []string{"m.js#foo:function"}) {
		t.Fatalf("the default import does not resolve to m.js's only export: %v", got)
	}
	for _, tc := range []struct {
		name   string
		file   string // the file edited (its hash changes)
		edit   func(files []*lang.Facts)
		reused []string // the files read from the cache
		miss   bool     // none is: a fact read across files names the function
		global bool     // b.go has a global of type call:mk, before and after
	}{
		{name: "a function with a new name", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols = append(fs[0].Symbols, fn("a.go", "fresh", "go", false))
		}, reused: []string{"b.go", "c.go", "m.js", "u.js"}},
		{name: "a called function removed", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols = slices.DeleteFunc(fs[0].Symbols, func(s schema.Symbol) bool { return s.Name == "helper" })
		}, reused: []string{"c.go", "m.js", "u.js"}},
		{name: "a function a receiver calls", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols[4].Signature = "func mk() T"
		}, reused: []string{"b.go", "m.js", "u.js"}},
		{name: "nine new functions and one a receiver calls", file: "a.go", edit: func(fs []*lang.Facts) {
			for i := range 9 { // more than staleSites searches for one by one
				fs[0].Symbols = append(fs[0].Symbols, fn("a.go", fmt.Sprintf("fresh%d", i), "go", false))
			}
			fs[0].Symbols[4].Signature = "func mk() T"
		}, reused: []string{"b.go", "m.js", "u.js"}},
		{name: "a function named as an import", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols = append(fs[0].Symbols, fn("a.go", "fmt", "go", false))
		}, miss: true},
		{name: "a function changed in place", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols[1].Signature = "func helper() int"
		}, reused: []string{"c.go", "m.js", "u.js"}},
		{name: "a second export beside a default one", file: "m.js", edit: func(fs []*lang.Facts) {
			fs[3].Symbols = append(fs[3].Symbols, fn("m.js", "baz", "javascript", true))
		}, reused: []string{"a.go", "b.go", "c.go"}},
		{name: "a function a global's type is the result of", file: "a.go", edit: func(fs []*lang.Facts) {
			fs[0].Symbols[4].Signature = "func mk() T"
		}, miss: true, global: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, h := base(), hashes()
			withGlobal := func(fs []*lang.Facts) []*lang.Facts {
				if tc.global {
					fs[1].Types = append(fs[1].Types, lang.TypeFact{Name: "g", Type: "call:mk", Kind: "global", Line: 2})
				}
				return fs
			}
			files = withGlobal(files)
			if tc.miss {
				c := filepath.Join(t.TempDir(), "sites")
				resolveWith(files, h, "", c)
				files = withGlobal(base())
				tc.edit(files)
				h[tc.file] += "2"
				got, fresh := resolveWith(files, h, c, ""), resolveWith(files, h, "", "")
				if got.SitesMiss == "" || got.Stats.SitesReused != 0 {
					t.Errorf("reused %d files, why %q: want none, and why", got.Stats.SitesReused, got.SitesMiss)
				}
				if !reflect.DeepEqual(got.Edges, fresh.Edges) {
					t.Errorf("the output differs from a resolution without the cache:\n got %v\nwant %v", got.Edges, fresh.Edges)
				}
				return
			}
			tc.edit(files)
			h[tc.file] += "2"
			got, fresh := resolveWith(files, h, cache, ""), resolveWith(files, h, "", "")
			if got.SitesMiss != "" || got.SitesFuncs == 0 {
				t.Errorf("the cache did not serve (why %q), or no function changed (%d)", got.SitesMiss, got.SitesFuncs)
			}
			if got.Stats.SitesReused != len(tc.reused) {
				t.Errorf("%d files reused, want %d (%v)", got.Stats.SitesReused, len(tc.reused), tc.reused)
			}
			g, w := got.Stats, fresh.Stats
			g.SitesReused, w.SitesReused = 0, 0
			if !reflect.DeepEqual(got.Edges, fresh.Edges) || !reflect.DeepEqual(g, w) || !reflect.DeepEqual(got.Unresolved, fresh.Unresolved) {
				t.Errorf("the output differs from a resolution without the cache:\n got %+v %v\nwant %+v %v", got.Stats, got.Edges, fresh.Stats, fresh.Edges)
			}
		})
	}
}
