package query

import "sort"

// RRFK is the k of reciprocal rank fusion. 60 is the constant of Cormack,
// Clarke and Büttcher (SIGIR 2009), used unchanged by most hybrid search
// engines: it keeps a first place in one list from drowning a steady
// presence in several.
const RRFK = 60

// Ranked is one ranked list to fuse: ids best first. The list's name
// ("keyword", "vector") is what Fused.Sources reports.
type Ranked struct {
	Name string
	IDs  []string
}

// Fused is one id after fusion.
type Fused struct {
	ID    string
	Score float64 // Σ over lists containing ID of 1/(RRFK + rank), rank 1-based
	// Sources are the names of the lists the id appears in, in the order
	// the lists were given.
	Sources []string
	// Ranks are the id's 1-based rank in each list of Sources.
	Ranks []int
}

// Fuse merges any number of ranked lists by reciprocal rank fusion:
//
//	score(d) = Σ_lists 1 / (RRFK + rank_list(d))
//
// with 1-based ranks; an id absent from a list gets nothing from it. An id
// repeated within a list counts at its first (best) rank only. The result is
// sorted by score, ties broken by the best single rank and then by id, so it
// is deterministic.
func Fuse(lists ...Ranked) []Fused {
	byID := map[string]*Fused{}
	var order []*Fused
	for _, l := range lists {
		seen := map[string]bool{}
		for i, id := range l.IDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			f := byID[id]
			if f == nil {
				f = &Fused{ID: id}
				byID[id] = f
				order = append(order, f)
			}
			rank := i + 1
			f.Score += 1 / float64(RRFK+rank)
			f.Sources = append(f.Sources, l.Name)
			f.Ranks = append(f.Ranks, rank)
		}
	}
	out := make([]Fused, len(order))
	for i, f := range order {
		out[i] = *f
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if bi, bj := bestRank(out[i].Ranks), bestRank(out[j].Ranks); bi != bj {
			return bi < bj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// MaxFusedScore is the score of an id ranked first in all n lists: the
// ceiling Fuse can reach. Search divides by it so reported scores lie in
// (0, 1].
func MaxFusedScore(n int) float64 { return float64(n) / float64(RRFK+1) }

func bestRank(ranks []int) int {
	b := int(^uint(0) >> 1)
	for _, r := range ranks {
		if r < b {
			b = r
		}
	}
	return b
}
