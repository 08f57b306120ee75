package query

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// Snapshot is the one graph read interface behind search: the symbols and
// files (as hits), the edges graph expansion follows, and the processes
// with their steps, as the search pack holds them. Neighbours (Expand),
// process grouping (Group) and turning a node into a hit (fileHit for
// files) all read it; nothing behind search reads the graph with Cypher.
//
// Every node carries its stored isTest (Hit.IsTest), which ranking reads.
//
// A Snapshot comes from a Pack (ReadPack, or BuildPack at analyze time)
// and decodes its parts on first use: a search that finds nothing never
// decodes the edges, one without processes never the process list. It is
// read-only and safe for concurrent searches, and describes one database
// file: read the new pack when the index is swapped.
type Snapshot struct {
	src *packData
	// oneShot: the process reads this pack for one answer and exits
	// (MapPack). Its name and file lookups scan the nodes instead of
	// building the orders a long-lived reader keeps (FindNamed,
	// FindFiles).
	oneShot bool

	nodesL   lazy[nodeTable]
	edgesL   lazy[adjacency]
	procsL   lazy[processTable]
	commsL   lazy[[]Community]
	detailsL lazy[[]nodeDetails]
}

// nodeTable is the decoded nodes section.
type nodeTable struct {
	nodes []node // symbols and files
	ix    *nodeIndex
}

// node is a node as a decoded table keeps it: a Hit's stored fields (104
// bytes; a Hit is 184 with the fields an answer fills). On the Linux
// kernel the table is 960k of them.
type node struct {
	ID, Label, Name, Kind, FilePath, Language string
	StartLine, EndLine                        int32
	IsTest                                    bool
}

// hit is the node as a hit.
func (n *node) hit() Hit {
	return Hit{ID: n.ID, Label: n.Label, Name: n.Name, Kind: n.Kind, FilePath: n.FilePath, Language: n.Language,
		StartLine: int(n.StartLine), EndLine: int(n.EndLine), IsTest: n.IsTest}
}

// nodeOf is h's stored fields.
func nodeOf(h Hit) node {
	return node{ID: h.ID, Label: h.Label, Name: h.Name, Kind: h.Kind, FilePath: h.FilePath, Language: h.Language,
		StartLine: int32(h.StartLine), EndLine: int32(h.EndLine), IsTest: h.IsTest}
}

// nodeIndex holds the orders of a decoded node table a long-lived reader
// builds on first use (a node by id is found through the pack's ids
// section: a map of every id was 54 MB on the Linux kernel).
type nodeIndex struct {
	// byName is every node's position sorted by name, then position;
	// files the File nodes' positions. Built on first use (FindNamed,
	// FindFiles) by a long-running reader: on the Linux kernel a scan of
	// the 960k nodes per lookup was most of a warm context call.
	nameOnce, fileOnce sync.Once
	byName, files      []int32
}

