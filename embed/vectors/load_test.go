package vectors

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestLoadManyVectorsInASmallPool: one COPY of every vector on two threads
// failed in analyze's build pool once a repository had ~11k chunks
// (prometheus: "buffer pool is full"), and parts of CopyRows rows on one
// thread still failed at 100k rows in the default 256 MiB pool. Load now
// also grows the pool (GrowBufferPool) for the rows it copies: this loads
// 100k 384-dim rows into a build opened with 256 MiB.
func TestLoadManyVectorsInASmallPool(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: writes and copies 100k 384-dim rows (~400 MB of NDJSON)")
	}
	ctx := context.Background()
	root := t.TempDir()
	b, err := graph.NewBuild(ctx, root, graph.BuildOptions{BufferPoolSize: 256 << 20, MaxThreads: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if err := b.AddSymbol(symbols("x")[0]); err != nil {
		t.Fatal(err)
	}
	const rows, dim = 100000, 384
	path := filepath.Join(b.StagingDir(), "vectors-"+string(schema.LabelEmbedding)+".json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, dim)
	var line []byte
	for i := range rows {
		for k := range v {
			v[k] = rng.Float32() - 0.5
		}
		embed.Normalize(v)
		c := embed.Chunk{OwnerID: "f.go#S" + strconv.Itoa(i) + ":function", Index: 0, Hash: strconv.Itoa(i)}
		line = appendRow(line[:0], c, schema.LabelFunction, v)
		if _, err := bw.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w := &Writer{path: path, dim: dim, stats: Stats{Chunks: rows}}
	if err := w.Load(ctx, b); err != nil {
		t.Fatalf("load %d vectors: %v", rows, err)
	}
	if err := b.Commit(&graph.Meta{ToolVersion: "test", Embeddings: graph.EmbeddingInfo{Model: "test", Count: rows, Dim: dim}}); err != nil {
		t.Fatal(err)
	}
	db, err := graph.Open(ctx, root, graph.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := FromDB(db).Lookup(ctx, []string{schema.EmbeddingID("f.go#S0:function", 0), schema.EmbeddingID("f.go#S19999:function", 0)})
	if err != nil || len(got) != 2 {
		t.Fatalf("Lookup after the load: %d rows, %v", len(got), err)
	}
}
