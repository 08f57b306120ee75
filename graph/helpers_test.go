package graph

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// newRepo makes an empty repository directory whose path needs quoting in
// Cypher (a quote and a space).
func newRepo(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "it's repo")
	if err := os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// fillSmall adds a small, fully connected graph of n functions (plus one
// class, one method, one interface) and one dangling CALLS edge.
func fillSmall(t *testing.T, b *Build, n int) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.AddFolder(schema.Folder{ID: ".", Path: ".", Name: "repo"}))
	must(b.AddFolder(schema.Folder{ID: "src", Path: "src", Name: "src"}))
	must(b.AddFile(schema.File{ID: "src/a.go", Path: "src/a.go", Name: "a.go", Language: "go", Size: 10, Lines: 3, ParseStatus: schema.ParseOK, ContentHash: "h", Unresolved: -1}))
	must(b.AddEdge(schema.Edge{Type: schema.RelContains, From: ".", To: "src", FromLabel: schema.LabelFolder, ToLabel: schema.LabelFolder, Confidence: 1, Reason: schema.ReasonStructural}))
	must(b.AddEdge(schema.Edge{Type: schema.RelContains, From: "src", To: "src/a.go", FromLabel: schema.LabelFolder, ToLabel: schema.LabelFile, Confidence: 1, Reason: schema.ReasonStructural}))
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("src/a.go#fn%d:function", i)
		must(b.AddSymbol(schema.Symbol{ID: id, Kind: schema.KindFunction, Name: fmt.Sprintf("fn%d", i), QualifiedName: fmt.Sprintf("fn%d", i),
			FilePath: "src/a.go", StartLine: i + 1, EndLine: i + 2, Language: "go", IsExported: i%2 == 0,
			SearchText: "parse running config", DocComment: "Parses the configuration."}))
		must(b.AddEdge(schema.Edge{Type: schema.RelDefines, From: "src/a.go", To: id, FromLabel: schema.LabelFile, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonStructural}))
		if i > 0 {
			must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: fmt.Sprintf("src/a.go#fn%d:function", i-1), To: id,
				FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 0.9, Reason: schema.ReasonSameFile, Line: i}))
		}
	}
	must(b.AddSymbol(schema.Symbol{ID: "src/a.go#T:struct", Label: schema.LabelClass, Kind: schema.KindStruct, Name: "T", FilePath: "src/a.go"}))
	must(b.AddSymbol(schema.Symbol{ID: "src/a.go#T.M:method", Kind: schema.KindMethod, Name: "M", QualifiedName: "T.M", FilePath: "src/a.go"}))
	must(b.AddSymbol(schema.Symbol{ID: "src/a.go#I:interface", Kind: schema.KindInterface, Name: "I", FilePath: "src/a.go"}))
	must(b.AddEdge(schema.Edge{Type: schema.RelHasMethod, From: "src/a.go#T:struct", To: "src/a.go#T.M:method", FromLabel: schema.LabelClass, ToLabel: schema.LabelMethod, Confidence: 1}))
	must(b.AddEdge(schema.Edge{Type: schema.RelImplements, From: "src/a.go#T:struct", To: "src/a.go#I:interface", FromLabel: schema.LabelClass, ToLabel: schema.LabelInterface, Confidence: 1, Reason: schema.ReasonMethodSet}))
	must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/a.go#T.M:method", To: "src/a.go#fn0:function", FromLabel: schema.LabelMethod, ToLabel: schema.LabelFunction, Confidence: 0.5}))
	// Dangling: no such node.
	must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "src/a.go#fn0:function", To: "src/gone.go#nope:function", FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 0.5}))
	must(b.AddCommunity(schema.Community{ID: "comm_1", Label: "Config", Keywords: []string{"parse", "config"}, Cohesion: 0.75, SymbolCount: n}))
	must(b.AddProcess(schema.Process{ID: "proc_1", Label: "Fn0 → Fn1", ProcessType: "intra_community", StepCount: 2, EntryPointID: "src/a.go#fn0:function", TerminalID: "src/a.go#fn1:function", Priority: 1}))
	must(b.AddEdge(schema.Edge{Type: schema.RelMemberOf, From: "src/a.go#fn0:function", To: "comm_1", FromLabel: schema.LabelFunction, ToLabel: schema.LabelCommunity, Confidence: 1}))
	must(b.AddEdge(schema.Edge{Type: schema.RelStepInProcess, From: "src/a.go#fn0:function", To: "proc_1", FromLabel: schema.LabelFunction, ToLabel: schema.LabelProcess, Confidence: 1, Step: 1}))
}

// loadedBuild is a build of root with opts (BufferPoolSize 256 MiB and
// the quiet logger when unset) holding fillSmall's n functions, loaded and
// not committed; it is aborted when the test ends.
func loadedBuild(t *testing.T, root string, opts BuildOptions, n int) *Build {
	t.Helper()
	if opts.BufferPoolSize == 0 {
		opts.BufferPoolSize = 256 << 20
	}
	if opts.Logger == nil {
		opts.Logger = quietLog
	}
	b, err := NewBuild(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Abort)
	fillSmall(t, b, n)
	if err := b.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return b
}

// buildIndex builds and commits a small index of n functions.
func buildIndex(t *testing.T, root string, n int) *Meta {
	t.Helper()
	m, _ := buildWith(t, root, nil, func(b *Build) { fillSmall(t, b, n) })
	return m
}

func openTest(t *testing.T, root string) *DB {
	t.Helper()
	d, err := Open(context.Background(), root, OpenOptions{BufferPoolSize: 256 << 20, MaxThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func count(t *testing.T, d *DB, cypher string) int64 {
	t.Helper()
	r, err := d.Query(context.Background(), cypher, nil)
	if err != nil {
		t.Fatalf("%s: %v", cypher, err)
	}
	if len(r.Rows) != 1 {
		t.Fatalf("%s: %d rows", cypher, len(r.Rows))
	}
	n, ok := r.Rows[0][0].(int64)
	if !ok {
		t.Fatalf("%s: %T", cypher, r.Rows[0][0])
	}
	return n
}