// named are the positions of the nodes named name, in snapshot order.
func (nt nodeTable) named(name string) []int32 {
	if nt.ix == nil {
		return nil
	}
	nt.ix.nameOnce.Do(func() {
		byName := make([]int32, len(nt.nodes))
		for i := range byName {
			byName[i] = int32(i)
		}
		slices.SortFunc(byName, func(a, b int32) int {
			if c := strings.Compare(nt.nodes[a].Name, nt.nodes[b].Name); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		nt.ix.byName = byName
	})
	byName := nt.ix.byName
	lo, _ := slices.BinarySearchFunc(byName, name, func(i int32, name string) int { return strings.Compare(nt.nodes[i].Name, name) })
	hi := lo
	for hi < len(byName) && nt.nodes[byName[hi]].Name == name {
		hi++
	}
	return byName[lo:hi:hi]
}

// fileNodes are the positions of the File nodes, in snapshot order.
func (nt nodeTable) fileNodes() []int32 {
	if nt.ix == nil {
		return nil
	}
	nt.ix.fileOnce.Do(func() {
		var files []int32
		for i := range nt.nodes {
			if nt.nodes[i].Label == string(schema.LabelFile) {
				files = append(files, int32(i))
			}
		}
		nt.ix.files = files
	})
	return nt.ix.files
}

// adjacency is the decoded edges section: adj[node][dir] are the node's
// edges of the expanded relationship types, sorted by (relationship,
// target id); dir 0 outgoing, 1 incoming.
type adjacency struct {
	adj   [][2][]snapEdge
	start [][2]int32 // where adj[node][dir] starts in the section's order (edgeAttrs)
	edges int
}

// processTable is the decoded processes section.
type processTable struct {
	members map[string][]Membership // by symbol id, sorted by process then step
	procs   map[string]Process      // with all steps, in step order
}

// snapEdge is one edge in a node's list, as search expands it: the node at
// the other end and the relationship (an index in relOrder).
type snapEdge struct {
	to  int32
	rel uint8
}

// edgeAttr are an edge's stored properties, which the tools read (the
// edges/attr section, read in place by edgeAttrAt, so that a search never
// pays for them). reason is an index in the pack's string table (in
// graphCopy.reasons while a pack is being built).
type edgeAttr struct {
	conf   float64
	line   int32 // the call or import site, 1-based; 0 none
	reason uint32
}

// builtEdge is an edge while a pack is being built.
type builtEdge struct {
	snapEdge
	edgeAttr
}

// relType is the edge's relationship type.
func (e snapEdge) relType() schema.RelType { return relOrder[e.rel] }

// relIndex is rt's index in relOrder, the edge types the snapshot holds.
func relIndex(rt schema.RelType) (uint8, bool) {
	for i, r := range relOrder {
		if r == rt {
			return uint8(i), true
		}
	}
	return 0, false
}

// lazy is a value computed once, on first use.
type lazy[T any] struct {
	once sync.Once
	done atomic.Bool
	v    T
	err  error
}

// decoded reports whether the value has been computed.
func (l *lazy[T]) decoded() bool { return l.done.Load() }

// get computes the value on the first call. A panic while decoding (a
// damaged pack the checks missed; a fault on a mapped pack, under
// debug.SetPanicOnFault) becomes ErrPackDamaged, for this and every later
// call, instead of taking the process down.
func (l *lazy[T]) get(f func() (T, error)) (T, error) {
	l.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				var zero T
				l.v, l.err = zero, fmt.Errorf("%w (decoding failed: %v)", ErrPackDamaged, r)
			}
			l.done.Store(true)
		}()
		l.v, l.err = f()
	})
	return l.v, l.err
}

func (s *Snapshot) nodeTable() (nodeTable, error) {
	return s.nodesL.get(s.src.decodeNodes)
}

// nodeCount is the number of nodes, without decoding them.
func (s *Snapshot) nodeCount() (int, error) {
	if s.nodesL.decoded() {
		nt, err := s.nodeTable()
		return len(nt.nodes), err
	}
	v, err := s.src.nodeView()
	if err != nil {
		return 0, err
	}
	return v.n, nil
}

// hitAt is node i as a hit: from the decoded table where a long-lived
// reader has it, else read in place (a one-shot query reads the few
// nodes it answers with).
func (s *Snapshot) hitAt(i int32) (Hit, error) {
	if s.nodesL.decoded() {
		nt, err := s.nodeTable()
		if err != nil {
			return Hit{}, err
		}
		if i < 0 || int(i) >= len(nt.nodes) {
			return Hit{}, fmt.Errorf("%w (node %d of %d)", ErrPackDamaged, i, len(nt.nodes))
		}
		return nt.nodes[i].hit(), nil
	}
	v, err := s.src.nodeView()
	if err != nil {
		return Hit{}, err
	}
	return v.hit(int(i))
}

// nodeID is node i's id (as hitAt).
func (s *Snapshot) nodeID(i int32) (string, error) {
	if s.nodesL.decoded() {
		h, err := s.hitAt(i)
		return h.ID, err
	}
	v, err := s.src.nodeView()
	if err != nil {
		return "", err
	}
	return v.field(int(i), 0)
}

func (s *Snapshot) adjacency() (adjacency, error) {
	return s.edgesL.get(func() (adjacency, error) {
		n, err := s.nodeCount() // not the decoded table: a one-shot reader reads nodes in place
		if err != nil {
			return adjacency{}, err
		}
		return s.src.decodeEdges(n)
	})
}

func (s *Snapshot) processTable() (processTable, error) {
	return s.procsL.get(s.src.decodeProcesses)
}

// Stats are the snapshot's sizes, for logs (decoding what is not yet).
func (s *Snapshot) Stats() (nodes, edges, processes int, err error) {
	nt, err := s.nodeTable()
	if err != nil {
		return 0, 0, 0, err
	}
	a, err := s.adjacency()
	if err != nil {
		return 0, 0, 0, err
	}
	pt, err := s.processTable()
	if err != nil {
		return 0, 0, 0, err
	}
	return len(nt.nodes), a.edges, len(pt.procs), nil
}

