package query

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"unsafe"

	"github.com/kljensen/snowball/english"

	"github.com/gitnexus/gitnexus/graph/text"
)

// bm25Index is one field's inverted index: the keyword engine. Documents
// are node positions of the pack (0..nodes-1); a node that is no document
// of this field has length 0.
//
// How a document is indexed: text.Words cuts its text into words (Unicode
// letters, marks and digits; identifiers split at case changes, each
// multi-word segment also kept whole; every other rune, newlines
// included, separates), stop words (text.StopWords) are dropped, words of
// the letters a–z only are stemmed (Snowball english; other words are
// kept as they are). A document's length is its number of words after
// stop words. How it scores: each distinct query term found adds
//
//	log10((N − df + 0.5) / (df + 0.5) + 1) × tf·(k+1) / (tf + k·(1 − b + b·len/avglen))
//
// with k = 1.2, b = 0.75, N the number of documents (those with at least
// one word), df the documents holding the term and tf its count in the
// document.
type bm25Index struct {
	numDocs int
	avgLen  float64
	// Built (indexBuilder): lengths by document and postings by term.
	docLen []uint32
	built  map[string]*postingList
	// Read from a pack (see packfile.go): decoded on demand.
	file *fileIndex
}

// postingList is one term's postings as the builder keeps them: already
// in the pack's encoding, a uvarint (document delta, tf) pair each, in
// increasing document order. About 2–3 bytes a posting instead of 8: on
// the Linux kernel the body index holds tens of millions.
type postingList struct {
	count int32
	last  int32 // the last document appended
	buf   []byte
}

// append adds document doc with term frequency tf; doc must be larger
// than every document appended before (indexBuilder.add sees each
// document once, in increasing order).
func (pl *postingList) append(doc int32, tf uint32) {
	if pl.count > 0 && doc <= pl.last {
		panic(fmt.Sprintf("query: postings out of order (%d after %d)", doc, pl.last))
	}
	pl.buf = binary.AppendUvarint(pl.buf, uint64(doc-pl.last))
	pl.buf = binary.AppendUvarint(pl.buf, uint64(tf))
	pl.last = doc
	pl.count++
}

// postings decodes the list.
func (pl *postingList) postings() []posting {
	out := make([]posting, 0, pl.count)
	b, doc := unsafe.String(unsafe.SliceData(pl.buf), len(pl.buf)), uint64(0)
	for len(b) > 0 {
		d, tf, rest, ok := nextPosting(b)
		if !ok {
			panic("query: a posting list the builder wrote does not decode")
		}
		b = rest
		doc += d
		out = append(out, posting{doc: int32(doc), tf: uint32(tf)})
	}
	return out
}

// nextPosting decodes the first posting of b, a term's postings as
// postingList and the pack keep them: the document delta, the term
// frequency and the rest of b; ok is false when b does not start with a
// whole posting.
func nextPosting(b string) (delta, tf uint64, rest string, ok bool) {
	d, i := uvarintString(b)
	if i <= 0 {
		return 0, 0, b, false
	}
	f, j := uvarintString(b[i:])
	if j <= 0 {
		return 0, 0, b, false
	}
	return d, f, b[i+j:], true
}

type posting struct {
	doc int32
	tf  uint32
}

const (
	bm25K = 1.2
	bm25B = 0.75
)

// length is document doc's length in words.
func (ix *bm25Index) length(doc int32) uint32 {
	if ix.file != nil {
		return ix.file.length(doc)
	}
	return ix.docLen[doc]
}

// raw is term's postings as the index holds them (count, then (doc delta,
// tf) uvarint pairs; see postingList); count 0 when no document holds it.
func (ix *bm25Index) raw(term string) (int, string, error) {
	if ix.file != nil {
		i, ok, err := ix.file.find(term)
		if err != nil || !ok {
			return 0, "", err
		}
		return ix.file.postingsOf(i)
	}
	if pl := ix.built[term]; pl != nil {
		return int(pl.count), unsafe.String(unsafe.SliceData(pl.buf), len(pl.buf)), nil
	}
	return 0, "", nil
}

// stemmer maps a word to its index term: Snowball english for words of
// a–z only, the word itself otherwise. It remembers what it has stemmed.
type stemmer map[string]string

func (s stemmer) term(w string) string {
	if st, ok := s[w]; ok {
		return st
	}
	st := stem(w)
	s[w] = st
	return st
}

