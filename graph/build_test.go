package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

func TestBuildLoadQuery(t *testing.T) {
	root := newRepo(t)
	var stages []string
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	fillSmall(t, b, 5)
	if err := b.Load(ctx, func(stage string, done, total int) {
		if done > total {
			t.Errorf("progress %s %d/%d", stage, done, total)
		}
		if len(stages) == 0 || stages[len(stages)-1] != stage {
			stages = append(stages, stage)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(stages, ","); got != "schema,nodes,edges" {
		t.Errorf("stages %s", got)
	}
	// Load leaves the database closed and checkpointed (a keyword-only
	// build never opens it again); Exec and Query open it again.
	if b.conn != nil || b.db != nil {
		t.Error("Load left the database open")
	}
	if fi, err := os.Stat(b.dbPath() + ".wal"); err == nil && fi.Size() > 0 {
		t.Errorf("Load left a %d-byte WAL", fi.Size())
	}
	// The build itself can be queried and extended before Commit.
	if err := b.Exec(ctx, "CREATE NODE TABLE Extra(id STRING PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	m := &Meta{ToolVersion: "test", Counts: map[string]int{"custom": 7}}
	if err := b.Commit(m); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(m); err == nil {
		t.Error("second Commit succeeded")
	}
	b.Abort() // no-op after Commit

	want := map[string]int{"Folder": 2, "File": 1, "Function": 5, "Class": 1, "Method": 1, "Interface": 1, "Community": 1, "Process": 1,
		"CONTAINS": 2, "DEFINES": 5, "CALLS": 5, "HAS_METHOD": 1, "IMPLEMENTS": 1, "IMPORTS": 0, "EXTENDS": 0, "MEMBER_OF": 1, "STEP_IN_PROCESS": 1, "custom": 7}
	for k, v := range want {
		if m.Counts[k] != v {
			t.Errorf("meta count %s = %d, want %d", k, m.Counts[k], v)
		}
	}
	if m.DroppedEdges["CALLS:Function->Function"] != 1 || len(m.DroppedEdges) != 1 {
		t.Errorf("dropped edges %v, want the one dangling CALLS", m.DroppedEdges)
	}

	got, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	if got.DBFile != m.DBFile || got.SchemaVersion != schema.Version || got.RepoName != "it's repo" || got.Counts["Function"] != 5 {
		t.Errorf("meta on disk %+v", got)
	}
	if _, err := os.Stat(filepath.Join(IndexDir(root), got.DBFile)); err != nil {
		t.Fatal(err)
	}
	if matches, _ := filepath.Glob(filepath.Join(IndexDir(root), "staging-*")); len(matches) != 0 {
		t.Errorf("staging left behind: %v", matches)
	}

	d := openTest(t, root)
	for q, n := range map[string]int64{
		"MATCH (f:Function) RETURN count(f)":                       5,
		"MATCH (:Function)-[r:CALLS]->(:Function) RETURN count(r)": 4,
		"MATCH ()-[r:CALLS]->() RETURN count(r)":                   5,
		"MATCH (f:File)-[:DEFINES]->(s) RETURN count(s)":           5,
		"MATCH (:Class)-[:HAS_METHOD]->(m:Method) RETURN count(m)": 1,
		"MATCH (n:Extra) RETURN count(n)":                          0,
	} {
		if c := count(t, d, q); c != n {
			t.Errorf("%s = %d, want %d", q, c, n)
		}
	}
	// File rows carry a searchText built from name and path, though
	// schema.File has no such field yet.
	r, err := d.Query(ctx, "MATCH (f:File) RETURN f.searchText, f.unresolved, f.parseStatus", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := text.SearchText("a.go", "", "src/a.go"); len(r.Rows) != 1 || r.Rows[0][0] != want || want == "" || r.Rows[0][1] != int64(-1) || r.Rows[0][2] != "ok" {
		t.Errorf("file row %#v, want searchText %q", r.Rows, want)
	}
	// No full-text index is built: search runs on the search pack.
	if _, err := d.Query(ctx, "CALL QUERY_FTS_INDEX('File', 'file_fts', 'src') RETURN node.id", nil); err == nil {
		t.Error("the database has a file_fts index; Load builds none")
	}
}

func TestAddRejectsBadRows(t *testing.T) {
	b, err := NewBuild(context.Background(), newRepo(t), BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "a", To: "b", FromLabel: schema.LabelFile, ToLabel: schema.LabelFunction}); err == nil {
		t.Error("CALLS File→Function accepted")
	}
	if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "a", To: "b"}); err == nil {
		t.Error("edge without labels accepted")
	}
	if err := b.AddSymbol(schema.Symbol{ID: "x", Label: schema.LabelFile}); err == nil {
		t.Error("symbol in File table accepted")
	}
	if err := b.AddFile(schema.File{}); err == nil {
		t.Error("file without id accepted")
	}
	if err := b.AddSymbol(schema.Symbol{Kind: schema.KindFunction, Name: "f"}); err == nil {
		t.Error("symbol without id accepted")
	}
	if err := b.AddFolder(schema.Folder{}); err == nil {
		t.Error("folder without id accepted")
	}
	for _, c := range []float64{math.NaN(), math.Inf(1)} {
		err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "a", To: "b", FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: c})
		if err == nil || !strings.Contains(err.Error(), "unsupported value") {
			t.Errorf("edge of confidence %v: %v, want encoding/json's error naming the value", c, err)
		}
	}
	if rf := b.files[relKey(schema.RelCalls, schema.LabelFunction, schema.LabelFunction)]; rf != nil && rf.rows > 0 {
		t.Errorf("a refused edge was written: %d rows", rf.rows)
	}
}

