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
