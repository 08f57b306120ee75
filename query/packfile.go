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
// found through the table and checked block by block (CRC-32C of every
// packBlock bytes, packsec.go) as it is read; whole sections are decoded
// only when a reader first needs them. Integers are uvarints, floats 8
// bytes little endian, strings references into the strings section (ids,
// names and paths repeat: a path is shared by every symbol of its file)
// unless said otherwise. The sections read in place (strings, nodes, ids,
// names, processes, members, index/*) are laid out in packaccess.go.
//
//	header      "gitnexus-pack\n", uvarint schema.Version, uvarint sections,
//	            then per section: name (len, bytes), offset, length, then
//	            the CRC of each of its blocks (uint32 LE); then a CRC-32C of
//	            the header (uint32 LE)
//	strings     n (uint32 LE), n+1 offsets (uint32 LE) into the bytes
//	            that follow, then the strings' bytes
//	edges       for each node, outgoing then incoming: n, then n × (rel ref,
//	            node at the other end)
//	edges/at    n (uint32 LE), then for each node where its lists start
//	            in the edges section and the position of its first edge in
//	            the edges section's order (uint32 LE each): one node's
//	            edges are read in place (edgesAt)
//	edges/attr  for each edge in the edges section's order, edgeAttrSize
//	            bytes (read in place): confidence, reason ref (uint32 LE),
//	            site line (uint32 LE)
//	details     for each node: qualifiedName, signature, docComment (each
//	            len, bytes: kept out of the string table a search decodes),
//	            unresolved call sites (files), community (1-based, 0 none)
//	details/at  n (uint32 LE), then where each node's details start in
//	            the details section (uint32 LE): one node's are read in
//	            place (detailAt)
//	rows        optional: for each node, the hash of the row it was read
//	            from (uint64 LE; see packreuse.go)
//	communities n, then n × (id, label refs; cohesion; symbolCount;
//	            keywords n, then n refs)
//	source      the last section: every node's source text (packsource.go)
//
// The version is schema.Version, the one version of every table of the
// index and of this file: a reader refuses a pack of another version, and
// any block that fails its check (ErrPackDamaged).
const packMagic = "gitnexus-pack\n"

// Sections of a pack.
const (
	secStrings   = "strings"
	secNodes     = "nodes"
	secEdges     = "edges"
	secEdgeAttrs = "edges/attr"
	secEdgesAt   = "edges/at"
	secProcesses = "processes"
	secDetails   = "details"
	secDetailsAt = "details/at"
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
func (w *packWriter) u32(v int)    { w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(max(v, 0))) }
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

// joinParts is the pack file whose parts encodePackParts laid out, as one
// image; each part goes as soon as it is copied.
func joinParts(parts [][]byte) []byte {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	out := make([]byte, 0, total) // one allocation: appending to the header would double it as it grows
	for i, p := range parts {
		out = append(out, p...)
		parts[i] = nil // let the section go as soon as it is copied
	}
	return out
}

