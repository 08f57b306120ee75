package query

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
)

// TestSnapshotMatchesDatabase: every search answers the same with a
// Snapshot as by querying the database, over expansion in both directions,
// files, filters and processes.
func TestSnapshotMatchesDatabase(t *testing.T) {
	fx := newFixture(t, true)
	ctx := context.Background()
	snap, err := LoadSnapshot(ctx, fx.db)
	if err != nil {
		t.Fatal(err)
	}
	nodes, edges, procs := snap.Stats()
	if nodes != 9+6 || procs != 1 || edges == 0 {
		t.Fatalf("snapshot of the fixture: %d nodes, %d edges, %d processes; want 15 nodes (9 symbols, 6 files), some edges, 1 process", nodes, edges, procs)
	}
	cases := []struct {
		q    string
		opts Options
	}{
		{"login", Options{Mode: ModeKeyword}},
		{"user repository", Options{Mode: ModeKeyword}},
		{"session", Options{Mode: ModeKeyword, Files: true}},
		{"config", Options{Mode: ModeKeyword, Lang: []string{"go"}}},
		{"validatePass", Options{Mode: ModeKeyword}},
		{"password", Options{Mode: ModeKeyword, Kind: []string{"function"}, Limit: 2}},
		{"repository interface", Options{Mode: ModeKeyword, PathPrefix: "db/"}},
	}
	expanded := 0
	for _, c := range cases {
		want, err := SearchWith(ctx, fx.db, c.q, c.opts)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		o := c.opts
		o.Snapshot = snap
		got, err := SearchWith(ctx, fx.db, c.q, o)
		if err != nil {
			t.Fatalf("%q with snapshot: %v", c.q, err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("%q: with snapshot\n%s\nwithout\n%s", c.q, gj, wj)
		}
		for _, h := range got.Definitions {
			if h.Via != nil {
				expanded++
			}
		}
		for _, h := range got.ProcessSymbols {
			if h.Via != nil {
				expanded++
			}
		}
		if c.q == "login" && (len(got.Processes) == 0 || len(got.ProcessSymbols) == 0) {
			t.Errorf("%q: no process found, the comparison tests nothing: %s", c.q, gj)
		}
	}
	if expanded == 0 {
		t.Error("no hit was reached by graph expansion: the neighbor path went untested")
	}
}

// capped is a Querier that cuts every result at max rows, as graph.DB
// does with OpenOptions.MaxRows (the MCP server's cap).
type capped struct {
	q   Querier
	max int
}

func (c capped) Query(ctx context.Context, stmt string, params map[string]any) (*graph.Result, error) {
	r, err := c.q.Query(ctx, stmt, params)
	if err == nil && len(r.Rows) > c.max {
		r.Rows, r.Truncated = r.Rows[:c.max], true
	}
	return r, err
}

// uncappable is capped with QueryAll, as graph.DB has.
type uncappable struct{ capped }

func (u uncappable) QueryAll(ctx context.Context, stmt string, params map[string]any) (*graph.Result, error) {
	return u.q.Query(ctx, stmt, params)
}

// TestSnapshotRowCap: a snapshot is never built from results cut at a row
// cap (it would answer differently from the database); through QueryAll
// it reads past the cap.
func TestSnapshotRowCap(t *testing.T) {
	fx := newFixture(t, true)
	ctx := context.Background()
	if _, err := LoadSnapshot(ctx, capped{fx.db, 2}); err == nil {
		t.Error("LoadSnapshot accepted results cut at 2 rows")
	}
	snap, err := LoadSnapshot(ctx, uncappable{capped{fx.db, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if nodes, _, _ := snap.Stats(); nodes != 15 {
		t.Errorf("snapshot through QueryAll has %d nodes, want 15", nodes)
	}
}
