package query

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// SourceFunc fills Signature and Content of the symbol hits: the source
// text Options.Content asks for, which the pack does not hold (it would
// double its size for one option).
type SourceFunc func(ctx context.Context, hits []Hit) error

// DBSource is the one SourceFunc: it reads the signature and content
// properties (content capped at schema.ContentCap by analyze) of the hits
// from the index database q, one statement per symbol table, ids inlined
// as quoted literals (schema.QuoteList). It never reads a file.
func DBSource(q Querier) SourceFunc {
	return func(ctx context.Context, hits []Hit) error {
		byLabel := map[string][]string{}
		for _, h := range hits {
			if schema.Label(h.Label).IsSymbol() {
				byLabel[h.Label] = append(byLabel[h.Label], h.ID)
			}
		}
		got := map[string][2]string{}
		for _, l := range schema.SymbolLabels {
			ids := byLabel[string(l)]
			if len(ids) == 0 {
				continue
			}
			res, err := q.Query(ctx, fmt.Sprintf("MATCH (n:%s) WHERE n.id IN %s RETURN n.id, n.signature, n.content", l, schema.QuoteList(ids)), nil)
			if err != nil {
				return fmt.Errorf("read content: %w", err)
			}
			for _, row := range res.Rows {
				got[str(row[0])] = [2]string{str(row[1]), str(row[2])}
			}
		}
		for i := range hits {
			if c, ok := got[hits[i].ID]; ok {
				hits[i].Signature, hits[i].Content = c[0], c[1]
			}
		}
		return nil
	}
}
