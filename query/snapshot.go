package query

import (
	"context"
	"fmt"
	"sort"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// Snapshot is an in-memory copy of the parts of an index that a search
// reads after retrieval: the symbols and files (as hits), the edges graph
// expansion follows, and the processes with their steps. A long-running
// process (the MCP server) loads one per open index and passes it in
// Options.Snapshot: graph expansion and process grouping then cost
// microseconds instead of two to four Cypher statements (about 35 of the
// 45 ms of a warm search on prometheus). The keyword retrieval still runs
// on Kuzu's full-text indexes.
//
// A search with a Snapshot returns exactly what the same search without
// one returns (TestSnapshotMatchesDatabase): neighbors come in the order
// the Cypher path sorts them (source id, relationship, target id; outgoing
// before incoming) with the same fan-out cut and label filters.
//
// It is read-only after LoadSnapshot, safe for concurrent searches, and
// describes one database file: load a new one when the index is swapped.
type Snapshot struct {
	nodes []Hit          // symbols and files; Score and Matched unset
	index map[string]int // node id → position in nodes
	// adj[node][dir] are the node's edges of the expanded relationship
	// types, sorted by (relationship, target id); dir 0 outgoing, 1 incoming.
	adj [][2][]snapEdge
	// members by symbol id, sorted by process id then step.
	members map[string][]Membership
	procs   map[string]Process // with all steps, in step order
	edges   int
}

type snapEdge struct {
	rel schema.RelType
	to  int32
}

// MaxSnapshotNodes bounds the nodes LoadSnapshot accepts: above it the
// copy would cost more memory than it saves time (LoadSnapshot fails and
// searches keep querying the database).
const MaxSnapshotNodes = 2_000_000

// LoadSnapshot reads a Snapshot from an index.
func LoadSnapshot(ctx context.Context, q Querier) (*Snapshot, error) {
	s := &Snapshot{index: map[string]int{}, members: map[string][]Membership{}, procs: map[string]Process{}}
	labels := append(append([]schema.Label(nil), schema.SymbolLabels...), schema.LabelFile)
	for _, l := range labels {
		n, err := s.count(ctx, q, l)
		if err != nil {
			return nil, err
		}
		if len(s.nodes)+n > MaxSnapshotNodes {
			return nil, fmt.Errorf("snapshot: more than %d nodes", MaxSnapshotNodes)
		}
		stmt := fmt.Sprintf("MATCH (n:%s) RETURN n.id, n.name, n.kind, n.filePath, n.startLine, n.endLine, n.language", l)
		if l == schema.LabelFile {
			// As neighbors reads a file: kind "file", its path, line 1,
			// no end line (File has none).
			stmt = "MATCH (n:File) RETURN n.id, n.name, 'file', n.path, 1, 0, n.language"
		}
		res, err := readAll(ctx, q, stmt)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s nodes: %w", l, err)
		}
		for _, row := range res.Rows {
			h := Hit{ID: str(row[0]), Label: string(l), Name: str(row[1]), Kind: str(row[2]), FilePath: str(row[3]),
				StartLine: num(row[4]), EndLine: num(row[5]), Language: str(row[6])}
			if _, dup := s.index[h.ID]; dup {
				continue
			}
			s.index[h.ID] = len(s.nodes)
			s.nodes = append(s.nodes, h)
		}
	}
	s.adj = make([][2][]snapEdge, len(s.nodes))
	for _, rt := range relOrder {
		res, err := readAll(ctx, q, fmt.Sprintf("MATCH (a)-[r:%s]->(b) RETURN a.id, b.id", rt))
		if err != nil {
			return nil, fmt.Errorf("snapshot %s edges: %w", rt, err)
		}
		for _, row := range res.Rows {
			a, okA := s.index[str(row[0])]
			b, okB := s.index[str(row[1])]
			if !okA || !okB {
				continue // an endpoint that is no search result (Folder, ...)
			}
			s.adj[a][0] = append(s.adj[a][0], snapEdge{rt, int32(b)})
			s.adj[b][1] = append(s.adj[b][1], snapEdge{rt, int32(a)})
			s.edges++
		}
	}
	for i := range s.adj {
		for d := range 2 {
			es := s.adj[i][d]
			sort.SliceStable(es, func(x, y int) bool {
				if es[x].rel != es[y].rel {
					return es[x].rel < es[y].rel
				}
				return s.nodes[es[x].to].ID < s.nodes[es[y].to].ID
			})
		}
	}
	if err := s.loadProcesses(ctx, q); err != nil {
		return nil, err
	}
	return s, nil
}

