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
// best chunk.
//
// The vector goes into the statement as a literal of numbers, never as a
// string parameter (go-kuzu leaks those).
func VectorRetriever(db Querier, embedQuery func(context.Context, string) ([]float32, error)) VectorFunc {
	return func(ctx context.Context, q string, k int, keep func(*Hit) bool) ([]Hit, error) {
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
			"RETURN e.ownerId, e.ownerLabel, sim ORDER BY sim DESC LIMIT %d", schema.LabelEmbedding, lit.String(), len(v), k*vectorOverFetch)
		res, err := db.Query(ctx, stmt, nil)
		if err != nil {
			if missingIndex(err) {
				return nil, ErrNoVectors
			}
			return nil, fmt.Errorf("vector scan: %w", err)
		}
		type best struct {
			label string
			sim   float64
		}
		var order []string
		bestOf := map[string]best{}
		for _, row := range res.Rows {
			id := str(row[0])
			if _, ok := bestOf[id]; ok {
				continue // rows come best first: the first chunk is the best
			}
			bestOf[id] = best{str(row[1]), flt(row[2])}
			order = append(order, id)
		}
		// Fetch the symbols' columns, per table.
		byLabel := map[string][]string{}
		for _, id := range order {
			byLabel[bestOf[id].label] = append(byLabel[bestOf[id].label], id)
		}
		hits := map[string]Hit{}
		for label, ids := range byLabel {
			if !identRE.MatchString(label) {
				continue
			}
			stmt := fmt.Sprintf("MATCH (n:%s) WHERE n.id IN %s RETURN n.id, n.name, n.kind, n.filePath, n.startLine, n.endLine, n.language", label, schema.QuoteList(ids))
			if label == string(schema.LabelFile) { // a file summary's vector: the file, as keyword search reads one
				stmt = fmt.Sprintf("MATCH (n:File) WHERE n.id IN %s RETURN n.id, n.name, 'file', n.path, 1, n.lines, n.language", schema.QuoteList(ids))
			}
			r, err := db.Query(ctx, stmt, nil)
			if err != nil {
				return nil, fmt.Errorf("vector hits: %w", err)
			}
			for _, row := range r.Rows {
				id := str(row[0])
				hits[id] = Hit{ID: id, Name: str(row[1]), Kind: str(row[2]), FilePath: str(row[3]), StartLine: num(row[4]),
					EndLine: num(row[5]), Language: str(row[6]), Label: label, Score: bestOf[id].sim}
			}
		}
		var out []Hit
		for _, id := range order {
			h, ok := hits[id]
			if !ok || (keep != nil && !keep(&h)) {
				continue
			}
			out = append(out, h)
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