// encodePackParts lays out a pack file from what BuildPack read: its
// header, then its sections, in file order (the file is their
// concatenation). It consumes g and the indexes: each part is dropped once
// its section is laid out, so that the builder's memory and the file's do
// not add up. The last section, the source (packsource.go), is not among
// the parts: the header names it, srcLen bytes long with the block CRCs
// srcCRCs, after them, and the caller writes it there. The search
// indexes come as indexes, to lay out, or as laid, the wait for the
// sections startEncodeIndexes is laying out already (readPackRows).
func encodePackParts(g *graphCopy, indexes map[string]*bm25Index, laid func() map[string][]byte, srcLen int64, srcCRCs []byte) ([][]byte, error) {
	st := &strTable{refs: map[string]uint64{}}
	sec := map[string][]byte{}

	// The search indexes share nothing with the rest: unless being laid
	// out already (laid), they are laid out on goroutines of their own
	// beside it.
	if laid == nil {
		laid = startEncodeIndexes(indexes, len(g.nodes))
	}
	var w *packWriter
	sw := func() { w = &packWriter{st: st} }
	done := func(name string) { sec[name] = w.buf }

	sw()
	w.buf = make([]byte, 0, 4+nodeRecord*len(g.nodes))
	w.u32(len(g.nodes))
	for _, h := range g.nodes {
		for _, v := range [...]string{h.ID, h.Label, h.Name, h.Kind, h.FilePath, h.Language} {
			w.u32(int(st.ref(v)))
		}
		w.u32(h.StartLine)
		w.u32(h.EndLine)
		w.buf = append(w.buf, byte(boolInt(h.IsTest)))
	}
	done(secNodes)
	sec[secIDs], sec[secNames] = nodeOrders(g.nodes)

	sw()
	// Sized as edgeAttrs below is (the varints are small: a count, a
	// string reference and a node index each), so that the section is not
	// copied as it grows.
	w.buf = make([]byte, 0, 2*len(g.adj)+6*2*g.edges)
	edgesAt := make([]byte, 4, 4+8*len(g.adj))
	binary.LittleEndian.PutUint32(edgesAt, uint32(len(g.adj)))
	ordinal := 0
	for _, a := range g.adj {
		if len(w.buf) > math.MaxUint32 || ordinal > math.MaxUint32 {
			return nil, fmt.Errorf("pack: more than the format's 4 GiB of edges")
		}
		edgesAt = binary.LittleEndian.AppendUint32(edgesAt, uint32(len(w.buf)))
		edgesAt = binary.LittleEndian.AppendUint32(edgesAt, uint32(ordinal))
		ordinal += len(a[0]) + len(a[1])
		for d := range 2 {
			w.i(len(a[d]))
			for _, e := range a[d] {
				w.s(string(e.relType()))
				w.i(int(e.to))
			}
		}
	}
	done(secEdges)
	sec[secEdgesAt] = edgesAt

	sw()
	w.buf = make([]byte, 0, edgeAttrSize*2*g.edges)
	for _, a := range g.adj {
		for d := range 2 {
			for _, e := range a[d] {
				w.f(e.conf)
				w.u32(int(st.ref(g.reasons[e.reason])))
				w.u32(int(e.line))
			}
		}
	}
	done(secEdgeAttrs)
	g.adj = nil // encodePackParts consumes g: each part goes once laid out

	sw()
	text := 0
	for i := range min(len(g.nodes), len(g.details)) {
		nd := &g.details[i]
		text += len(nd.qualifiedName) + len(nd.signature) + len(nd.docComment)
	}
	w.buf = make([]byte, 0, text+8*len(g.nodes)) // five varints a node, most of one byte
	at := make([]byte, 4, 4+4*len(g.nodes))
	binary.LittleEndian.PutUint32(at, uint32(len(g.nodes)))
	for i := range g.nodes {
		var nd nodeDetails
		if i < len(g.details) {
			nd = g.details[i]
		}
		if len(w.buf) > math.MaxUint32 {
			return nil, fmt.Errorf("pack: more than the format's 4 GiB of details")
		}
		at = binary.LittleEndian.AppendUint32(at, uint32(len(w.buf)))
		w.raw(nd.qualifiedName)
		w.raw(nd.signature)
		w.raw(nd.docComment)
		w.i(int(nd.unresolved))
		w.i(int(nd.community))
	}
	done(secDetails)
	sec[secDetailsAt] = at
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

	sec[secProcesses], sec[secMembers] = encodeProcesses(g, st)
	g.procs, g.members = nil, nil

	for name, buf := range laid() {
		sec[name] = buf
	}
	g.nodes, g.index = nil, nil

	// The strings: a count, the offset of each (and of the end), then the
	// bytes, so that a reader takes string i without decoding the others.
	size := 0
	for _, v := range st.tab {
		size += len(v)
	}
	if size > math.MaxUint32 {
		return nil, fmt.Errorf("pack: %d bytes of strings, more than the format's 4 GiB", size)
	}
	sec[secStrings] = appendOffTable(make([]byte, 0, 8+4*len(st.tab)+size), st.tab)

	// The header's size depends on the offsets it holds: lay it out with
	// offsets relative to the end of the header, then shift by its size
	// until it is stable. Each section's block CRCs (packsec.go) follow
	// its offset and length.
	names := slices.Sorted(maps.Keys(sec))
	crcs := map[string][]byte{}
	for _, n := range names {
		crcs[n] = appendBlockCRCs(nil, sec[n])
	}
	var head []byte
	for base := 0; ; {
		h := &packWriter{buf: []byte(packMagic)}
		h.u(uint64(schema.Version))
		h.i(len(names) + 1)
		off := base
		for _, n := range names {
			h.raw(n)
			h.i(off)
			h.i(len(sec[n]))
			h.buf = append(h.buf, crcs[n]...)
			off += len(sec[n])
		}
		h.raw(secSource)
		h.i(off)
		h.u(uint64(srcLen))
		h.buf = append(h.buf, srcCRCs...)
		h.buf = binary.LittleEndian.AppendUint32(h.buf, crc32.Checksum(h.buf, castagnoli))
		if len(h.buf) == base {
			head = h.buf
			break
		}
		base = len(h.buf)
	}
	parts := [][]byte{head}
	for _, n := range names {
		parts = append(parts, sec[n])
		delete(sec, n)
	}
	return parts, nil
}

