package query

import (
	"fmt"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// fillSource fills Signature and Content of the symbol hits from the
// pack: the signature from the details, the source text analyze kept
// (capped at schema.ContentCap) from the source section, each read in
// place (Options.Content). A hit the pack does not know is left as is.
func (p *Pack) fillSource(hits []Hit) error {
	for i := range hits {
		if !schema.Label(hits[i].Label).IsSymbol() {
			continue
		}
		n, ok, err := p.Node(hits[i].ID)
		if err != nil {
			return fmt.Errorf("read content: %w", err)
		}
		if !ok {
			continue
		}
		text, _, err := p.Source(hits[i].ID)
		if err != nil {
			return fmt.Errorf("read content: %w", err)
		}
		hits[i].Signature, hits[i].Content = n.Signature, text
	}
	return nil
}
