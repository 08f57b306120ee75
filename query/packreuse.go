package query

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// This file owns the reuse of a pack: what lets a re-analyze build its
// pack from the last one's instead of tokenizing every node again.
//
// A pack built from a graph.Build keeps, per node, the hash of the row it
// was derived from (the rows section: the row digest's 64-bit SHA-256
// prefix of the node's NDJSON line). Everything a pack derives from a node
// — its Hit, its details but the community, its words in each index — is a
// function of that row alone. So BuildPackFrom, given the live index's
// pack as a base, reads only the rows whose hash the base does not hold;
// for the others it takes the base's Hit, details and source text and, at the end,
// merges the base's postings (renumbered to the new node positions) with
// the postings of the rows it did index. Edges, processes and communities
// are read as before. The result is the pack a full build writes, byte for
// byte (tested: index's equivalence tests compare the files).
//
// A base is only as good as the tokenizer and stemmer that wrote it: the
// caller passes one only when the live index was built by this very
// gitnexus (index.Build checks the build stamp, as for the fact cache).

// secRows is the optional section of row hashes: uint64 LE per node, in
// node order. A pack without it (built from a database alone) cannot be a
// base.
const secRows = "rows"

// rowHasher is a Querier that knows the row hash of every row of its node
// tables, in the order the rows are read (graph.Build.NodeRowHashes).
type rowHasher interface {
	NodeRowHashes(l schema.Label) []uint64
}

// rowKey names a base node by its table and row hash.
type rowKey struct {
	label schema.Label
	row   uint64
}

// packBase is what a build reuses of the last pack.
type packBase struct {
	nodes   []node
	details []nodeDetails
	byRow   map[rowKey]int32
	indexes map[string]*fileIndex
	source  *sourceTable
	unfreed int // bytes of source read since the section was last released
	// remap is the new position of each base node (-1: not reused).
	remap  []int32
	reused int
}

// newPackBase reads what BuildPackFrom reuses of base: its nodes, details,
// row hashes and indexes. An error means no reuse (a pack without row
// hashes, or a damaged one).
func newPackBase(base *Pack) (*packBase, error) {
	nt, err := base.nodeTable()
	if err != nil {
		return nil, err
	}
	ds, err := base.details()
	if err != nil {
		return nil, err
	}
	if _, ok := base.src.sections[secRows]; !ok {
		return nil, fmt.Errorf("the base pack has no row hashes")
	}
	r, err := base.src.section(secRows)
	if err != nil {
		return nil, err
	}
	if len(r.all) != 8*len(nt.nodes) {
		return nil, fmt.Errorf("%w (rows: %d bytes for %d nodes)", ErrPackDamaged, len(r.all), len(nt.nodes))
	}
	src, err := base.src.sources()
	if err != nil {
		return nil, err
	}
	if src.n != len(nt.nodes) {
		return nil, fmt.Errorf("%w (source: %d texts for %d nodes)", ErrPackDamaged, src.n, len(nt.nodes))
	}
	// Checked whole now, as the indexes are below: the texts reused are
	// copied from it (most of it), and a damaged base means no reuse. Its
	// pages then leave the resident set (as they do while the texts are
	// copied: sourceText), so that a mapped base's source (kubernetes: 31
	// MB) does not add to the build's peak.
	if _, err := src.sec.all(); err != nil {
		return nil, err
	}
	src.sec.release()
	pb := &packBase{nodes: nt.nodes, details: ds, source: src, byRow: make(map[rowKey]int32, len(nt.nodes)),
		indexes: map[string]*fileIndex{}, remap: make([]int32, len(nt.nodes))}
	for i := range nt.nodes {
		h := binary.LittleEndian.Uint64([]byte(r.all[8*i : 8*i+8]))
		pb.remap[i] = -1
		if h != 0 {
			pb.byRow[rowKey{schema.Label(nt.nodes[i].Label), h}] = int32(i)
		}
	}
	for _, name := range []string{secIdent, secDoc, secFile, secBody} {
		ix, err := base.index(name)
		if err != nil {
			return nil, err
		}
		// Every term is read: every block checked first, so that a damaged
		// base means no reuse, not a failed build.
		if _, err := ix.file.sec.all(); err != nil {
			return nil, err
		}
		pb.indexes[name] = ix.file
	}
	return pb, nil
}