// node is the node id as a hit; ok is false when the snapshot has none.
func (s *Snapshot) node(id string) (h Hit, ok bool, err error) {
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return Hit{}, false, err
	}
	h, err = s.hitAt(i)
	return h, err == nil, err
}

// position is the position of the node with id (the ids section searched,
// comparing ids from the decoded table where a reader has it).
func (s *Snapshot) position(id string) (int32, bool, error) {
	if s.nodesL.decoded() {
		nt, err := s.nodeTable()
		if err != nil {
			return 0, false, err
		}
		return s.src.positionBy(id, len(nt.nodes), func(p int) (string, error) { return nt.nodes[p].ID, nil })
	}
	v, err := s.src.nodeView()
	if err != nil {
		return 0, false, err
	}
	return s.src.positionBy(id, v.n, func(p int) (string, error) { return v.field(p, 0) })
}

// fileHit is a File node as a hit, the one place that decides it: kind
// "file", its path as filePath, lines 1 to its line count, its stored
// isTest.
func fileHit(id, name, path, language string, lines int, isTest bool) Hit {
	return Hit{ID: id, Label: string(schema.LabelFile), Name: name, Kind: "file", FilePath: path,
		StartLine: 1, EndLine: lines, Language: language, IsTest: isTest}
}

// neighbors is the NeighborFunc of Expand: the nodes adjacent to ids over
// rels, outgoing first, then incoming; within a direction by source id,
// then relationship, then target id; at most fanout per (node,
// relationship, direction). Files are left out unless files is set.
func (s *Snapshot) neighbors(ids []string, rels []schema.RelType, fanout int, files bool) ([]Neighbor, error) {
	nt, err := s.nodeTable()
	if err != nil {
		return nil, err
	}
	a, err := s.adjacency()
	if err != nil {
		return nil, err
	}
	want := map[schema.RelType]bool{}
	for _, r := range rels {
		want[r] = true
	}
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	var out []Neighbor
	for d := range 2 {
		for _, id := range sorted {
			i, ok, err := s.position(id)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			count := map[schema.RelType]int{}
			for _, e := range a.adj[i][d] {
				rel := e.relType()
				if !want[rel] || count[rel] >= fanout {
					continue
				}
				h := nt.nodes[e.to].hit()
				if h.Label == string(schema.LabelFile) && !files {
					continue
				}
				count[rel]++
				out = append(out, Neighbor{From: id, Rel: rel, Out: d == 0, Hit: h})
			}
		}
	}
	return out, nil
}

// processesOf finds the process memberships of the hits and describes each
// process they are in, with all its steps: through the members section,
// decoding only the processes the hits are in (the process table, when a
// reader has decoded it for Processes, is not needed for this).
func (s *Snapshot) processesOf(hits []Hit) ([]Membership, map[string]Process, error) {
	var ids []string
	for _, h := range hits {
		if schema.Label(h.Label).IsSymbol() {
			ids = append(ids, h.ID)
		}
	}
	return s.processesOfIDs(ids)
}

// processesOfIDs is processesOf for the nodes with ids (repeats ignored).
func (s *Snapshot) processesOfIDs(ids []string) ([]Membership, map[string]Process, error) {
	var pos []int32
	var found []string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		i, ok, err := s.position(id)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			pos, found = append(pos, i), append(found, id)
		}
	}
	members, procs, err := s.src.processesAt(pos, found)
	if err != nil || len(members) == 0 {
		return nil, nil, err
	}
	sortMemberships(members)
	return members, procs, nil
}

// sortMemberships orders memberships by symbol, process, step: Group lists
// a symbol at its first step of a flow, so the order must not depend on
// the order a database returned the rows in.
func sortMemberships(ms []Membership) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.SymbolID != b.SymbolID {
			return a.SymbolID < b.SymbolID
		}
		if a.ProcessID != b.ProcessID {
			return a.ProcessID < b.ProcessID
		}
		return a.Step < b.Step
	})
}

// MaxSnapshotNodes bounds the nodes BuildPack accepts: above it the pack
// would cost more memory than it saves time.
const MaxSnapshotNodes = 2_000_000

