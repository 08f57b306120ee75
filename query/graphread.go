package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// This file is the snapshot's read API for the tools (context, impact,
// trace, detect_changes, explain...): the same snapshot search expands
// over, so the tools and search read one graph through one interface.
// Every method decodes only the sections it needs, once.

// Node is a node of the snapshot as the tools read it: a symbol or a file,
// with the properties search does not rank on.
type Node struct {
	Hit
	QualifiedName string
	Signature     string
	DocComment    string
	// Unresolved counts a file's call sites resolution could not link (0
	// for symbols).
	Unresolved int
}

// Edge is one edge of a node, seen from that node.
type Edge struct {
	Rel        schema.RelType
	Out        bool // the node is the edge's source
	Other      Hit  // the node at the other end
	Confidence float64
	Reason     string
	Line       int // the call or import site, 1-based; 0 none
}

// Community is a cluster of symbols (a Community node).
type Community struct {
	ID          string
	Label       string
	Keywords    []string
	Cohesion    float64
	SymbolCount int
}

// nodeDetails are a node's properties beyond its Hit (the details
// section).
type nodeDetails struct {
	qualifiedName, signature, docComment string
	unresolved                           int32
	community                            int32 // 1-based index in the communities, 0 none
}

func (s *Snapshot) details() ([]nodeDetails, error) {
	return s.detailsL.get(func() ([]nodeDetails, error) {
		n, err := s.nodeCount()
		if err != nil {
			return nil, err
		}
		cs, err := s.Communities()
		if err != nil {
			return nil, err
		}
		return s.src.decodeDetails(n, len(cs))
	})
}

// Communities are the index's communities, by id.
func (s *Snapshot) Communities() ([]Community, error) {
	return s.commsL.get(s.src.decodeCommunities)
}

func (s *Snapshot) nodeAt(nt nodeTable, ds []nodeDetails, i int32) Node {
	return ds[i].node(nt.nodes[i].hit())
}

// node is the Node of hit h with these details.
func (d nodeDetails) node(h Hit) Node {
	return Node{Hit: h, QualifiedName: d.qualifiedName, Signature: d.signature, DocComment: d.docComment, Unresolved: int(d.unresolved)}
}

// Node is the node with id; ok is false when there is none. A one-shot
// reader that has not decoded the details reads this node's in place.
func (s *Snapshot) Node(id string) (n Node, ok bool, err error) {
	if s.oneShot && !s.detailsL.decoded() {
		return s.nodeInPlace(id)
	}
	nt, ds, err := s.nodesAndDetails()
	if err != nil {
		return Node{}, false, err
	}
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return Node{}, false, err
	}
	return s.nodeAt(nt, ds, i), true, nil
}

// nodeInPlace is Node reading the node's hit and details in place.
func (s *Snapshot) nodeInPlace(id string) (Node, bool, error) {
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return Node{}, false, err
	}
	n, err := s.nodeAtInPlace(i)
	return n, err == nil, err
}

// nodeAtInPlace is the node at position i, its hit and details read in
// place.
func (s *Snapshot) nodeAtInPlace(i int32) (Node, error) {
	h, err := s.hitAt(i)
	if err != nil {
		return Node{}, err
	}
	d, err := s.detailInPlace(i)
	if err != nil {
		return Node{}, err
	}
	return d.node(h), nil
}

// detailInPlace is the details of the node at position i, read in place
// (details/at).
func (s *Snapshot) detailInPlace(i int32) (nodeDetails, error) {
	n, err := s.nodeCount()
	if err != nil {
		return nodeDetails{}, err
	}
	cs, err := s.Communities()
	if err != nil {
		return nodeDetails{}, err
	}
	return s.src.detailAt(int(i), n, len(cs))
}

func (s *Snapshot) nodesAndDetails() (nodeTable, []nodeDetails, error) {
	nt, err := s.nodeTable()
	if err != nil {
		return nodeTable{}, nil, err
	}
	ds, err := s.details()
	if err != nil {
		return nodeTable{}, nil, err
	}
	return nt, ds, nil
}

// Find returns the nodes match accepts, in the snapshot's order, at most
// limit of them (limit+1 tells the caller there were more). match sees
// each node's hit and qualified name; it must not keep the pointer.
func (s *Snapshot) Find(ctx context.Context, match func(h *Hit, qualifiedName string) bool, limit int) ([]Node, error) {
	return s.find(ctx, nil, false, match, limit)
}

// FindNamed is Find over the symbol nodes (schema.Label.IsSymbol) named
// name only: what Find gives for a match that requires a symbol with
// Name == name. A long-running reader looks them up in an index of names
// built on the first call; a one-shot pack (MapPack) in its names
// section, reading only the nodes found in place (the Linux kernel: a
// scan decoded 960k nodes and their details, 1.7 s of `gitnexus
// context`).
func (s *Snapshot) FindNamed(ctx context.Context, name string, match func(h *Hit, qualifiedName string) bool, limit int) ([]Node, error) {
	symbol := func(h *Hit, qn string) bool { return schema.Label(h.Label).IsSymbol() && match(h, qn) }
	if s.oneShot && !s.nodesL.decoded() {
		at, err := s.src.named(name)
		if err != nil {
			return nil, err
		}
		return s.findInPlace(ctx, at, symbol, limit)
	}
	nt, err := s.nodeTable()
	if err != nil {
		return nil, err
	}
	return s.find(ctx, nt.named(name), true, symbol, limit)
}

