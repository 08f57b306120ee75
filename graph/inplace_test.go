package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kuzudb/go-kuzu"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// buildWith builds and commits the rows fill adds, updating the live index
// in place when base is set, and returns the meta committed and how Load
// went.
func buildWith(t *testing.T, root string, base *Meta, fill func(*Build)) (*Meta, LoadStats) {
	t.Helper()
	return buildEarly(t, root, base, fill, true)
}

// buildEarly is buildWith that, with early, reads and copies the base
// while the rows are added (StartInPlace), as index.Build does, and
// without it leaves that to Load.
func buildEarly(t *testing.T, root string, base *Meta, fill func(*Build), early bool) (*Meta, LoadStats) {
	t.Helper()
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if base != nil {
		b.UpdateFrom(base)
		if early {
			b.StartInPlace(nil)
		}
	}
	fill(b)
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st := b.LoadStats()
	m := &Meta{ToolVersion: "test", Commit: "abc"}
	if err := b.Commit(m); err != nil {
		t.Fatal(err)
	}
	return m, st
}

// dumpGraph is every node and edge of the index of root with its
// properties, Kuzu's internal ids left out, sorted.
func dumpGraph(t *testing.T, root string) []string {
	t.Helper()
	d := openTest(t, root)
	var out []string
	for _, q := range []string{"MATCH (n) RETURN n", "MATCH (a)-[r]->(b) RETURN a.id, r.confidence, r.reason, r.step, r.line, label(r), b.id",
		// Each edge again as its target's adjacency holds it: Kuzu keeps
		// both, and an update could leave one stale (removeStmts).
		"MATCH (b)<-[r]-(a) RETURN 'in', a.id, r.confidence, r.reason, r.step, r.line, label(r), b.id"} {
		res, err := d.QueryAll(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Rows {
			if m, ok := row[0].(map[string]any); ok {
				delete(m, "_id")
			}
			b, _ := json.Marshal(row)
			out = append(out, string(b))
		}
	}
	slices.Sort(out)
	return out
}

// variant adds fillSmall's graph of n functions, then rows that differ by
// v: a changed source text with newlines, quotes and backslashes, a
// renamed community, edges moved to other lines.
func variant(t *testing.T, n, v int) func(*Build) {
	return func(b *Build) {
		fillSmall(t, b, n)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		content := fmt.Sprintf("func x%d() {\n\tprintln(\"it's \\n %d\")\n}", v, v)
		must(b.AddSymbol(schema.Symbol{ID: "src/b.go#x:function", Kind: schema.KindFunction, Name: "x", FilePath: "src/b.go",
			StartLine: 10 + v, EndLine: 12 + v, Content: content, ContentHash: fmt.Sprintf("%x", v/2), Language: "go"}))
		// An edge into x from a node that does not change: when x's
		// content hash changes (every other step), an update in place
		// replaces x and creates this again; in the steps between, x's
		// edges move a line.
		must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/a.go#fn0:function", To: "src/b.go#x:function",
			FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 0.9, Reason: "same-file", Line: 3}))
		must(b.AddCommunity(schema.Community{ID: fmt.Sprintf("comm_v%d", v%2), Label: "V", Keywords: []string{}, Cohesion: 1.0 / float64(v+3)}))
		for i := 0; i < 3; i++ {
			must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/b.go#x:function", To: fmt.Sprintf("src/a.go#fn%d:function", i),
				FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 0.8, Reason: "import-resolved", Line: 11 + v + i}))
		}
		// Edges of many nodes into one, which moves from step to step.
		for i := 0; i < n; i++ {
			must(b.AddEdge(schema.Edge{Type: schema.RelMemberOf, From: fmt.Sprintf("src/a.go#fn%d:function", i), To: fmt.Sprintf("comm_v%d", v%2),
				FromLabel: schema.LabelFunction, ToLabel: schema.LabelCommunity, Confidence: 1}))
		}
	}
}