// graphCopy is what BuildPack reads from the database for the snapshot:
// the nodes (the caller adds them, with their text), then edges and
// processes.
type graphCopy struct {
	nodes   []Hit
	index   map[string]int32
	adj     [][2][]builtEdge
	edges   int
	reasons []string // the edges' reason strings (edgeAttr.reason)
	members map[string][]Membership
	procs   map[string]Process
	details []nodeDetails // per node (readDetails)
	comms   []Community   // nodeDetails.community - 1
	rows    []uint64      // per node, its row's hash (packreuse.go); nil: unknown
}

// addNode appends h unless its id is already there; ok is false then.
func (g *graphCopy) addNode(h Hit) (int32, bool) {
	if _, dup := g.index[h.ID]; dup {
		return 0, false
	}
	i := int32(len(g.nodes))
	g.index[h.ID] = i
	g.nodes = append(g.nodes, h)
	return i, true
}

// readEdges reads the relationships between symbols and files (relOrder),
// with their confidence, reason and site line: what graph expansion
// follows and the tools read.
func (g *graphCopy) readEdges(ctx context.Context, q Querier) error {
	g.adj = make([][2][]builtEdge, len(g.nodes))
	reasons := map[string]uint32{}
	for ri, rt := range relOrder {
		// Straight from the rows the database was loaded from, where q has
		// them (a graph.Build before Commit: analyze's case): one pass
		// over the files, the same rows in the same order.
		if er, ok := q.(rowReader); ok {
			err := er.EachEdgeView(ctx, rt, func(e graph.EdgeView) error {
				g.addEdgeBytes(e.From, e.To, e.Confidence, e.Reason, e.Line, uint8(ri), reasons)
				return nil
			})
			if err == nil {
				continue
			}
			if !errors.Is(err, graph.ErrEdgeRowsInexact) {
				return fmt.Errorf("snapshot %s edges: %w", rt, err)
			}
		}
		// Else a slice of rows at a time (by the edge's offset in its
		// table), so that memory does not grow with the largest table's
		// result. Kuzu scans the table for each slice.
		top, err := readAll(ctx, q, fmt.Sprintf("MATCH ()-[r:%s]->() RETURN max(offset(id(r)))", rt))
		if err != nil {
			return fmt.Errorf("snapshot %s edges: %w", rt, err)
		}
		maxOff := 0
		if len(top.Rows) == 1 {
			maxOff = num(top.Rows[0][0])
		}
		for lo := 0; lo <= maxOff; lo += packEdgeRows {
			res, err := readAll(ctx, q, fmt.Sprintf("MATCH (a)-[r:%s]->(b) WHERE offset(id(r)) >= %d AND offset(id(r)) < %d RETURN a.id, b.id, r.confidence, r.reason, r.line",
				rt, lo, lo+packEdgeRows))
			if err != nil {
				return fmt.Errorf("snapshot %s edges: %w", rt, err)
			}
			g.addEdges(res.Rows, uint8(ri), reasons)
		}
	}
	g.sortEdges()
	return nil
}

// packEdgeRows is how many edges readEdges reads per statement.
var packEdgeRows = 8192

// addEdges adds rows (a.id, b.id, confidence, reason, line) of relOrder[ri].
func (g *graphCopy) addEdges(rows [][]any, ri uint8, reasons map[string]uint32) {
	for _, row := range rows {
		g.addEdge(str(row[0]), str(row[1]), flt(row[2]), str(row[3]), num(row[4]), ri, reasons)
	}
}

// addEdge adds one edge of relOrder[ri] between the nodes from and to;
// an endpoint that is no search result (a Folder, ...) leaves it out.
func (g *graphCopy) addEdge(from, to string, conf float64, reason string, line int, ri uint8, reasons map[string]uint32) {
	g.addEdgeBytes(readOnlyBytes(from), readOnlyBytes(to), conf, readOnlyBytes(reason), line, ri, reasons)
}

// readOnlyBytes is s's bytes without a copy, for a callee that only reads
// them.
func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// addEdgeBytes is addEdge of ids and reason held as bytes, which it looks
// up without making strings (and copies the reason the first time it
// sees it).
func (g *graphCopy) addEdgeBytes(from, to []byte, conf float64, reason []byte, line int, ri uint8, reasons map[string]uint32) {
	a, okA := g.index[string(from)]
	b, okB := g.index[string(to)]
	if !okA || !okB {
		return
	}
	ref, ok := reasons[string(reason)]
	if !ok {
		ref = uint32(len(g.reasons))
		reasons[string(reason)] = ref
		g.reasons = append(g.reasons, string(reason))
	}
	e := builtEdge{snapEdge{rel: ri}, edgeAttr{conf: conf, reason: ref, line: int32(min(max(line, 0), math.MaxInt32))}}
	e.to = b
	g.adj[a][0] = append(g.adj[a][0], e)
	e.to = a
	g.adj[b][1] = append(g.adj[b][1], e)
	g.edges++
}

