package query

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// The pack file: a magic line, then uvarints, float64 bits (8 bytes, little
// endian) and references into a table of distinct strings (ids, names and
// paths repeat: a path is shared by every symbol of its file).
//
//	magic      "gitnexus-pack\n" + uvarint packVersion
//	strings    n, then n × (len, bytes)
//	nodes      n, then n × (id, label, name, kind, filePath, language: refs; startLine, endLine)
//	edges      total (outgoing) edges, then for each node, outgoing then incoming:
//	           n, then n × (rel ref, target node)
//	processes  n, then n × (id, summary, processType: refs; priority; stepCount;
//	           steps n, then n × (index, id, name, filePath refs))
//	indexes    n, then n × (name ref, numDocs, avgLen, docLen per node (uint32 LE),
//	           terms n, then n × (term ref, postings count, postings bytes) in term order,
//	           then the postings: bytes n, then per term its count × (doc delta, tf))
//
// Postings and document lengths stay in the file's bytes until a query
// reads them (fileIndex): reading a pack decodes the nodes, edges and
// processes and the term directory, nothing per posting.
//
// Last, a CRC-32C of all that comes before it: a reader refuses a damaged
// file, and one of another packVersion (analyze writes a new one).
const (
	packMagic   = "gitnexus-pack\n"
	packVersion = 1
)

type packWriter struct {
	buf  []byte
	strs map[string]uint64
	tab  []string
}

func (w *packWriter) u(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *packWriter) i(v int)    { w.u(uint64(max(v, 0))) }
func (w *packWriter) f(v float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
}
func (w *packWriter) s(v string) { w.u(w.ref(v)) }
func (w *packWriter) ref(v string) uint64 {
	if r, ok := w.strs[v]; ok {
		return r
	}
	r := uint64(len(w.tab))
	w.strs[v] = r
	w.tab = append(w.tab, v)
	return r
}

// WriteFile writes the pack to path (through a temporary file and a
// rename: a reader never sees half a pack).
func (p *Pack) WriteFile(path string) error {
	body := &packWriter{strs: map[string]uint64{}}
	s := p.snap
	body.i(len(s.nodes))
	for _, h := range s.nodes {
		for _, v := range []string{h.ID, h.Label, h.Name, h.Kind, h.FilePath, h.Language} {
			body.s(v)
		}
		body.i(h.StartLine)
		body.i(h.EndLine)
	}
	body.i(s.edges)
	for _, a := range s.adj {
		for d := range 2 {
			body.i(len(a[d]))
			for _, e := range a[d] {
				body.s(string(e.rel))
				body.i(int(e.to))
			}
		}
	}
	ids := slices.Sorted(maps.Keys(s.procs))
	body.i(len(ids))
	for _, id := range ids {
		pr := s.procs[id]
		body.s(pr.ID)
		body.s(pr.Summary)
		body.s(pr.ProcessType)
		body.f(pr.Priority)
		body.i(pr.StepCount)
		body.i(len(pr.Steps))
		for _, st := range pr.Steps {
			body.i(st.Index)
			body.s(st.ID)
			body.s(st.Name)
			body.s(st.FilePath)
		}
	}
	names := slices.Sorted(maps.Keys(p.index))
	body.i(len(names))
	for _, n := range names {
		mi := p.index[n]
		if mi.file != nil {
			return errors.New("write pack: a pack read from a file cannot be written again (build one with BuildPack)")
		}
		body.s(n)
		body.i(mi.numDocs)
		body.f(mi.avgLen)
		for doc := range s.nodes {
			body.buf = binary.LittleEndian.AppendUint32(body.buf, mi.length(int32(doc)))
		}
		terms := slices.Sorted(maps.Keys(mi.postings))
		var blob []byte
		body.i(len(terms))
		for _, t := range terms {
			ps := mi.postings[t]
			start := len(blob)
			prev := int32(0)
			for _, po := range ps {
				blob = binary.AppendUvarint(blob, uint64(po.doc-prev))
				blob = binary.AppendUvarint(blob, uint64(po.tf))
				prev = po.doc
			}
			body.s(t)
			body.i(len(ps))
			body.i(len(blob) - start)
		}
		body.i(len(blob))
		body.buf = append(body.buf, blob...)
	}

	head := &packWriter{buf: []byte(packMagic)}
	head.u(packVersion)
	head.i(len(body.tab))
	for _, v := range body.tab {
		head.i(len(v))
		head.buf = append(head.buf, v...)
	}
	sum := crc32.Update(crc32.Checksum(head.buf, castagnoli), castagnoli, body.buf)
	// Readers see the old pack or the new one, never half.
	return graph.WriteFileAtomic(path, 0o644, head.buf, body.buf, binary.LittleEndian.AppendUint32(nil, sum))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errPackCorrupt is returned for a pack file that does not decode.
var errPackCorrupt = errors.New("pack file is damaged")

type packReader struct {
	all string // the whole file: strings are slices of it
	off int
	tab []string
	err error
}

func (r *packReader) u() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := uvarintString(r.all[r.off:])
	if n <= 0 {
		r.err = errPackCorrupt
		return 0
	}
	r.off += n
	return v
}

