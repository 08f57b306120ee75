package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

// TestQueryPack: the query tool searches the index's search pack; an index
// without one is an error saying to rebuild it, not another engine.
func TestQueryPack(t *testing.T) {
	w := newWorld(t)
	packs, _ := filepath.Glob(filepath.Join(w.repo, ".gitnexus", "*"+graph.PackSuffix))
	if len(packs) != 1 {
		t.Fatalf("analyze wrote %d search packs, want 1", len(packs))
	}
	ctx := context.Background()
	s := New(Options{Cwd: w.repo})
	r, err := s.Repos.Acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	pack, err := r.Pack()
	if err != nil {
		t.Fatal(err)
	}
	if n, _, p, err := pack.Stats(); err != nil || n == 0 || p == 0 {
		t.Fatalf("pack of goshop has %d nodes, %d processes (%v)", n, p, err)
	}
	for _, in := range []tools.QueryInput{
		{SearchQuery: "order"},
		{SearchQuery: "validate payment", Limit: 3, MaxSymbols: 4, IncludeContent: true},
		{SearchQuery: "inventory", TaskContext: "adding a discount", Goal: "where orders are priced"},
	} {
		res, err := tools.Query(ctx, pack, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Definitions)+len(res.ProcessSymbols) == 0 {
			t.Errorf("%+v: no hits", in)
		}
		if in.IncludeContent {
			for _, d := range res.Definitions {
				if d.Content == "" {
					t.Errorf("%+v: %s has no content", in, d.ID)
				}
			}
		}
	}
	r.Release()
	s.Close()

	os.Remove(packs[0])
	s = New(Options{Cwd: w.repo})
	defer s.Close()
	r, err = s.Repos.Acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if _, err := s.query(ctx, r, tools.QueryInput{SearchQuery: "order"}); !errors.Is(err, query.ErrNoPack) {
		t.Errorf("query without a pack: %v", err)
	}
}
