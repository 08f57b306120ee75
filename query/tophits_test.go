package query

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

// TestTopHitsIsSortedPrefix: topHits keeps what sorting every match (by
// score, then node id) and cutting at top keeps, ties included.
func TestTopHitsIsSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := range 300 {
		n := 1 + rng.Intn(400)
		nodes := make([]Hit, n)
		for i := range nodes {
			nodes[i].ID = fmt.Sprintf("id%05d", rng.Intn(100000))
		}
		score := make([]float64, n)
		var docs []int32
		for i := range n {
			if rng.Intn(3) > 0 {
				docs = append(docs, int32(i))
				score[i] = float64(rng.Intn(6)) / 2 // many ties, zeros too
			}
		}
		rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
		want := make([]indexHit, 0, len(docs))
		for _, d := range docs {
			want = append(want, indexHit{d, score[d]})
		}
		sort.Slice(want, func(a, b int) bool {
			if want[a].bm25 != want[b].bm25 {
				return want[a].bm25 > want[b].bm25
			}
			return nodes[want[a].doc].ID < nodes[want[b].doc].ID
		})
		top := rng.Intn(60)
		if len(want) > top {
			want = want[:top]
		}
		got, err := topHits(docs, score, top, func(d int32) (string, error) { return nodes[d].ID, nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		// Equal ids can tie completely; compare by (score, id).
		key := func(l []indexHit) []string {
			out := make([]string, len(l))
			for i, h := range l {
				out[i] = fmt.Sprintf("%v/%s", h.bm25, nodes[h.doc].ID)
			}
			return out
		}
		if !reflect.DeepEqual(key(got), key(want)) {
			t.Fatalf("round %d (top %d): got %v, want %v", round, top, key(got), key(want))
		}
	}
}
