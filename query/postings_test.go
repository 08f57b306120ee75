package query

import (
	"math/rand"
	"reflect"
	"testing"
)

// TestPostingListMatchesPackDecoder: postings the builder keeps in the
// pack's encoding (postingList) read back, through the pack's own decoder
// (bm25Index.raw, nextPosting), as the documents and term frequencies added; and an
// out-of-order document is refused, not silently mis-encoded.
func TestPostingListMatchesPackDecoder(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 50; trial++ {
		var pl postingList
		var want []posting
		doc := int32(-1)
		for i := rng.Intn(200); i > 0; i-- {
			doc += 1 + int32(rng.Intn(1000))
			tf := uint32(1 + rng.Intn(300))
			pl.append(doc, tf)
			want = append(want, posting{doc: doc, tf: tf})
		}
		ix := &bm25Index{built: map[string]*postingList{}}
		if pl.count > 0 {
			ix.built["t"] = &pl
		}
		ix.docLen = make([]uint32, doc+1)
		fi := asFileIndex(t, ix, int(doc)+1)
		n, b, err := (&bm25Index{file: fi}).raw("t")
		if err != nil || n != len(want) {
			t.Fatalf("trial %d: %d postings (%v), want %d", trial, n, err, len(want))
		}
		got := []posting{}
		for d := uint64(0); len(b) > 0; {
			delta, tf, rest, ok := nextPosting(b)
			if !ok {
				t.Fatalf("trial %d: postings do not decode", trial)
			}
			d += delta
			b = rest
			got = append(got, posting{doc: int32(d), tf: uint32(tf)})
		}
		if len(want) == 0 {
			want = []posting{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: decoded %v, want %v", trial, got, want)
		}
		if pl.count > 0 && !reflect.DeepEqual(pl.postings(), want) {
			t.Fatalf("trial %d: postings() differ", trial)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a document appended out of order was accepted")
		}
	}()
	var pl postingList
	pl.append(5, 1)
	pl.append(3, 1)
}