// TestInPlaceLoadEqualsFullLoad: an index updated in place from the live
// one (nodes added, removed and changed, edges added, removed and moved,
// edges whose line moved, several statements a table) holds exactly what a
// full load of the same rows holds, through several updates in a row.
func TestInPlaceLoadEqualsFullLoad(t *testing.T) {
	share, batch, bySource, byLine := inPlaceShare, createBatchRows, moveBySource, moveByLine
	inPlaceShare = 10   // whatever changed: this test is about what the update writes
	createBatchRows = 7 // several statements a table
	t.Cleanup(func() { inPlaceShare, createBatchRows, moveBySource, moveByLine = share, batch, bySource, byLine })
	// Moved edges set by statements over many sources, by a statement per
	// source (moveFrom: every source with at least 2), and by line
	// (moveLines: every line whose edges all move).
	for _, c := range []struct{ bySource, byLine int }{{1 << 30, 1 << 30}, {2, 1 << 30}, {1 << 30, 1}, {2, 2}} {
		moveBySource, moveByLine = c.bySource, c.byLine
		t.Run(fmt.Sprintf("moveBySource=%d,moveByLine=%d", c.bySource, c.byLine), testInPlaceLoadEqualsFullLoad)
	}
}

func testInPlaceLoadEqualsFullLoad(t *testing.T) {
	root := newRepo(t)
	_, st := buildWith(t, root, nil, variant(t, 20, 0))
	if st.InPlace {
		t.Fatal("a build without a base was loaded in place")
	}
	moved := 0
	for step, n := range []int{90, 30, 31, 5} {
		v := step + 1
		m, err := ReadMeta(root)
		if err != nil {
			t.Fatal(err)
		}
		m, st = buildEarly(t, root, m, variant(t, n, v), step%2 == 0) // the base read early, or by Load
		if !st.InPlace {
			t.Fatalf("step %d: loaded whole: %s", step, st.Whole)
		}
		if st.NodesAdded+st.NodesChanged+st.NodesRemoved == 0 || st.EdgesCreated+st.EdgesDeleted == 0 {
			t.Errorf("step %d: nothing written in place: %+v", step, st)
		}
		moved += st.EdgesMoved
		full := newRepo(t)
		buildWith(t, full, nil, variant(t, n, v))
		a, b := dumpGraph(t, root), dumpGraph(t, full)
		if !slices.Equal(a, b) {
			for i := range max(len(a), len(b)) {
				if i >= len(a) || i >= len(b) || a[i] != b[i] {
					t.Fatalf("step %d (%d functions): updated in place differs from a full load at line %d:\n%v\n%v", step, n, i, a[min(i, len(a)-1)], b[min(i, len(b)-1)])
				}
			}
		}
		if got := m.Counts; got[string(schema.LabelFunction)] != n+1 {
			t.Errorf("step %d: counts %v", step, got)
		}
	}
	if moved == 0 {
		t.Error("no edge was moved in place (the calls of x move a line a step)")
	}
}

// TestInPlaceLoadFallsBack: a base that cannot be updated in place (no row
// digest, a damaged digest or database, too many rows changed) is loaded whole, says
// why, and the index is still right.
func TestInPlaceLoadFallsBack(t *testing.T) {
	for _, c := range []struct {
		name, why string
		spoil     func(t *testing.T, root string, m *Meta)
	}{
		{"no digest", "no row digest", func(t *testing.T, root string, m *Meta) {
			delete(m.Sums, m.DBFile+RowsSuffix)
		}},
		{"damaged digest", "does not verify", func(t *testing.T, root string, m *Meta) {
			p := filepath.Join(IndexDir(root), m.DBFile+RowsSuffix)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}},
		{"damaged database", "does not verify", func(t *testing.T, root string, m *Meta) {
			// its checksum is taken as it is copied
			p := filepath.Join(IndexDir(root), m.DBFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-100] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}},
		{"checkpoint fails twice", "checkpoint the update", func(t *testing.T, root string, m *Meta) {
			old := checkpointStmts
			checkpointStmts = [2]string{"CHECKPOINT NOW", "CHECKPOINT AGAIN"} // parse errors, as a full pool is an error
			t.Cleanup(func() { checkpointStmts = old })
		}},
		{"the update's commit fails", "update in place", func(t *testing.T, root string, m *Meta) {
			old := txStmts
			txStmts[1] = "COMMIT NOW" // a parse error: the transaction is rolled back
			t.Cleanup(func() { txStmts = old })
		}},
		{"too many rows to create", "rows to create, more than the 0 an update in place creates", func(t *testing.T, root string, m *Meta) {
			most, share := inPlaceMaxCreates, inPlaceCreateShare
			inPlaceMaxCreates, inPlaceCreateShare = 0, 1<<30 // no row, whatever the build's size
			t.Cleanup(func() { inPlaceMaxCreates, inPlaceCreateShare = most, share })
		}},
		{"too many changes", "would take about", func(t *testing.T, root string, m *Meta) {
			old := inPlaceShare
			inPlaceShare = 0
			t.Cleanup(func() { inPlaceShare = old })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := newRepo(t)
			buildWith(t, root, nil, variant(t, 20, 0))
			m, err := ReadMeta(root)
			if err != nil {
				t.Fatal(err)
			}
			c.spoil(t, root, m)
			_, st := buildWith(t, root, m, variant(t, 40, 1))
			if st.InPlace || !strings.Contains(st.Whole, c.why) {
				t.Errorf("load %+v, want whole because %q", st, c.why)
			}
			full := newRepo(t)
			buildWith(t, full, nil, variant(t, 40, 1))
			if !slices.Equal(dumpGraph(t, root), dumpGraph(t, full)) {
				t.Error("the index loaded whole differs from a full load")
			}
		})
	}
}

