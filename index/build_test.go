package index

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/internal/testkit"
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

// TestBuildRefusesAnIndexOfNothing: a tree whose .gitignore hides every
// file (a Debian kernel source's top-level `/*`) fails with the rule named,
// and no index is committed.
func TestBuildRefusesAnIndexOfNothing(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	root := fixture(t, "goshop")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("# everything\n/*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), root, Options{SkipEmbeddings: true})
	if !errors.Is(err, ErrNothingIndexed) {
		t.Fatalf("Build = %v, want ErrNothingIndexed", err)
	}
	if !strings.Contains(err.Error(), ".gitignore:2") || !strings.Contains(err.Error(), "--include") {
		t.Errorf("message does not name the rule and the way out: %v", err)
	}
	if _, err := graph.ReadMeta(root); err == nil {
		t.Error("an index of nothing was committed")
	}
}

// TestUnchangedKeepsIndex: a re-analyze that finds every file unchanged
// keeps the live database (no rebuild) and brings meta.json's time
// forward, so a file only touched is no longer called stale; a changed
// file, --force, another name or a damaged live index rebuild it.
func TestUnchangedKeepsIndex(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	// Files are trusted as soon as their stats are recorded (the fixture
	// is written just before the first build).
	defer func(s time.Duration) { ingest.StatSlack = s }(ingest.StatSlack)
	ingest.StatSlack = -time.Hour
	root := fixture(t, "pyapp")
	// A file discovery leaves out (binary): the summary of a kept index
	// still counts the live index's files, not the none this run parsed.
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("\x00\x01\x02\x03"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{SkipEmbeddings: true, ToolVersion: "test"}
	first, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.UpToDate || first.Meta.Build == "" {
		t.Fatalf("first build: up_to_date %v, build stamp %q", first.UpToDate, first.Meta.Build)
	}
	db := first.Meta.DBFile

	// Touched, not changed: stale before, kept and fresh after.
	src := filepath.Join(root, "app", "service.py")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("fixture file: %v", err)
	}
	later := first.Meta.IndexedAt.Add(2 * time.Second)
	if err := os.Chtimes(src, later, later); err != nil {
		t.Fatal(err)
	}
	if s := graph.CheckStale(root, first.Meta); s == nil || s.ChangedFiles != 1 {
		t.Fatalf("a touched file is not reported stale: %+v", s)
	}
	time.Sleep(2100 * time.Millisecond) // the next build starts after the touch
	kept, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.UpToDate || kept.Meta.DBFile != db || kept.Changes == nil || *kept.Changes != (FileChanges{}) {
		t.Fatalf("unchanged re-analyze: up_to_date %v, database %s (was %s), changes %+v", kept.UpToDate, kept.Meta.DBFile, db, kept.Changes)
	}
	if _, ran := kept.Phases["resolve"]; ran || kept.Resolution == nil || kept.Resolution.Resolved != first.Resolution.Resolved ||
		kept.Resolution.CallSites != first.Resolution.CallSites {
		t.Errorf("unchanged re-analyze: resolution ran (%v) or its counts are not the live index's: %+v, first %+v", ran, kept.Resolution, first.Resolution)
	}
	// Decided once the files were hashed, before any was parsed
	// (ingest.Options.UpToDate): nothing parsed or decoded, the counts the
	// live index's.
	if kept.Parsed != 0 || kept.Reused != first.Parsed+first.Reused || kept.Files != first.Files ||
		!maps.Equal(kept.ParseStatus, first.ParseStatus) || !maps.Equal(kept.Languages, first.Languages) || !maps.Equal(kept.Kinds, first.Kinds) {
		t.Errorf("unchanged re-analyze: parsed %d, reused %d (first %d+%d), files %d/%d, parse %v/%v, languages %v/%v",
			kept.Parsed, kept.Reused, first.Parsed, first.Reused, kept.Files, first.Files, kept.ParseStatus, first.ParseStatus, kept.Languages, first.Languages)
	}
	if kept.Nodes["Process"] != first.Nodes["Process"] || kept.Edges["CALLS"] != first.Edges["CALLS"] || kept.Symbols != first.Symbols {
		t.Errorf("kept summary counts differ: processes %d/%d, calls %d/%d, symbols %d/%d",
			kept.Nodes["Process"], first.Nodes["Process"], kept.Edges["CALLS"], first.Edges["CALLS"], kept.Symbols, first.Symbols)
	}
	meta, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	if meta.DBFile != db || !meta.IndexedAt.After(first.Meta.IndexedAt) {
		t.Fatalf("meta after keeping: database %s, indexed at %v (was %v)", meta.DBFile, meta.IndexedAt, first.Meta.IndexedAt)
	}
	if s := graph.CheckStale(root, meta); s != nil {
		t.Errorf("still stale after the re-analyze: %+v", s)
	}
	if err := graph.Verify(root, meta); err != nil {
		t.Errorf("kept index does not verify: %v", err)
	}
	// The touched file was read, no other (their stats as the first build
	// recorded them, StatSlack aside); the kept index's stat cache was
	// replaced by this run's, so the next run reads none, and the index
	// still verifies (the stat cache has no sum in meta.json).
	if runtime.GOOS == "linux" {
		n := len(first.Meta.Files)
		if kept.Unread != n-1 {
			t.Errorf("touched: %d of %d files not read, want all but the touched one", kept.Unread, n)
		}
		again, err := Build(ctx, root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !again.UpToDate || again.Unread != n {
			t.Errorf("after the touch was recorded: up_to_date %v, %d of %d files not read", again.UpToDate, again.Unread, n)
		}
		meta, err := graph.ReadMeta(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := graph.Verify(root, meta); err != nil {
			t.Errorf("the index whose stat cache was replaced does not verify: %v", err)
		}
	}

	rebuilt := func(what string, o Options) {
		t.Helper()
		before, err := graph.ReadMeta(root)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Build(ctx, root, o)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if sum.UpToDate || sum.Meta.DBFile == before.DBFile {
			t.Errorf("%s: index kept (up_to_date %v, database %s)", what, sum.UpToDate, sum.Meta.DBFile)
		}
	}
	force := opts
	force.Force = true
	rebuilt("--force", force)
	renamed := opts
	renamed.Name = "other"
	rebuilt("another name", renamed)
	renamed.Name = ""
	rebuilt("the name back", opts)
	if err := os.WriteFile(src, append(testkit.ReadFile(t, src), "\n# changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rebuilt("a changed file", opts)

	// A damaged live index is rebuilt, not kept.
	meta, err = graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	pack := graph.CompanionPath(root, meta, graph.PackSuffix)
	data := testkit.ReadFile(t, pack)
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(pack, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rebuilt("a damaged pack", opts)
	if meta, err = graph.ReadMeta(root); err != nil {
		t.Fatal(err)
	}
	if err := graph.Verify(root, meta); err != nil {
		t.Errorf("rebuilt index does not verify: %v", err)
	}
}

// TestKernelSyscallIsFound: on the kernel-style C fixture, "read system
// call" finds the read system calls (SYSCALL_DEFINE3(read, ...), the
// function sys_read, and its compat variant) first, and the flow sys_read
// → ksys_read → vfs_read: the macro says what the function is, and the
// query's "system" also searches "syscall".
func TestKernelSyscallIsFound(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	root := fixture(t, "ckernel")
	ctx := context.Background()
	sum, err := Build(ctx, root, Options{SkipEmbeddings: true, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	pack, err := query.ReadPack(graph.CompanionPath(root, sum.Meta, graph.PackSuffix))
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Search(ctx, pack, "read system call", query.Options{Mode: query.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, h := range res.Hits[:min(2, len(res.Hits))] {
		top = append(top, h.ID)
	}
	if !contains(top, "fs/read_write.c#sys_read:function") {
		t.Fatalf("read system call: first hits %v, want fs/read_write.c#sys_read among them", top)
	}
	found := false
	for _, p := range res.Processes {
		if strings.HasPrefix(p.Summary, "sys_read → ksys_read") {
			found = true
		}
	}
	if !found {
		t.Errorf("no flow sys_read → ksys_read → … among %d", len(res.Processes))
	}
}