// FindFiles is Find over the File nodes only. A one-shot pack scans the
// node records in place and reads the details of files only.
func (s *Snapshot) FindFiles(ctx context.Context, match func(h *Hit, qualifiedName string) bool, limit int) ([]Node, error) {
	file := func(h *Hit, qn string) bool { return h.Label == string(schema.LabelFile) && match(h, qn) }
	if s.oneShot && !s.nodesL.decoded() {
		v, err := s.src.nodeView()
		if err != nil {
			return nil, err
		}
		var at []int32
		for i := range v.n {
			if i&0xffff == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			l, err := v.field(i, 1)
			if err != nil {
				return nil, err
			}
			if l == string(schema.LabelFile) {
				at = append(at, int32(i))
			}
		}
		return s.findInPlace(ctx, at, file, limit)
	}
	nt, err := s.nodeTable()
	if err != nil {
		return nil, err
	}
	return s.find(ctx, nt.fileNodes(), true, file, limit)
}

// findInPlace is find over the nodes at positions (ascending), each node
// read in place (nodeInPlace's reads): for a one-shot reader that has
// not decoded the node table.
func (s *Snapshot) findInPlace(ctx context.Context, positions []int32, match func(h *Hit, qualifiedName string) bool, limit int) ([]Node, error) {
	var out []Node
	for k, i := range positions {
		if k&0xfff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n, err := s.nodeAtInPlace(i)
		if err != nil {
			return nil, err
		}
		if match(&n.Hit, n.QualifiedName) {
			out = append(out, n)
			if len(out) >= limit {
				break
			}
		}
	}
	return out, nil
}

// find is Find over the nodes at positions (ascending), or over every
// node when only is false.
func (s *Snapshot) find(ctx context.Context, positions []int32, only bool, match func(h *Hit, qualifiedName string) bool, limit int) ([]Node, error) {
	nt, ds, err := s.nodesAndDetails()
	if err != nil {
		return nil, err
	}
	n := len(nt.nodes)
	if only {
		n = len(positions)
	}
	var out []Node
	for k := range n {
		if k&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		i := int32(k)
		if only {
			i = positions[k]
		}
		if h := nt.nodes[i].hit(); match(&h, ds[i].qualifiedName) {
			out = append(out, s.nodeAt(nt, ds, i))
			if len(out) >= limit {
				break
			}
		}
	}
	return out, nil
}

// Edges are the edges of the node with id in one direction (out: the node
// is their source), of the given relationship types (all the snapshot
// holds when none: CONTAINS, MEMBER_OF and STEP_IN_PROCESS are not edges
// here; see CommunityOf and Memberships), ordered by relationship, then
// the other node's id.
func (s *Snapshot) Edges(id string, out bool, rels ...schema.RelType) ([]Edge, error) {
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return nil, err
	}
	d := 1
	if out {
		d = 0
	}
	var edges []snapEdge
	var first int
	if s.oneShot && !s.edgesL.decoded() { // this node's lists, read in place
		n, err := s.nodeCount()
		if err != nil {
			return nil, err
		}
		lists, starts, err := s.src.edgesAt(int(i), n)
		if err != nil {
			return nil, err
		}
		edges, first = lists[d], starts[d]
	} else {
		a, err := s.adjacency()
		if err != nil {
			return nil, err
		}
		edges, first = a.adj[i][d], int(a.start[i][d])
	}
	var want [256]bool
	for _, r := range rels {
		if ri, ok := relIndex(r); ok {
			want[ri] = true
		}
	}
	var list []Edge
	for k, e := range edges {
		if len(rels) > 0 && !want[e.rel] {
			continue
		}
		at, reason, err := s.src.edgeAttrAt(first + k)
		if err != nil {
			return nil, err
		}
		other, err := s.hitAt(e.to) // in place on a one-shot reader
		if err != nil {
			return nil, err
		}
		list = append(list, Edge{Rel: e.relType(), Out: out, Other: other, Confidence: at.conf, Reason: reason, Line: int(at.line)})
	}
	return list, nil
}

// CommunityOf is the community the node with id belongs to; ok is false
// when it belongs to none.
func (s *Snapshot) CommunityOf(id string) (c Community, ok bool, err error) {
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return Community{}, false, err
	}
	cs, err := s.Communities()
	if err != nil {
		return Community{}, false, err
	}
	var d nodeDetails
	if s.oneShot && !s.detailsL.decoded() { // this node's details, read in place
		if d, err = s.detailInPlace(i); err != nil {
			return Community{}, false, err
		}
	} else {
		ds, err := s.details()
		if err != nil {
			return Community{}, false, err
		}
		d = ds[i]
	}
	if d.community == 0 {
		return Community{}, false, nil
	}
	if int(d.community) > len(cs) {
		return Community{}, false, fmt.Errorf("%w (community %d of %d)", ErrPackDamaged, d.community, len(cs))
	}
	return cs[d.community-1], true, nil
}