func TestSecondBuildIsLocked(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	b1, err := NewBuild(ctx, root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewBuild(ctx, root, BuildOptions{Logger: quietLog})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second build: %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("lock error does not name the holder: %v", err)
	}
	// The first build's staging survives the second's attempt (it never got
	// the lock, so it must not clean).
	if _, err := os.Stat(b1.StagingDir()); err != nil {
		t.Errorf("first build's staging removed: %v", err)
	}
	b1.Abort()
	b3, err := NewBuild(ctx, root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatalf("after abort: %v", err)
	}
	b3.Abort()
}

func TestAbortKeepsOldIndex(t *testing.T) {
	root := newRepo(t)
	old := buildIndex(t, root, 3)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	fillSmall(t, b, 9)
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	staging := b.StagingDir()
	b.Abort()
	if _, err := os.Stat(staging); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging not removed: %v", err)
	}
	m, err := ReadMeta(root)
	if err != nil || m.DBFile != old.DBFile {
		t.Fatalf("meta changed: %v %+v", err, m)
	}
	if c := count(t, openTest(t, root), "MATCH (f:Function) RETURN count(f)"); c != 3 {
		t.Errorf("old index has %d functions, want 3", c)
	}
}

func TestFailedLoadKeepsOldIndex(t *testing.T) {
	root := newRepo(t)
	old := buildIndex(t, root, 3)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	fillSmall(t, b, 4)
	// A duplicate primary key fails the node COPY.
	if err := b.AddSymbol(schema.Symbol{ID: "src/a.go#fn1:function", Kind: schema.KindFunction, Name: "dup"}); err != nil {
		t.Fatal(err)
	}
	err = b.Load(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "Function") {
		t.Fatalf("Load with duplicate id: %v", err)
	}
	t.Logf("load error: %v", err)
	if err := b.Commit(nil); err == nil {
		t.Fatal("Commit after failed Load succeeded")
	}
	b.Abort()
	m, err := ReadMeta(root)
	if err != nil || m.DBFile != old.DBFile {
		t.Fatalf("meta changed: %v %+v", err, m)
	}
	if c := count(t, openTest(t, root), "MATCH (f:Function) RETURN count(f)"); c != 3 {
		t.Errorf("old index has %d functions, want 3", c)
	}
}

func TestFailedCommitKeepsOldIndex(t *testing.T) {
	root := newRepo(t)
	old := buildIndex(t, root, 3)
	for _, step := range []string{"before-rename", "before-meta"} {
		t.Run(step, func(t *testing.T) {
			commitHook = func(s string) error {
				if s == step {
					return errors.New("injected failure")
				}
				return nil
			}
			defer func() { commitHook = func(string) error { return nil } }()
			ctx := context.Background()
			b := loadedBuild(t, root, BuildOptions{}, 7)
			pack := filepath.Join(b.StagingDir(), "x.pack")
			os.WriteFile(pack, []byte("new pack"), 0o644)
			if err := b.Attach(PackSuffix, pack); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(nil); err == nil {
				t.Fatal("Commit succeeded despite the injected failure")
			}
			m, err := ReadMeta(root)
			if err != nil || m.DBFile != old.DBFile {
				t.Fatalf("meta changed: %v %+v", err, m)
			}
			ents, _ := os.ReadDir(IndexDir(root))
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "staging-") || (strings.HasPrefix(e.Name(), "db-") && !strings.HasPrefix(e.Name(), old.DBFile)) {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			if c := count(t, openTest(t, root), "MATCH (f:Function) RETURN count(f)"); c != 3 {
				t.Errorf("old index has %d functions, want 3", c)
			}
			// The lock was released.
			b2, err := NewBuild(ctx, root, BuildOptions{Logger: quietLog})
			if err != nil {
				t.Fatal(err)
			}
			b2.Abort()
		})
	}
}

