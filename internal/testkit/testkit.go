// Package testkit holds helpers that tests of several packages share.
// Only test files import it.
package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
)

// GarbleIndex overwrites 64 KiB in the middle of the live database of the
// index at repo, as a disk or a careless tool might: the integrity check
// must then refuse it.
func GarbleIndex(t testing.TB, repo string) {
	t.Helper()
	m, err := graph.ReadMeta(repo)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(graph.IndexDir(repo), m.DBFile)
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 1<<16)
	for i := range junk {
		junk[i] = byte(i*131 + 7)
	}
	if _, err := f.WriteAt(junk, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// Corpus is the directory of the benchmark corpus name, as
// ../shared/bench/corpora.sh fetches it ($CORPUS_DIR, default
// $HOME/.cache/gitnexus-corpora). A test that needs it skips with -short
// and when it is absent, unless GITNEXUS_REQUIRE_CORPORA is set (as
// `make test` sets it after fetching them): then its absence fails.
func Corpus(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs the %s corpus: skipped with -short", name)
	}
	dir := os.Getenv("CORPUS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "gitnexus-corpora")
	}
	root := filepath.Join(dir, name)
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("GITNEXUS_REQUIRE_CORPORA") != "" {
			t.Fatalf("corpus %s absent at %s (GITNEXUS_REQUIRE_CORPORA is set): run ../shared/bench/corpora.sh %s", name, root, name)
		}
		t.Skipf("corpus %s absent at %s: fetch it with ../shared/bench/corpora.sh %s", name, root, name)
	}
	return root
}

// ReadFile is os.ReadFile that fails t on an error.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
