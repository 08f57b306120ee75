package graph

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestLoadCost measures (logs, never asserts) the cost of streaming and
// bulk-loading a graph. By default it loads 5k symbols and 12.5k edges; set
// GITNEXUS_LOAD_BENCH=1 for the full 200k symbols and 500k edges.
func TestLoadCost(t *testing.T) {
	if testing.Short() {
		t.Skip("load-cost measurement skipped in -short mode")
	}
	nSym, nEdge := 5_000, 12_500
	if os.Getenv("GITNEXUS_LOAD_BENCH") == "1" {
		nSym, nEdge = 200_000, 500_000
	}
	root := newRepo(t)
	ctx := context.Background()
	logger := quietLog
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	b, err := NewBuild(ctx, root, BuildOptions{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()

	body := strings.Repeat("\tx := compute(a, b) // some code\n", 30) // ~1 KB
	nFiles := nSym / 20
	start := time.Now()
	for i := 0; i < nFiles; i++ {
		p := fmt.Sprintf("pkg%d/file%d.go", i/50, i)
		if err := b.AddFile(schema.File{ID: p, Path: p, Name: filepath.Base(p), Language: "go", Size: 20000, Lines: 600, ParseStatus: schema.ParseOK, ContentHash: "0123456789abcdef"}); err != nil {
			t.Fatal(err)
		}
	}
	ids := make([]string, nSym)
	labels := make([]schema.Label, nSym)
	for i := 0; i < nSym; i++ {
		kind := schema.KindFunction
		if i%3 == 0 {
			kind = schema.KindMethod
		}
		file := fmt.Sprintf("pkg%d/file%d.go", (i/20)/50, i/20)
		name := fmt.Sprintf("handleRequest%d", i)
		ids[i] = schema.SymbolID(file, name, kind, 1)
		labels[i] = schema.LabelOf(kind)
		if err := b.AddSymbol(schema.Symbol{ID: ids[i], Kind: kind, Name: name, QualifiedName: "pkg." + name, FilePath: file,
			StartLine: i%600 + 1, EndLine: i%600 + 30, Language: "go", Signature: "func " + name + "(w http.ResponseWriter, r *http.Request) error",
			DocComment: name + " handles the request and writes the response.", IsExported: true, Content: body, ContentHash: "fedcba9876543210",
			SearchText: "handle request " + fmt.Sprint(i%1000)}); err != nil {
			t.Fatal(err)
		}
		if err := b.AddEdge(schema.Edge{Type: schema.RelDefines, From: file, To: ids[i], FromLabel: schema.LabelFile, ToLabel: labels[i], Confidence: 1, Reason: schema.ReasonStructural}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < nEdge-nSym; i++ {
		from, to := (i*7919)%nSym, (i*104729+13)%nSym
		if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: ids[from], To: ids[to], FromLabel: labels[from], ToLabel: labels[to], Confidence: 0.8, Reason: schema.ReasonImportScoped, Line: i%500 + 1}); err != nil {
			t.Fatal(err)
		}
	}
	addTook := time.Since(start)
	var bytes int64
	ents, _ := os.ReadDir(b.StagingDir())
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			bytes += fi.Size()
		}
	}

	stageStart := map[string]time.Time{}
	stageEnd := map[string]time.Time{}
	t0 := time.Now()
	if err := b.Load(ctx, func(stage string, done, total int) {
		if _, ok := stageStart[stage]; !ok {
			stageStart[stage] = time.Now()
		}
		stageEnd[stage] = time.Now()
	}); err != nil {
		t.Fatal(err)
	}
	loadTook := time.Since(t0)
	t1 := time.Now()
	m := &Meta{}
	if err := b.Commit(m); err != nil {
		t.Fatal(err)
	}
	commitTook := time.Since(t1)
	fi, _ := os.Stat(filepath.Join(IndexDir(root), m.DBFile))
	t.Logf("rows: %d files, %d symbols, %d edges; NDJSON %.1f MiB", nFiles, nSym, nEdge, float64(bytes)/(1<<20))
	t.Logf("stream (encode+write) %v; load %v; commit %v; db %.1f MiB", addTook.Round(time.Millisecond), loadTook.Round(time.Millisecond), commitTook.Round(time.Millisecond), float64(fi.Size())/(1<<20))
	prev := t0
	for _, s := range []string{"schema", "nodes", "edges"} {
		t.Logf("  %-6s %v", s, stageEnd[s].Sub(prev).Round(time.Millisecond))
		prev = stageEnd[s]
	}
	if m.Counts["CALLS"]+m.Counts["DEFINES"] != nEdge || m.Counts["Function"]+m.Counts["Method"] != nSym {
		t.Errorf("counts %v", m.Counts)
	}
}
