package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBodyShardsSameIndex: bodies indexed by several goroutines, each into
// a shard of its own (startBodies), make the body index one goroutine
// makes, byte for byte as the pack lays it out: terms shared by the
// shards, terms in one shard only, documents without words and without
// bodies, batches left partial at the end.
func TestBodyShardsSameIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	common := strings.Fields("open read write close the file buffer parse config lock unlock inode page")
	const n = 1000
	bodies := make([]string, n)
	for i := range bodies {
		switch rng.IntN(10) {
		case 0: // no body
		case 1:
			bodies[i] = "the a of" // stop words only: not a document
		default:
			var w []string
			for range 1 + rng.IntN(30) {
				if rng.IntN(4) == 0 {
					w = append(w, fmt.Sprintf("rare%dWord", rng.IntN(400)))
				} else {
					w = append(w, common[rng.IntN(len(common))])
				}
			}
			bodies[i] = strings.Join(w, " ")
		}
	}
	build := func(shards, docs int) []byte {
		b := newPackBuilder()
		b.startBodies(shards)
		for i := range docs {
			b.addSymbol(Hit{ID: fmt.Sprint("f#", i), Label: "Function", Name: fmt.Sprint("f", i)}, "", "", "", "", bodies[i])
		}
		ixs, err := b.indexes()
		if err != nil {
			t.Fatal(err)
		}
		return encodeIndex(ixs[secBody], docs)
	}
	for _, docs := range []int{0, 1, bodyBatch, bodyBatch*3 + 5, n} {
		want := build(1, docs)
		for _, shards := range []int{2, 3, 5} {
			if got := build(shards, docs); !bytes.Equal(got, want) {
				t.Errorf("%d documents, %d shards: the body index differs from one goroutine's (%d bytes against %d)", docs, shards, len(got), len(want))
			}
		}
	}
}
