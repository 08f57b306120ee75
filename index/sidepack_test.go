package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
)

// TestSidePackResult: the pack built beside an in-place load is kept only
// when it read what the database holds; one that needed the database, or
// whose rows the load did not all take, is built again after the load
// (nil), and only a cancelled run is an error.
func TestSidePackResult(t *testing.T) {
	counts := map[string]int{"Function": 3, "CALLS": 2}
	done := func(p *packed, err error) *sidePack {
		c := make(chan struct{})
		close(c)
		return &sidePack{counts: func() map[string]int { return counts }, cancel: func() {}, done: c, p: p, err: err}
	}
	built := &packed{path: "search.pack"}
	for _, c := range []struct {
		name    string
		side    *sidePack
		loaded  map[string]int
		want    *packed
		wantErr bool
	}{
		{"not started", &sidePack{}, counts, nil, false},
		{"kept", done(built, nil), map[string]int{"Function": 3, "CALLS": 2}, built, false},
		{"the load skipped a row", done(built, nil), map[string]int{"Function": 3, "CALLS": 1}, nil, false},
		{"needed the database", done(nil, fmt.Errorf("pack: snapshot edges: %w", graph.ErrRowsOnly)), counts, nil, false},
		{"cancelled", done(nil, fmt.Errorf("pack: %w", context.Canceled)), counts, nil, true},
	} {
		got, err := c.side.result(c.loaded)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%s: result = %v, %v; want %v, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}
