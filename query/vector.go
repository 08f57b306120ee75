package query

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// vectorOverFetch is how many chunks are read per wanted symbol: a symbol
// with a long body has several chunks, and only its best one counts.
const vectorOverFetch = 4

// VectorRetriever returns the vector retriever over db's stored chunk
// vectors: the query is embedded by embedQuery (with the model's query
// prefix), every chunk vector is compared by cosine similarity (a brute
// force scan: Kuzu does ~100k vectors in tens of milliseconds, and an HNSW
// index is slow to build on small machines), and each symbol keeps its
// best chunk. It returns ids and similarities only: Search turns them into
// hits through the pack's snapshot, as it does keyword hits.
//
// The vector goes into the statement as a literal of numbers, never as a
// string parameter (go-kuzu leaks those).
func VectorRetriever(db Querier, embedQuery func(context.Context, string) ([]float32, error)) VectorFunc {
	return func(ctx context.Context, q string, k int) ([]Scored, error) {
		v, err := embedQuery(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		var lit strings.Builder
		lit.WriteString("[")
		for i, x := range v {
			if i > 0 {
				lit.WriteByte(',')
			}
			lit.WriteString(strconv.FormatFloat(float64(x), 'g', 8, 32))
		}
		lit.WriteString("]")
		stmt := fmt.Sprintf("MATCH (e:%s) WITH e, array_cosine_similarity(e.vector, CAST(%s AS FLOAT[%d])) AS sim "+
			"RETURN e.ownerId, sim ORDER BY sim DESC LIMIT %d", schema.LabelEmbedding, lit.String(), len(v), k*vectorOverFetch)
		res, err := db.Query(ctx, stmt, nil)
		if err != nil {
			return nil, fmt.Errorf("vector scan: %w", err)
		}
		var out []Scored
		seen := map[string]bool{}
		for _, row := range res.Rows {
			id := str(row[0])
			if seen[id] {
				continue // rows come best first: the first chunk is the best
			}
			seen[id] = true
			out = append(out, Scored{ID: id, Score: flt(row[1])})
			if len(out) == k {
				break
			}
		}
		return out, nil
	}
}

// IndexVectors is the vector retriever for an index, given the embedding
// model at hand (nil: none could be loaded, with loadErr saying why). It
// returns nil and no reason when the index has no vectors, and nil with a
// one-line reason when the model is missing or is not the one the index
// was embedded with (searching one model's vectors with another's queries
// gives noise).
func IndexVectors(db Querier, meta *graph.Meta, emb *embed.Embedder, loadErr error) (VectorFunc, string) {
	if meta == nil || meta.Embeddings.Count == 0 {
		return nil, ""
	}
	if emb == nil {
		return nil, fmt.Sprintf("vectors not searched: %v", loadErr)
	}
	if emb.ModelID() != meta.Embeddings.Model {
		return nil, fmt.Sprintf("vectors not searched: the index was embedded with %s, the model here is %s (re-run analyze)", meta.Embeddings.Model, emb.ModelID())
	}
	return VectorRetriever(db, emb.EmbedQuery), ""
}
