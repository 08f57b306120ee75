package query

import (
	"context"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// Pack is what a keyword search reads, in one file beside the database:
// the Snapshot (symbols, files, expanded edges, processes) and in-memory
// copies of the two SearchTable full-text indexes (memIndex). analyze
// writes it (BuildPack, WriteFile) from the database it has just built;
// `gitnexus query` in keyword mode reads it (ReadPack) instead of opening
// Kuzu, which on prometheus takes 100 ms of a 300 ms query before the first
// statement runs. A search given a Pack (Options.Pack) returns what the
// same search on the database returns (TestPackMatchesKuzu).
//
// It covers the default search plan only: a search with Options.Files (the
// File index), Content (source text) or vectors still needs the database.
type Pack struct {
	snap  *Snapshot
	index map[string]*memIndex // by full-text index name (IndexIdent, IndexDoc)
}

// Snapshot is the pack's snapshot.
func (p *Pack) Snapshot() *Snapshot { return p.snap }

// packReadRows is how many SearchTable rows BuildPack reads at a time (a
// variable for tests).
var packReadRows = 20000

// BuildPack reads a Pack from a database that BuildIndexes has run on: the
// snapshot (LoadSnapshot) and the indexed text of SearchTable.
func BuildPack(ctx context.Context, q Querier) (*Pack, error) {
	snap, err := LoadSnapshot(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &Pack{snap: snap, index: map[string]*memIndex{}}
	// text.StopWords is the list BuildIndexes gives Kuzu (its true
	// entries; a false one is a word kept on purpose).
	stem := stemmer{}
	ident := newMemIndexBuilder(len(snap.nodes), text.StopWords, stem)
	doc := newMemIndexBuilder(len(snap.nodes), text.StopWords, stem)
	// The text is read in slices of the table (by row offset), so that a
	// large repository's text is never all in memory at once.
	total, err := readAll(ctx, q, fmt.Sprintf("MATCH (n:%s) RETURN count(n)", SearchTable))
	if err != nil {
		return nil, fmt.Errorf("pack: count %s: %w", SearchTable, err)
	}
	n := 0
	if len(total.Rows) > 0 {
		n = num(total.Rows[0][0])
	}
	seen := 0
	for lo := 0; lo < n; lo += packReadRows {
		res, err := readAll(ctx, q, fmt.Sprintf("MATCH (n:%s) WHERE offset(id(n)) >= %d AND offset(id(n)) < %d RETURN n.id, n.ident, n.doc",
			SearchTable, lo, lo+packReadRows))
		if err != nil {
			return nil, fmt.Errorf("pack: read %s: %w", SearchTable, err)
		}
		for _, r := range res.Rows {
			i, ok := snap.index[str(r[0])]
			if !ok {
				return nil, fmt.Errorf("pack: %s row %q is no symbol of the snapshot", SearchTable, str(r[0]))
			}
			ident.add(int32(i), str(r[1]))
			doc.add(int32(i), str(r[2]))
			seen++
		}
	}
	if seen != n {
		return nil, fmt.Errorf("pack: read %d of the %d rows of %s", seen, n, SearchTable)
	}
	// The name-prefix scan runs over the snapshot's symbols where the
	// database scans SearchTable: they must be the same symbols.
	symbols := 0
	for _, h := range snap.nodes {
		if schema.Label(h.Label).IsSymbol() {
			symbols++
		}
	}
	if symbols != n {
		return nil, fmt.Errorf("pack: %s has %d rows for %d symbols", SearchTable, n, symbols)
	}
	p.index[IndexIdent] = ident.done()
	p.index[IndexDoc] = doc.done()
	return p, nil
}

// covers reports whether the pack can answer a query of this plan index.
func (p *Pack) covers(ix Index) bool {
	return ix.Table == SearchTable && p.index[ix.Name] != nil
}

// queryIndex is queryIndex over the pack: the matches of ftsq, best
// first, ties by id, at most top.
func (p *Pack) queryIndex(ix Index, ftsq string, top int) ([]indexHit, error) {
	mi := p.index[ix.Name]
	if ix.Table != SearchTable || mi == nil {
		return nil, fmt.Errorf("pack has no index %s.%s", ix.Table, ix.Name)
	}
	scores := mi.score(ftsq)
	out := make([]indexHit, 0, len(scores))
	for doc, s := range scores {
		out = append(out, indexHit{hit: p.snap.nodes[doc], bm25: s})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].bm25 != out[b].bm25 {
			return out[a].bm25 > out[b].bm25
		}
		return out[a].hit.ID < out[b].hit.ID
	})
	if len(out) > top {
		out = out[:top]
	}
	return out, nil
}

// prefixHits is prefixSearch's name scan over the pack: the symbols whose
// lower-cased name starts with prefix, shortest names first, then by id,
// at most prefixMatches.
func (p *Pack) prefixHits(prefix string) []Hit {
	var out []Hit
	for _, h := range p.snap.nodes {
		if !schema.Label(h.Label).IsSymbol() || len(h.Name) < len(prefix) {
			continue
		}
		if lowerASCII(h.Name[:len(prefix)]) == prefix {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		la, lb := utf8.RuneCountInString(out[a].Name), utf8.RuneCountInString(out[b].Name)
		if la != lb {
			return la < lb
		}
		return out[a].ID < out[b].ID
	})
	if len(out) > prefixMatches {
		out = out[:prefixMatches]
	}
	return out
}

// lowerASCII lower-cases the ASCII capitals of s, leaving other bytes
// alone (Kuzu's full-text normalization), allocating only when it changes s.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
