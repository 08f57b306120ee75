package query

import (
	"cmp"
	"math"
	"slices"

	"github.com/kljensen/snowball/english"
)

// memIndex is an in-memory copy of one of Kuzu's full-text indexes, built
// from the same text and scored by the same formula, so that a process
// that has not opened the database (the CLI) can answer keyword queries
// without paying for the open (about 100 ms on prometheus, most of it
// spent on tables a keyword search never reads). TestPackMatchesKuzu
// checks that it returns what QUERY_FTS_INDEX returns.
//
// How Kuzu 0.11.3 indexes a document (CREATE_FTS_INDEX, stemmer english):
// every run of ASCII digits and punctuation (but the backslash) becomes a
// space, the text is lower-cased and split on spaces (empty parts
// dropped), stop words go, the rest are Snowball-stemmed. A document's
// length is its number of terms after stop words. How it scores
// (QUERY_FTS_INDEX, disjunctive):
// the query goes through the same normalization and stemming, each
// distinct term found in the index adds
//
//	log10((N − df + 0.5) / (df + 0.5) + 1) × tf·(k+1) / (tf + k·(1 − b + b·len/avglen))
//
// with k = 1.2, b = 0.75, N the number of documents, df the documents
// holding the term and tf its count in the document.
//
// Only terms made of the letters a–z are kept in postings: a query reaches
// the index as text.FTSQuery output ([a-z ] only), so no other term can
// ever match. Other tokens still count toward a document's length.
type memIndex struct {
	numDocs int
	avgLen  float64
	// Built (memIndexBuilder): lengths by document (Pack node position, 0:
	// not a document) and postings by term, sorted by document.
	docLen   []uint32
	postings map[string][]posting
	// Read from a pack file (see packfile.go): decoded on demand, so that
	// reading a pack costs nothing per term or document.
	file *fileIndex
}

// length is document doc's length in terms.
func (ix *memIndex) length(doc int32) uint32 {
	if ix.file != nil {
		return ix.file.length(doc)
	}
	return ix.docLen[doc]
}

// lookup is term's postings, nil when no document holds it.
func (ix *memIndex) lookup(term string) []posting {
	if ix.file != nil {
		return ix.file.lookup(term)
	}
	return ix.postings[term]
}

type posting struct {
	doc int32
	tf  uint32
}

const (
	bm25K = 1.2
	bm25B = 0.75
)

// ftsPunct is the byte class Kuzu's normalization replaces by a space:
// ASCII digits and ASCII punctuation except the backslash (Kuzu's pattern
// escapes '/' and '|' with one, and has none of its own).
var ftsPunct = func() (t [256]bool) {
	for _, c := range []byte("0123456789!@#$%^&*()_+={}[]:;<>,.?~/|'\"`-") {
		t[c] = true
	}
	return t
}()

// ftsTokens splits s the way Kuzu's full-text index does before stop words
// and stemming: punctuation and digits are separators, only ' ' and those
// separate (a tab or newline stays inside a token), ASCII is lower-cased.
func ftsTokens(s string, emit func(tok string)) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			emit(lowerASCII(s[start:end]))
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || ftsPunct[c] {
			flush(i)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(s))
}

// azOnly reports whether w is made of a–z only (and is not empty).
func azOnly(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stemmer stems a–z words with Snowball english (the stemmer Kuzu's
// index was created with), remembering what it has stemmed.
type stemmer map[string]string

func (s stemmer) stem(w string) string {
	if st, ok := s[w]; ok {
		return st
	}
	st := english.Stem(w, true)
	s[w] = st
	return st
}

// memIndexBuilder accumulates documents.
type memIndexBuilder struct {
	stop     map[string]bool
	stem     stemmer
	ix       *memIndex
	totalLen uint64
	tf       map[string]uint32
}

func newMemIndexBuilder(nodes int, stop map[string]bool, stem stemmer) *memIndexBuilder {
	return &memIndexBuilder{stop: stop, stem: stem, tf: map[string]uint32{},
		ix: &memIndex{docLen: make([]uint32, nodes), postings: map[string][]posting{}}}
}

// add indexes text as document doc (each document once, in any order).
func (b *memIndexBuilder) add(doc int32, text string) {
	clear(b.tf)
	var n uint32
	ftsTokens(text, func(tok string) {
		if b.stop[tok] {
			return
		}
		n++
		if azOnly(tok) {
			b.tf[b.stem.stem(tok)]++
		}
	})
	if n == 0 {
		// Kuzu keeps no document without terms: it counts neither toward
		// N nor toward the average length.
		return
	}
	b.ix.docLen[doc] = n
	b.ix.numDocs++
	b.totalLen += uint64(n)
	for t, c := range b.tf {
		b.ix.postings[t] = append(b.ix.postings[t], posting{doc: doc, tf: c})
	}
}

func (b *memIndexBuilder) done() *memIndex {
	for _, ps := range b.ix.postings {
		slices.SortFunc(ps, func(x, y posting) int { return cmp.Compare(x.doc, y.doc) })
	}
	if b.ix.numDocs > 0 {
		b.ix.avgLen = float64(b.totalLen) / float64(b.ix.numDocs)
	}
	return b.ix
}

// score returns the BM25 score of every document matching ftsq (space
// separated words), by document.
func (ix *memIndex) score(ftsq string) map[int32]float64 {
	seen := map[string]bool{}
	out := map[int32]float64{}
	ftsTokens(ftsq, func(tok string) {
		t := tok
		if azOnly(t) {
			t = english.Stem(t, true)
		}
		if seen[t] {
			return
		}
		seen[t] = true
		ps := ix.lookup(t)
		if len(ps) == 0 {
			return
		}
		n, df := float64(ix.numDocs), float64(len(ps))
		idf := math.Log10((n-df+0.5)/(df+0.5) + 1)
		for _, p := range ps {
			tf := float64(p.tf)
			l := float64(ix.length(p.doc))
			out[p.doc] += idf * (tf * (bm25K + 1) / (tf + bm25K*(1-bm25B+bm25B*(l/ix.avgLen))))
		}
	})
	return out
}