// allQuerier is a Querier that can read a whole table past a row cap
// (graph.DB.QueryAll; the MCP server opens indexes with MaxRows).
type allQuerier interface {
	QueryAll(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// readAll runs one of LoadSnapshot's statements, uncapped where q can, and
// fails on a result cut at a row cap: a snapshot missing rows would answer
// differently from the database.
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

func (s *Snapshot) count(ctx context.Context, q Querier, l schema.Label) (int, error) {
	res, err := readAll(ctx, q, fmt.Sprintf("MATCH (n:%s) RETURN count(n)", l))
	if err != nil {
		return 0, fmt.Errorf("snapshot: count %s: %w", l, err)
	}
	if len(res.Rows) == 0 {
		return 0, nil
	}
	return num(res.Rows[0][0]), nil
}

func (s *Snapshot) loadProcesses(ctx context.Context, q Querier) error {
	res, err := readAll(ctx, q, fmt.Sprintf("MATCH (p:%s) RETURN p.id, p.label, p.priority, p.processType, p.stepCount", schema.LabelProcess))
	if err != nil {
		return fmt.Errorf("snapshot processes: %w", err)
	}
	for _, row := range res.Rows {
		id := str(row[0])
		s.procs[id] = Process{ID: id, Summary: str(row[1]), Priority: flt(row[2]), ProcessType: str(row[3]), StepCount: num(row[4])}
	}
	res, err = readAll(ctx, q, fmt.Sprintf("MATCH (s)-[r:%s]->(p:%s) RETURN s.id, p.id, r.step, s.name, s.filePath",
		schema.RelStepInProcess, schema.LabelProcess))
	if err != nil {
		return fmt.Errorf("snapshot process steps: %w", err)
	}
	for _, row := range res.Rows {
		m := Membership{SymbolID: str(row[0]), ProcessID: str(row[1]), Step: num(row[2])}
		s.members[m.SymbolID] = append(s.members[m.SymbolID], m)
		p := s.procs[m.ProcessID]
		p.Steps = append(p.Steps, Step{Index: m.Step, ID: m.SymbolID, Name: str(row[3]), FilePath: str(row[4])})
		s.procs[m.ProcessID] = p
	}
	for id, ms := range s.members {
		sortMemberships(ms)
		s.members[id] = ms
	}
	sortSteps(s.procs)
	return nil
}

// Stats are the snapshot's sizes, for logs.
func (s *Snapshot) Stats() (nodes, edges, processes int) {
	return len(s.nodes), s.edges, len(s.procs)
}

// neighbors is the Snapshot's NeighborFunc: what the Cypher neighbors
// returns, in its order.
func (s *Snapshot) neighbors(ids []string, rels []schema.RelType, fanout int, files bool) []Neighbor {
	want := map[schema.RelType]bool{}
	for _, r := range rels {
		want[r] = true
	}
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	var out []Neighbor
	for d := range 2 {
		for _, id := range sorted {
			i, ok := s.index[id]
			if !ok {
				continue
			}
			count := map[schema.RelType]int{}
			for _, e := range s.adj[i][d] {
				if !want[e.rel] || count[e.rel] >= fanout {
					continue
				}
				h := s.nodes[e.to]
				if h.Label == string(schema.LabelFile) && !files {
					continue
				}
				count[e.rel]++
				out = append(out, Neighbor{From: id, Rel: e.rel, Out: d == 0, Hit: h})
			}
		}
	}
	return out
}

// processesOf is the Snapshot's processesOf.
func (s *Snapshot) processesOf(hits []Hit) ([]Membership, map[string]Process) {
	var members []Membership
	procs := map[string]Process{}
	for _, h := range hits {
		if !schema.Label(h.Label).IsSymbol() {
			continue
		}
		for _, m := range s.members[h.ID] {
			members = append(members, m)
			procs[m.ProcessID] = s.procs[m.ProcessID]
		}
	}
	if len(members) == 0 {
		return nil, nil
	}
	sortMemberships(members)
	return members, procs
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

// sortSteps orders each process's steps by step index (see processesOf for
// why the database's order cannot be trusted).
func sortSteps(procs map[string]Process) {
	for _, p := range procs {
		sort.SliceStable(p.Steps, func(i, j int) bool { return p.Steps[i].Index < p.Steps[j].Index })
	}
}