// TestAbortWhileTheBaseIsCopied: a build aborted while StartInPlace
// copies the live database, or once it has opened the copy (the fixture's
// index is small: earlyOpenNodes), or once it has made the copy and not
// opened it (told not to, or the index over earlyOpenNodes), leaves
// nothing behind and the live index as it was; the next build updates it
// in place, as a full load would have built it.
func TestAbortWhileTheBaseIsCopied(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wait     bool // abort once StartInPlace's goroutine is done
		mayOpen  func() bool
		wantOpen bool
		maxNodes int // earlyOpenNodes for the case (0: as it is)
	}{
		{"during the copy", false, nil, false, 0},
		{"after the early open", true, nil, true, 0},
		{"after a copy not opened", true, func() bool { return false }, false, 0},
		{"after a copy of a large index, not opened", true, nil, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.maxNodes > 0 {
				saved := earlyOpenNodes
				earlyOpenNodes = tc.maxNodes
				defer func() { earlyOpenNodes = saved }()
			}
			ctx := context.Background()
			root := newRepo(t)
			buildWith(t, root, nil, variant(t, 20, 0))
			before := dumpGraph(t, root)
			m, err := ReadMeta(root)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2, Logger: quietLog})
			if err != nil {
				t.Fatal(err)
			}
			b.UpdateFrom(m)
			b.StartInPlace(tc.mayOpen)
			if tc.wait {
				<-b.early.done
				if !b.early.copied {
					t.Fatalf("the base was not copied: %q", b.early.why)
				}
				if opened := b.early.db != nil; opened != tc.wantOpen {
					t.Fatalf("the copy opened early: %v, want %v", opened, tc.wantOpen)
				}
			}
			b.Abort()
			if b.early.db != nil || b.early.conn != nil {
				t.Error("the abort left the early-opened copy open")
			}
			if _, err := os.Stat(b.staging); !os.IsNotExist(err) {
				t.Errorf("the staging directory is left: %v", err)
			}
			if b.work != "" {
				if _, err := os.Stat(b.work); !os.IsNotExist(err) {
					t.Errorf("the scratch directory is left: %v", err)
				}
			}
			if !slices.Equal(dumpGraph(t, root), before) {
				t.Error("the live index changed")
			}
			if m, err = ReadMeta(root); err != nil {
				t.Fatal(err)
			}
			updateEqualsFull(t, root, m, variant(t, 22, 1))
		})
	}
}

// TestInPlaceCheckpointRetried: an update whose first checkpoint fails is
// checkpointed again after the database is reopened (its WAL replayed),
// stays in place, and holds what a full load holds.
func TestInPlaceCheckpointRetried(t *testing.T) {
	old := checkpointStmts
	checkpointStmts[0] = "CHECKPOINT NOW" // a parse error, as a full pool is an error
	t.Cleanup(func() { checkpointStmts = old })
	root := newRepo(t)
	buildWith(t, root, nil, variant(t, 20, 0))
	m, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	updateEqualsFull(t, root, m, variant(t, 24, 1))
}