// sortEdges orders each node's edge lists by relationship, then the other
// node's id, then the site line, reason and confidence: a total order, so
// the pack is the same whatever order the rows came in (the database and
// the row files give them in different orders).
func (g *graphCopy) sortEdges() {
	for i := range g.adj {
		for d := range 2 {
			es := g.adj[i][d]
			sort.Slice(es, func(x, y int) bool {
				ex, ey := &es[x], &es[y]
				if rx, ry := ex.relType(), ey.relType(); rx != ry {
					return rx < ry
				}
				if ix, iy := g.nodes[ex.to].ID, g.nodes[ey.to].ID; ix != iy {
					return ix < iy
				}
				if ex.line != ey.line {
					return ex.line < ey.line
				}
				if rx, ry := g.reasons[ex.reason], g.reasons[ey.reason]; rx != ry {
					return rx < ry
				}
				return ex.conf < ey.conf
			})
		}
	}
}

// readProcesses reads the processes and their steps.
func (g *graphCopy) readProcesses(ctx context.Context, q Querier) error {
	g.members, g.procs = map[string][]Membership{}, map[string]Process{}
	// From the row files where q has them, as readEdges does.
	if ok, err := g.readProcessRows(ctx, q); ok || err != nil {
		return err
	}
	g.members, g.procs = map[string][]Membership{}, map[string]Process{}
	// The processes a slice of rows at a time too: Kuzu holds a result in
	// its buffer pool, and the kernel's 780k processes do not fit the
	// build's 256 MiB in one.
	n, err := readAll(ctx, q, fmt.Sprintf("MATCH (p:%s) RETURN count(p)", schema.LabelProcess))
	if err != nil {
		return fmt.Errorf("snapshot processes: %w", err)
	}
	total, seen := 0, 0
	if len(n.Rows) == 1 {
		total = num(n.Rows[0][0])
	}
	for lo := 0; lo < total; lo += packReadRows {
		res, err := readAll(ctx, q, fmt.Sprintf("MATCH (p:%s) WHERE offset(id(p)) >= %d AND offset(id(p)) < %d RETURN p.id, p.label, p.priority, p.processType, p.stepCount, p.entryPointId, p.terminalId, p.communities, p.description",
			schema.LabelProcess, lo, lo+packReadRows))
		if err != nil {
			return fmt.Errorf("snapshot processes: %w", err)
		}
		for _, row := range res.Rows {
			id := str(row[0])
			p := Process{ID: id, Summary: str(row[1]), Priority: flt(row[2]), ProcessType: str(row[3]), StepCount: num(row[4]),
				EntryPoint: str(row[5]), Terminal: str(row[6]), Description: str(row[8])}
			p.Communities = strList(row[7])
			g.procs[id] = p
			seen++
		}
	}
	if seen != total {
		return fmt.Errorf("snapshot processes: read %d of %d", seen, total)
	}
	// The steps a slice of rows at a time (by the edge's offset), as
	// readEdges does: the Linux kernel has millions. Their strings are the
	// ones the nodes and processes already hold, not a copy per step.
	top, err := readAll(ctx, q, fmt.Sprintf("MATCH ()-[r:%s]->() RETURN max(offset(id(r)))", schema.RelStepInProcess))
	if err != nil {
		return fmt.Errorf("snapshot process steps: %w", err)
	}
	maxOff := -1
	if len(top.Rows) == 1 && top.Rows[0][0] != nil {
		maxOff = num(top.Rows[0][0])
	}
	for lo := 0; lo <= maxOff; lo += packEdgeRows {
		res, err := readAll(ctx, q, fmt.Sprintf("MATCH (s)-[r:%s]->(p:%s) WHERE offset(id(r)) >= %d AND offset(id(r)) < %d RETURN s.id, p.id, r.step, s.name, s.filePath",
			schema.RelStepInProcess, schema.LabelProcess, lo, lo+packEdgeRows))
		if err != nil {
			return fmt.Errorf("snapshot process steps: %w", err)
		}
		for _, row := range res.Rows {
			p, ok := g.procs[str(row[1])]
			if !ok {
				continue
			}
			st := Step{Index: num(row[2]), ID: str(row[0])}
			if i, ok := g.index[st.ID]; ok {
				n := &g.nodes[i]
				st.ID, st.Name, st.FilePath = n.ID, n.Name, n.FilePath
			} else {
				st.Name, st.FilePath = str(row[3]), str(row[4])
			}
			m := Membership{SymbolID: st.ID, ProcessID: p.ID, Step: st.Index}
			g.members[m.SymbolID] = append(g.members[m.SymbolID], m)
			p.Steps = append(p.Steps, st)
			g.procs[p.ID] = p
		}
	}
	g.sortProcesses()
	return nil
}

