package embed

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPlanBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := make([]int, 1000)
	for i := range lengths {
		lengths[i] = 2 + r.IntN(511)
	}
	const bs, budget = 32, 4096
	plan := PlanBatches(lengths, bs, budget)
	seen := make([]bool, len(lengths))
	prevMax := 0
	for _, b := range plan {
		longest := 0
		for _, i := range b {
			if seen[i] {
				t.Fatalf("index %d in two batches", i)
			}
			seen[i] = true
			longest = max(longest, lengths[i])
			if lengths[i] < prevMax {
				t.Fatalf("batches not in length order")
			}
		}
		if len(b) > bs || (len(b) > 1 && len(b)*longest > budget) {
			t.Errorf("batch of %d × %d breaks the limits", len(b), longest)
		}
		prevMax = longest
	}
	if slices.Contains(seen, false) {
		t.Error("some sequence in no batch")
	}
	// Padding stays small: sorted batches waste under 10% here.
	var real, padded int
	for _, b := range plan {
		longest := 0
		for _, i := range b {
			real += lengths[i]
			longest = max(longest, lengths[i])
		}
		padded += len(b) * longest
	}
	if float64(padded) > 1.1*float64(real) {
		t.Errorf("padding overhead %.1f%%", 100*float64(padded-real)/float64(real))
	}
	if got := PlanBatches(nil, 0, 0); len(got) != 0 {
		t.Errorf("empty plan: %v", got)
	}
	if got := PlanBatches([]int{600}, 4, 100); len(got) != 1 || len(got[0]) != 1 {
		t.Errorf("oversized sequence must still get a batch: %v", got)
	}
}