// n reads a count or index, refusing one larger than limit.
func (r *packReader) n(limit int) int {
	v := r.u()
	if v > uint64(limit) {
		r.err = errPackCorrupt
		return 0
	}
	return int(v)
}

func (r *packReader) f() float64 {
	if r.err != nil || r.off+8 > len(r.all) {
		r.err = errPackCorrupt
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.all[r.off : r.off+8])))
	r.off += 8
	return v
}

func (r *packReader) s() string {
	i := r.n(len(r.tab) - 1)
	if r.err != nil {
		return ""
	}
	return r.tab[i]
}

func uvarintString(s string) (uint64, int) {
	var v uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// ReadPack reads a pack file written by WriteFile.
func ReadPack(path string) (*Pack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pack: %w", err)
	}
	if len(data) < 4 || crc32.Checksum(data[:len(data)-4], castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("%s: %w (checksum)", path, errPackCorrupt)
	}
	data = data[:len(data)-4]
	// The pack's strings are slices of data, which is never written to.
	p, err := decodePack(unsafe.String(&data[0], len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func decodePack(all string) (*Pack, error) {
	if len(all) < len(packMagic) || all[:len(packMagic)] != packMagic {
		return nil, errPackCorrupt
	}
	r := &packReader{all: all, off: len(packMagic)}
	if v := r.u(); r.err == nil && v != packVersion {
		return nil, fmt.Errorf("pack version %d, this gitnexus reads %d", v, packVersion)
	}
	limit := len(all) // no count can exceed the file's size
	r.tab = make([]string, r.n(limit))
	for i := range r.tab {
		l := r.n(limit)
		if r.err != nil || r.off+l > len(all) {
			return nil, errPackCorrupt
		}
		r.tab[i] = all[r.off : r.off+l]
		r.off += l
	}
	nn := r.n(limit)
	s := &Snapshot{nodes: make([]Hit, nn), index: make(map[string]int, nn), members: map[string][]Membership{}, procs: map[string]Process{}}
	for i := range s.nodes {
		h := &s.nodes[i]
		h.ID, h.Label, h.Name, h.Kind, h.FilePath, h.Language = r.s(), r.s(), r.s(), r.s(), r.s(), r.s()
		h.StartLine, h.EndLine = r.n(math.MaxInt32), r.n(math.MaxInt32)
		s.index[h.ID] = i
	}
	// All edges in one array, each node's lists slices of it.
	s.adj = make([][2][]snapEdge, len(s.nodes))
	flat := make([]snapEdge, 0, 2*r.n(limit))
	for i := range s.adj {
		for d := range 2 {
			n := r.n(limit)
			start := len(flat)
			for range n {
				flat = append(flat, snapEdge{rel: schema.RelType(r.s()), to: int32(r.n(len(s.nodes) - 1))})
			}
			s.adj[i][d] = flat[start:len(flat):len(flat)]
			if d == 0 {
				s.edges += n
			}
		}
	}
	np := r.n(limit)
	s.procs = make(map[string]Process, np)
	s.members = make(map[string][]Membership, np)
	for range np {
		pr := Process{ID: r.s(), Summary: r.s(), ProcessType: r.s(), Priority: r.f(), StepCount: r.n(limit)}
		pr.Steps = make([]Step, r.n(limit))
		for j := range pr.Steps {
			pr.Steps[j] = Step{Index: r.n(limit), ID: r.s(), Name: r.s(), FilePath: r.s()}
			m := Membership{SymbolID: pr.Steps[j].ID, ProcessID: pr.ID, Step: pr.Steps[j].Index}
			s.members[m.SymbolID] = append(s.members[m.SymbolID], m)
		}
		s.procs[pr.ID] = pr
	}
	for id, ms := range s.members {
		sortMemberships(ms)
		s.members[id] = ms
	}
	p := &Pack{snap: s, index: map[string]*memIndex{}}
	for range r.n(limit) {
		name := r.s()
		mi := &memIndex{numDocs: r.n(limit), avgLen: r.f()}
		fi := &fileIndex{nodes: len(s.nodes)}
		if r.err != nil || r.off+4*len(s.nodes) > len(all) {
			return nil, errPackCorrupt
		}
		fi.lens = all[r.off : r.off+4*len(s.nodes)]
		r.off += 4 * len(s.nodes)
		nt := r.n(limit)
		fi.terms = make([]string, nt)
		fi.counts = make([]int32, nt)
		fi.offs = make([]int32, nt+1)
		off := 0
		for j := range nt {
			fi.terms[j] = r.s()
			fi.counts[j] = int32(r.n(len(s.nodes)))
			fi.offs[j] = int32(off)
			off += r.n(limit)
		}
		fi.offs[nt] = int32(off)
		if r.n(limit) != off || r.err != nil || r.off+off > len(all) {
			return nil, errPackCorrupt
		}
		fi.postings = all[r.off : r.off+off]
		r.off += off
		mi.file = fi
		p.index[name] = mi
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(all) {
		return nil, errPackCorrupt
	}
	return p, nil
}

// fileIndex is a memIndex's postings and document lengths as a pack file
// holds them, decoded when a query asks.
type fileIndex struct {
	nodes    int
	lens     string   // uint32 LE per node
	terms    []string // sorted
	counts   []int32  // postings per term
	offs     []int32  // term i's postings are postings[offs[i]:offs[i+1]]
	postings string
}

func (f *fileIndex) length(doc int32) uint32 {
	if doc < 0 || int(doc) >= f.nodes {
		return 0
	}
	o := 4 * int(doc)
	return uint32(f.lens[o]) | uint32(f.lens[o+1])<<8 | uint32(f.lens[o+2])<<16 | uint32(f.lens[o+3])<<24
}

func (f *fileIndex) lookup(term string) []posting {
	i, ok := slices.BinarySearch(f.terms, term)
	if !ok {
		return nil
	}
	b := f.postings[f.offs[i]:f.offs[i+1]]
	out := make([]posting, 0, f.counts[i])
	doc := uint64(0)
	for len(b) > 0 && len(out) < cap(out) {
		d, n := uvarintString(b)
		if n <= 0 {
			return out
		}
		tf, m := uvarintString(b[n:])
		if m <= 0 {
			return out
		}
		b = b[n+m:]
		doc += d
		if doc >= uint64(f.nodes) {
			return out // a damaged file: keep what decoded
		}
		out = append(out, posting{doc: int32(doc), tf: uint32(tf)})
	}
	return out
}