// sortProcesses orders each symbol's memberships and each process's steps.
func (g *graphCopy) sortProcesses() {
	for id, ms := range g.members {
		sortMemberships(ms)
		g.members[id] = ms
	}
	for _, p := range g.procs {
		sort.SliceStable(p.Steps, func(i, j int) bool { return p.Steps[i].Index < p.Steps[j].Index })
	}
}

// errRowsUnusable stops a read from the row files that met a row the
// database path would read otherwise (a step of a symbol the pack does
// not hold): the caller reads the database instead.
var errRowsUnusable = errors.New("rows unusable")

// readProcessRows reads the processes and their steps from the row files
// (Process nodes, STEP_IN_PROCESS edges) when q hands them over; ok false
// (and no error) when it does not or they cannot serve.
func (g *graphCopy) readProcessRows(ctx context.Context, q Querier) (ok bool, err error) {
	rr, ok := q.(rowReader)
	if !ok {
		return false, nil
	}
	if err := rr.EachNode(ctx, schema.LabelProcess, func(line, _ []byte) error {
		var r schema.Process
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		g.procs[r.ID] = Process{ID: r.ID, Summary: r.Label, Description: r.Description, Priority: r.Priority, ProcessType: r.ProcessType, StepCount: r.StepCount,
			EntryPoint: r.EntryPointID, Terminal: r.TerminalID, Communities: r.Communities}
		return nil
	}); err != nil {
		return false, fmt.Errorf("snapshot processes: %w", err)
	}
	err = rr.EachEdge(ctx, schema.RelStepInProcess, func(e graph.EdgeRow) error {
		p, ok := g.procs[e.To]
		if !ok {
			return nil
		}
		i, ok := g.index[e.From]
		if !ok {
			return errRowsUnusable
		}
		n := &g.nodes[i]
		st := Step{Index: e.Step, ID: n.ID, Name: n.Name, FilePath: n.FilePath}
		m := Membership{SymbolID: st.ID, ProcessID: p.ID, Step: st.Index}
		g.members[m.SymbolID] = append(g.members[m.SymbolID], m)
		p.Steps = append(p.Steps, st)
		g.procs[p.ID] = p
		return nil
	})
	if errors.Is(err, errRowsUnusable) || errors.Is(err, graph.ErrEdgeRowsInexact) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("snapshot process steps: %w", err)
	}
	g.sortProcesses()
	return true, nil
}

// Querier runs Cypher: *graph.DB and *graph.Build both are one. BuildPack
// reads the index it packs through it.
type Querier interface {
	Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// allQuerier is a Querier that can read a whole table past a row cap
// (graph.DB.QueryAll).
type allQuerier interface {
	QueryAll(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// readAll runs one of BuildPack's statements, uncapped where q can, and
// fails on a result cut at a row cap: a pack missing rows would answer
// wrongly.
func readAll(ctx context.Context, q Querier, stmt string) (*graph.Result, error) {
	run := q.Query
	if a, ok := q.(allQuerier); ok {
		run = a.QueryAll
	}
	res, err := run(ctx, stmt, nil)
	if err != nil {
		return nil, err
	}
	if res.Truncated {
		return nil, fmt.Errorf("result cut at %d rows (the database's row cap)", len(res.Rows))
	}
	return res, nil
}

// Result cells as Go values.
var (
	str     = graph.String
	num     = graph.Int
	flt     = graph.Float
	boolean = graph.Bool
)

// strList is a LIST of STRING cell as strings.
func strList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		out = append(out, str(x))
	}
	return out
}
