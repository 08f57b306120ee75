package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph"
)

// TestListReposReadsMeta: a listed repository's time, commit, branch and
// counts are its meta.json's (the last analyze's), not those the registry
// kept from the analyze that registered it (graph.Registry.Register does
// not write an entry again); one without an index keeps the registry's.
func TestListReposReadsMeta(t *testing.T) {
	indexed, gone := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(indexed, ".gitnexus"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"schemaVersion": 11, "repoName": "a", "commit": "new", "branch": "main", "indexedAt": "2026-11-28T06:00:00Z", "dbFile": "db-20261128T060000-00000000.kuzu", "counts": {"Function": 7}}`
	if err := os.WriteFile(filepath.Join(indexed, ".gitnexus", "meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	list := []graph.RepoEntry{
		{Name: "a", Path: indexed, IndexedAt: then, Commit: "old", Counts: map[string]int{"Function": 3}},
		{Name: "b", Path: gone, IndexedAt: then, Commit: "old"},
	}
	out, err := ListRepos(list, ListReposInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Repos) != 2 {
		t.Fatalf("repos %+v", out.Repos)
	}
	a, b := out.Repos[0], out.Repos[1]
	if !a.Indexed || a.Commit != "new" || a.Branch != "main" || a.IndexedAt != "2026-11-28T06:00:00Z" || a.Stats["Function"] != 7 {
		t.Errorf("indexed repository: %+v", a)
	}
	if b.Indexed || b.Commit != "old" || b.IndexedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("repository without an index: %+v", b)
	}
}
