package query

import (
	"context"
	"encoding/json"
	"testing"
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
