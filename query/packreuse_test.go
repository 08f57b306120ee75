package query

import (
	"maps"
	"reflect"
	"slices"
	"testing"
)

// asFileIndex lays a built index out as a pack holds it (encodeIndex) and
// reads it back, for mergeIndex's base.
func asFileIndex(t *testing.T, ix *bm25Index, nodes int) *fileIndex {
	t.Helper()
	b := encodeIndex(ix, nodes)
	d := &packData{sections: map[string]*section{secIdent: newSection(secIdent, 0, string(b), string(appendBlockCRCs(nil, b)))}}
	got, err := d.decodeIndex(secIdent, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return got.file
}

// TestMergeIndex: the base's documents, moved to new positions (out of
// their order, some dropped), merged with documents indexed anew, make the
// index a build of every document at its new position makes.
func TestMergeIndex(t *testing.T) {
	oldDocs := []string{"parse config file", "open file reader", "close the reader", "config loader parse"}
	old := newIndexBuilder()
	for d, s := range oldDocs {
		old.add(int32(d), s)
	}
	base := asFileIndex(t, old.done(len(oldDocs)), len(oldDocs))

	// New positions: 0 ← old 3, 1 new, 2 ← old 0, 3 ← old 1, 4 new (empty);
	// old 2 went.
	remap := []int32{2, 3, -1, 0}
	fresh := map[int32]string{1: "write config reader", 4: ""}
	want := []string{oldDocs[3], fresh[1], oldDocs[0], oldDocs[1], fresh[4]}

	nb := newIndexBuilder()
	for d := range int32(len(want)) {
		if s, ok := fresh[d]; ok {
			nb.add(d, s)
		}
	}
	got, err := mergeIndex(nb.done(len(want)), base, remap)
	if err != nil {
		t.Fatal(err)
	}

	full := newIndexBuilder()
	for d, s := range want {
		full.add(int32(d), s)
	}
	exp := full.done(len(want))
	if got.numDocs != exp.numDocs || got.avgLen != exp.avgLen || !reflect.DeepEqual(got.docLen, exp.docLen) {
		t.Errorf("stats: got %d docs, avg %v, lens %v; want %d, %v, %v", got.numDocs, got.avgLen, got.docLen, exp.numDocs, exp.avgLen, exp.docLen)
	}
	if g, w := slices.Sorted(maps.Keys(got.built)), slices.Sorted(maps.Keys(exp.built)); !reflect.DeepEqual(g, w) {
		t.Fatalf("terms: got %v, want %v", g, w)
	}
	for term, pl := range exp.built {
		if g, w := got.built[term].postings(), pl.postings(); !reflect.DeepEqual(g, w) {
			t.Errorf("term %q: got %v, want %v", term, g, w)
		}
	}
}
