package query

import (
	"context"
	"slices"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestFindNamedAndFilesAreFind: FindNamed and FindFiles give what Find
// gives for the same restriction, in the same order and under the same
// limit, on a read pack (indexes of names and files) and on a mapped
// one-shot pack (a scan).
func TestFindNamedAndFilesAreFind(t *testing.T) {
	path, _, _ := packImage(t)
	read, mapped := readAndMap(t, path)
	ctx := context.Background()
	all := func(*Hit, string) bool { return true }
	ids := func(ns []Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	for _, p := range []*Pack{read, mapped} {
		nodes, err := p.Find(ctx, all, 1<<30)
		if err != nil || len(nodes) == 0 {
			t.Fatalf("Find: %d nodes, %v", len(nodes), err)
		}
		names := map[string]bool{"no such name": true, "": true}
		for _, n := range nodes {
			names[n.Name] = true
		}
		for name := range names {
			for _, limit := range []int{1, 2, 1 << 30} {
				want, err1 := p.Find(ctx, func(h *Hit, _ string) bool { return h.Name == name }, limit)
				got, err2 := p.FindNamed(ctx, name, all, limit)
				if err1 != nil || err2 != nil || !slices.Equal(ids(got), ids(want)) {
					t.Fatalf("FindNamed(%q, limit %d) = %v (%v), Find %v (%v)", name, limit, ids(got), err2, ids(want), err1)
				}
			}
		}
		want, _ := p.Find(ctx, func(h *Hit, _ string) bool { return h.Label == string(schema.LabelFile) }, 1<<30)
		got, err := p.FindFiles(ctx, all, 1<<30)
		if err != nil || len(want) == 0 || !slices.Equal(ids(got), ids(want)) {
			t.Fatalf("FindFiles = %v (%v), Find %v", ids(got), err, ids(want))
		}
	}
}