// startEncodeIndexes lays out each of indexes (for a pack of nodes nodes)
// on a goroutine of its own, dropping its postings once laid out; the
// function it returns waits for them and returns each index's section by
// name.
func startEncodeIndexes(indexes map[string]*bm25Index, nodes int) func() map[string][]byte {
	type laidOut struct {
		name string
		buf  []byte
	}
	ch := make(chan laidOut, len(indexes))
	for name, ix := range indexes {
		go func() {
			buf := encodeIndex(ix, nodes)
			ix.built, ix.docLen = nil, nil
			ch <- laidOut{name, buf}
		}()
	}
	n := len(indexes)
	return func() map[string][]byte {
		out := make(map[string][]byte, n)
		for range n {
			l := <-ch
			out[l.name] = l.buf
		}
		return out
	}
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
	sections map[string]*section
	strs     lazy[*offTable]
	srcT     lazy[*sourceTable]
	nodesV   lazy[*nodeView]
	procsV   lazy[*procView]
	// keep is the mapping all lies in when ReadPack mapped the file
	// (packmap_unix.go); nil when all is in memory.
	keep *mapping
}

// readPackFile reads the whole pack file at path into memory: its header
// and table of contents are read; sections are checked and decoded when a
// search first needs them. ErrNoPack (wrapped) when there is none or it
// is of another version.
func readPackFile(path string) (*Pack, error) {
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
	d := &packData{all: all, sections: map[string]*section{}}
	type ref struct {
		off, n int
		crcs   string
	}
	refs := map[string]ref{}
	ns := r.n(64)
	for range ns {
		name := r.raw()
		s := ref{off: r.n(len(all)), n: r.n(len(all))}
		k := 4 * blocks(s.n)
		if r.err != nil || r.off+k > len(all) {
			return nil, ErrPackDamaged
		}
		s.crcs = all[r.off : r.off+k]
		r.off += k
		refs[name] = s
	}
	end := r.off
	sum := r.u32()
	if r.err != nil || crc32.Checksum([]byte(all[:end]), castagnoli) != sum {
		return nil, ErrPackDamaged
	}
	for name, s := range refs {
		if s.off < r.off || s.off+s.n > len(all) {
			return nil, ErrPackDamaged
		}
		d.sections[name] = newSection(name, s.off, all[s.off:s.off+s.n], s.crcs)
	}
	for _, n := range []string{secStrings, secNodes, secIDs, secNames, secEdges, secEdgesAt, secEdgeAttrs, secDetails, secDetailsAt, secComms, secProcesses, secMembers, secIdent, secDoc, secFile, secBody, secSource} {
		if _, ok := d.sections[n]; !ok {
			return nil, fmt.Errorf("%w (no %s section)", ErrPackDamaged, n)
		}
	}
	p := &Pack{Snapshot: Snapshot{src: d}}
	return p, nil
}

// sec is the named section, its blocks checked as they are read.
func (d *packData) sec(name string) (*section, error) {
	s, ok := d.sections[name]
	if !ok {
		return nil, fmt.Errorf("%w (no %s section)", ErrPackDamaged, name)
	}
	return s, nil
}

// section is a reader of the named section's bytes, all checked.
func (d *packData) section(name string) (*packReader, error) {
	s, err := d.sec(name)
	if err != nil {
		return nil, err
	}
	b, err := s.all()
	if err != nil {
		return nil, err
	}
	return &packReader{all: b}, nil
}

