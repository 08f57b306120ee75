package graph

import (
	"context"
	"errors"
	"os"
	"testing"
)

func TestRemoveIndex(t *testing.T) {
	root := newRepo(t)
	if err := RemoveIndex(root); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("remove without index: %v", err)
	}
	buildIndex(t, root, 1)
	b, err := NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveIndex(root); !errors.Is(err, ErrLocked) {
		t.Fatalf("remove while a build holds the lock: %v", err)
	}
	b.Abort()
	if err := RemoveIndex(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(IndexDir(root)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("index dir still there: %v", err)
	}
	if _, err := Open(context.Background(), root, OpenOptions{}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("open after remove: %v", err)
	}
}

func TestResolveErrorKinds(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	if _, err := Resolve("nosuch", t.TempDir()); !errors.Is(err, ErrUnknownRepo) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Resolve("", t.TempDir()); !errors.Is(err, ErrNoIndex) {
		t.Errorf("cwd outside any index: %v", err)
	}
	if _, err := Resolve(t.TempDir(), "/"); !errors.Is(err, ErrNoIndex) {
		t.Errorf("unindexed path: %v", err)
	}
	if _, err := Resolve("/no/such/dir", "/"); !errors.Is(err, ErrUnknownRepo) {
		t.Errorf("missing path: %v", err)
	}
}
