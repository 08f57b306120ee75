package vectors

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// FromDB reads reusable vectors from the live index (opened read-only
// while the new one is built). Lookups go in pages so memory stays bounded.
// An index whose metadata counts no vectors has nothing to reuse (it may
// have no schema.LabelEmbedding table at all): Lookup then finds nothing.
func FromDB(db *graph.DB) Previous { return dbPrevious{db} }

type dbPrevious struct{ db *graph.DB }

func (p dbPrevious) Lookup(ctx context.Context, ids []string) (map[string]Stored, error) {
	out := make(map[string]Stored, len(ids))
	if m := p.db.Meta(); m == nil || m.Embeddings.Count == 0 {
		return out, nil
	}
	const page = 512
	for start := 0; start < len(ids); start += page {
		// ids inline as literals: go-kuzu leaks bound string parameters.
		res, err := p.db.Query(ctx, "MATCH (e:"+string(schema.LabelEmbedding)+") WHERE e.id IN "+
			schema.QuoteList(ids[start:min(start+page, len(ids))])+" RETURN e.id, e.hash, e.vector", nil)
		if err != nil {
			return nil, fmt.Errorf("read previous vectors: %w", err)
		}
		for _, row := range res.Rows {
			id, _ := row[0].(string)
			hash, _ := row[1].(string)
			vec, err := floats(row[2])
			if err != nil {
				return nil, fmt.Errorf("previous vector %s: %w", id, err)
			}
			out[id] = Stored{Hash: hash, Vector: vec}
		}
	}
	return out, nil
}

func floats(v any) ([]float32, error) {
	switch x := v.(type) {
	case []float32:
		return x, nil
	case []any:
		out := make([]float32, len(x))
		for i, e := range x {
			switch f := e.(type) {
			case float32:
				out[i] = f
			case float64:
				out[i] = float32(f)
			default:
				return nil, fmt.Errorf("element %d is %T", i, e)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("vector is %T", v)
}
