package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

// fixture copies testdata/repos/name (no git: discovery then walks the
// tree) into a temp dir and returns its symlink-free path.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "repos", name))); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestBuildIsSearchable: Build commits an index whose meta names its pack,
// the summary counts what was indexed, and the pack answers a search.
func TestBuildIsSearchable(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	root := fixture(t, "pyapp")
	ctx := context.Background()
	var stages []string
	sum, err := Build(ctx, root, Options{
		SkipEmbeddings: true, ToolVersion: "test",
		Progress: func(stage string, done, total int) {
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files == 0 || sum.Symbols == 0 || sum.Name != "pyapp" || sum.Meta == nil || sum.Meta.ToolVersion != "test" {
		t.Fatalf("summary %+v", sum)
	}
	for _, want := range []string{"processes", "search"} {
		if !contains(stages, want) {
			t.Errorf("progress stages %v lack %q", stages, want)
		}
	}
	if _, ok := sum.Phases["pack"]; !ok {
		t.Errorf("phases %v lack pack", sum.Phases)
	}
	meta, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	pack, err := query.ReadPack(graph.CompanionPath(root, meta, graph.PackSuffix))
	if err != nil {
		t.Fatalf("the committed index has no readable pack: %v", err)
	}
	res, err := query.Search(ctx, pack, "service close", query.Options{Mode: query.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Definitions)+len(res.ProcessSymbols) == 0 {
		t.Errorf("no hit for %q on the built index", "service close")
	}
}

// TestBuildCancelledKeepsIndex: a cancelled Build returns an error and the
// index committed before it is still the live one.
func TestBuildCancelledKeepsIndex(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	root := fixture(t, "goshop")
	ctx := context.Background()
	if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	before, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Build(cctx, root, Options{SkipEmbeddings: true}); err == nil {
		t.Fatal("a cancelled Build succeeded")
	}
	after, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	if after.DBFile != before.DBFile {
		t.Errorf("live database changed from %s to %s after a cancelled build", before.DBFile, after.DBFile)
	}
	if _, err := os.Stat(filepath.Join(graph.IndexDir(root), after.DBFile)); err != nil {
		t.Errorf("live database gone: %v", err)
	}
}

// TestBuildRefusesAFile: a path that is no directory is an error before any
// lock or staging directory is made.
func TestBuildRefusesAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(f, []byte("package x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), f, Options{SkipEmbeddings: true}); err == nil || errors.Is(err, graph.ErrLocked) {
		t.Errorf("Build on a file: %v", err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
