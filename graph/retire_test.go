package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCommitRetiresTheReplacedDatabase: with BuildOptions.Retire, Commit
// moves the replaced database and its companions out of the index into one
// retired directory and hands it over; the new index answers without it,
// and RemoveRetired removes it.
func TestCommitRetiresTheReplacedDatabase(t *testing.T) {
	root := newRepo(t)
	first := buildIndex(t, root, 2)
	var handed []string
	b := loadedBuild(t, root, BuildOptions{MaxThreads: 2, Retire: func(dir string) { handed = append(handed, dir) }}, 3)
	if err := b.Commit(&Meta{}); err != nil {
		t.Fatal(err)
	}
	dir := IndexDir(root)
	want := filepath.Join(dir, "retired-"+first.DBFile)
	if !slices.Equal(handed, []string{want}) {
		t.Fatalf("Retire was handed %q, want [%q]", handed, want)
	}
	if _, err := os.Stat(filepath.Join(dir, first.DBFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced database is still in the index: %v", err)
	}
	moved, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range moved {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, first.DBFile) || !slices.Contains(names, first.DBFile+RowsSuffix) {
		t.Errorf("retired directory holds %q, want the database and its row digest", names)
	}
	if n := count(t, openTest(t, root), "MATCH (f:Function) RETURN count(f)"); n != 3 {
		t.Errorf("the new index has %d functions, want 3", n)
	}
	if err := RemoveRetired(want); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("RemoveRetired left %s: %v", want, err)
	}
	if err := RemoveRetired(want); err != nil {
		t.Errorf("RemoveRetired of a directory already gone: %v", err)
	}
}

// TestRemoveRetiredRemovesNothingElse: the remover takes a path from its
// command line, so anything but a retired directory of an index is
// refused and left.
func TestRemoveRetiredRemovesNothingElse(t *testing.T) {
	base := t.TempDir()
	idx := filepath.Join(base, "repo", IndexDirName)
	outside := filepath.Join(base, "precious")
	for _, d := range []string{idx, outside, filepath.Join(base, "retired-db-x.kuzu"), filepath.Join(idx, "staging-1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "keep"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(idx, "retired-db-file.kuzu"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(idx, "retired-db-link.kuzu")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		outside,
		filepath.Join(base, "retired-db-x.kuzu"), // not in a .gitnexus directory
		filepath.Join(idx, "staging-1"),          // not a retired name
		idx,                                      // the index itself
		filepath.Join(idx, "retired-db-file.kuzu"),          // a file
		filepath.Join(idx, "retired-db-link.kuzu"),          // a link to a directory elsewhere
		filepath.Join(idx, "retired-db-x.kuzu", "..", ".."), // climbs out
		filepath.Join(idx, "..", "..", "retired-db-x.kuzu"), // another directory's
	} {
		if err := RemoveRetired(p); err == nil {
			t.Errorf("RemoveRetired(%s) succeeded", p)
		}
	}
	for _, p := range []string{filepath.Join(outside, "keep"), filepath.Join(base, "retired-db-x.kuzu", "keep"),
		filepath.Join(idx, "staging-1", "keep"), filepath.Join(idx, "retired-db-file.kuzu")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestNewBuildLeavesAYoungRetiredDatabase: a retired directory is its
// remover's while it is young (removing it too would put that time back
// on the next analyze); one older than retiredGrace was left by a remover
// that died, and goes.
func TestNewBuildLeavesAYoungRetiredDatabase(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 2)
	dir := IndexDir(root)
	young, old := filepath.Join(dir, "retired-db-young.kuzu"), filepath.Join(dir, "retired-db-old.kuzu")
	for _, d := range []string{young, old} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "db-x.kuzu"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-2 * retiredGrace)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	b, err := NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a young retired database was removed: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an old retired database was left: %v", err)
	}
}
