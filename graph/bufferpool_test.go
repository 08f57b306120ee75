package graph

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// The row file tracks the bytes of its largest node group, and the pool a
// COPY needs grows with it and with the threads.
func TestRowFileGroupBytes(t *testing.T) {
	rf, err := createRowFile(filepath.Join(t.TempDir(), "rows.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	small, big := []byte("{}\n"), []byte(strings.Repeat("x", 99)+"\n")
	for i := 0; i < nodeGroupRows; i++ { // first group: small rows
		if err := rf.write(small); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 10; i++ { // second group: 10 big rows
		if err := rf.write(big); err != nil {
			t.Fatal(err)
		}
	}
	if want := int64(nodeGroupRows * len(small)); rf.maxGroup != want {
		t.Errorf("maxGroup = %d, want %d (the first group)", rf.maxGroup, want)
	}
	if want := int64(nodeGroupRows*len(small) + 10*len(big)); rf.bytes != want {
		t.Errorf("bytes = %d, want %d", rf.bytes, want)
	}
	if a, b := copyPool(2, 1<<20), copyPool(2, 1<<30); b <= a {
		t.Errorf("copyPool does not grow with the group: %d then %d", a, b)
	}
	if a, b := copyPool(1, 1<<30), copyPool(4, 1<<30); b <= a {
		t.Errorf("copyPool does not grow with the threads: %d then %d", a, b)
	}
	if copyPool(2, 0) != minBuildPool(2) {
		t.Errorf("copyPool(2, 0) = %d, want minBuildPool(2)", copyPool(2, 0))
	}
}

// A node table whose node group does not fit the default pool loads: Load
// sizes the pool from the rows (before, this COPY failed with "The buffer
// pool is full").
func TestLoadSizesPoolFromRows(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads 150k rows of 1.5 KB; skipped in -short mode")
	}
	root := newRepo(t)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{Logger: quietLog, BufferPoolSize: DefaultBuildBufferPool, MaxThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	body := strings.Repeat("\tret = dev->ops->probe(dev, id); // x\n", 40) // ~1.5 KB
	const n = 150_000
	for i := 0; i < n; i++ {
		file := fmt.Sprintf("drivers/f%d.c", i/50)
		name := fmt.Sprintf("probe_%d", i)
		if err := b.AddSymbol(schema.Symbol{ID: schema.SymbolID(file, name, schema.KindFunction, 1), Kind: schema.KindFunction,
			Name: name, QualifiedName: name, FilePath: file, StartLine: 1, EndLine: 40, Language: "c", Content: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := b.Counts()["Function"]; got != n {
		t.Errorf("loaded %d Function rows, want %d", got, n)
	}
	if b.loadPool <= DefaultBuildBufferPool {
		t.Errorf("load pool stayed at %d MiB", b.loadPool>>20)
	}
	if b.opts.BufferPoolSize != DefaultBuildBufferPool {
		t.Errorf("after Load the pool is %d MiB, want the build's %d MiB", b.opts.BufferPoolSize>>20, DefaultBuildBufferPool>>20)
	}
}

// A shared load runs its COPYs on one thread fewer than the build's own,
// never none, and still copies every row.
func TestShareLoad(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ threads, want int }{{3, 2}, {2, 1}, {1, 1}, {0, max(1, runtime.NumCPU()-1)}} {
		b, err := NewBuild(ctx, newRepo(t), BuildOptions{Logger: quietLog, MaxThreads: c.threads})
		if err != nil {
			t.Fatal(err)
		}
		b.ShareLoad()
		if got := b.loadThreads(); got != c.want {
			t.Errorf("MaxThreads %d: ShareLoad leaves %d threads, want %d", c.threads, got, c.want)
		}
		if c.threads == 2 {
			if err := b.AddSymbol(schema.Symbol{ID: schema.SymbolID("a.c", "f", schema.KindFunction, 1), Kind: schema.KindFunction,
				Name: "f", QualifiedName: "f", FilePath: "a.c", StartLine: 1, EndLine: 2, Language: "c"}); err != nil {
				t.Fatal(err)
			}
			if err := b.Load(ctx, nil); err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := b.Counts()["Function"]; got != 1 {
				t.Errorf("loaded %d Function rows, want 1", got)
			}
		}
		b.Abort()
	}
}