// updateEqualsFull builds the rows fill adds over the index of root (meta
// m), wants it updated in place, and wants the result to hold what a full
// load of the same rows holds.
func updateEqualsFull(t *testing.T, root string, m *Meta, fill func(*Build)) {
	t.Helper()
	if _, st := buildWith(t, root, m, fill); !st.InPlace {
		t.Fatalf("loaded whole: %s", st.Whole)
	}
	full := newRepo(t)
	buildWith(t, full, nil, fill)
	if !slices.Equal(dumpGraph(t, root), dumpGraph(t, full)) {
		t.Error("the index updated in place differs from a full load")
	}
}

// TestDigestRoundTrip: a digest reads back as written; a truncated or
// garbled one is an error, not a panic or a huge allocation.
func TestDigestRoundTrip(t *testing.T) {
	d := newRowDigest()
	for i := range 50 {
		d.addNode(schema.LabelFunction, fmt.Sprintf("f%d", i), []byte(fmt.Sprintf(`{"id":"f%d"}`, i)))
	}
	d.addNode(schema.LabelFile, "a.go", []byte(`{"id":"a.go"}`))
	d.seal()
	d.addEdge(d.h, schema.LabelFile, []byte("a.go"), "DEFINES:File->Function", []byte(`{"from":"a.go","to":"f1"}`))
	path := filepath.Join(t.TempDir(), "rows")
	if err := d.write(path, digestHeader{FullSize: 123, Updates: 2}); err != nil {
		t.Fatal(err)
	}
	got, h, err := readDigest(path)
	if err != nil {
		t.Fatal(err)
	}
	if h != (digestHeader{FullSize: 123, Updates: 2}) || len(got.nodes[schema.LabelFunction]) != 50 || got.nodes[schema.LabelFile][0].outN != 1 {
		t.Errorf("read back %+v, %d functions, file %+v", h, len(got.nodes[schema.LabelFunction]), got.nodes[schema.LabelFile])
	}
	data, _ := os.ReadFile(path)
	for _, cut := range []int{0, 5, len(rowsMagic) + 1, len(data) / 2, len(data) - 1} {
		os.WriteFile(path, data[:cut], 0o644)
		if _, _, err := readDigest(path); err == nil {
			t.Errorf("a digest cut at %d of %d bytes read without error", cut, len(data))
		}
	}
	bad := slices.Clone(data)
	copy(bad[len(rowsMagic):], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0xff, 0xff, 0xff, 0x0f})
	os.WriteFile(path, bad, 0o644)
	if _, _, err := readDigest(path); err == nil {
		t.Error("a garbled digest read without error")
	}
}

// TestCreateLimitGrowsWithTheBuild: the rows an update in place may create
// grow with the build (inPlaceCreateShare) above inPlaceMaxCreates: with
// no fixed allowance, a build allowed one created row per row of it still
// updates in place, and the result is a full load's.
func TestCreateLimitGrowsWithTheBuild(t *testing.T) {
	most, share, cost := inPlaceMaxCreates, inPlaceCreateShare, inPlaceShare
	inPlaceMaxCreates, inPlaceCreateShare = 0, 1
	inPlaceShare = 10 // whatever it costs: this test is about the create limit
	t.Cleanup(func() { inPlaceMaxCreates, inPlaceCreateShare, inPlaceShare = most, share, cost })
	root := newRepo(t)
	buildWith(t, root, nil, variant(t, 20, 0))
	m, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	_, st := buildWith(t, root, m, variant(t, 40, 1))
	if !st.InPlace || st.EdgesCreated == 0 {
		t.Fatalf("load %+v, want in place, creating rows", st)
	}
	full := newRepo(t)
	buildWith(t, full, nil, variant(t, 40, 1))
	if !slices.Equal(dumpGraph(t, root), dumpGraph(t, full)) {
		t.Error("the index updated in place differs from a full load")
	}
}

