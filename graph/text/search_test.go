package text

import (
	"fmt"
	"slices"
	"testing"
)

// A builder holding more terms than it scans (smallTerms) goes on to a
// map and still keeps each term once, in the order first added.
func TestBuilderPastSmallTerms(t *testing.T) {
	var words []string
	for i := range 3 * smallTerms {
		words = append(words, fmt.Sprintf("w%c%c", 'a'+i%26, 'a'+i/26))
	}
	var b builder
	var want []string
	seen := map[string]bool{}
	for round := range 2 {
		for i, w := range words {
			if round == 1 && i%3 != 0 {
				continue
			}
			b.add(w)
			if !seen[w] {
				seen[w] = true
				want = append(want, w)
			}
		}
	}
	if !slices.Equal(b.out, want) {
		t.Fatalf("terms %v, want %v", b.out, want)
	}
	if b.seen == nil {
		t.Fatal("the builder never went on to its map")
	}
}