func TestNewBuildCleansKilledRuns(t *testing.T) {
	root := newRepo(t)
	live := buildIndex(t, root, 2)
	dir := IndexDir(root)
	// What a killed analyze leaves: a staging dir and an orphan database.
	os.MkdirAll(filepath.Join(dir, "staging-123", "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "db-orphan.kuzu"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "db-orphan.kuzu.wal"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "db-orphan.kuzu.pack"), []byte("x"), 0o644)
	b, err := NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	for _, name := range []string{"staging-123", "db-orphan.kuzu", "db-orphan.kuzu.wal", "db-orphan.kuzu.pack"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not cleaned: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, live.DBFile)); err != nil {
		t.Errorf("live database removed: %v", err)
	}
}

// TestAttachedCompanion: an attached file goes live beside its database at
// Commit and goes with it when the next build replaces it.
func TestAttachedCompanion(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	build := func(pack string) *Meta {
		t.Helper()
		b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Abort()
		if err := b.Attach(".nope", "x"); err == nil {
			t.Error("Attach accepted an unknown suffix")
		}
		fillSmall(t, b, 2)
		if err := b.Load(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if pack != "" {
			path := filepath.Join(b.StagingDir(), "search.pack")
			if err := os.WriteFile(path, []byte(pack), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := b.Attach(PackSuffix, path); err != nil {
				t.Fatal(err)
			}
		}
		m := &Meta{}
		if err := b.Commit(m); err != nil {
			t.Fatal(err)
		}
		if err := b.Attach(PackSuffix, "x"); err == nil {
			t.Error("Attach after Commit succeeded")
		}
		return m
	}
	first := build("one")
	if got, err := os.ReadFile(CompanionPath(root, first, PackSuffix)); err != nil || string(got) != "one" {
		t.Fatalf("companion of the first build: %q, %v", got, err)
	}
	second := build("two")
	if got, err := os.ReadFile(CompanionPath(root, second, PackSuffix)); err != nil || string(got) != "two" {
		t.Fatalf("companion of the second build: %q, %v", got, err)
	}
	if _, err := os.Stat(CompanionPath(root, first, PackSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced database's companion is still there: %v", err)
	}
	third := build("")
	if _, err := os.Stat(CompanionPath(root, second, PackSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced database's companion is still there: %v", err)
	}
	if _, err := os.Stat(CompanionPath(root, third, PackSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a build without a companion has one: %v", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	root := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	fillSmall(t, b, 2)
	cancel()
	if err := b.Load(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Load on cancelled context: %v", err)
	}
}

// TestVectorTableSurvivesSwap shows the path the embedding stage takes: after
// Load, create the vector table (schema.EmbeddingTable), COPY FLOAT[N] rows
// from an NDJSON file in the staging directory, Commit; the swapped-in
// database answers vector queries read-only. It also builds an HNSW index,
// which analyze does not, to show one would survive the swap too.
func TestVectorTableSurvivesSwap(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	b := loadedBuild(t, root, BuildOptions{}, 3)
	file := filepath.Join(b.StagingDir(), "embeddings.json")
	rows := `{"id":"src/a.go#fn0:function@0","ownerId":"src/a.go#fn0:function","ownerLabel":"Function","chunk":0,"hash":"a","vector":[1,0,0,0]}
{"id":"src/a.go#fn1:function@0","ownerId":"src/a.go#fn1:function","ownerLabel":"Function","chunk":0,"hash":"b","vector":[0,1,0,0]}
{"id":"src/a.go#fn2:function@0","ownerId":"src/a.go#fn2:function","ownerLabel":"Function","chunk":0,"hash":"c","vector":[0.9,0.1,0,0]}
`
	if err := os.WriteFile(file, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	// analyze creates no vector index (schema.LabelEmbedding says why);
	// this one shows an index built before Commit survives the swap too.
	for _, stmt := range []string{
		schema.EmbeddingTable(4).CreateStatement(),
		"COPY CodeEmbedding FROM " + schema.Quote(file),
		"CALL CREATE_VECTOR_INDEX('CodeEmbedding', 'code_embedding_idx', 'vector', metric := 'cosine')",
	} {
		if err := b.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	d := openTest(t, root)
	r, err := d.Query(ctx, "CALL QUERY_VECTOR_INDEX('CodeEmbedding', 'code_embedding_idx', CAST([1.0, 0.0, 0.0, 0.0] AS FLOAT[4]), 2) RETURN node.id, distance ORDER BY distance", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || r.Rows[0][0] != "src/a.go#fn0:function@0" || r.Rows[1][0] != "src/a.go#fn2:function@0" {
		t.Errorf("vector hits %v", r.Rows)
	}
	r, err = d.Query(ctx, "MATCH (e:CodeEmbedding {id: 'src/a.go#fn1:function@0'}) RETURN e.vector", nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Rows[0][0]) != "[0 1 0 0]" {
		t.Errorf("embedding %#v", r.Rows[0][0])
	}
}

// TestEdgeCopyFallback covers the path where an edge passes the id filter
// (as a hash collision would let it) but has no node: the strict COPY
// fails, the retry with ignore_errors drops and counts it.
func TestEdgeCopyFallback(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	fillSmall(t, b, 3)
	b.ids.add(schema.LabelFunction, "ghost") // in the id set, never a row
	if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/a.go#fn0:function", To: "ghost", FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction}); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// fillSmall's own dangling edge is filtered; the ghost edge is dropped by the retry.
	if got := b.DroppedEdges()["CALLS:Function->Function"]; got != 2 {
		t.Errorf("dropped %v, want 2 CALLS:Function->Function", b.DroppedEdges())
	}
	if got := b.Counts()["CALLS"]; got != 3 {
		t.Errorf("CALLS loaded %d, want 3 (2 chain + 1 method call)", got)
	}
}

// TestSettleKeepsWhatWasWritten: a table created and filled after Load
// survives Settle's and GrowBufferPool's close and reopen, the build keeps
// working after them, and both are refused before Load.
func TestSettleKeepsWhatWasWritten(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if err := b.Settle(); err == nil {
		t.Error("Settle before Load succeeded")
	}
	if err := b.GrowBufferPool(512 << 20); err == nil {
		t.Error("GrowBufferPool before Load succeeded")
	}
	fillSmall(t, b, 3)
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Exec(ctx, "CREATE NODE TABLE Extra(id STRING PRIMARY KEY, n INT64)"); err != nil {
		t.Fatal(err)
	}
	if err := b.Exec(ctx, "CREATE (:Extra {id: 'a', n: 7})"); err != nil {
		t.Fatal(err)
	}
	if err := b.GrowBufferPool(512 << 20); err != nil { // settles too
		t.Fatal(err)
	}
	if err := b.Exec(ctx, "CREATE (:Extra {id: 'b', n: 8})"); err != nil {
		t.Fatal(err)
	}
	r, err := b.Query(ctx, "MATCH (e:Extra) RETURN e.n ORDER BY e.n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || Int(r.Rows[0][0]) != 7 || Int(r.Rows[1][0]) != 8 {
		t.Errorf("rows after settle %v, want [[7] [8]]", r.Rows)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	d := openTest(t, root)
	r, err = d.Query(ctx, "MATCH (n:Function) RETURN count(n)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if Int(r.Rows[0][0]) != 3 {
		t.Errorf("functions after settle and commit %v, want 3", r.Rows[0][0])
	}
}

// TestTinyPoolIsRaisedToOneThatLoads: a pool below what a COPY needs is
// raised (minBuildPool) to one in which Load works, for 1 and 2 threads.
func TestTinyPoolIsRaisedToOneThatLoads(t *testing.T) {
	for _, threads := range []int{1, 2} {
		root := newRepo(t)
		ctx := context.Background()
		b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 1 << 20, MaxThreads: threads, Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		fillSmall(t, b, 3)
		if err := b.Load(ctx, nil); err != nil {
			t.Errorf("%d threads: Load in the raised pool (%d MiB): %v", threads, b.opts.BufferPoolSize>>20, err)
		}
		b.Abort()
	}
}