// anyCostInPlace lets the test's updates go in place whatever they would
// cost (inPlaceShare): such tests are about what the update writes.
func anyCostInPlace(t *testing.T) {
	share := inPlaceShare
	inPlaceShare = 10
	t.Cleanup(func() { inPlaceShare = share })
}

// addGoFile adds the Go file path (under "src/", with its CONTAINS edge)
// whose content hash is hash.
func addGoFile(t *testing.T, b *Build, path, hash string) {
	t.Helper()
	if err := errors.Join(
		b.AddFile(schema.File{ID: path, Path: path, Name: path[4:], Language: "go", Size: 10, Lines: 9, ParseStatus: schema.ParseOK, ContentHash: hash, Unresolved: -1}),
		b.AddEdge(schema.Edge{Type: schema.RelContains, From: "src", To: path, FromLabel: schema.LabelFolder, ToLabel: schema.LabelFile, Confidence: 1, Reason: schema.ReasonStructural}),
	); err != nil {
		t.Fatal(err)
	}
}

// addDefined adds symbol s (Go) with the DEFINES edge from its file.
func addDefined(t *testing.T, b *Build, s schema.Symbol) {
	t.Helper()
	s.Language = "go"
	if err := errors.Join(
		b.AddSymbol(s),
		b.AddEdge(schema.Edge{Type: schema.RelDefines, From: s.FilePath, To: s.ID, FromLabel: schema.LabelFile, ToLabel: schema.LabelOf(s.Kind), Confidence: 1, Reason: schema.ReasonStructural}),
	); err != nil {
		t.Fatal(err)
	}
}

// TestNewNodesEdgesInPlace: an update in place that adds a file whose new
// functions call each other creates those edges. In Kuzu 0.11.3 a
// statement that joins an UNWIND list with a node table scanned under a
// condition (narrow) does not see nodes created earlier in its
// transaction: with the update in one transaction the edges between new
// nodes were not created, and the update fell back to a full load
// (verifyCounts); applyInTx creates the new nodes' edges by constant ids
// (narrowStored), the others narrowed.
func TestNewNodesEdgesInPlace(t *testing.T) {
	anyCostInPlace(t)
	const n = 200
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	base := func(b *Build) {
		variant(t, n, 0)(b)
		// Functions and methods in many files, of which the statement
		// below is narrowed to some: the failure needed a scan whose
		// condition some stored rows fail.
		for i := range 40 {
			path := fmt.Sprintf("src/f%d.go", i%20)
			if i < 20 {
				addGoFile(t, b, path, "c")
			}
			addDefined(t, b, schema.Symbol{ID: fmt.Sprintf("%s#g%d:function", path, i), Kind: schema.KindFunction, Name: fmt.Sprintf("g%d", i), FilePath: path})
			addDefined(t, b, schema.Symbol{ID: fmt.Sprintf("%s#T.m%d:method", path, i), Kind: schema.KindMethod, Name: fmt.Sprintf("m%d", i), QualifiedName: fmt.Sprintf("T.m%d", i), FilePath: path})
		}
	}
	root := newRepo(t)
	buildWith(t, root, nil, base)
	withNew := func(b *Build) {
		base(b)
		addGoFile(t, b, "src/n.go", "n")
		addDefined(t, b, schema.Symbol{ID: "src/n.go#S.m:method", Kind: schema.KindMethod, Name: "m", QualifiedName: "S.m", FilePath: "src/n.go"})
		addDefined(t, b, schema.Symbol{ID: "src/n.go#n:function", Kind: schema.KindFunction, Name: "n", FilePath: "src/n.go", StartLine: 5, EndLine: 6})
		// In one statement (more than literalRows): an edge between new
		// nodes and edges between nodes of the base, the form the failure
		// took.
		must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/n.go#S.m:method", To: "src/n.go#n:function",
			FromLabel: schema.LabelMethod, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonSameFile, Line: 2}))
		for i := range literalRows + 1 {
			must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: fmt.Sprintf("src/f%d.go#T.m%d:method", i, i), To: fmt.Sprintf("src/f%d.go#g%d:function", i+1, i+1),
				FromLabel: schema.LabelMethod, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonSameFile, Line: 9}))
		}
	}
	m, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	updateEqualsFull(t, root, m, withNew)
}

