package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/tools"
)

// TestQuerySnapshot: the server loads a search snapshot for an open repo in
// the background (from the index's search pack, or from the database when
// there is none), and the query tool answers alike with it and without it.
func TestQuerySnapshot(t *testing.T) {
	for _, fromPack := range []bool{true, false} {
		t.Run(map[bool]string{true: "pack", false: "database"}[fromPack], func(t *testing.T) {
			testQuerySnapshot(t, fromPack)
		})
	}
}

func testQuerySnapshot(t *testing.T, fromPack bool) {
	w := newWorld(t)
	packs, _ := filepath.Glob(filepath.Join(w.repo, ".gitnexus", "*"+graph.PackSuffix))
	if len(packs) != 1 {
		t.Fatalf("analyze wrote %d search packs, want 1", len(packs))
	}
	if !fromPack {
		os.Remove(packs[0])
	}
	s := New(Options{Cwd: w.repo})
	defer s.Close()
	ctx := context.Background()
	r, err := s.Repos.Acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	deadline := time.Now().Add(20 * time.Second)
	for r.Snapshot() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	snap := r.Snapshot()
	if snap == nil {
		t.Fatal("no search snapshot 20 s after the repo was opened")
	}
	if n, _, p := snap.Stats(); n == 0 || p == 0 {
		t.Fatalf("snapshot of goshop has %d nodes, %d processes", n, p)
	}
	for _, in := range []tools.QueryInput{
		{SearchQuery: "order"},
		{SearchQuery: "validate payment", Limit: 3, MaxSymbols: 4},
		{SearchQuery: "inventory", TaskContext: "adding a discount", Goal: "where orders are priced"},
	} {
		want, err := tools.Query(ctx, r.DB, in, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tools.Query(ctx, r.DB, in, nil, snap)
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("%+v: with snapshot\n%s\nwithout\n%s", in, gj, wj)
		}
	}
}