// sourceText is the source text of base node j, to be copied at once (the
// string lies in the base's mapping, whose pages are released every few
// MiB read).
func (pb *packBase) sourceText(j int32) (string, error) {
	text, err := pb.source.text(int(j))
	if pb.unfreed += len(text); pb.unfreed >= 4<<20 {
		pb.source.sec.release()
		pb.unfreed = 0
	}
	return text, err
}

// lookup is the base node derived from the row of table l with hash row.
func (pb *packBase) lookup(l schema.Label, row uint64) (int32, bool) {
	if pb == nil || row == 0 {
		return 0, false
	}
	i, ok := pb.byRow[rowKey{l, row}]
	return i, ok
}

// mergeIndex is the index of a field over all n nodes: fresh holds the
// documents of the rows indexed in this build (done(n)), old the base's,
// whose documents move to their remapped positions (those not reused are
// dropped). Terms whose documents all went are dropped, as a full build
// never had them.
func mergeIndex(fresh *bm25Index, old *fileIndex, remap []int32) (*bm25Index, error) {
	ix := &bm25Index{docLen: fresh.docLen, built: fresh.built}
	for od, nd := range remap {
		if nd >= 0 {
			ix.docLen[nd] = old.length(int32(od))
		}
	}
	var total uint64
	for _, l := range ix.docLen {
		if l > 0 {
			ix.numDocs++
			total += uint64(l)
		}
	}
	if ix.numDocs > 0 {
		ix.avgLen = float64(total) / float64(ix.numDocs)
	}
	var moved []posting
	for t := range old.terms {
		term, err := old.term(t)
		if err != nil {
			return nil, err
		}
		// Kept as a key of the new index: not a slice of the base's bytes,
		// which may be a mapping gone with the base (ReadPack).
		term = strings.Clone(term)
		_, b, err := old.postingsOf(t)
		if err != nil {
			return nil, err
		}
		moved = moved[:0]
		doc, sorted := uint64(0), true
		for len(b) > 0 {
			d, tf, rest, ok := nextPosting(b)
			if !ok {
				return nil, fmt.Errorf("%w (postings of %q)", ErrPackDamaged, term)
			}
			b = rest
			doc += d
			if doc >= uint64(len(remap)) || remap[doc] < 0 {
				continue
			}
			p := posting{doc: remap[doc], tf: uint32(tf)}
			if len(moved) > 0 && p.doc < moved[len(moved)-1].doc {
				sorted = false
			}
			moved = append(moved, p)
		}
		if len(moved) == 0 {
			continue
		}
		if !sorted { // a renamed file's nodes moved past others
			slices.SortFunc(moved, func(a, b posting) int { return int(a.doc) - int(b.doc) })
		}
		pl := &postingList{}
		if f := ix.built[term]; f != nil {
			// Merge with this build's documents of the term: no document is
			// in both (a position is either reused or indexed).
			add := f.postings()
			i := 0
			for _, p := range moved {
				for i < len(add) && add[i].doc < p.doc {
					pl.append(add[i].doc, add[i].tf)
					i++
				}
				pl.append(p.doc, p.tf)
			}
			for ; i < len(add); i++ {
				pl.append(add[i].doc, add[i].tf)
			}
		} else {
			pl.buf = make([]byte, 0, len(moved)*3)
			for _, p := range moved {
				pl.append(p.doc, p.tf)
			}
		}
		ix.built[term] = pl
	}
	return ix, nil
}
