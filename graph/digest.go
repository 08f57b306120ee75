package graph

// This file owns the row digest: what a build records about every row it
// loads so that the next build can update a copy of its database in place
// (inplace.go) instead of loading every row again. It is a companion of the
// database (RowsSuffix), swapped in and removed with it.

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// RowsSuffix names the row digest beside a database: db-<stamp>.kuzu.rows.
const RowsSuffix = ".rows"

// digestEntry is one node row: the hash of its id and of its NDJSON line,
// and the sum of the hashes of its outgoing edges as loaded (rel key and
// line, dangling edges left out) with their number. seq is the row's line
// in its node file (only meaningful in the build that added it).
type digestEntry struct {
	idh, row, out uint64
	outN          uint32
	seq           uint32
	id            string
}

// rowDigest is the digest of one build's rows: the node entries by label.
// Two rows are taken to be the same when their 64-bit SHA-256 prefixes
// are; an edge set by the sum of its edges' hashes (a multiset hash).
type rowDigest struct {
	nodes map[schema.Label][]digestEntry
	// at maps an id hash to its entry, by label (seal builds it, for
	// addEdge; the entries may be sorted after the last edge is added).
	at map[schema.Label]map[uint64]int32
	// broken: two ids of one label share a hash; the digest is not written
	// and the next build loads every row.
	broken bool
	// brokenEdge: an edge's source has no entry (addEdge, concurrent);
	// Prepare folds it into broken.
	brokenEdge atomic.Bool
	h          *edgeHasher // for hash64
}

func newRowDigest() *rowDigest {
	return &rowDigest{nodes: map[schema.Label][]digestEntry{}, h: newEdgeHasher()}
}

// hash64 is the first 8 bytes of the SHA-256 of the concatenated parts
// (not safe for concurrent use: addEdge takes a hasher of its own).
func (d *rowDigest) hash64(parts ...[]byte) uint64 { return d.h.hash64(parts...) }

func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// addNode records a node row (in file order). Callers hold the build's lock.
func (d *rowDigest) addNode(l schema.Label, id string, line []byte) {
	s := d.nodes[l]
	d.nodes[l] = append(s, digestEntry{idh: d.hash64(bytesOf(id)), row: d.hash64(line), seq: uint32(len(s)), id: id})
}

// seal indexes the node entries by id hash, once every node is added.
func (d *rowDigest) seal() {
	d.at = map[schema.Label]map[uint64]int32{}
	for l, es := range d.nodes {
		m := make(map[uint64]int32, len(es))
		for i, e := range es {
			if _, dup := m[e.idh]; dup {
				d.broken = true
			}
			m[e.idh] = int32(i)
		}
		d.at[l] = m
	}
}

// edgeHasher computes rowDigest's 64-bit hashes; one per goroutine
// (Prepare checks the edge files a core at a time).
type edgeHasher struct {
	h   hash.Hash
	sum []byte
}

func newEdgeHasher() *edgeHasher { return &edgeHasher{h: sha256.New()} }

// hash64 is the first 8 bytes of the SHA-256 of the concatenated parts.
func (h *edgeHasher) hash64(parts ...[]byte) uint64 {
	h.h.Reset()
	for _, p := range parts {
		h.h.Write(p)
	}
	h.sum = h.h.Sum(h.sum[:0])
	return binary.LittleEndian.Uint64(h.sum)
}

// addEdge adds a loaded edge (from a node of label from, of rel key key)
// to its source node's edge sum, hashing with h. Safe for concurrent use
// after seal: the sums and counts are added atomically (sums commute).
func (d *rowDigest) addEdge(h *edgeHasher, from schema.Label, fromID []byte, key string, line []byte) {
	i, ok := d.at[from][h.hash64(fromID)]
	if !ok {
		d.brokenEdge.Store(true) // Load keeps only edges whose endpoints are nodes
		return
	}
	e := &d.nodes[from][i]
	atomic.AddUint64(&e.out, h.hash64(bytesOf(key), []byte{0}, line))
	atomic.AddUint32(&e.outN, 1)
}

// rowsMagic starts a row digest file; the format is this file's alone.
const rowsMagic = "gitnexus rows 3\n"

