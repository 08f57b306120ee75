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

// The pack file: a header with a table of contents, then sections, each
// found through the table, checked (CRC-32C) and decoded only when a search
// first needs it. Integers are uvarints, floats 8 bytes little endian,
// strings references into the strings section (ids, names and paths
// repeat: a path is shared by every symbol of its file) unless said
// otherwise.
//
//	header      "gitnexus-pack\n", uvarint schema.Version, uvarint sections,
//	            then per section: name (len, bytes), offset, length, crc
//	            (uint32 LE); then a CRC-32C of the header (uint32 LE)
//	strings     n, then n × (len, bytes)
//	nodes       n, then n × (id, label, name, kind, filePath, language: refs;
//	            startLine, endLine; isTest: 0 or 1)
//	edges       for each node, outgoing then incoming: n, then n × (rel ref,
//	            node at the other end)
//	edges/attr  for each edge in the edges section's order: confidence,
//	            reason ref, site line
//	details     for each node: qualifiedName, signature, docComment (each
//	            len, bytes: kept out of the string table a search decodes),
//	            unresolved call sites (files), community (1-based, 0 none)
//	rows        optional: for each node, the hash of the row it was read
//	            from (uint64 LE; see packreuse.go)
//	communities n, then n × (id, label refs; cohesion; symbolCount;
//	            keywords n, then n refs)
//	processes   n, then n × (id, summary, processType: refs; priority; stepCount;
//	            entryPointId, terminalId refs; communities n, then n refs;
//	            steps n, then n × (index, id, name, filePath refs))
//	index/ident numDocs, avgLen, docLen per node (uint32 LE), terms n, then
//	index/doc   n × (term: len, bytes; postings count; postings bytes) in term
//	index/file  order, then the postings: bytes n, then per term its
//	index/body  count × (doc delta, tf)
//
// The version is schema.Version, the one version of every table of the
// index and of this file: a reader refuses a pack of another version, and
// any section that fails its check (ErrPackDamaged).
const packMagic = "gitnexus-pack\n"

// Sections of a pack.
const (
	secStrings   = "strings"
	secNodes     = "nodes"
	secEdges     = "edges"
	secEdgeAttrs = "edges/attr"
	secProcesses = "processes"
	secDetails   = "details"
	secComms     = "communities"
	secIdent     = "index/ident"
	secDoc       = "index/doc"
	secFile      = "index/file"
	secBody      = "index/body"
)

// ErrNoPack is returned by ReadPack for an index without a search pack of
// this gitnexus (none, or of another version): the index must be rebuilt.
var ErrNoPack = errors.New("the index has no search pack for this gitnexus: run `gitnexus analyze` to rebuild it")

// ErrPackDamaged is returned for a pack whose bytes do not check or decode.
var ErrPackDamaged = errors.New("search pack is damaged: run `gitnexus analyze` to rebuild it")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type packWriter struct {
	buf []byte
	st  *strTable
}

// strTable is the strings section being written.
type strTable struct {
	refs map[string]uint64
	tab  []string
}

func (w *packWriter) u(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *packWriter) i(v int)    { w.u(uint64(max(v, 0))) }
func (w *packWriter) f(v float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
}
func (w *packWriter) raw(v string) { w.i(len(v)); w.buf = append(w.buf, v...) }
func (w *packWriter) s(v string)   { w.u(w.st.ref(v)) }
func (t *strTable) ref(v string) uint64 {
	if r, ok := t.refs[v]; ok {
		return r
	}
	r := uint64(len(t.tab))
	t.refs[v] = r
	t.tab = append(t.tab, v)
	return r
}