func (d *packData) strings() (*offTable, error) {
	return d.strs.get(func() (*offTable, error) {
		s, err := d.sec(secStrings)
		if err != nil {
			return nil, err
		}
		return newOffTable(s)
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
	v, err := d.nodeView()
	if err != nil {
		return nodeTable{}, err
	}
	nt := nodeTable{nodes: make([]node, v.n), ix: &nodeIndex{}}
	for i := range nt.nodes {
		h, err := v.hit(i)
		if err != nil {
			return nodeTable{}, err
		}
		nt.nodes[i] = nodeOf(h)
	}
	v.sec.release() // read whole: its pages are not needed any more
	return nt, nil
}

func (d *packData) decodeEdges(nodes int) (adjacency, error) {
	r, err := d.reader(secEdges)
	if err != nil {
		return adjacency{}, err
	}
	a := adjacency{adj: make([][2][]snapEdge, nodes), start: make([][2]int32, nodes)}
	// All edges in one array, each node's lists slices of it, counted
	// first: the section's size bounds it only loosely (at least two bytes
	// an edge, most take three or four; on the Linux kernel a bound of
	// half the section's bytes was 200 MB for 90 MB of edges).
	count := &packReader{all: r.all}
	total := 0
	for range 2 * nodes {
		n := count.n(len(count.all))
		total += n
		for range 2 * n {
			count.u()
		}
	}
	if count.err != nil {
		return adjacency{}, fmt.Errorf("%w (%s section)", ErrPackDamaged, secEdges)
	}
	flat := make([]snapEdge, 0, total)
	for i := range a.adj {
		for dir := range 2 {
			n := r.n(len(r.all))
			start := len(flat)
			for range n {
				flat = append(flat, r.edge(nodes))
			}
			a.adj[i][dir] = flat[start:len(flat):len(flat)]
			a.start[i][dir] = int32(start)
			if dir == 0 {
				a.edges += n
			}
		}
	}
	if err := r.finish(secEdges); err != nil {
		return adjacency{}, err
	}
	if s, err := d.sec(secEdges); err == nil {
		s.release() // read whole: its pages are not needed any more
	}
	return a, nil
}

// atSpan is where node i's entry lies, from lo to hi, in a section of
// end bytes whose offsets section atName holds a count (uint32 LE), which
// must be nodes, and then a record of width bytes per node starting with
// the offset of its entry (uint32 LE): an entry ends where the next
// node's starts, the last one at end. at is the offsets section, for the
// rest of node i's record.
func (d *packData) atSpan(atName string, width, i, nodes, end int) (lo, hi int, at *section, err error) {
	at, n, err := d.records(atName, width)
	if err != nil {
		return 0, 0, nil, err
	}
	if n != nodes || i < 0 || i >= n {
		return 0, 0, nil, at.damaged()
	}
	l, err := at.u32(4 + width*i)
	if err != nil {
		return 0, 0, nil, err
	}
	h := uint32(end)
	if i+1 < n {
		if h, err = at.u32(4 + width*(i+1)); err != nil {
			return 0, 0, nil, err
		}
	}
	if l > h || int(h) > end {
		return 0, 0, nil, at.damaged()
	}
	return int(l), int(h), at, nil
}

// edge reads one edge of a node's list: its relationship and the node at
// the other end (an index below nodes).
func (r *packReader) edge(nodes int) snapEdge {
	rel, ok := relIndex(schema.RelType(r.s()))
	if !ok && r.err == nil {
		r.err = ErrPackDamaged
	}
	return snapEdge{rel: rel, to: int32(r.n(nodes - 1))}
}

// edgesAt reads node i's edge lists in place (edges/at): lists[dir] as
// decodeEdges gives adj[i][dir], first[dir] the position of its first
// edge in the section's order (what edgeAttrAt takes). A one-shot reader
// asks for a few nodes' edges, where decodeEdges decodes every node's
// (the Linux kernel: 0.8 s of `gitnexus context`).
func (d *packData) edgesAt(i, nodes int) (lists [2][]snapEdge, first [2]int, err error) {
	r, err := d.reader(secEdges)
	if err != nil {
		return lists, first, err
	}
	lo, hi, at, err := d.atSpan(secEdgesAt, 8, i, nodes, len(r.all))
	if err != nil {
		return lists, first, err
	}
	ord, err := at.u32(4 + 8*i + 4)
	if err != nil {
		return lists, first, err
	}
	r.all, r.off = r.all[:hi], lo
	next := int(ord)
	for dir := range 2 {
		k := r.n(len(r.all))
		first[dir] = next
		next += k
		for range k {
			lists[dir] = append(lists[dir], r.edge(nodes))
		}
	}
	if r.err != nil || r.off != len(r.all) {
		return [2][]snapEdge{}, [2]int{}, fmt.Errorf("%w (%s section)", ErrPackDamaged, secEdges)
	}
	return lists, first, nil
}

// edgeAttrSize is the size of an edge's properties in the edges/attr
// section.
const edgeAttrSize = 8 + 4 + 4

// edgeAttrAt reads edge k's properties (in the edges section's order) in
// place: a long-lived reader does not keep them decoded (125 MB on the
// Linux kernel).
func (d *packData) edgeAttrAt(k int) (edgeAttr, string, error) {
	s, err := d.sec(secEdgeAttrs)
	if err != nil {
		return edgeAttr{}, "", err
	}
	b, err := s.span(edgeAttrSize*k, edgeAttrSize)
	if err != nil {
		return edgeAttr{}, "", err
	}
	le := binary.LittleEndian
	at := edgeAttr{conf: math.Float64frombits(le.Uint64([]byte(b))), reason: le.Uint32([]byte(b[8:])), line: int32(le.Uint32([]byte(b[12:])))}
	if at.line < 0 {
		return edgeAttr{}, "", s.damaged()
	}
	strs, err := d.strings()
	if err != nil {
		return edgeAttr{}, "", err
	}
	reason, err := strs.get(int(at.reason))
	return at, reason, err
}

func (d *packData) decodeDetails(nodes, comms int) ([]nodeDetails, error) {
	r, err := d.reader(secDetails)
	if err != nil {
		return nil, err
	}
	out := make([]nodeDetails, nodes)
	for i := range out {
		out[i] = r.detail(comms)
	}
	return out, r.finish(secDetails)
}

// detail reads one node's details.
func (r *packReader) detail(comms int) nodeDetails {
	var nd nodeDetails
	nd.qualifiedName, nd.signature, nd.docComment = r.raw(), r.raw(), r.raw()
	nd.unresolved = int32(r.n(math.MaxInt32))
	nd.community = int32(r.n(comms))
	return nd
}

// detailAt reads node i's details in place (details/at): what a one-shot
// reader asks of one node, where decodeDetails decodes every node's (the
// Linux kernel: hundreds of MB).
func (d *packData) detailAt(i, nodes, comms int) (nodeDetails, error) {
	s, err := d.sec(secDetails)
	if err != nil {
		return nodeDetails{}, err
	}
	lo, hi, _, err := d.atSpan(secDetailsAt, 4, i, nodes, len(s.data))
	if err != nil {
		return nodeDetails{}, err
	}
	b, err := s.span(lo, hi-lo)
	if err != nil {
		return nodeDetails{}, err
	}
	r := &packReader{all: b}
	nd := r.detail(comms)
	if r.err != nil || r.off != len(b) {
		return nodeDetails{}, s.damaged()
	}
	return nd, nil
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
	v, err := d.procView()
	if err != nil {
		return processTable{}, err
	}
	pt := processTable{procs: make(map[string]Process, v.tab.n), members: make(map[string][]Membership, v.tab.n)}
	for i := range v.tab.n {
		pr, err := v.at(i)
		if err != nil {
			return processTable{}, err
		}
		for _, st := range pr.Steps {
			m := Membership{SymbolID: st.ID, ProcessID: pr.ID, Step: st.Index}
			pt.members[m.SymbolID] = append(pt.members[m.SymbolID], m)
		}
		pt.procs[pr.ID] = pr
	}
	for id, ms := range pt.members {
		sortMemberships(ms)
		pt.members[id] = ms
	}
	return pt, nil
}

// processesAt finds the memberships of the nodes at positions pos (each
// with its id) and the processes they are in, through the members
// section, decoding only those processes: a one-shot query needs the
// flows of its few hits (the Linux kernel: 9 MB of flows, scanned whole
// before for a query's 50 hits).
func (d *packData) processesAt(pos []int32, ids []string) ([]Membership, map[string]Process, error) {
	v, err := d.procView()
	if err != nil {
		return nil, nil, err
	}
	var members []Membership
	procs := map[string]Process{}
	byPos := map[int]Process{}
	for k, p := range pos {
		ms, err := d.membersOf(int(p))
		if err != nil {
			return nil, nil, err
		}
		for _, m := range ms {
			pr, ok := byPos[m[0]]
			if !ok {
				if pr, err = v.at(m[0]); err != nil {
					return nil, nil, err
				}
				byPos[m[0]] = pr
				procs[pr.ID] = pr
			}
			members = append(members, Membership{SymbolID: ids[k], ProcessID: pr.ID, Step: m[1]})
		}
	}
	return members, procs, nil
}

func (d *packData) decodeIndex(name string, nodes int) (*bm25Index, error) {
	s, err := d.sec(name)
	if err != nil {
		return nil, err
	}
	head, err := s.span(0, 16)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	ix := &bm25Index{numDocs: int(le.Uint32([]byte(head))), avgLen: math.Float64frombits(le.Uint64([]byte(head[4:])))}
	if int(le.Uint32([]byte(head[12:]))) != nodes {
		return nil, s.damaged()
	}
	// The lengths are read for every posting scored: checked at once (4
	// bytes a node).
	fi := &fileIndex{sec: s, nodes: nodes}
	if fi.lens, err = s.span(16, 4*nodes); err != nil {
		return nil, err
	}
	at := 16 + 4*nodes
	nt, err := s.u32(at)
	if err != nil {
		return nil, err
	}
	fi.terms = int(nt)
	fi.termOffs = at + 4
	fi.counts = fi.termOffs + 4*(fi.terms+1)
	fi.postOffs = fi.counts + 4*fi.terms
	fi.termBytes = fi.postOffs + 8*(fi.terms+1)
	if int64(nt) > int64(len(s.data)) || fi.termBytes > len(s.data) {
		return nil, s.damaged()
	}
	tl, err := s.u32(fi.termOffs + 4*fi.terms)
	if err != nil {
		return nil, err
	}
	pl, err := s.span(fi.postOffs+8*fi.terms, 8)
	if err != nil {
		return nil, err
	}
	fi.postings = fi.termBytes + int(tl)
	if p := le.Uint64([]byte(pl)); fi.postings > len(s.data) || p != uint64(len(s.data)-fi.postings) {
		return nil, s.damaged()
	}
	ix.file = fi
	return ix, nil
}

type packReader struct {
	all string
	off int
	tab *offTable
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
	v, err := r.tab.get(i)
	if err != nil {
		r.err = err
	}
	return v
}

// ref is a checked string-table reference, as an index in the table.
func (r *packReader) ref() int {
	if r.tab == nil || r.tab.n == 0 {
		r.err = ErrPackDamaged
		return 0
	}
	return r.n(r.tab.n - 1)
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

// fileIndex is a bm25Index as a pack holds it (packaccess.go), read in
// place: a term is found by binary search over the term offsets and only
// its postings are decoded.
type fileIndex struct {
	sec       *section
	nodes     int
	lens      string // uint32 LE per node, checked
	terms     int
	termOffs  int // where each table starts in the section
	counts    int
	postOffs  int
	termBytes int
	postings  int
}

func (f *fileIndex) length(doc int32) uint32 {
	if doc < 0 || int(doc) >= f.nodes {
		return 0
	}
	o := 4 * int(doc)
	return uint32(f.lens[o]) | uint32(f.lens[o+1])<<8 | uint32(f.lens[o+2])<<16 | uint32(f.lens[o+3])<<24
}

// term is term i.
func (f *fileIndex) term(i int) (string, error) { return f.sec.entry(f.termOffs, f.termBytes, i) }

// postingsOf is term i's postings count and bytes.
func (f *fileIndex) postingsOf(i int) (int, string, error) {
	c, err := f.sec.u32(f.counts + 4*i)
	if err != nil {
		return 0, "", err
	}
	o, err := f.sec.span(f.postOffs+8*i, 16)
	if err != nil {
		return 0, "", err
	}
	a, b := binary.LittleEndian.Uint64([]byte(o)), binary.LittleEndian.Uint64([]byte(o[8:]))
	if a > b || b > uint64(len(f.sec.data)) || c > uint32(f.nodes) {
		return 0, "", f.sec.damaged()
	}
	p, err := f.sec.span(f.postings+int(a), int(b-a))
	return int(c), p, err
}

// find is the position of term, ok false when the index has none.
func (f *fileIndex) find(term string) (int, bool, error) {
	lo, hi := 0, f.terms
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		t, err := f.term(m)
		if err != nil {
			return 0, false, err
		}
		if t < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == f.terms {
		return 0, false, nil
	}
	t, err := f.term(lo)
	return lo, t == term, err
}