// digestHeader is what a digest file says about its database beyond the
// rows: the size the database file had after the last full load (an
// in-place update lets the file grow; inplace.go rebuilds past a bound)
// and how many in-place updates it has had since.
type digestHeader struct {
	FullSize int64
	Updates  int
}

// write writes the digest to path, each label's entries sorted by id
// hash, then id.
func (d *rowDigest) write(path string, h digestHeader) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write row digest: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	var buf []byte
	buf = append(buf, rowsMagic...)
	buf = binary.AppendUvarint(buf, uint64(h.FullSize))
	buf = binary.AppendUvarint(buf, uint64(h.Updates))
	labels := make([]schema.Label, 0, len(d.nodes))
	for l := range d.nodes {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	buf = binary.AppendUvarint(buf, uint64(len(labels)))
	w.Write(buf)
	for _, l := range labels {
		es := d.nodes[l]
		slices.SortFunc(es, compareEntries)
		buf = binary.AppendUvarint(buf[:0], uint64(len(l)))
		buf = append(buf, l...)
		buf = binary.AppendUvarint(buf, uint64(len(es)))
		w.Write(buf)
		for _, e := range es {
			buf = binary.LittleEndian.AppendUint64(buf[:0], e.idh)
			buf = binary.LittleEndian.AppendUint64(buf, e.row)
			buf = binary.LittleEndian.AppendUint64(buf, e.out)
			buf = binary.AppendUvarint(buf, uint64(e.outN))
			buf = binary.AppendUvarint(buf, uint64(len(e.id)))
			buf = append(buf, e.id...)
			w.Write(buf)
		}
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write row digest: %w", err)
	}
	return nil
}

func compareEntries(a, b digestEntry) int {
	if c := cmp.Compare(a.idh, b.idh); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// maxDigestID bounds one id in a digest file (a damaged length must not
// allocate the world).
const maxDigestID = 1 << 20

// readDigest reads a digest file written by write: entries sorted, seq
// unset.
func readDigest(path string) (*rowDigest, digestHeader, error) {
	var h digestHeader
	f, err := os.Open(path)
	if err != nil {
		return nil, h, fmt.Errorf("read row digest: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	bad := func(what string, err error) (*rowDigest, digestHeader, error) {
		if err == nil {
			err = errors.New("malformed")
		} else if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, h, fmt.Errorf("read row digest %s: %s: %w", path, what, err)
	}
	magic := make([]byte, len(rowsMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != rowsMagic {
		return bad("not a row digest", err)
	}
	size, err1 := binary.ReadUvarint(r)
	updates, err2 := binary.ReadUvarint(r)
	nl, err3 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2, err3); err != nil || nl > 1024 {
		return bad("header", err)
	}
	h = digestHeader{FullSize: int64(size), Updates: int(updates)}
	d := newRowDigest()
	var fixed [24]byte
	for range nl {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 256 {
			return bad("label", err)
		}
		lb := make([]byte, n)
		if _, err := io.ReadFull(r, lb); err != nil {
			return bad("label", err)
		}
		count, err := binary.ReadUvarint(r)
		if err != nil || count > 1<<32 {
			return bad("count", err)
		}
		es := make([]digestEntry, 0, min(count, 1<<20))
		for range count {
			if _, err := io.ReadFull(r, fixed[:]); err != nil {
				return bad("entry", err)
			}
			outN, err := binary.ReadUvarint(r)
			if err != nil || outN > 1<<32-1 {
				return bad("entry", err)
			}
			n, err := binary.ReadUvarint(r)
			if err != nil || n > maxDigestID {
				return bad("id", err)
			}
			id := make([]byte, n)
			if _, err := io.ReadFull(r, id); err != nil {
				return bad("id", err)
			}
			e := digestEntry{idh: binary.LittleEndian.Uint64(fixed[0:]), row: binary.LittleEndian.Uint64(fixed[8:]),
				out: binary.LittleEndian.Uint64(fixed[16:]), outN: uint32(outN), id: string(id)}
			if len(es) > 0 && compareEntries(es[len(es)-1], e) >= 0 {
				return bad("order", nil)
			}
			es = append(es, e)
		}
		d.nodes[schema.Label(lb)] = es
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return bad("trailing bytes", nil)
	}
	return d, h, nil
}