// TestManyNewNodesEdgesInPlace: an update whose new nodes have more edges
// in one rel pair than literalRows (applyInTx creates those edges in a
// second transaction, narrowed as every other edge) holds what a full
// load holds, as does one with at most literalRows of them and more other
// edges in the pair (one transaction, the new nodes' edges by constant
// ids).
func TestManyNewNodesEdgesInPlace(t *testing.T) {
	anyCostInPlace(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	base := func(b *Build) {
		variant(t, 200, 0)(b)
		for i := range 20 {
			path := fmt.Sprintf("src/f%d.go", i)
			addGoFile(t, b, path, "c")
			addDefined(t, b, schema.Symbol{ID: fmt.Sprintf("%s#g%d:function", path, i), Kind: schema.KindFunction, Name: fmt.Sprintf("g%d", i), FilePath: path})
		}
	}
	for _, news := range []int{literalRows + 4, literalRows - 2} {
		t.Run(fmt.Sprint(news), func(t *testing.T) {
			root := newRepo(t)
			buildWith(t, root, nil, base)
			withNew := func(b *Build) {
				base(b)
				for i := range news {
					path := fmt.Sprintf("src/f%d.go", i)
					n := fmt.Sprintf("%s#n%d:function", path, i)
					addDefined(t, b, schema.Symbol{ID: n, Kind: schema.KindFunction, Name: fmt.Sprintf("n%d", i), FilePath: path, StartLine: 7, EndLine: 8})
					// a new function calling an old one, and an old one
					// calling another old one: both in the CALLS pair
					must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: n, To: fmt.Sprintf("src/f%d.go#g%d:function", (i+1)%20, (i+1)%20),
						FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonSameFile, Line: 8}))
					must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: fmt.Sprintf("src/f%d.go#g%d:function", i, i), To: fmt.Sprintf("src/f%d.go#g%d:function", (i+2)%20, (i+2)%20),
						FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonSameFile, Line: 3}))
				}
			}
			m, err := ReadMeta(root)
			if err != nil {
				t.Fatal(err)
			}
			updateEqualsFull(t, root, m, withNew)
		})
	}
}

// TestInPlaceRemovals: several updates in place in a row that remove
// nodes and replace the edges of others, in random graphs, each hold what
// a full load holds, every edge in both of Kuzu's lists (dumpGraph reads
// each from its source and from its target; removeStmts says why).
func TestInPlaceRemovals(t *testing.T) {
	anyCostInPlace(t)
	for seed := range 2 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(seed)))
			const n = 24
			type edge struct{ from, to int }
			var edges []edge
			for range 90 {
				edges = append(edges, edge{rng.Intn(n), rng.Intn(n)})
			}
			// A state of the graph: the symbols gone, and those whose
			// edges call the next symbol instead. Symbols alternate
			// between functions and methods, in files of four; an edge's
			// line is its index.
			fill := func(gone, changed map[int]bool) func(*Build) {
				return func(b *Build) {
					must := func(err error) {
						t.Helper()
						if err != nil {
							t.Fatal(err)
						}
					}
					must(b.AddFolder(schema.Folder{ID: ".", Path: ".", Name: "repo"}))
					label := func(i int) (schema.Label, string) {
						path := fmt.Sprintf("f%d.go", i/4)
						if i%2 == 0 {
							return schema.LabelFunction, fmt.Sprintf("%s#s%d:function", path, i)
						}
						return schema.LabelMethod, fmt.Sprintf("%s#T.s%d:method", path, i)
					}
					for f := range n / 4 {
						path := fmt.Sprintf("f%d.go", f)
						must(b.AddFile(schema.File{ID: path, Path: path, Name: path, Language: "go", ParseStatus: schema.ParseOK, ContentHash: "h", Unresolved: -1}))
					}
					for i := range n {
						if gone[i] {
							continue
						}
						l, id := label(i)
						kind := schema.KindFunction
						if l == schema.LabelMethod {
							kind = schema.KindMethod
						}
						must(b.AddSymbol(schema.Symbol{ID: id, Kind: kind, Name: fmt.Sprintf("s%d", i), FilePath: fmt.Sprintf("f%d.go", i/4), Language: "go"}))
					}
					for k, e := range edges {
						if changed[e.from] {
							e.to = (e.to + 1) % n
						}
						if gone[e.from] || gone[e.to] {
							continue
						}
						fl, from := label(e.from)
						tl, to := label(e.to)
						must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: from, To: to, FromLabel: fl, ToLabel: tl, Confidence: 0.9, Reason: schema.ReasonSameFile, Line: k + 1}))
					}
				}
			}
			state := func() func(*Build) {
				gone, changed := map[int]bool{}, map[int]bool{}
				for range 3 {
					gone[rng.Intn(n)] = true
				}
				for range 5 {
					changed[rng.Intn(n)] = true
				}
				return fill(gone, changed)
			}
			root := newRepo(t)
			buildWith(t, root, nil, state())
			// Several updates in a row: the later ones delete edges the
			// earlier created (the failure wanted edges Kuzu had
			// inserted and checkpointed, not only COPY's).
			for step := range 3 {
				m, err := ReadMeta(root)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("step %d", step) // shown with a failure below
				if updateEqualsFull(t, root, m, state()); t.Failed() {
					t.FailNow()
				}
			}
		})
	}
}