// CommunityMembers are the symbols of the community with id, in the
// snapshot's order.
func (s *Snapshot) CommunityMembers(id string) ([]Node, error) {
	nt, ds, err := s.nodesAndDetails()
	if err != nil {
		return nil, err
	}
	cs, err := s.Communities()
	if err != nil {
		return nil, err
	}
	want := int32(0)
	for i, c := range cs {
		if c.ID == id {
			want = int32(i + 1)
		}
	}
	var out []Node
	if want == 0 {
		return nil, nil
	}
	for i := range ds {
		if ds[i].community == want {
			out = append(out, s.nodeAt(nt, ds, int32(i)))
		}
	}
	return out, nil
}

// Memberships are the processes the node with id is a step of, by process
// id then step.
func (s *Snapshot) Memberships(id string) ([]Membership, error) {
	ms, _, err := s.processesOfIDs([]string{id})
	return ms, err
}

// Process is the process with id, with all its steps; ok is false when
// there is none.
func (s *Snapshot) Process(id string) (p Process, ok bool, err error) {
	if s.procsL.decoded() {
		pt, err := s.processTable()
		if err != nil {
			return Process{}, false, err
		}
		p, ok = pt.procs[id]
		return p, ok, nil
	}
	return s.src.processByID(id)
}

// Processes are every process, with its steps, in no particular order.
func (s *Snapshot) Processes() ([]Process, error) {
	pt, err := s.processTable()
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(pt.procs))
	for _, p := range pt.procs {
		out = append(out, p)
	}
	return out, nil
}

// readCommunities reads the communities and each symbol's membership into
// the details (after the nodes were added).
func (g *graphCopy) readCommunities(ctx context.Context, q Querier) error {
	if ok, err := g.readCommunityRows(ctx, q); ok || err != nil {
		return err
	}
	g.comms = nil
	res, err := readAll(ctx, q, fmt.Sprintf("MATCH (c:%s) RETURN c.id, c.label, c.cohesion, c.symbolCount, c.keywords", schema.LabelCommunity))
	if err != nil {
		return fmt.Errorf("snapshot communities: %w", err)
	}
	pos := map[string]int32{}
	for _, r := range res.Rows {
		g.comms = append(g.comms, Community{ID: str(r[0]), Label: str(r[1]), Cohesion: flt(r[2]), SymbolCount: num(r[3]), Keywords: strList(r[4])})
	}
	sort.Slice(g.comms, func(i, j int) bool { return g.comms[i].ID < g.comms[j].ID })
	for i, c := range g.comms {
		pos[c.ID] = int32(i + 1)
	}
	res, err = readAll(ctx, q, fmt.Sprintf("MATCH (s)-[:%s]->(c:%s) RETURN s.id, c.id", schema.RelMemberOf, schema.LabelCommunity))
	if err != nil {
		return fmt.Errorf("snapshot community members: %w", err)
	}
	for len(g.details) < len(g.nodes) {
		g.details = append(g.details, nodeDetails{})
	}
	for _, r := range res.Rows {
		if i, ok := g.index[str(r[0])]; ok {
			g.details[i].community = pos[str(r[1])]
		}
	}
	return nil
}

// readCommunityRows is readCommunities from the row files (Community
// nodes, MEMBER_OF edges) when q hands them over; ok false (and no error)
// when it does not or they cannot serve.
func (g *graphCopy) readCommunityRows(ctx context.Context, q Querier) (ok bool, err error) {
	rr, ok := q.(rowReader)
	if !ok {
		return false, nil
	}
	if err := rr.EachNode(ctx, schema.LabelCommunity, func(line, _ []byte) error {
		var c schema.Community
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		g.comms = append(g.comms, Community{ID: c.ID, Label: c.Label, Cohesion: c.Cohesion, SymbolCount: c.SymbolCount, Keywords: c.Keywords})
		return nil
	}); err != nil {
		return false, fmt.Errorf("snapshot communities: %w", err)
	}
	sort.Slice(g.comms, func(i, j int) bool { return g.comms[i].ID < g.comms[j].ID })
	pos := make(map[string]int32, len(g.comms))
	for i, c := range g.comms {
		pos[c.ID] = int32(i + 1)
	}
	for len(g.details) < len(g.nodes) {
		g.details = append(g.details, nodeDetails{})
	}
	err = rr.EachEdge(ctx, schema.RelMemberOf, func(e graph.EdgeRow) error {
		if i, ok := g.index[e.From]; ok {
			g.details[i].community = pos[e.To]
		}
		return nil
	})
	if errors.Is(err, graph.ErrEdgeRowsInexact) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("snapshot community members: %w", err)
	}
	return true, nil
}
