package embed

import "slices"

// PlanBatches groups sequences for ORT runs: it sorts them by length (so a
// batch pads little) and cuts the sorted order into batches of at most
// batchSize sequences whose rows × longest length stays within maxTokens
// (a batch always takes at least one sequence). It returns, per batch, the
// indexes into lengths. Zero or negative limits mean the defaults.
func PlanBatches(lengths []int, batchSize, maxTokens int) [][]int {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	if maxTokens <= 0 {
		maxTokens = DefaultMaxBatchTokens
	}
	order := make([]int, len(lengths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lengths[a] - lengths[b] })
	var out [][]int
	for start := 0; start < len(order); {
		end := start + 1
		// Sorted ascending, so the candidate is the longest so far.
		for end < len(order) && end-start < batchSize && (end-start+1)*lengths[order[end]] <= maxTokens {
			end++
		}
		out = append(out, order[start:end:end])
		start = end
	}
	return out
}