// TestRemoveStmtsKeepAdjacency: on random graphs, deleting some nodes'
// edges out (as an update in place replaces them) and then removing other
// nodes with removeStmts leaves each edge in both of Kuzu's lists, the
// source's and the target's. With DETACH DELETE instead, Kuzu 0.11.3 got
// 12 of 40 such graphs wrong (the target's list one edge off), about one
// in three: 20 graphs all right with it are about one chance in 1,300.
func TestRemoveStmtsKeepAdjacency(t *testing.T) {
	ctx := context.Background()
	for seed := range 20 {
		rng := rand.New(rand.NewSource(int64(seed)))
		db, err := openKuzu(filepath.Join(t.TempDir(), "db"), systemConfig(256<<20, 2, false))
		if err != nil {
			t.Fatal(err)
		}
		conn, err := kuzu.OpenConnection(db)
		if err != nil {
			t.Fatal(err)
		}
		must := func(s string) {
			t.Helper()
			if err := exec(ctx, conn, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		must("CREATE NODE TABLE M(id STRING, PRIMARY KEY(id))")
		must("CREATE NODE TABLE F(id STRING, PRIMARY KEY(id))")
		must("CREATE REL TABLE C(FROM F TO F, FROM F TO M, FROM M TO F, FROM M TO M, line INT64)")
		const n = 25
		must(fmt.Sprintf("UNWIND range(0, %d) AS i CREATE (:M {id: 'm' + CAST(i AS STRING)})", n-1))
		must(fmt.Sprintf("UNWIND range(0, %d) AS i CREATE (:F {id: 'f' + CAST(i AS STRING)})", n-1))
		node := func() string {
			if rng.Intn(2) == 0 {
				return fmt.Sprintf("MATCH (n:M {id: 'm%d'})", rng.Intn(n))
			}
			return fmt.Sprintf("MATCH (n:F {id: 'f%d'})", rng.Intn(n))
		}
		for i := range 120 {
			a, b := node(), node()
			must(fmt.Sprintf("%s WITH n AS a %s CREATE (a)-[:C {line: %d}]->(n)", a, b, i))
		}
		must("CHECKPOINT")
		must("BEGIN TRANSACTION")
		for range 6 {
			must(node() + "-[r]->() DELETE r")
		}
		for range 3 {
			m := node()
			for _, s := range removeStmts(m, "") {
				must(s)
			}
		}
		must("COMMIT")
		out, err1 := queryInt(ctx, conn, "MATCH (a)-[r:C]->(b) WITH a.id AS x RETURN count(x)")
		in, err2 := queryInt(ctx, conn, "MATCH (b)<-[r:C]-(a) WITH b.id AS x RETURN count(x)")
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if out != in {
			t.Errorf("graph %d: %d edges read from their sources, %d from their targets", seed, out, in)
		}
		conn.Close()
		db.Close()
	}
}
