package resolve

import (
	"context"
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
			"Types", "Prototypes", "Macros", "Registrations", "Returned"},
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
		return r.sitesKey()
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

	// A symbol added: the key differs, nothing is read from the cache.
	files := sitesFixture()
	files[1].Symbols = append(files[1].Symbols, schema.Symbol{ID: "b.go#helper:function", Label: schema.LabelFunction,
		Kind: schema.KindFunction, Name: "helper", QualifiedName: "helper", FilePath: "b.go", Language: "go"})
	fresh := resolveWith(files, "", "")
	got := resolveWith(files, first, "")
	same("symbol added", got, fresh, 0)
	if got.SitesMiss == "" {
		t.Error("symbol added: no reason given for the cache's miss")
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