// stem is w's index term (stemmer.term without the memory).
func stem(w string) string {
	st := w
	if azOnly(w) {
		st = english.Stem(w, true)
		// An agent noun names what does the verb (hasher, matcher, parser,
		// handler): Snowball keeps its "-er", code names use it for the
		// thing that does the job, so it meets the verb's stem (hash,
		// match, pars, handl). Short stems keep it (user, order, layer).
		if len(st) >= 6 && strings.HasSuffix(st, "er") {
			st = st[:len(st)-2]
		}
	}
	return st
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

// indexBuilder accumulates the documents of one field. Words become term
// ids through one map lookup each (words: a word's id, or stopWord; only a
// new word is stemmed and looked up in terms), and a document's term
// frequencies are counted in a slice by id: tokenizing and counting are
// most of a pack's work (the Linux kernel's bodies).
type indexBuilder struct {
	ix       *bm25Index
	totalLen uint64
	tok      text.Tokenizer
	words    map[string]int32 // word → term id, or stopWord
	terms    map[string]int32 // term → id
	lists    []postingList    // by term id
	tf       []uint32         // by term id: counts in the document being added
	touched  []int32          // term ids counted in it
	// keys holds the bytes of the maps' keys (intern): a few large blocks
	// instead of a string allocated per distinct word and term (with a
	// postingList per term), millions of objects on the Linux kernel that
	// every collection during the pack marked again: its pack phase went
	// from 80-96 s to 58 s, the pack byte-identical.
	keys []byte
}

// stopWord marks a word of text.StopWords in indexBuilder.words.
const stopWord = -1

func newIndexBuilder() *indexBuilder {
	return &indexBuilder{words: map[string]int32{}, terms: map[string]int32{}, ix: &bm25Index{}}
}

// termID is w's term id, stopWord for a stop word.
func (b *indexBuilder) termID(w []byte) int32 {
	if id, ok := b.words[string(w)]; ok {
		return id
	}
	word := b.intern(w)
	if text.StopWords[word] {
		b.words[word] = stopWord
		return stopWord
	}
	t := stem(word)
	id, ok := b.terms[t]
	if !ok {
		id = int32(len(b.lists))
		if t == word {
			t = word // the same bytes, already in the key blocks
		} else {
			t = b.intern(unsafe.Slice(unsafe.StringData(t), len(t)))
		}
		b.terms[t] = id
		b.lists = append(b.lists, postingList{})
		b.tf = append(b.tf, 0)
	}
	b.words[word] = id
	return id
}

// keyBlock is the size of the blocks intern copies keys into.
const keyBlock = 1 << 20

// intern copies w into the builder's key blocks and returns it as a
// string there. A block is never written again where a string points,
// so the strings stay what they were.
func (b *indexBuilder) intern(w []byte) string {
	if len(w) == 0 {
		return ""
	}
	if len(b.keys)+len(w) > cap(b.keys) {
		b.keys = make([]byte, 0, max(keyBlock, len(w)))
	}
	at := len(b.keys)
	b.keys = append(b.keys, w...)
	return unsafe.String(&b.keys[at], len(w))
}

// add indexes the texts as one document doc (each document once, in
// increasing order).
func (b *indexBuilder) add(doc int32, texts ...string) {
	var n uint32
	for _, s := range texts {
		b.tok.Words(s, func(w []byte) {
			id := b.termID(w)
			if id == stopWord {
				return
			}
			n++
			if b.tf[id] == 0 {
				b.touched = append(b.touched, id)
			}
			b.tf[id]++
		})
	}
	if int(doc) >= len(b.ix.docLen) {
		b.ix.docLen = append(b.ix.docLen, make([]uint32, int(doc)+1-len(b.ix.docLen))...)
	}
	if n == 0 {
		return // no words: not a document (counts toward neither N nor avglen)
	}
	b.ix.docLen[doc] = n
	b.ix.numDocs++
	b.totalLen += uint64(n)
	for _, id := range b.touched {
		b.lists[id].append(doc, b.tf[id])
		b.tf[id] = 0
	}
	b.touched = b.touched[:0]
}

// done finishes the index over nodes documents.
func (b *indexBuilder) done(nodes int) *bm25Index {
	if b.terms != nil { // the first call
		b.ix.built = make(map[string]*postingList, len(b.terms))
		for t, id := range b.terms {
			b.ix.built[t] = &b.lists[id]
		}
		b.words, b.terms, b.lists, b.tf, b.keys = nil, nil, nil, nil, nil
	}
	if len(b.ix.docLen) < nodes {
		b.ix.docLen = append(b.ix.docLen, make([]uint32, nodes-len(b.ix.docLen))...)
	}
	if b.ix.numDocs > 0 {
		b.ix.avgLen = float64(b.totalLen) / float64(b.ix.numDocs)
	}
	return b.ix
}

// mergeShards is the index of the shards' documents over nodes
// documents: shards are builders each given a disjoint share of the
// documents (startBodies), and the result is what a single builder given
// them all would have built. A term in one shard keeps that shard's
// postings; a term in several gets theirs merged in document order.
func mergeShards(shards []*indexBuilder, nodes int) *bm25Index {
	var total uint64
	for _, s := range shards {
		total += s.totalLen
		s.done(nodes)
	}
	ix := shards[0].ix
	for _, s := range shards[1:] {
		o := s.ix
		for d, l := range o.docLen {
			if l > 0 {
				ix.docLen[d] = l
			}
		}
		ix.numDocs += o.numDocs
		for t, pl := range o.built {
			if have := ix.built[t]; have != nil {
				ix.built[t] = mergePostings(have, pl)
				// The merged lists' bytes go now, not with their shards'.
				have.buf, pl.buf = nil, nil
			} else {
				ix.built[t] = pl
			}
		}
		s.ix = nil
	}
	ix.avgLen = 0
	if ix.numDocs > 0 {
		ix.avgLen = float64(total) / float64(ix.numDocs)
	}
	return ix
}

// mergePostings is the postings of a and b, two lists with no document in
// common, in document order.
func mergePostings(a, b *postingList) *postingList {
	out := &postingList{buf: make([]byte, 0, len(a.buf)+len(b.buf)+8)}
	as, bs := unsafe.String(unsafe.SliceData(a.buf), len(a.buf)), unsafe.String(unsafe.SliceData(b.buf), len(b.buf))
	// next decodes the posting at the head of s, whose previous document
	// was doc: its document, its frequency, the rest of s, and false at
	// the end.
	next := func(s string, doc uint64) (uint64, uint64, string, bool) {
		d, tf, rest, ok := nextPosting(s)
		if !ok {
			if len(s) > 0 {
				panic("query: a posting list the builder wrote does not decode")
			}
			return 0, 0, s, false
		}
		return doc + d, tf, rest, true
	}
	ad, atf, as, aok := next(as, 0)
	bd, btf, bs, bok := next(bs, 0)
	for aok || bok {
		if aok && (!bok || ad < bd) {
			out.append(int32(ad), uint32(atf))
			ad, atf, as, aok = next(as, ad)
		} else {
			out.append(int32(bd), uint32(btf))
			bd, btf, bs, bok = next(bs, bd)
		}
	}
	return out
}

// scoreWeighted returns the BM25 score of every document matching at
// least one of the query terms (words as Parse makes them), each term's
// BM25 multiplied by weight[term] (1 for a term weight does not name;
// weight may be nil): docs in the order first matched, and each one's
// score at score[doc] (a slice over all nodes documents; the Linux
// kernel's common terms match hundreds of thousands of them, where a map
// was most of a warm query's time).
func (ix *bm25Index) scoreWeighted(terms []string, weight map[string]float64, nodes int) (docs []int32, score []float64, err error) {
	seen := map[string]bool{}
	stem := stemmer{}
	var matched []uint64 // a bit per document: in docs
	for _, w := range terms {
		if text.StopWords[w] {
			continue
		}
		t := stem.term(w)
		if seen[t] {
			continue
		}
		seen[t] = true
		df, b, err := ix.raw(t)
		if err != nil {
			return nil, nil, err
		}
		if df == 0 {
			continue
		}
		if score == nil {
			docs, score, matched = getScores(nodes)
		}
		n := float64(ix.numDocs)
		idf := math.Log10((n-float64(df)+0.5)/(float64(df)+0.5) + 1)
		if wt, ok := weight[w]; ok {
			idf *= wt
		}
		// The postings are decoded as they are scored: on the Linux kernel a
		// query's common words hold millions of them, which a slice of
		// postings per term allocated and the collector then scanned.
		doc := uint64(0)
		for range df {
			d, f, rest, ok := nextPosting(b)
			b = rest
			doc += d
			if !ok || doc >= uint64(nodes) {
				return nil, nil, fmt.Errorf("%w (postings of %q)", ErrPackDamaged, t)
			}
			p := int32(doc)
			tf := float64(f)
			l := float64(ix.length(p))
			if bit := uint64(1) << (p % 64); matched[p/64]&bit == 0 {
				matched[p/64] |= bit
				docs = append(docs, p)
			}
			score[p] += idf * (tf * (bm25K + 1) / (tf + bm25K*(1-bm25B+bm25B*(l/ix.avgLen))))
		}
	}
	if matched != nil {
		for _, d := range docs {
			matched[d/64] = 0
		}
		scoreBits.Put(&matched)
	}
	return docs, score, nil
}

// The per-document arrays of a search (on the Linux kernel 7.7 MB of
// scores per field), kept between searches instead of allocated for each
// (which was most of a warm server query's garbage) and zeroed where a
// search wrote (its matched documents) when given back.
var scoreArrays, scoreBits, scoreDocs sync.Pool // *[]float64, *[]uint64, *[]int32

// getScores is an empty list of documents, an array of zero scores and
// one of zero bits over nodes documents.
func getScores(nodes int) ([]int32, []float64, []uint64) {
	var docs []int32
	if p, _ := scoreDocs.Get().(*[]int32); p != nil {
		docs = (*p)[:0]
	}
	var score []float64
	if p, _ := scoreArrays.Get().(*[]float64); p != nil && len(*p) == nodes {
		score = *p
	} else {
		score = make([]float64, nodes)
	}
	var bits []uint64
	if p, _ := scoreBits.Get().(*[]uint64); p != nil && len(*p) == (nodes+63)/64 {
		bits = *p
	} else {
		bits = make([]uint64, (nodes+63)/64)
	}
	return docs, score, bits
}

// putScores gives back the scores of scoreWeighted, once read: docs are
// the documents it returned with them.
func putScores(docs []int32, score []float64) {
	if score == nil {
		return
	}
	for _, d := range docs {
		score[d] = 0
	}
	scoreArrays.Put(&score)
	scoreDocs.Put(&docs)
}