// encodePack lays out a pack file from what BuildPack read. It consumes g
// and the indexes: each part is dropped once its section is written, so
// that the builder's memory and the image's do not add up.
func encodePack(g *graphCopy, indexes map[string]*bm25Index) []byte {
	st := &strTable{refs: map[string]uint64{}}
	sec := map[string][]byte{}
	var w *packWriter
	sw := func() { w = &packWriter{st: st} }
	done := func(name string) { sec[name] = w.buf }

	sw()
	w.i(len(g.nodes))
	for _, h := range g.nodes {
		for _, v := range []string{h.ID, h.Label, h.Name, h.Kind, h.FilePath, h.Language} {
			w.s(v)
		}
		w.i(h.StartLine)
		w.i(h.EndLine)
		w.i(boolInt(h.IsTest))
	}
	done(secNodes)

	sw()
	for _, a := range g.adj {
		for d := range 2 {
			w.i(len(a[d]))
			for _, e := range a[d] {
				w.s(string(e.relType()))
				w.i(int(e.to))
			}
		}
	}
	done(secEdges)

	sw()
	for _, a := range g.adj {
		for d := range 2 {
			for _, e := range a[d] {
				w.f(e.conf)
				w.s(g.reasons[e.reason])
				w.i(int(e.line))
			}
		}
	}
	done(secEdgeAttrs)
	g.adj = nil // encodePack consumes g: each part goes once written

	sw()
	for i := range g.nodes {
		var nd nodeDetails
		if i < len(g.details) {
			nd = g.details[i]
		}
		w.raw(nd.qualifiedName)
		w.raw(nd.signature)
		w.raw(nd.docComment)
		w.i(int(nd.unresolved))
		w.i(int(nd.community))
	}
	done(secDetails)
	g.details = nil

	if g.rows != nil && len(g.rows) == len(g.nodes) {
		sw()
		w.buf = make([]byte, 0, 8*len(g.rows))
		for _, h := range g.rows {
			w.buf = binary.LittleEndian.AppendUint64(w.buf, h)
		}
		done(secRows)
		g.rows = nil
	}

	sw()
	w.i(len(g.comms))
	for _, c := range g.comms {
		w.s(c.ID)
		w.s(c.Label)
		w.f(c.Cohesion)
		w.i(c.SymbolCount)
		w.i(len(c.Keywords))
		for _, k := range c.Keywords {
			w.s(k)
		}
	}
	done(secComms)

	sw()
	ids := slices.Sorted(maps.Keys(g.procs))
	w.i(len(ids))
	for _, id := range ids {
		pr := g.procs[id]
		w.s(pr.ID)
		w.s(pr.Summary)
		w.s(pr.Description)
		w.s(pr.ProcessType)
		w.f(pr.Priority)
		w.i(pr.StepCount)
		w.s(pr.EntryPoint)
		w.s(pr.Terminal)
		w.i(len(pr.Communities))
		for _, c := range pr.Communities {
			w.s(c)
		}
		w.i(len(pr.Steps))
		for _, st := range pr.Steps {
			w.i(st.Index)
			w.s(st.ID)
			w.s(st.Name)
			w.s(st.FilePath)
		}
	}
	done(secProcesses)
	g.procs, g.members = nil, nil

	for name, ix := range indexes {
		sw()
		// One allocation of about the section's size: appending would
		// double the largest section (the body index: hundreds of MiB on
		// the Linux kernel) as it grows.
		need := 4*len(g.nodes) + 32
		for t, pl := range ix.built {
			need += len(t) + len(pl.buf) + 12 // three varints, as a rule
		}
		w.buf = make([]byte, 0, need)
		w.i(ix.numDocs)
		w.f(ix.avgLen)
		for doc := range g.nodes {
			w.buf = binary.LittleEndian.AppendUint32(w.buf, ix.length(int32(doc)))
		}
		// The builder keeps each term's postings in this encoding already
		// (postingList): they are copied, not re-encoded.
		terms := slices.Sorted(maps.Keys(ix.built))
		size := 0
		w.i(len(terms))
		for _, t := range terms {
			pl := ix.built[t]
			w.raw(t)
			w.i(int(pl.count))
			w.i(len(pl.buf))
			size += len(pl.buf)
		}
		w.i(size)
		for _, t := range terms {
			w.buf = append(w.buf, ix.built[t].buf...)
		}
		sec[name] = w.buf
		ix.built, ix.docLen = nil, nil
	}
	g.nodes, g.index = nil, nil

	sw()
	w.i(len(st.tab))
	for _, v := range st.tab {
		w.raw(v)
	}
	sec[secStrings] = w.buf

	// The header's size depends on the offsets it holds: lay it out with
	// offsets relative to the end of the header, then shift by its size
	// until it is stable.
	names := slices.Sorted(maps.Keys(sec))
	var head []byte
	for base := 0; ; {
		h := &packWriter{buf: []byte(packMagic)}
		h.u(uint64(schema.Version))
		h.i(len(names))
		off := base
		for _, n := range names {
			h.raw(n)
			h.i(off)
			h.i(len(sec[n]))
			h.buf = binary.LittleEndian.AppendUint32(h.buf, crc32.Checksum(sec[n], castagnoli))
			off += len(sec[n])
		}
		h.buf = binary.LittleEndian.AppendUint32(h.buf, crc32.Checksum(h.buf, castagnoli))
		if len(h.buf) == base {
			head = h.buf
			break
		}
		base = len(h.buf)
	}
	total := len(head)
	for _, n := range names {
		total += len(sec[n])
	}
	out := make([]byte, 0, total) // one allocation: appending to head would double it as it grows
	out = append(out, head...)
	for _, n := range names {
		out = append(out, sec[n]...)
		delete(sec, n) // let the section go as soon as it is copied
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteFile writes the pack to path (through a temporary file and a
// rename: a reader never sees half a pack).
func (p *Pack) WriteFile(path string) error {
	// The pack's bytes are only read here: no copy (a pack is hundreds of
	// MiB on the largest repositories).
	return graph.WriteFileAtomic(path, 0o644, unsafe.Slice(unsafe.StringData(p.src.all), len(p.src.all)))
}

// packData is a pack file's bytes and its table of contents.
type packData struct {
	all      string // the whole file: strings are slices of it, never written to
	sections map[string]sectionRef
	strs     lazy[[]string]
}

type sectionRef struct {
	off, n int
	crc    uint32
}

// ReadPack reads the pack file at path: its header and table of contents
// only; sections are checked and decoded when a search first needs them.
// ErrNoPack (wrapped) when there is none or it is of another version.
func ReadPack(path string) (*Pack, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w (%s is missing)", ErrNoPack, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read search pack: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: %w", path, ErrPackDamaged)
	}
	p, err := openPack(unsafe.String(&data[0], len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// openPack reads the header of a pack image.
func openPack(all string) (*Pack, error) {
	if len(all) < len(packMagic) || all[:len(packMagic)] != packMagic {
		return nil, ErrPackDamaged
	}
	r := &packReader{all: all, off: len(packMagic)}
	if v := r.u(); r.err == nil && v != uint64(schema.Version) {
		return nil, fmt.Errorf("%w (pack of schema v%d, this gitnexus reads v%d)", ErrNoPack, v, schema.Version)
	}
	d := &packData{all: all, sections: map[string]sectionRef{}}
	ns := r.n(64)
	for range ns {
		name := r.raw()
		s := sectionRef{off: r.n(len(all)), n: r.n(len(all)), crc: r.u32()}
		d.sections[name] = s
	}
	end := r.off
	sum := r.u32()
	if r.err != nil || crc32.Checksum([]byte(all[:end]), castagnoli) != sum {
		return nil, ErrPackDamaged
	}
	for _, s := range d.sections {
		if s.off < r.off || s.off+s.n > len(all) {
			return nil, ErrPackDamaged
		}
	}
	for _, n := range []string{secStrings, secNodes, secEdges, secEdgeAttrs, secDetails, secComms, secProcesses, secIdent, secDoc, secFile, secBody} {
		if _, ok := d.sections[n]; !ok {
			return nil, fmt.Errorf("%w (no %s section)", ErrPackDamaged, n)
		}
	}
	p := &Pack{Snapshot: Snapshot{src: d}}
	return p, nil
}

// section is the named section's bytes, checked.
func (d *packData) section(name string) (*packReader, error) {
	s, ok := d.sections[name]
	if !ok {
		return nil, fmt.Errorf("%w (no %s section)", ErrPackDamaged, name)
	}
	b := d.all[s.off : s.off+s.n]
	if crc32.Checksum(unsafe.Slice(unsafe.StringData(b), len(b)), castagnoli) != s.crc {
		return nil, fmt.Errorf("%w (%s section checksum)", ErrPackDamaged, name)
	}
	return &packReader{all: b}, nil
}

func (d *packData) strings() ([]string, error) {
	return d.strs.get(func() ([]string, error) {
		r, err := d.section(secStrings)
		if err != nil {
			return nil, err
		}
		tab := make([]string, r.n(len(r.all)))
		for i := range tab {
			tab[i] = r.raw()
		}
		return tab, r.finish(secStrings)
	})
}

// reader is a checked section with the string table attached.
func (d *packData) reader(name string) (*packReader, error) {
	tab, err := d.strings()
	if err != nil {
		return nil, err
	}
	r, err := d.section(name)
	if err != nil {
		return nil, err
	}
	r.tab = tab
	return r, nil
}

func (d *packData) decodeNodes() (nodeTable, error) {
	r, err := d.reader(secNodes)
	if err != nil {
		return nodeTable{}, err
	}
	nn := r.n(min(len(r.all), MaxSnapshotNodes))
	nt := nodeTable{nodes: make([]Hit, nn), ix: &nodeIndex{}}
	for i := range nt.nodes {
		h := &nt.nodes[i]
		h.ID, h.Label, h.Name, h.Kind, h.FilePath, h.Language = r.s(), r.s(), r.s(), r.s(), r.s(), r.s()
		h.StartLine, h.EndLine = r.n(math.MaxInt32), r.n(math.MaxInt32)
		h.IsTest = r.n(1) == 1
	}
	return nt, r.finish(secNodes)
}

func (d *packData) decodeEdges(nodes int) (adjacency, error) {
	r, err := d.reader(secEdges)
	if err != nil {
		return adjacency{}, err
	}
	a := adjacency{adj: make([][2][]snapEdge, nodes), start: make([][2]int32, nodes)}
	// All edges in one array, each node's lists slices of it.
	flat := make([]snapEdge, 0, len(r.all)/2)
	for i := range a.adj {
		for dir := range 2 {
			n := r.n(len(r.all))
			start := len(flat)
			for range n {
				rel, ok := relIndex(schema.RelType(r.s()))
				if !ok && r.err == nil {
					r.err = ErrPackDamaged
				}
				flat = append(flat, snapEdge{rel: rel, to: int32(r.n(nodes - 1))})
			}
			a.adj[i][dir] = flat[start:len(flat):len(flat)]
			a.start[i][dir] = int32(start)
			if dir == 0 {
				a.edges += n
			}
		}
	}
	return a, r.finish(secEdges)
}

// decodeEdgeAttrs reads the edges/attr section: each edge's properties in
// the edges section's order, n of them.
func (d *packData) decodeEdgeAttrs(n int) ([]edgeAttr, error) {
	r, err := d.reader(secEdgeAttrs)
	if err != nil {
		return nil, err
	}
	out := make([]edgeAttr, n)
	for i := range out {
		out[i] = edgeAttr{conf: r.f(), reason: uint32(r.ref()), line: int32(r.n(math.MaxInt32))}
	}
	return out, r.finish(secEdgeAttrs)
}

func (d *packData) decodeDetails(nodes, comms int) ([]nodeDetails, error) {
	r, err := d.reader(secDetails)
	if err != nil {
		return nil, err
	}
	out := make([]nodeDetails, nodes)
	for i := range out {
		nd := &out[i]
		nd.qualifiedName, nd.signature, nd.docComment = r.raw(), r.raw(), r.raw()
		nd.unresolved = int32(r.n(math.MaxInt32))
		nd.community = int32(r.n(comms))
	}
	return out, r.finish(secDetails)
}

func (d *packData) decodeCommunities() ([]Community, error) {
	r, err := d.reader(secComms)
	if err != nil {
		return nil, err
	}
	out := make([]Community, r.n(len(r.all)))
	for i := range out {
		out[i] = Community{ID: r.s(), Label: r.s(), Cohesion: r.f(), SymbolCount: r.n(math.MaxInt32), Keywords: []string{}}
		for range r.n(len(r.all)) {
			out[i].Keywords = append(out[i].Keywords, r.s())
		}
	}
	return out, r.finish(secComms)
}

func (d *packData) decodeProcesses() (processTable, error) {
	r, err := d.reader(secProcesses)
	if err != nil {
		return processTable{}, err
	}
	limit := len(r.all)
	np := r.n(limit)
	pt := processTable{procs: make(map[string]Process, np), members: make(map[string][]Membership, np)}
	for range np {
		pr := Process{ID: r.s(), Summary: r.s(), Description: r.s(), ProcessType: r.s(), Priority: r.f(), StepCount: r.n(limit), EntryPoint: r.s(), Terminal: r.s()}
		if nc := r.n(limit); nc > 0 {
			pr.Communities = make([]string, nc)
			for j := range pr.Communities {
				pr.Communities[j] = r.s()
			}
		}
		pr.Steps = make([]Step, r.n(limit))
		for j := range pr.Steps {
			pr.Steps[j] = Step{Index: r.n(limit), ID: r.s(), Name: r.s(), FilePath: r.s()}
			m := Membership{SymbolID: pr.Steps[j].ID, ProcessID: pr.ID, Step: pr.Steps[j].Index}
			pt.members[m.SymbolID] = append(pt.members[m.SymbolID], m)
		}
		pt.procs[pr.ID] = pr
	}
	for id, ms := range pt.members {
		sortMemberships(ms)
		pt.members[id] = ms
	}
	return pt, r.finish(secProcesses)
}

// scanProcesses reads the processes section once and keeps only the
// processes with a step among ids, and the memberships of ids in them —
// what decodeProcesses' table answers for those ids, without building the
// table: a one-shot query needs the flows of its few hits (prometheus:
// 2,671 flows; the table was a quarter of a query's CPU).
func (d *packData) scanProcesses(ids map[string]bool) ([]Membership, map[string]Process, error) {
	r, err := d.reader(secProcesses)
	if err != nil {
		return nil, nil, err
	}
	limit := len(r.all)
	np := r.n(limit)
	var members []Membership
	procs := map[string]Process{}
	var comms []string
	var steps []Step
	for range np {
		pr := Process{ID: r.s(), Summary: r.s(), Description: r.s(), ProcessType: r.s(), Priority: r.f(), StepCount: r.n(limit), EntryPoint: r.s(), Terminal: r.s()}
		comms = comms[:0]
		for range r.n(limit) {
			comms = append(comms, r.s())
		}
		steps = steps[:0]
		hit := false
		for range r.n(limit) {
			st := Step{Index: r.n(limit), ID: r.s(), Name: r.s(), FilePath: r.s()}
			steps = append(steps, st)
			hit = hit || ids[st.ID]
		}
		if r.err != nil {
			break
		}
		if !hit {
			continue
		}
		if len(comms) > 0 {
			pr.Communities = slices.Clone(comms)
		}
		pr.Steps = append(make([]Step, 0, len(steps)), steps...)
		for _, st := range pr.Steps {
			if ids[st.ID] {
				members = append(members, Membership{SymbolID: st.ID, ProcessID: pr.ID, Step: st.Index})
			}
		}
		procs[pr.ID] = pr
	}
	if err := r.finish(secProcesses); err != nil {
		return nil, nil, err
	}
	return members, procs, nil
}

func (d *packData) decodeIndex(name string, nodes int) (*bm25Index, error) {
	r, err := d.section(name)
	if err != nil {
		return nil, err
	}
	limit := len(r.all)
	ix := &bm25Index{numDocs: r.n(limit), avgLen: r.f()}
	fi := &fileIndex{nodes: nodes}
	if r.err != nil || r.off+4*nodes > len(r.all) {
		return nil, fmt.Errorf("%w (%s)", ErrPackDamaged, name)
	}
	fi.lens = r.all[r.off : r.off+4*nodes]
	r.off += 4 * nodes
	nt := r.n(limit)
	fi.terms = make([]string, nt)
	fi.counts = make([]int32, nt)
	fi.offs = make([]int32, nt+1)
	off := 0
	for j := range nt {
		fi.terms[j] = r.raw()
		fi.counts[j] = int32(r.n(nodes))
		fi.offs[j] = int32(off)
		off += r.n(limit)
	}
	fi.offs[nt] = int32(off)
	if r.n(limit) != off || r.err != nil || r.off+off > len(r.all) {
		return nil, fmt.Errorf("%w (%s)", ErrPackDamaged, name)
	}
	fi.postings = r.all[r.off : r.off+off]
	r.off += off
	if !slices.IsSorted(fi.terms) {
		return nil, fmt.Errorf("%w (%s terms out of order)", ErrPackDamaged, name)
	}
	ix.file = fi
	return ix, r.finish(name)
}

type packReader struct {
	all string
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
		r.err = ErrPackDamaged
		return 0
	}
	r.off += n
	return v
}

// n reads a count or index, refusing one larger than limit.
func (r *packReader) n(limit int) int {
	v := r.u()
	if v > uint64(max(limit, 0)) {
		r.err = ErrPackDamaged
		return 0
	}
	return int(v)
}

func (r *packReader) u32() uint32 {
	if r.err != nil || r.off+4 > len(r.all) {
		r.err = ErrPackDamaged
		return 0
	}
	v := binary.LittleEndian.Uint32([]byte(r.all[r.off : r.off+4]))
	r.off += 4
	return v
}

func (r *packReader) f() float64 {
	if r.err != nil || r.off+8 > len(r.all) {
		r.err = ErrPackDamaged
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.all[r.off : r.off+8])))
	r.off += 8
	return v
}

// raw reads an inline string (len, bytes).
func (r *packReader) raw() string {
	l := r.n(len(r.all))
	if r.err != nil || r.off+l > len(r.all) {
		r.err = ErrPackDamaged
		return ""
	}
	v := r.all[r.off : r.off+l]
	r.off += l
	return v
}

// s reads a reference into the strings section.
func (r *packReader) s() string {
	i := r.ref()
	if r.err != nil {
		return ""
	}
	return r.tab[i]
}

// ref is a checked string-table reference, as an index in the table.
func (r *packReader) ref() int {
	i := r.n(len(r.tab) - 1)
	if r.err != nil || len(r.tab) == 0 {
		r.err = ErrPackDamaged
		return 0
	}
	return i
}

// finish reports a decoding error or trailing bytes of section name.
func (r *packReader) finish(name string) error {
	if r.err != nil || r.off != len(r.all) {
		return fmt.Errorf("%w (%s section)", ErrPackDamaged, name)
	}
	return nil
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

// fileIndex is a bm25Index's postings and document lengths as a pack holds
// them, decoded when a query asks.
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
			return out // a damaged section: keep what decoded
		}
		out = append(out, posting{doc: int32(doc), tf: uint32(tf)})
	}
	return out
}
