package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// realDecl is a declaration of this repository's own Go code: real
// identifiers, signatures and doc comments (punctuation, digits, newlines,
// arrows and other non-ASCII), the text a parity test needs.
type realDecl struct {
	kind               schema.Kind
	qn, path, sig, doc string
	line               int
}

func realDecls(t *testing.T, max int) []realDecl {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var out []realDecl
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "lib") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || len(out) >= max {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, _ := os.ReadFile(path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || len(out) >= max {
				continue
			}
			kind, qn := schema.KindFunction, fd.Name.Name
			if fd.Recv != nil {
				kind, qn = schema.KindMethod, "T."+fd.Name.Name
			}
			sig := string(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.Type.End()).Offset])
			out = append(out, realDecl{kind: kind, qn: qn, path: rel, sig: sig, doc: fd.Doc.Text(), line: fset.Position(fd.Pos()).Line})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 200 {
		t.Fatalf("only %d declarations found under %s: the parity test needs this repository's sources", len(out), root)
	}
	return out
}

// realDB loads decls (files, symbols, DEFINES) into a test database and
// builds the search indexes. Symbols of the same file and name are made
// unique by their line.
func realDB(t *testing.T, decls []realDecl) *testDB {
	d := newTestDB(t)
	files := map[string]bool{}
	seen := map[string]bool{}
	for i, x := range decls {
		if !files[x.path] {
			files[x.path] = true
			d.file(x.path, "go")
		}
		key := x.path + " " + x.qn
		if seen[key] {
			x.qn = fmt.Sprintf("%s%d", x.qn, i)
		}
		seen[key] = true
		d.sym(x.kind, x.qn, x.path, x.sig, x.doc, x.line)
	}
	d.indexes(false)
	return d
}

