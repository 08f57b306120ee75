package vectors

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

func fixtureEmbedder(t *testing.T) *embed.Embedder {
	t.Helper()
	e, err := embed.New(embed.Options{ModelDir: "../testdata/tiny", Device: embed.DeviceCPU})
	if errors.Is(err, embed.ErrORTNotFound) {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func symbols(body string) []schema.Symbol {
	long := strings.Repeat("func return error string class method hello world ", 120) // several chunks
	return []schema.Symbol{
		{ID: "src/a.go#Run:function", Label: schema.LabelFunction, Kind: schema.KindFunction, Name: "Run", QualifiedName: "Run",
			FilePath: "src/a.go", StartLine: 1, EndLine: 3, Language: "go", Content: body, ContentHash: "h1"},
		{ID: "src/a.go#Big:function", Label: schema.LabelFunction, Kind: schema.KindFunction, Name: "Big", QualifiedName: "Big",
			FilePath: "src/a.go", StartLine: 5, EndLine: 9, Language: "go", Content: long, ContentHash: "h2"},
	}
}

// build writes one index with the given symbols and their vectors, reusing
// the live index's vectors when reuse is set. It returns the writer stats.
func build(t *testing.T, root string, e *embed.Embedder, syms []schema.Symbol, reuse bool) Stats {
	t.Helper()
	ctx := context.Background()
	var prev Previous
	if reuse {
		db, err := graph.Open(ctx, root, graph.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		prev = FromDB(db)
	}
	b, err := graph.NewBuild(ctx, root, graph.BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	w, err := NewWriter(ctx, e, b.StagingDir(), Options{Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	file := schema.File{ID: "src/a.go", Path: "src/a.go", Name: "a.go", Language: "go", ParseStatus: schema.ParseOK, Unresolved: -1}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.AddFile(file))
	for _, s := range syms {
		must(b.AddSymbol(s))
		must(w.AddSymbol(s))
	}
	must(w.AddFileSummary(file, syms))
	st, err := w.Close()
	must(err)
	must(b.Load(ctx, nil))
	must(w.Load(ctx, b))
	must(b.Commit(&graph.Meta{ToolVersion: "test", Embeddings: graph.EmbeddingInfo{Model: e.ModelID(), Count: st.Chunks, Dim: e.Dim()}}))
	return st
}

func TestWriterRoundTripAndReuse(t *testing.T) {
	e := fixtureEmbedder(t)
	root := filepath.Join(t.TempDir(), "it's repo")
	os.MkdirAll(root, 0o755)
	syms := symbols("func Run() error { return nil }")
	st := build(t, root, e, syms, false)
	if st.Owners != 3 || st.Chunks < 4 || st.Embedded != st.Chunks || st.Reused != 0 {
		t.Fatalf("first build stats %+v", st)
	}

	// The vectors are in Kuzu and equal what the embedder gives directly.
	ctx := context.Background()
	db, err := graph.Open(ctx, root, graph.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(ctx, "MATCH (e:"+string(schema.LabelEmbedding)+") RETURN e.id, e.ownerId, e.ownerLabel, e.chunk, e.hash, e.vector ORDER BY e.id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != st.Chunks {
		t.Fatalf("%d rows in Kuzu, want %d", len(res.Rows), st.Chunks)
	}
	chunks := e.Tokenizer().SymbolChunks(syms[0])
	want, err := e.EmbedTokenIDs(ctx, [][]int32{chunks[0].IDs})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range res.Rows {
		if row[0] != schema.EmbeddingID(syms[0].ID, 0) {
			continue
		}
		found = true
		got, err := floats(row[5])
		if err != nil {
			t.Fatal(err)
		}
		for i := range want[0] {
			if math.Abs(float64(got[i]-want[0][i])) > 1e-6 {
				t.Fatalf("stored vector differs at %d: %v vs %v", i, got[i], want[0][i])
			}
		}
		if row[1] != syms[0].ID || row[2] != "Function" || row[4] != chunks[0].Hash {
			t.Errorf("row metadata %v", row[:5])
		}
	}
	if !found {
		t.Fatalf("no row %s", schema.EmbeddingID(syms[0].ID, 0))
	}
	db.Close()

	// Re-analyze with Run changed: only Run's chunk and the file summary
	// (its text did not change, so it is reused too) ... Big is reused.
	syms2 := symbols("func Run() error { return errors.New(\"x\") }")
	st2 := build(t, root, e, syms2, true)
	if st2.Chunks != st.Chunks || st2.Embedded != 1 || st2.Reused != st.Chunks-1 {
		t.Errorf("re-analyze stats %+v, want exactly one chunk embedded and %d reused", st2, st.Chunks-1)
	}
}

func TestRowFormat(t *testing.T) {
	c := embed.Chunk{OwnerID: `a"b.go#f:function`, Index: 2, Hash: "abc"}
	line := appendRow(nil, c, schema.LabelMethod, []float32{0.5, -1.25e-7})
	var row map[string]any
	if err := json.Unmarshal(line, &row); err != nil {
		t.Fatalf("row is not JSON: %v\n%s", err, line)
	}
	if row["id"] != `a"b.go#f:function@2` || row["ownerLabel"] != "Method" || row["chunk"] != 2.0 {
		t.Errorf("row %v", row)
	}
	sc := bufio.NewScanner(strings.NewReader(string(line)))
	if !sc.Scan() || sc.Scan() {
		t.Error("row is not exactly one line")
	}
}

// TestPreviousWithoutVectors: an index built without vectors (keyword-only)
// is a valid Previous that has nothing to reuse.
func TestPreviousWithoutVectors(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	b, err := graph.NewBuild(ctx, root, graph.BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if err := b.AddSymbol(symbols("x")[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	db, err := graph.Open(ctx, root, graph.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := FromDB(db).Lookup(ctx, []string{"a@0", "b@1"})
	if err != nil || len(got) != 0 {
		t.Errorf("Lookup on an index without %s: %v, %v", schema.LabelEmbedding, got, err)
	}
}
