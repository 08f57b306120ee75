package query

import (
	"cmp"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// This file lays out, and reads in place, the sections a one-shot query
// reads a few entries of: nodes by position, by id and by name, each
// node's process memberships, a process by position, a term's postings.
// Their entries have fixed widths or an offset table in front, so that a
// query on the Linux kernel (960k nodes, 2,000k strings, 1,800k terms)
// reads what it needs, not the section (see packsec.go for the checks).
//
//	nodes     n (uint32), then n records of nodeRecord bytes: id, label,
//	          name, kind, filePath, language (string refs, uint32 each),
//	          startLine, endLine (uint32), isTest (a byte)
//	ids       the node positions (uint32 each) in id order
//	names     n, then the positions of the symbol nodes (not files) in
//	          the order of their lower-cased names (then position)
//	processes n, then n+1 offsets (uint32) of the records after them; each
//	          record: id, summary, description, processType (refs),
//	          priority, stepCount, entryPointId, terminalId (refs),
//	          communities n then n refs, steps n then n × (index, id,
//	          name, filePath refs); records in id order
//	members   n (the nodes), then n+1 offsets (uint32) of the lists after
//	          them; node i's list: its memberships as (process position,
//	          step index) uvarint pairs, by process then step
//	index/*   numDocs (uint32), avgLen (float64), nodes (uint32), the
//	          length of each node's document (uint32 each), terms
//	          (uint32), then terms+1 offsets of the terms (uint32), each
//	          term's postings count (uint32), terms+1 offsets of the
//	          postings (uint64), the terms' bytes (sorted), the postings
//	          (a term's: (doc delta, tf) uvarint pairs)

// More sections of a pack (see above).
const (
	secIDs     = "ids"
	secNames   = "names"
	secMembers = "members"
)

// nodeRecord is the size of a node's record in the nodes section.
const nodeRecord = 6*4 + 2*4 + 1

// nodeOrders lays out the ids and names sections of nodes.
func nodeOrders(nodes []Hit) (ids, names []byte) {
	pos := make([]int32, len(nodes))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(a, b int32) int { return strings.Compare(nodes[a].ID, nodes[b].ID) })
	ids = make([]byte, 0, 4*len(pos))
	for _, p := range pos {
		ids = binary.LittleEndian.AppendUint32(ids, uint32(p))
	}
	lower := make([]string, len(nodes))
	pos = pos[:0]
	for i, h := range nodes {
		if schema.Label(h.Label).IsSymbol() {
			pos = append(pos, int32(i))
			lower[i] = strings.ToLower(h.Name)
		}
	}
	slices.SortFunc(pos, func(a, b int32) int {
		if c := strings.Compare(lower[a], lower[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	names = binary.LittleEndian.AppendUint32(make([]byte, 0, 4+4*len(pos)), uint32(len(pos)))
	for _, p := range pos {
		names = binary.LittleEndian.AppendUint32(names, uint32(p))
	}
	return ids, names
}

// encodeProcesses lays out the processes and members sections of g.
func encodeProcesses(g *graphCopy, st *strTable) (procs, members []byte) {
	ids := slices.Sorted(maps.Keys(g.procs))
	recs := make([][]byte, len(ids))
	type member struct{ proc, step int }
	byNode := map[int32][]member{}
	for pi, id := range ids {
		pr := g.procs[id]
		w := &packWriter{st: st}
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
		for _, s := range pr.Steps {
			w.i(s.Index)
			w.s(s.ID)
			w.s(s.Name)
			w.s(s.FilePath)
			if n, ok := g.index[s.ID]; ok {
				byNode[n] = append(byNode[n], member{pi, s.Index})
			}
		}
		recs[pi] = w.buf
	}
	lists := make([][]byte, len(g.nodes))
	for n, ms := range byNode {
		slices.SortStableFunc(ms, func(a, b member) int {
			if c := cmp.Compare(a.proc, b.proc); c != 0 {
				return c
			}
			return cmp.Compare(a.step, b.step)
		})
		var l []byte
		for _, m := range ms {
			l = binary.AppendUvarint(l, uint64(m.proc))
			l = binary.AppendUvarint(l, uint64(max(m.step, 0)))
		}
		lists[n] = l
	}
	return appendOffTable(nil, recs), appendOffTable(nil, lists)
}

// encodeIndex lays out an index section over n nodes.
func encodeIndex(ix *bm25Index, n int) []byte {
	// the terms with their postings, sorted once (a map lookup per term
	// and field was most of the work on the kernel's millions of terms)
	type term struct {
		t string
		l *postingList
	}
	terms := make([]term, 0, len(ix.built))
	tlen, plen := 0, 0
	for t, l := range ix.built {
		terms = append(terms, term{t, l})
		tlen += len(t)
		plen += len(l.buf)
	}
	slices.SortFunc(terms, func(a, b term) int { return strings.Compare(a.t, b.t) })
	// One allocation of the section's size: appending would double the
	// largest section (the body index: 136 MB on the Linux kernel) as it
	// grows.
	buf := make([]byte, 0, 16+4*n+4+4*(len(terms)+1)+4*len(terms)+8*(len(terms)+1)+tlen+plen)
	le := binary.LittleEndian
	buf = le.AppendUint32(buf, uint32(ix.numDocs))
	buf = le.AppendUint64(buf, math.Float64bits(ix.avgLen))
	buf = le.AppendUint32(buf, uint32(n))
	for doc := range n {
		buf = le.AppendUint32(buf, ix.length(int32(doc)))
	}
	buf = le.AppendUint32(buf, uint32(len(terms)))
	off := 0
	for _, t := range terms {
		buf = le.AppendUint32(buf, uint32(off))
		off += len(t.t)
	}
	buf = le.AppendUint32(buf, uint32(off))
	for _, t := range terms {
		buf = le.AppendUint32(buf, uint32(t.l.count))
	}
	off = 0
	for _, t := range terms {
		buf = le.AppendUint64(buf, uint64(off))
		off += len(t.l.buf)
	}
	buf = le.AppendUint64(buf, uint64(off))
	for _, t := range terms {
		buf = append(buf, t.t...)
	}
	// The builder keeps each term's postings in this encoding already
	// (postingList): they are copied, not re-encoded.
	for _, t := range terms {
		buf = append(buf, t.l.buf...)
	}
	return buf
}

// nodeView is the nodes section read in place.
type nodeView struct {
	sec  *section
	strs *offTable
	n    int
}

// records is section name laid out as a count n (uint32 LE) and n
// records of width bytes each; a section of any other length is damaged.
func (d *packData) records(name string, width int) (*section, int, error) {
	s, err := d.sec(name)
	if err != nil {
		return nil, 0, err
	}
	n, err := s.u32(0)
	if err != nil {
		return nil, 0, err
	}
	if int64(len(s.data))-4 != int64(width)*int64(n) {
		return nil, 0, s.damaged()
	}
	return s, int(n), nil
}

func (d *packData) nodeView() (*nodeView, error) {
	return d.nodesV.get(func() (*nodeView, error) {
		strs, err := d.strings()
		if err != nil {
			return nil, err
		}
		s, n, err := d.records(secNodes, nodeRecord)
		if err != nil {
			return nil, err
		}
		if n > MaxSnapshotNodes {
			return nil, s.damaged()
		}
		return &nodeView{sec: s, strs: strs, n: n}, nil
	})
}

// hit is node i.
func (v *nodeView) hit(i int) (Hit, error) {
	if i < 0 || i >= v.n {
		return Hit{}, v.sec.damaged()
	}
	b, err := v.sec.span(4+nodeRecord*i, nodeRecord)
	if err != nil {
		return Hit{}, err
	}
	var f [6]string
	for k := range f {
		ref := binary.LittleEndian.Uint32([]byte(b[4*k:]))
		if f[k], err = v.strs.get(int(ref)); err != nil {
			return Hit{}, err
		}
	}
	start, end := binary.LittleEndian.Uint32([]byte(b[24:])), binary.LittleEndian.Uint32([]byte(b[28:]))
	if start > math.MaxInt32 || end > math.MaxInt32 || b[32] > 1 {
		return Hit{}, v.sec.damaged()
	}
	return Hit{ID: f[0], Label: f[1], Name: f[2], Kind: f[3], FilePath: f[4], Language: f[5],
		StartLine: int(start), EndLine: int(end), IsTest: b[32] == 1}, nil
}

// field is string field k (0 id … 5 language) of node i.
func (v *nodeView) field(i, k int) (string, error) {
	if i < 0 || i >= v.n {
		return "", v.sec.damaged()
	}
	ref, err := v.sec.u32(4 + nodeRecord*i + 4*k)
	if err != nil {
		return "", err
	}
	return v.strs.get(int(ref))
}

// positionBy is the position of the node with id among n nodes: the ids
// section (positions in id order) searched, idAt giving a position's id.
func (d *packData) positionBy(id string, n int, idAt func(p int) (string, error)) (int32, bool, error) {
	s, err := d.sec(secIDs)
	if err != nil {
		return 0, false, err
	}
	if len(s.data) != 4*n {
		return 0, false, s.damaged()
	}
	at := func(k int) (int, string, error) {
		p, err := s.u32(4 * k)
		if err != nil {
			return 0, "", err
		}
		if int(p) >= n {
			return 0, "", s.damaged()
		}
		got, err := idAt(int(p))
		return int(p), got, err
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		_, got, err := at(m)
		if err != nil {
			return 0, false, err
		}
		if got < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == n {
		return 0, false, nil
	}
	p, got, err := at(lo)
	if err != nil {
		return 0, false, err
	}
	return int32(p), got == id, nil
}

// named are the positions of the symbol nodes named name exactly, in
// snapshot order (equal names are ordered by position in the names
// section).
func (d *packData) named(name string) ([]int32, error) {
	lower := strings.ToLower(name)
	return d.namesFrom(lower, func(nm string) (keep, more bool) {
		if strings.ToLower(nm) != lower {
			return false, false
		}
		return nm == name, true
	})
}

// prefixed are the positions of the symbol nodes whose lower-cased name
// starts with prefix (lower-case), in the names section's order.
func (d *packData) prefixed(prefix string) ([]int32, error) {
	return d.namesFrom(prefix, func(nm string) (keep, more bool) {
		if !strings.HasPrefix(strings.ToLower(nm), prefix) {
			return false, false
		}
		return hasLowerPrefix(nm, prefix), true
	})
}

// namesFrom walks the names section (symbol nodes ordered by lower-cased
// name, then position) from the first name whose lower-cased form is not
// below from, reading the names in place, and returns the positions of
// those match keeps, until it says there are no more.
func (d *packData) namesFrom(from string, match func(name string) (keep, more bool)) ([]int32, error) {
	v, err := d.nodeView()
	if err != nil {
		return nil, err
	}
	s, n, err := d.records(secNames, 4)
	if err != nil {
		return nil, err
	}
	if n > v.n {
		return nil, s.damaged()
	}
	name := func(k int) (int, string, error) {
		p, err := s.u32(4 + 4*k)
		if err != nil {
			return 0, "", err
		}
		nm, err := v.field(int(p), 2)
		return int(p), nm, err
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		_, nm, err := name(m)
		if err != nil {
			return nil, err
		}
		if strings.ToLower(nm) < from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var out []int32
	for k := lo; k < n; k++ {
		p, nm, err := name(k)
		if err != nil {
			return nil, err
		}
		keep, more := match(nm)
		if !more {
			break
		}
		if keep {
			out = append(out, int32(p))
		}
	}
	return out, nil
}

// procView is the processes section read in place.
type procView struct {
	tab, strs *offTable
}

func (d *packData) procView() (*procView, error) {
	return d.procsV.get(func() (*procView, error) {
		strs, err := d.strings()
		if err != nil {
			return nil, err
		}
		s, err := d.sec(secProcesses)
		if err != nil {
			return nil, err
		}
		tab, err := newOffTable(s)
		if err != nil {
			return nil, err
		}
		return &procView{tab: tab, strs: strs}, nil
	})
}

// at is process i, with its steps.
func (v *procView) at(i int) (Process, error) {
	rec, err := v.tab.get(i)
	if err != nil {
		return Process{}, err
	}
	r := &packReader{all: rec, tab: v.strs}
	limit := len(rec)
	pr := Process{ID: r.s(), Summary: r.s(), Description: r.s(), ProcessType: r.s(), Priority: r.f(), StepCount: r.n(math.MaxInt32), EntryPoint: r.s(), Terminal: r.s()}
	if nc := r.n(limit); nc > 0 {
		pr.Communities = make([]string, nc)
		for j := range pr.Communities {
			pr.Communities[j] = r.s()
		}
	}
	pr.Steps = make([]Step, r.n(limit))
	for j := range pr.Steps {
		pr.Steps[j] = Step{Index: r.n(math.MaxInt32), ID: r.s(), Name: r.s(), FilePath: r.s()}
	}
	return pr, r.finish(secProcesses)
}

// processByID is the process with id (binary search: the records are in
// id order).
func (d *packData) processByID(id string) (Process, bool, error) {
	v, err := d.procView()
	if err != nil {
		return Process{}, false, err
	}
	idAt := func(i int) (string, error) {
		rec, err := v.tab.get(i)
		if err != nil {
			return "", err
		}
		r := &packReader{all: rec, tab: v.strs}
		got := r.s()
		return got, r.err
	}
	lo, hi := 0, v.tab.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		got, err := idAt(m)
		if err != nil {
			return Process{}, false, err
		}
		if got < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == v.tab.n {
		return Process{}, false, nil
	}
	pr, err := v.at(lo)
	if err != nil || pr.ID != id {
		return Process{}, false, err
	}
	return pr, true, nil
}

// membersOf are node i's memberships as (process position, step) pairs.
func (d *packData) membersOf(i int) ([][2]int, error) {
	s, err := d.sec(secMembers)
	if err != nil {
		return nil, err
	}
	tab, err := newOffTable(s)
	if err != nil {
		return nil, err
	}
	list, err := tab.get(i)
	if err != nil {
		return nil, err
	}
	r := &packReader{all: list}
	var out [][2]int
	for r.off < len(list) && r.err == nil {
		out = append(out, [2]int{r.n(math.MaxInt32), r.n(math.MaxInt32)})
	}
	return out, r.finish(secMembers)
}