// TestPackMatchesKuzu: the pack's copies of the full-text indexes score
// every document as Kuzu's QUERY_FTS_INDEX does, on real code text, and a
// whole search answers the same with a pack and no database as on the
// database.
func TestPackMatchesKuzu(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a database of 600 real declarations; skipped with -short")
	}
	ctx := context.Background()
	decls := realDecls(t, 600)
	db := realDB(t, decls)
	defer func(n int) { packReadRows = n }(packReadRows)
	packReadRows = 97 // several slices, the last one short
	pack, err := BuildPack(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	// Through the file, as the CLI reads it.
	path := filepath.Join(t.TempDir(), "x.pack")
	if err := pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if pack, err = ReadPack(path); err != nil {
		t.Fatal(err)
	}

	// Queries: words of the indexed text (frequent and rare), stems that
	// differ from their words, stop words, and words found nowhere.
	vocab := map[string]int{}
	for _, x := range decls {
		for _, w := range strings.Fields(strings.ToLower(x.doc + " " + x.qn)) {
			w = strings.Trim(w, ".,;:()`'\"")
			if azOnly(w) {
				vocab[w]++
			}
		}
	}
	words := make([]string, 0, len(vocab))
	for w := range vocab {
		words = append(words, w)
	}
	sort.Slice(words, func(a, b int) bool {
		if vocab[words[a]] != vocab[words[b]] {
			return vocab[words[a]] > vocab[words[b]]
		}
		return words[a] < words[b]
	})
	var queries []string
	for i := 0; i < len(words) && len(queries) < 60; i += 1 + len(words)/60 {
		queries = append(queries, words[i])
		if i+7 < len(words) {
			queries = append(queries, words[i]+" "+words[i+7])
		}
	}
	queries = append(queries, "the and of", "zzzqqq", "parsing parsed parses", "indexes indexing index", "connection connections")

	compared, matched := 0, 0
	for _, ix := range DefaultPlan() {
		if ix.Table != SearchTable {
			continue
		}
		for _, q := range queries {
			ftsq := text.FTSQuery(strings.Fields(q))
			if ftsq == "" {
				continue
			}
			want, err := queryIndex(ctx, db, ix, ftsq, 1<<20)
			if err != nil {
				t.Fatalf("%s %q: %v", ix.Name, ftsq, err)
			}
			got, err := pack.queryIndex(ix, ftsq, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			compared++
			if len(want) > 0 {
				matched++
			}
			if len(got) != len(want) {
				t.Errorf("%s %q: pack has %d matches, Kuzu %d", ix.Name, ftsq, len(got), len(want))
				continue
			}
			ws := map[string]float64{}
			for _, w := range want {
				ws[w.hit.ID] = w.bm25
			}
			for i, g := range got {
				w, ok := ws[g.hit.ID]
				if !ok || math.Abs(w-g.bm25) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Errorf("%s %q: %s scores %v in the pack, %v (found %v) in Kuzu", ix.Name, ftsq, g.hit.ID, g.bm25, w, ok)
					break
				}
				if g.hit != want[i].hit && math.Abs(want[i].bm25-g.bm25) > 1e-9 {
					t.Errorf("%s %q: rank %d is %s in the pack, %s in Kuzu", ix.Name, ftsq, i+1, g.hit.ID, want[i].hit.ID)
					break
				}
			}
		}
	}
	if matched < compared/2 {
		t.Fatalf("only %d of %d index queries matched anything: the comparison proves little", matched, compared)
	}

	// Whole searches: no database at all with the pack.
	for _, q := range append(queries[:20:20], "parseConfig", "open index", "validatePass", "registry") {
		want, err := SearchWith(ctx, db, q, Options{Mode: ModeKeyword})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		got, err := SearchWith(ctx, nil, q, Options{Mode: ModeKeyword, Pack: pack})
		if err != nil {
			t.Fatalf("%q with the pack: %v", q, err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("%q: with the pack\n%s\non the database\n%s", q, gj, wj)
		}
	}
}

// TestReadPackDamaged: a truncated, corrupted or foreign file is refused
// or, where the damage decodes, searched without a panic; never a crash.
func TestReadPackDamaged(t *testing.T) {
	fx := newFixture(t, true)
	ctx := context.Background()
	pack, err := BuildPack(ctx, fx.db)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "good.pack")
	if err := pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := read.WriteFile(filepath.Join(dir, "again.pack")); err == nil {
		t.Error("a pack read from a file was written again (its postings are not in memory)")
	}
	bad := filepath.Join(dir, "bad.pack")
	try := func(data []byte) error {
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadPack(bad)
		if err == nil {
			for _, q := range []string{"login", "user repository", "validatePass"} {
				SearchWith(ctx, nil, q, Options{Mode: ModeKeyword, Pack: p})
			}
		}
		return err
	}
	for n := 0; n < len(good); n += 1 + n/8 {
		if err := try(good[:n]); err == nil {
			t.Errorf("a pack cut at %d of %d bytes was accepted", n, len(good))
		}
	}
	for i := 0; i < len(good); i += 3 {
		data := append([]byte(nil), good...)
		data[i] ^= 0xa5
		if err := try(data); err == nil {
			t.Errorf("a pack with byte %d changed was accepted", i)
		}
	}
	// Past the checksum, the decoder itself refuses what does not parse.
	for _, cut := range []int{0, len(packMagic), len(good) / 2, len(good) - 5} {
		if _, err := decodePack(string(good[:cut])); err == nil {
			t.Errorf("decodePack accepted the first %d of %d bytes", cut, len(good)-4)
		}
	}
	if err := try(append(append([]byte(nil), good...), 0)); err == nil {
		t.Error("a pack with a byte after its end was accepted")
	}
	if _, err := decodePack(packMagic + "\x63"); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("a pack of another version: %v", err)
	}
	if _, err := ReadPack(filepath.Join(dir, "missing.pack")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing pack: %v, want an error wrapping fs.ErrNotExist", err)
	}

	// An index without SearchTable (built before it existed) has no pack.
	legacy := newFixtureIndexes(t, false, true)
	if _, err := BuildPack(ctx, legacy.db); err == nil {
		t.Error("BuildPack succeeded on an index without the search table")
	}
}
