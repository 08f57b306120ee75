package query

import (
	"context"
	"sort"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Ranking holds the ranking constants. doc.go explains each and how they
// were chosen; query/eval measures alternatives.
type Ranking struct {
	// Decay is the factor a hit's score is multiplied by when expansion
	// carries it over one relationship of this type. Types absent here
	// are not followed.
	Decay map[schema.RelType]float64
	// ExpandSeeds is how many of the best hits are expanded (0: no
	// expansion).
	ExpandSeeds int
	// ExpandFanout bounds the neighbors taken from one seed over one
	// relationship type and direction, so a file defining 300 symbols or a
	// function with 200 callers cannot flood the result.
	ExpandFanout int
	// ExpandHops is how many relationships away expansion reaches.
	ExpandHops int
	// FileFactor multiplies the score of File hits: a definition that
	// matches is a better answer than the file around it.
	FileFactor float64
	// TypeFactor multiplies the score of Class and Interface hits for a
	// query in prose (sliding from 1 for one or two words to TypeFactor
	// at BodyWords, as the body's share does): a class matches a task's
	// words through all its members, the method that does the work is the
	// better answer; a short query naming a class wants the class. 0 or 1:
	// off.
	TypeFactor float64
	// TestFactor multiplies the score of hits in test code (Hit.IsTest,
	// the isTest property ingest stored and the pack carries):
	// a developer asking where something is done wants the code that does
	// it before the tests that exercise it. 1 turns it off.
	TestFactor float64
	// PrefixMin is the shortest last query word that is completed as a
	// name prefix ("validatePass" → names starting with "validatepass").
	PrefixMin int
	// PrefixWeight is the fraction of the best keyword score a symbol
	// whose name starts with that word gains; 0 turns completion off.
	PrefixWeight float64
	// Phrases is the longest run of query words also searched joined, as
	// an identifier ("user repository" → userrepository; Query.Phrases);
	// below 2, none; above MaxPhraseWords, MaxPhraseWords.
	Phrases int
	// WeightIdent, WeightDoc and WeightFile weigh the BM25 scores of the
	// pack's three fields: identifier words (name and searchText),
	// signature and doc comment, and (with Options.Files) file path and
	// name.
	WeightIdent, WeightDoc, WeightFile float64
	// WeightDocLong is the doc field's weight for a query in prose (from
	// BodyWords words on; shorter queries slide from WeightDoc to it as
	// the body's share grows): doc comments are prose too, and a long
	// query's common words match them everywhere. 0: WeightDoc throughout.
	WeightDocLong float64
	// WeightBody weighs the BM25 score of a symbol's source text (its
	// identifiers, literals and comments: what an issue quotes).
	WeightBody float64
	// BodyWords is the query length (Query.Words) at which the body field
	// counts in full; shorter queries use a linear share of it from 3
	// words on (bodyScale).
	BodyWords int
	// FileBoost adds to each keyword hit FileBoost × its file's score: the
	// best three hits of the file, weighted 1, 1/2, 1/4 — a function in a
	// file with several matching functions beats the same score elsewhere.
	FileBoost float64
	// IdentTermWeight multiplies the BM25 of the query's code-shaped terms
	// (Query.Idents); 0 or 1 leaves them as other words.
	IdentTermWeight float64
	// MentionWeight lifts what the query names outright (Query.Mentions:
	// a file path, a qualified name): the named file and every symbol in
	// it, and the named symbol, gain MentionWeight × the best keyword
	// score; 0 turns it off.
	MentionWeight float64
	// LeadTermWeight multiplies the BM25 of the words of the query's
	// first line when more lines follow (Query.Lead: an issue's title);
	// 0 or 1 leaves them as other words.
	LeadTermWeight float64
	// Combine merges the fields' scores: "sum" adds weight × BM25, "rrf"
	// fuses their ranks (weight / (RRFK + rank)).
	Combine string
}

// DefaultRanking is the ranking Search uses.
var DefaultRanking = Ranking{
	Decay: map[schema.RelType]float64{
		schema.RelHasMethod:  0.95,
		schema.RelDefines:    0.95,
		schema.RelExtends:    0.85,
		schema.RelImplements: 0.85,
		schema.RelCalls:      0.8,
		schema.RelImports:    0.7,
	},
	ExpandSeeds:     0,
	ExpandFanout:    5,
	ExpandHops:      1,
	FileFactor:      0.8,
	TestFactor:      0.7,
	TypeFactor:      0.6,
	PrefixMin:       4,
	PrefixWeight:    0.3,
	Phrases:         0,
	WeightIdent:     1,
	WeightDoc:       0.5,
	WeightFile:      1,
	WeightDocLong:   0.3,
	WeightBody:      0.45,
	BodyWords:       16,
	FileBoost:       0,
	IdentTermWeight: 1,
	MentionWeight:   0.5,
	LeadTermWeight:  2,
	Combine:         "sum",
}

// Neighbor is a node adjacent to a hit: From -[Rel]-> Hit when Out,
// Hit -[Rel]-> From otherwise.
type Neighbor struct {
	From string
	Rel  schema.RelType
	Out  bool
	Hit  Hit
}

// NeighborFunc returns the neighbors of the nodes ids over the
// relationship types rels, in both directions, at most fanout per node,
// type and direction.
type NeighborFunc func(ctx context.Context, ids []string, rels []schema.RelType, fanout int) ([]Neighbor, error)

// Expand spreads scores from the best hits to their graph neighbors:
//
//	score(n) = max(score(n), score(h) × Decay[rel])   for each edge h—rel—n
//
// taken from the first ExpandSeeds hits, ExpandHops times (each hop
// expands the nodes the previous one reached or improved). Incoming
// IMPORTS are not followed: that a file is imported by many others says
// nothing about what those importers are about. Each node keeps its best
// score, so expansion never lowers a hit. keep filters reached nodes (the
// search filters apply to them too). The result is sorted by score, ties by
// id.
func Expand(ctx context.Context, hits []Hit, r Ranking, nbrs NeighborFunc, keep func(*Hit) bool) ([]Hit, error) {
	best := map[string]*Hit{}
	order := make([]*Hit, 0, len(hits))
	for i := range hits {
		h := hits[i]
		if old := best[h.ID]; old != nil {
			if h.Score > old.Score {
				*old = h
			}
			continue
		}
		best[h.ID] = &h
		order = append(order, &h)
	}
	var rels []schema.RelType
	for _, rt := range relOrder {
		if r.Decay[rt] > 0 {
			rels = append(rels, rt)
		}
	}
	frontier := sortedHits(order)
	if len(frontier) > r.ExpandSeeds {
		frontier = frontier[:r.ExpandSeeds]
	}
	for hop := 0; hop < r.ExpandHops && len(frontier) > 0 && len(rels) > 0; hop++ {
		// Scores and sources as they stand at the start of the hop, so a
		// node improved during this hop spreads only in the next one.
		ids := make([]string, len(frontier))
		start := make(map[string]Hit, len(frontier))
		for i, h := range frontier {
			ids[i] = h.ID
			start[h.ID] = *h
		}
		ns, err := nbrs(ctx, ids, rels, r.ExpandFanout)
		if err != nil {
			return nil, err
		}
		var next []*Hit
		for _, n := range ns {
			if n.Rel == schema.RelImports && !n.Out {
				continue
			}
			from, ok := start[n.From]
			if !ok {
				continue
			}
			s := from.Score * r.Decay[n.Rel]
			cur := best[n.Hit.ID]
			if cur != nil && cur.Score >= s {
				continue
			}
			nh := n.Hit
			if keep != nil && !keep(&nh) {
				continue
			}
			nh.Score = s
			nh.Matched = from.Matched
			nh.Via = &Via{From: n.From, Rel: string(n.Rel), Incoming: !n.Out}
			if cur == nil {
				cur = &Hit{}
				best[nh.ID] = cur
				order = append(order, cur)
			}
			*cur = nh
			next = append(next, cur)
		}
		frontier = next
	}
	return derefSorted(order), nil
}

// relOrder is the order relationships are expanded in (deterministic logs).
var relOrder = []schema.RelType{
	schema.RelHasMethod, schema.RelDefines, schema.RelExtends,
	schema.RelImplements, schema.RelCalls, schema.RelImports,
}

func sortedHits(hs []*Hit) []*Hit {
	out := append([]*Hit(nil), hs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func derefSorted(hs []*Hit) []Hit {
	s := sortedHits(hs)
	out := make([]Hit, len(s))
	for i, h := range s {
		out[i] = *h
	}
	return out
}
