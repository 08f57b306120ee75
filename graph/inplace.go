package graph

// This file owns the in-place load: when the build has a base (UpdateFrom,
// the live index it replaces) whose row digest (digest.go) it can read,
// Load copies the base's database and applies the difference between the
// two builds' rows to the copy, instead of loading every row into a new
// database. The result is swapped in by Commit as a full load's is.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/internal/cheap"
)

// LoadStats says how Load filled the new database.
type LoadStats struct {
	// InPlace: the base index's database was copied and updated.
	InPlace bool `json:"in_place"`
	// Whole says why a build with a base loaded every row instead ("" when
	// in place or without a base).
	Whole string `json:"whole_reason,omitempty"`
	// Rows written in place: nodes created, changed (properties set) and
	// deleted, edges created and deleted (besides those of deleted nodes),
	// and the statements run.
	NodesAdded   int `json:"nodes_added"`
	NodesChanged int `json:"nodes_changed"`
	NodesRemoved int `json:"nodes_removed"`
	EdgesCreated int `json:"edges_created"`
	EdgesDeleted int `json:"edges_deleted"`
	EdgesMoved   int `json:"edges_moved"` // only their line changed: set in place
	Statements   int `json:"statements"`
}

// Bounds of the in-place load (variables for tests).
var (
	// An update in place costs, measured on prometheus, kubernetes and
	// the test fixtures (2 cores), about inPlaceFixed plus inPlacePerMiB
	// per MiB of the database (copy, open, checkpoint, counts), plus
	// inPlaceStatement per statement of its own (a SET, an edge deleted:
	// 1.2-3.3 ms measured) and inPlaceRow per row created (batched,
	// createBatchRows a statement: 0.7 ms a row, and as much again at the
	// checkpoint). A full load costs about fullFixed (the schema's DDL,
	// opening and settling the database) plus fullPerTable per table
	// COPYed and fullPerRow per row (a 10-row fixture: 0.95 s; prometheus:
	// 1.7 s; kubernetes: 4.0 s). Load updates in place when that estimate
	// is below inPlaceShare of the full load's. The costs were raised until
	// the 50-file edits of prometheus and kubernetes, which ran longer in
	// place than whole (kubernetes 4.9 s against 4.0 s; prometheus peaked
	// 40 MiB above a full load), load whole.
	inPlaceFixed     = 250 * time.Millisecond
	inPlacePerMiB    = 3 * time.Millisecond
	inPlaceStatement = 2500 * time.Microsecond
	inPlaceRow       = 1500 * time.Microsecond
	fullFixed        = 700 * time.Millisecond
	fullPerTable     = 15 * time.Millisecond
	fullPerRow       = 10 * time.Microsecond
	inPlaceShare     = 0.8
	// inPlaceMaxCreates: rows created in place cost Kuzu memory (its local
	// storage: 8-30 MiB a rel table written, on prometheus); past this many
	// rows (or inPlaceCreateShare's share of a larger build) the load is
	// whole. Prometheus' 50-file edit (879 rows) peaked 55-60 MiB over a
	// cold run in place (session 25); when this limit was set, kubernetes'
	// 50-file edit peaked 56 MiB over a full load, about as fast.
	inPlaceMaxCreates = 500
	// inPlaceCreateShare raises that limit for a larger build to one row
	// created per inPlaceCreateShare rows of it: a full run's peak grows
	// with the build, what the created rows cost Kuzu much less. Kubernetes
	// (about 330k rows: limit 1,650), session 25: 50-file edits creating
	// 450-1,314 rows ran in place in 5.4-7.3 s, peak 337-380 MiB, against
	// 9.9-12.0 s loaded whole, and 437-449 MiB for a cold run.
	inPlaceCreateShare = 200
	// createBatchRows and createBatchBytes bound one CREATE statement.
	createBatchRows  = 200
	createBatchBytes = 256 << 10
	// inPlaceMaxGrowth: deleted rows leave room in the database file that
	// Kuzu does not give back (prometheus's 54 MB database grows by 9-34
	// MB an update, and opening a larger file costs more memory); once the
	// file has grown by this factor over its size after the last full
	// load, the next build loads every row.
	inPlaceMaxGrowth = 1.5
)

// UpdateFrom makes live, meta.json as the caller read it after NewBuild
// took the lock, the base of Load: Load then tries to update a copy of
// live's database in place (see LoadStats). The caller vouches that this
// build's rows mean what the base's rows meant (the same gitnexus build and
// schema) and that neither has tables beyond the schema's (vectors).
func (b *Build) UpdateFrom(live *Meta) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.base = live
}

// LoadStats says how Load filled the database (valid after Load).
func (b *Build) LoadStats() LoadStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// inPlacePlan is the difference between the base's rows and this build's,
// as the digests tell it: which nodes went, changed and came, and which
// nodes' outgoing edges changed. Which of those edges to delete and create
// is worked out once the database is open (planEdges).
type inPlacePlan struct {
	removed map[schema.Label][]string        // ids to delete, with their edges
	set     map[schema.Label]map[uint32]bool // node-file lines to set (true) or create (false)
	// fresh: nodes whose every outgoing edge is created (new nodes, and
	// nodes that had none); diff: nodes that had edges and whose edges
	// changed, compared edge by edge. Both map an id hash to the id.
	fresh, diff map[schema.Label]map[uint64]string
	// created: the nodes only this build has (an id hash to the id),
	// which the update creates.
	created    map[schema.Label]map[uint64]string
	freshEdges int // edges of the fresh nodes
	diffOld    int // edges the diff nodes have in the base
	diffNew    int // and now
	counts     struct{ added, changed, removed int }
}

// nodeRows counts the nodes of label l the plan sets and creates.
func (p *inPlacePlan) nodeRows(l schema.Label) (set, create int) {
	for _, isSet := range p.set[l] {
		if isSet {
			set++
		} else {
			create++
		}
	}
	return set, create
}

// byLabel describes the plan by label, for the debug log.
func (p *inPlacePlan) byLabel() string {
	var b strings.Builder
	for _, t := range schema.NodeTables() {
		l := t.Label
		set, create := p.nodeRows(l)
		if n := len(p.removed[l]) + set + create + len(p.fresh[l]) + len(p.diff[l]); n > 0 {
			fmt.Fprintf(&b, "%s: -%d ~%d +%d, edges of %d new and %d changed; ", l, len(p.removed[l]), set, create, len(p.fresh[l]), len(p.diff[l]))
		}
	}
	return b.String()
}

// planInPlace compares the base's digest old with this build's.
func (b *Build) planInPlace(old *rowDigest) *inPlacePlan {
	p := &inPlacePlan{removed: map[schema.Label][]string{}, set: map[schema.Label]map[uint32]bool{},
		fresh: map[schema.Label]map[uint64]string{}, diff: map[schema.Label]map[uint64]string{}, created: map[schema.Label]map[uint64]string{}}
	labels := map[schema.Label]bool{}
	for l := range old.nodes {
		labels[l] = true
	}
	for l := range b.digest.nodes {
		labels[l] = true
	}
	add := func(m map[schema.Label]map[uint64]string, l schema.Label, e digestEntry) {
		if m[l] == nil {
			m[l] = map[uint64]string{}
		}
		m[l][e.idh] = e.id
	}
	for l := range labels {
		olds := old.nodes[l]
		// Sorted in place, as the digest is written (seq keeps each
		// entry's line; seal's index is not read after the edges are in).
		ns := b.digest.nodes[l]
		slices.SortFunc(ns, compareEntries)
		mark := func(e digestEntry, set bool) {
			if p.set[l] == nil {
				p.set[l] = map[uint32]bool{}
			}
			p.set[l][e.seq] = set
		}
		i, j := 0, 0
		for i < len(olds) || j < len(ns) {
			c := 0
			switch {
			case i == len(olds):
				c = 1
			case j == len(ns):
				c = -1
			default:
				c = compareEntries(olds[i], ns[j])
			}
			switch {
			case c < 0: // only in the base
				p.removed[l] = append(p.removed[l], olds[i].id)
				p.counts.removed++
				i++
			case c > 0: // only in this build
				mark(ns[j], false)
				add(p.created, l, ns[j])
				if ns[j].outN > 0 {
					add(p.fresh, l, ns[j])
					p.freshEdges += int(ns[j].outN)
				}
				p.counts.added++
				j++
			default:
				o, n := olds[i], ns[j]
				if o.row != n.row {
					mark(n, true)
					p.counts.changed++
				}
				switch {
				case o.out == n.out && o.outN == n.outN:
				case o.outN == 0:
					add(p.fresh, l, n)
					p.freshEdges += int(n.outN)
				default:
					add(p.diff, l, n)
					p.diffOld += int(o.outN)
					p.diffNew += int(n.outN)
				}
				i++
				j++
			}
		}
	}
	return p
}

// edgeWork is what an in-place update does to edges: the nodes whose
// outgoing edges are all deleted (dropAll), edges deleted one by one
// (deletes: a statement each), edges whose line moved (moves, by rel
// key: a property set in place, batched; lineMoves, every edge of one
// source on one line, set together), and the edge rows created, by rel
// key.
type edgeWork struct {
	dropAll                 map[schema.Label][]string
	deletes                 []string
	moves                   map[string][]edgeMove
	lineMoves               map[string][]lineMove
	creates                 map[string][][]byte
	nCreate, nDelete, nMove int
	deleted                 map[schema.RelType]bool // rel types of deletes
}

// lineMove is every stored edge of one source on one line, with the same
// confidence, reason and step, moving to one other line: a call site
// with many targets (a C call through an ops-table member links to every
// function stored in it: a few hundred edges on one line) whose code
// moved. One statement moves them all, matching the source by its key
// and its edges by line, without the targets' keys (moveBySource).
type lineMove struct {
	from string
	key  lineKey
	now  int64
	of   int // edges moved
}

// lineKey is a line of a source's edges: the edges' type, target table,
// confidence, reason and step, and the line.
type lineKey struct {
	rt, toLabel string
	confidence  float64
	reason      string
	step, line  int64
}

// moveByLine is how many edges of one line of one source (lineKey) move
// together in one statement (lineMove) when they are all of that line's
// stored edges and all move to one line. A variable for tests.
var moveByLine = 16

// edgeIdent is an edge among its source's, its line aside: type, target
// and the other properties.
type edgeIdent struct {
	rt, toLabel, to string
	confidence      float64
	reason          string
	step            int64
}

// match is the Cypher that finds the edges of ident from the node id of
// label l (a and b bound to its ends, r to the edges), line aside.
func (e edgeIdent) match(l schema.Label, id string) string {
	return fmt.Sprintf("MATCH (a:%s {id: %s})-[r:%s]->(b:%s {id: %s}) WHERE r.confidence = %s AND r.reason = %s AND r.step = %d",
		l, schema.Quote(id), e.rt, e.toLabel, schema.Quote(e.to), doubleLiteral(e.confidence), schema.Quote(e.reason), e.step)
}

// doubleLiteral is f as a Cypher DOUBLE literal (schema.Literal's form).
func doubleLiteral(f float64) string {
	lit, _ := schema.Literal("DOUBLE", json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)))
	return lit
}

// narrow is a condition that every node of label l whose id is in ids
// meets, for the WHERE of a statement that matches those nodes (as alias)
// by an id taken from its UNWIND list: Kuzu 0.11 plans MATCH (n:L {id: x}),
// x not a constant, as a scan of the whole table joined to the list (its
// primary-key index serves constants only), and a constant condition on
// the file path lets it skip most of the scan (kubernetes, 40 Function ids
// and their edges: 23 ms → 4 ms a statement). "" when l has no file path
// or an id does not tell its path (schema.SymbolPath). A condition that
// missed a node would leave its rows unmatched, which the update notices:
// set and planEdges read the nodes they change first ("not stored"), and
// an edge not deleted or not created leaves its table's count off
// (verifyCounts).
func narrow(alias string, l schema.Label, ids []string) string {
	if !l.IsSymbol() || len(ids) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var paths []string
	for _, id := range ids {
		p, ok := schema.SymbolPath(id)
		if !ok {
			return ""
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return alias + ".filePath IN " + schema.QuoteList(paths)
}

// where is " WHERE " and the non-empty conditions joined by AND, or "".
func where(conds ...string) string {
	conds = slices.DeleteFunc(slices.Clone(conds), func(c string) bool { return c == "" })
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// edgeMove is an edge whose line is all that changed.
type edgeMove struct {
	from     string
	ident    edgeIdent
	was, now int64
}

// sourceEdge is one edge of a diff node as this build has it.
type sourceEdge struct {
	ident edgeIdent
	line  int64
	rel   string // relKey
	row   []byte
}

// planEdges works out the edge statements of plan p on the open database:
// the fresh nodes' edges are created; each diff node's edges as stored are
// compared with its edges now (diffSource).
func (u *updater) planEdges(p *inPlacePlan, kept map[string]int) (*edgeWork, error) {
	w := &edgeWork{dropAll: map[schema.Label][]string{}, moves: map[string][]edgeMove{}, lineMoves: map[string][]lineMove{}, creates: map[string][][]byte{},
		deleted: map[schema.RelType]bool{}}
	now := map[string][]sourceEdge{} // diff node id → its edges now
	tScan := time.Now()
	for _, r := range schema.Rels {
		for _, pair := range r.Pairs {
			key := relKey(r.Type, pair.From, pair.To)
			fresh, diff := p.fresh[pair.From], p.diff[pair.From]
			if len(fresh)+len(diff) == 0 || kept[key] == 0 {
				continue
			}
			err := eachLine(u.b.loaded[key], func(line []byte) error {
				// Most edges are of nodes that did not change: their
				// source is read in place and hashed, and only the edges
				// of fresh and diff nodes are parsed (kubernetes: the scan
				// 209 ms -> 82-121 ms).
				if from, _, ok := edgeEnds(line); ok {
					h := u.b.digest.hash64(from)
					fid, isFresh := fresh[h]
					isFresh = isFresh && fid == string(from)
					if _, ok := diff[h]; !ok && !isFresh {
						return nil
					}
				}
				e, err := parseEdgeLine(line)
				if err != nil {
					return err
				}
				h := u.b.digest.hash64(bytesOf(e.From))
				if id, ok := fresh[h]; ok && id == e.From {
					w.creates[key] = append(w.creates[key], slices.Clone(line))
					w.nCreate++
				} else if id, ok := diff[h]; ok && id == e.From {
					now[e.From] = append(now[e.From], sourceEdge{
						ident: edgeIdent{string(r.Type), string(pair.To), e.To, e.Confidence, e.Reason, int64(e.Step)},
						line:  int64(e.Line), rel: key, row: slices.Clone(line)})
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	u.b.log.Debug("plan edges: rows scanned", "took", time.Since(tScan))
	for _, t := range schema.NodeTables() {
		l := t.Label
		ids := make([]string, 0, len(p.diff[l]))
		for _, id := range p.diff[l] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for chunk := range slices.Chunk(ids, 500) {
			parts, err := unwindIDs("i", chunk)
			if err != nil {
				return nil, err
			}
			var stored [][]any
			for _, in := range parts {
				res, err := u.query(in.then(fmt.Sprintf("MATCH (n:%s {id: %s})-[r]->(m)%s RETURN n.id, label(r), label(m), m.id, r.confidence, r.reason, r.step, r.line",
					l, in.field["id"], where(narrow("n", l, chunk[in.lo:in.hi])))))
				if err != nil {
					return nil, fmt.Errorf("read the edges to compare: %w", err)
				}
				stored = append(stored, res.Rows...)
			}
			was := map[string]map[edgeIdent][]int64{} // id → edge → its lines
			for _, row := range stored {
				from, _ := row[0].(string)
				var e edgeIdent
				e.rt, _ = row[1].(string)
				e.toLabel, _ = row[2].(string)
				e.to, _ = row[3].(string)
				e.confidence, _ = row[4].(float64)
				e.reason, _ = row[5].(string)
				e.step, _ = row[6].(int64)
				line, _ := row[7].(int64)
				if was[from] == nil {
					was[from] = map[edgeIdent][]int64{}
				}
				was[from][e] = append(was[from][e], line)
			}
			for _, id := range chunk {
				w.diffSource(l, id, was[id], now[id])
			}
		}
	}
	return w, nil
}

// diffSource plans the edges of one diff node id of label l: was holds its
// stored edges (each edge's lines), now its edges as they are to be. For
// each edge, the lines both have stay; a line that moved is set in place
// (edgeMove: code above the call moved it, the commonest change); lines
// gone are deleted and new ones created. An edge stored twice on one line
// is deleted and created whole. When that costs more than creating every
// edge of the node again, that is done instead (dropAll).
func (w *edgeWork) diffSource(l schema.Label, id string, was map[edgeIdent][]int64, now []sourceEdge) {
	byIdent := map[edgeIdent][]sourceEdge{}
	for _, e := range now {
		byIdent[e.ident] = append(byIdent[e.ident], e)
	}
	var deletes []string
	var moves []edgeMove
	var creates []sourceEdge
	unique := func(lines []int64) bool {
		s := slices.Clone(lines)
		slices.Sort(s)
		return len(slices.Compact(s)) == len(lines)
	}
	for ident, old := range was {
		fresh := byIdent[ident]
		nowLines := make([]int64, len(fresh))
		for i, e := range fresh {
			nowLines[i] = e.line
		}
		if !unique(old) || !unique(nowLines) {
			deletes = append(deletes, ident.match(l, id)+" DELETE r")
			w.deleted[schema.RelType(ident.rt)] = true
			creates = append(creates, fresh...)
			continue
		}
		var gone []int64
		for _, line := range old {
			if !slices.Contains(nowLines, line) {
				gone = append(gone, line)
			}
		}
		var added []sourceEdge
		for _, e := range fresh {
			if !slices.Contains(old, e.line) {
				added = append(added, e)
			}
		}
		slices.Sort(gone)
		slices.SortFunc(added, func(a, b sourceEdge) int { return cmp.Compare(a.line, b.line) })
		k := min(len(gone), len(added))
		for i := range k {
			moves = append(moves, edgeMove{from: id, ident: ident, was: gone[i], now: added[i].line})
		}
		for _, line := range gone[k:] {
			deletes = append(deletes, fmt.Sprintf("%s AND r.line = %d DELETE r", ident.match(l, id), line))
			w.deleted[schema.RelType(ident.rt)] = true
		}
		creates = append(creates, added[k:]...)
	}
	for ident, fresh := range byIdent {
		if _, ok := was[ident]; !ok {
			creates = append(creates, fresh...)
		}
	}
	var lineMoves []lineMove
	if len(moves) >= moveByLine {
		lineMoves, moves = wholeLines(id, was, moves)
	}
	// Creating every edge again costs inPlaceRow an edge, a delete
	// inPlaceStatement (about three times that), a move about half.
	if 6*len(deletes)+2*len(creates)+len(moves) >= 2*len(now) {
		w.dropAll[l] = append(w.dropAll[l], id)
		for _, old := range was {
			w.nDelete += len(old)
		}
		for _, e := range now {
			w.creates[e.rel] = append(w.creates[e.rel], e.row)
		}
		w.nCreate += len(now)
		return
	}
	slices.Sort(deletes)
	w.deletes = append(w.deletes, deletes...)
	w.nDelete += len(deletes)
	for _, m := range moves {
		key := relKey(schema.RelType(m.ident.rt), l, schema.Label(m.ident.toLabel))
		w.moves[key] = append(w.moves[key], m)
	}
	w.nMove += len(moves)
	for _, m := range lineMoves {
		key := relKey(schema.RelType(m.key.rt), l, schema.Label(m.key.toLabel))
		w.lineMoves[key] = append(w.lineMoves[key], m)
		w.nMove += m.of
	}
	for _, e := range creates {
		w.creates[e.rel] = append(w.creates[e.rel], e.row)
	}
	w.nCreate += len(creates)
}

// wholeLines takes out of moves, the moved edges of source id whose stored
// edges are was, the lines whose edges all move (lineMove: at least
// moveByLine of them, every stored edge of that lineKey, all to one line
// other than 0), and returns them with the moves left, in their order.
func wholeLines(id string, was map[edgeIdent][]int64, moves []edgeMove) ([]lineMove, []edgeMove) {
	keyOf := func(e edgeIdent, line int64) lineKey {
		return lineKey{e.rt, e.toLabel, e.confidence, e.reason, e.step, line}
	}
	moving := map[lineKey][]int{} // the moves of a line, by index
	for i, m := range moves {
		k := keyOf(m.ident, m.was)
		moving[k] = append(moving[k], i)
	}
	stored := map[lineKey]int{}
	for ident, lines := range was {
		for _, line := range lines {
			if k := keyOf(ident, line); len(moving[k]) >= moveByLine {
				stored[k]++
			}
		}
	}
	taken := make([]bool, len(moves))
	var out []lineMove
	for k, idx := range moving {
		now := moves[idx[0]].now
		if len(idx) < moveByLine || stored[k] != len(idx) || now == 0 || k.line == 0 {
			continue
		}
		if slices.ContainsFunc(idx, func(i int) bool { return moves[i].now != now }) {
			continue
		}
		for _, i := range idx {
			taken[i] = true
		}
		out = append(out, lineMove{from: id, key: k, now: now, of: len(idx)})
	}
	if len(out) == 0 {
		return nil, moves
	}
	slices.SortFunc(out, func(a, b lineMove) int {
		return cmp.Or(cmp.Compare(a.key.rt, b.key.rt), cmp.Compare(a.key.toLabel, b.key.toLabel), cmp.Compare(a.key.line, b.key.line),
			cmp.Compare(a.key.reason, b.key.reason), cmp.Compare(a.key.confidence, b.key.confidence), cmp.Compare(a.key.step, b.key.step))
	})
	left := moves[:0:0]
	for i, m := range moves {
		if !taken[i] {
			left = append(left, m)
		}
	}
	return out, left
}

// inPlaceBase is what an in-place load reads of the live index before it
// compares rows: its row digest, whether it can serve, and (when read
// early, StartInPlace) its database copied to the build's.
type inPlaceBase struct {
	why    string // "" when the live index can be updated in place
	old    *rowDigest
	hdr    digestHeader
	fixed  time.Duration // the update's cost besides its statements
	copied bool          // the live database is at inPlacePath, its sum checked
	done   chan struct{} // closed once read (StartInPlace's goroutine)
	stop   atomic.Bool   // raised by an abort: the copy ends early
	// db and conn are the copy, opened by StartInPlace's goroutine once
	// copied when it is small (earlyOpenNodes; nil if not): the load takes
	// them over (adopt), an abort closes them.
	db   *kuzu.Database
	conn *kuzu.Connection
}

// earlyOpenNodes: the copy of a live index of at most this many nodes
// (its Meta.Counts) is opened as soon as it is copied, beside the parse
// and resolution, instead of on the load's path. Kuzu's open reads the
// catalog, the tables' metadata and their primary-key indexes (prometheus'
// 11.6k nodes: 0.33-0.49 s, most of a one-file update's wait once the
// update's own statements were cut); it holds what it read until the
// load, which on a small repository stays under a cold run's peak.
// Kubernetes' 58.6k nodes are above it: opened early there, the copy held
// 55-75 MiB more at the ingest's peak for no gain in wall
// (bench/results/inplace-early-open-2026-11-26.md; in session 31 its
// one-function updates peaked at 401-417 MiB with it, 326-362 without,
// a cold run at 412-418). The count, not the file's size, is the gate:
// in-place updates grow the file (kubernetes' from 88 MB loaded whole to
// 95-137 MB), so a size under which prometheus' fits let kubernetes' in
// after a full load.
var earlyOpenNodes = 30_000

// adopt hands the copy's open database over to b (nothing when there is
// none), so that b.closeDB closes it from then on.
func (e *inPlaceBase) adopt(b *Build) {
	if e.db != nil {
		b.db, b.conn = e.db, e.conn
		e.db, e.conn = nil, nil
	}
}

// close closes the copy's database if nobody adopted it.
func (e *inPlaceBase) close() {
	if e.conn != nil {
		e.conn.Close()
	}
	if e.db != nil {
		e.db.Close()
	}
	e.db, e.conn = nil, nil
}

// StartInPlace reads the base's row digest and copies its database for
// the in-place load on a goroutine of its own, so that the copy overlaps
// what the caller does before Load (index.Build: the parse, resolution
// and processes). Without a base (UpdateFrom) it does nothing. Load waits
// for it; if the load does not go in place, the copy is removed; an abort
// stops it. The copy goes to staging (inPlacePath) and is synced at
// once: Kuzu's first write to the copy waits for every page of it to be
// on disk (kubernetes' 200 MB just copied: 250-290 ms; synced: 10-15 ms),
// so the earlier that happens the less the update waits.
//
// A small copy (earlyOpenNodes) is then opened there too, when mayOpen
// (asked once the copy is made; nil is yes) says the update is likely to
// go in place: a caller that knows many files changed says no, since such
// an update is loaded whole and the open, about 0.4 s of a core beside the
// parse on prometheus, would be thrown away.
func (b *Build) StartInPlace(mayOpen func() bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.base == nil || b.early != nil || (b.state != stateAdding && b.state != statePrepared) {
		return
	}
	e := &inPlaceBase{done: make(chan struct{})}
	b.early = e
	pool, threads := b.opts.BufferPoolSize, b.opts.MaxThreads
	nodes := 0
	for _, t := range schema.NodeTables() {
		nodes += b.base.Counts[string(t.Label)]
	}
	small := nodes <= earlyOpenNodes
	go func() {
		defer close(e.done)
		r := b.readInPlaceBase(true, &e.stop)
		e.why, e.old, e.hdr, e.fixed, e.copied = r.why, r.old, r.hdr, r.fixed, r.copied
		if e.why != "" || !e.copied || e.stop.Load() || !small || (mayOpen != nil && !mayOpen()) {
			return
		}
		t0 := time.Now()
		db, err := openKuzu(b.inPlacePath(), systemConfig(pool, threads, false))
		if err != nil {
			b.log.Debug("in-place load: opening the copy early failed; the load opens it", "err", err)
			return
		}
		conn, err := kuzu.OpenConnection(db)
		if err != nil {
			db.Close()
			b.log.Debug("in-place load: connecting to the copy early failed; the load opens it", "err", err)
			return
		}
		e.db, e.conn = db, conn
		b.log.Debug("in-place load: the copy opened early", "took", time.Since(t0), "rss_MiB", RSS)
		// Kuzu's first statement on a database costs 15-45 ms whatever it
		// is (RETURN 1 included): paid here, beside the parse, not by the
		// load's first query (prometheus one-function edits: the plan's
		// edge queries 67-182 → 37-116 ms, 5 alternated pairs).
		t1 := time.Now()
		if err := exec(context.Background(), conn, "RETURN 1"); err != nil {
			b.log.Debug("in-place load: the early copy's first statement failed", "err", err)
		}
		b.log.Debug("in-place load: the early copy's first statement", "took", time.Since(t1))
	}()
}

// readInPlaceBase checks that the base can be updated in place and reads
// its digest; with copyDB, it also copies its database to inPlacePath
// (stop, which may be nil, ends the copy early). It reads only what does
// not change while the build runs (b.base, b.root, b.dir, the lock held),
// so it may run beside the build's other work.
func (b *Build) readInPlaceBase(copyDB bool, stop *atomic.Bool) *inPlaceBase {
	base := b.base
	r := &inPlaceBase{}
	t0 := time.Now()
	rowsName := base.DBFile + RowsSuffix
	if _, ok := base.Sums[rowsName]; !ok {
		r.why = "the live index has no row digest"
		return r
	}
	// The database's checksum is taken as it is copied (copyLive): it is
	// read once.
	if err := checkDBHeader(b.root, base); err != nil {
		r.why = "the live index does not verify: " + err.Error()
		return r
	}
	if err := checkCompanions(b.root, base); err != nil {
		r.why = "the live index does not verify: " + err.Error()
		return r
	}
	old, hdr, err := readDigest(filepath.Join(b.dir, rowsName))
	if err != nil {
		r.why = err.Error()
		return r
	}
	fi, err := os.Stat(filepath.Join(b.dir, base.DBFile))
	if err != nil {
		r.why = err.Error()
		return r
	} else if float64(fi.Size()) > float64(hdr.FullSize)*inPlaceMaxGrowth+float64(8<<20) {
		r.why = fmt.Sprintf("the database grew from %d to %d bytes in %d updates in place", hdr.FullSize, fi.Size(), hdr.Updates)
		return r
	}
	r.old, r.hdr = old, hdr
	r.fixed = inPlaceFixed + time.Duration(fi.Size()>>20)*inPlacePerMiB
	if copyDB {
		if r.why = b.copyLive(stop); r.why != "" {
			removeDBFiles(b.inPlacePath())
			return r
		}
		r.copied = true
	}
	b.log.Debug("in-place load: the live index read", "copied", copyDB, "took", time.Since(t0), "rss_MiB", RSS)
	return r
}

// copyLive copies the base's database to inPlacePath, checking its sum as
// it copies, and syncs the copy; it answers "" or why the base cannot
// serve. stop (may be nil) ends the copy early. Kuzu's first write to the
// copy would wait for every page of it to reach the disk anyway (its
// commit syncs the file): synced here, on StartInPlace's goroutine, the
// wait overlaps the parse instead of holding up the update.
func (b *Build) copyLive(stop *atomic.Bool) string {
	base := b.base
	sum, err := copySummed(filepath.Join(b.dir, base.DBFile), b.inPlacePath(), true, stop)
	if err != nil {
		return "copy the live database: " + err.Error()
	}
	if err := compareSum(b.root, base.DBFile, sum, base.Sums[base.DBFile]); err != nil {
		return "the live index does not verify: " + err.Error()
	}
	return ""
}

// loadInPlace tries the in-place load. It returns "" when the database is
// loaded (b.db open on it), else why not: then nothing of it is left and
// the caller loads every row. An error is returned only for ctx's end.
func (b *Build) loadInPlace(ctx context.Context, kept map[string]int, totalRows int) (why string, err error) {
	lapStart := time.Now()
	lap := func(step string) {
		b.log.Debug("in-place load", "step", step, "took", time.Since(lapStart), "rss_MiB", RSS)
		lapStart = time.Now()
	}
	// The live index's digest and its copy: read (and copied, and when
	// small opened) early when StartInPlace was called, else here, without
	// the copy, which waits for the plan. An early-opened copy is b's from
	// here on: closed below when the load does not go in place.
	ib := b.early
	if ib != nil {
		<-ib.done
		ib.adopt(b)
	}
	dst := b.inPlacePath()
	if b.digest.broken {
		b.closeDB()
		removeDBFiles(dst)
		return "two ids share a digest hash", nil
	}
	if ib == nil {
		ib = b.readInPlaceBase(false, nil)
	}
	// The update loosens the C heap (cheap.Bulk) as a full load alone
	// does: the copy's open, statements and checkpoint take Kuzu's large
	// blocks over and over, and what glibc keeps of them is small beside
	// a full run's peak. Prometheus one-function edits: load 1.09/0.91 →
	// 0.94/0.79 s, peak 163/149 → 172/155 MiB against a cold run's 175
	// (medians of 3, alternated, session 24). Bulk's restore trims the
	// C heap as the update returns, whether it went in place or not.
	defer cheap.Bulk()()
	defer func() {
		if why != "" || err != nil {
			b.closeDB()
			removeDBFiles(dst)
		}
	}()
	if ib.why != "" {
		return ib.why, nil
	}
	old, hdr, fixed := ib.old, ib.hdr, ib.fixed
	lap("read digest")
	t0 := time.Now()
	plan := b.planInPlace(old)
	lap("plan")
	tables := 0
	for _, rf := range b.files {
		if rf.rows > 0 {
			tables++
		}
	}
	full := fullFixed + time.Duration(tables)*fullPerTable + time.Duration(totalRows)*fullPerRow
	limit := time.Duration(inPlaceShare * float64(full))
	b.log.Debug("in-place plan", "added", plan.counts.added, "changed", plan.counts.changed,
		"removed", plan.counts.removed, "fresh_edges", plan.freshEdges, "diff_edges_was", plan.diffOld, "diff_edges_now", plan.diffNew,
		"by_label", plan.byLabel(), "full_load_estimate", full, "took", time.Since(t0))
	tooMany := func(est time.Duration) string {
		return fmt.Sprintf("an update in place would take about %v, a full load about %v", est.Round(time.Millisecond), full.Round(time.Millisecond))
	}
	// Before copying and opening the database: the nodes' statements and
	// rows, the fresh nodes' edges, and for the nodes whose edges changed
	// a statement each and a row for each edge more or fewer than before
	// (prometheus's 50-file edit: 2.5 s against 1.4 s allowed; a
	// one-function edit whose lines moved: 0.8 s).
	diffNodes := 0
	for _, m := range plan.diff {
		diffNodes += len(m)
	}
	if est := fixed + time.Duration(plan.counts.changed+diffNodes)*inPlaceStatement +
		time.Duration(plan.counts.added+plan.freshEdges+abs(plan.diffNew-plan.diffOld))*inPlaceRow; est > limit {
		return tooMany(est), nil
	}
	if !ib.copied {
		if why := b.copyLive(nil); why != "" {
			return why, nil
		}
		lap("copy")
	}
	if b.db == nil {
		if b.db, err = openKuzu(dst, systemConfig(b.opts.BufferPoolSize, b.opts.MaxThreads, false)); err != nil {
			return err.Error(), nil
		}
		if b.conn, err = kuzu.OpenConnection(b.db); err != nil {
			return err.Error(), nil
		}
		lap("open")
	}
	u := &updater{b: b, ctx: ctx, fixed: fixed, created: plan.created}
	work, err := u.planEdges(plan, kept)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "plan the edges: " + err.Error(), nil
	}
	lap("plan edges")
	if est := u.estimate(plan, work); est > limit {
		return tooMany(est), nil
	}
	if n, most := plan.counts.added+work.nCreate, max(inPlaceMaxCreates, totalRows/inPlaceCreateShare); n > most {
		return fmt.Sprintf("%d rows to create, more than the %d an update in place creates", n, most), nil
	}
	if err := u.applyInTx(plan, work); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "update in place: " + err.Error(), nil
	}
	lap("apply")
	b.log.Debug("in-place statements", "took", u.took, "n", u.n)
	// Every table must hold the rows its file has (the sound edges): the
	// rows view's counts.
	if why := b.verifyCounts(ctx, b.rows.counts, "the update", countedTables(plan, work)); why != "" {
		return why, nil
	}
	lap("count")
	b.stats = LoadStats{InPlace: true, NodesAdded: plan.counts.added, NodesChanged: plan.counts.changed,
		NodesRemoved: plan.counts.removed, EdgesCreated: work.nCreate, EdgesDeleted: work.nDelete, EdgesMoved: work.nMove, Statements: u.statements}
	b.digestHdr = digestHeader{FullSize: hdr.FullSize, Updates: hdr.Updates + 1}
	// Closing checkpoints the update into the file and gives back the
	// pages it used (Exec and Query open it again); the C heap goes back
	// with Bulk's restore.
	if why, err := b.checkpointInPlace(ctx, dst); why != "" || err != nil {
		return why, err
	}
	lap("checkpoint")
	b.closeDB()
	lap("close")
	b.log.Debug("updated in place", "stats", b.stats, "took", time.Since(t0))
	return "", nil
}

// verifyCounts counts the rows of the tables of the database being
// loaded and answers "" when each holds want[table] (b.counts then holds
// the counts), else why not; after names what was just done, for the
// message. With only, the tables it does not name are taken to hold
// want's counts (countedTables); nil counts every table.
func (b *Build) verifyCounts(ctx context.Context, want map[string]int, after string, only map[string]bool) string {
	b.counts = map[string]int{}
	check := func(table, stmt string) string {
		if only != nil && !only[table] {
			b.counts[table] = want[table]
			return ""
		}
		n, err := queryInt(ctx, b.conn, stmt)
		if err != nil {
			return "count rows after " + after + ": " + err.Error()
		}
		if n != want[table] {
			return fmt.Sprintf("after %s %s holds %d rows, not %d", after, table, n, want[table])
		}
		b.counts[table] = n
		return ""
	}
	for _, t := range schema.NodeTables() {
		if why := check(string(t.Label), fmt.Sprintf("MATCH (n:%s) RETURN count(n)", t.Label)); why != "" {
			return why
		}
	}
	for _, r := range schema.Rels {
		if why := check(string(r.Type), fmt.Sprintf("MATCH ()-[r:%s]->() RETURN count(r)", r.Type)); why != "" {
			return why
		}
	}
	return ""
}

// countedTables are the tables whose row counts update (p, w) changes:
// the node tables it creates or removes nodes of, and the rel tables it
// creates or deletes edges of (those of a removed node's either end, and
// of a node whose edges out are all deleted). The others are left as
// they were (their count need not be read again: prometheus, 22 tables
// at 1-2 ms each). A set of nodes or a move of edges changes no count.
func countedTables(p *inPlacePlan, w *edgeWork) map[string]bool {
	only := map[string]bool{}
	touch := func(l schema.Label, out, in bool) {
		for _, r := range schema.Rels {
			for _, pair := range r.Pairs {
				if out && pair.From == l || in && pair.To == l {
					only[string(r.Type)] = true
				}
			}
		}
	}
	for l, ids := range p.removed {
		if len(ids) > 0 {
			only[string(l)] = true
			touch(l, true, true)
		}
	}
	for l := range p.set {
		if _, create := p.nodeRows(l); create > 0 {
			only[string(l)] = true
		}
	}
	for l, ids := range w.dropAll {
		if len(ids) > 0 {
			touch(l, true, false)
		}
	}
	for key, rows := range w.creates {
		if len(rows) > 0 {
			rt, _, _ := strings.Cut(key, ":")
			only[rt] = true
		}
	}
	for rt := range w.deleted {
		only[string(rt)] = true
	}
	return only
}

// checkpointStmts end an in-place update: the first attempt's, then the
// retry's (variables for the tests of failed checkpoints).
var checkpointStmts = [2]string{"CHECKPOINT", "CHECKPOINT"}

// checkpointInPlace checkpoints the updated database at dst (b.db open on
// it) and answers "" when the update is in the file, else why not (then
// the caller loads every row). The checkpoint is asked for, not left to
// the close: Kuzu's own on close swallows its error and leaves the WAL
// behind, and the commit would fail on it. It rewrites every column chunk
// the update touched (a string column's whole node group: on kubernetes
// the Function table's source text), which can take more buffer pool than
// the statements did: the build's 256 MiB was too small after a few
// one-line edits of kubernetes ("The buffer pool is full"). Then the
// database is opened again, its WAL replayed, on the pool a full load
// would use (poolForLoad, at least the build's), checkpointed there, and
// its rows counted again.
func (b *Build) checkpointInPlace(ctx context.Context, dst string) (why string, err error) {
	err = exec(ctx, b.conn, checkpointStmts[0])
	if err == nil || ctx.Err() != nil {
		return "", ctx.Err()
	}
	pool := b.poolForLoad(b.opts.MaxThreads)
	b.log.Debug("in-place checkpoint failed; reopening on a larger pool", "err", err, "pool_MiB", pool>>20)
	b.closeDB()
	if b.db, err = openKuzu(dst, systemConfig(pool, b.opts.MaxThreads, false)); err != nil {
		return "checkpoint the update: reopen: " + err.Error(), nil
	}
	if b.conn, err = kuzu.OpenConnection(b.db); err != nil {
		return "checkpoint the update: reopen: " + err.Error(), nil
	}
	if err := exec(ctx, b.conn, checkpointStmts[1]); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "checkpoint the update: " + err.Error(), nil
	}
	return b.verifyCounts(ctx, b.rows.counts, "the checkpoint", nil), nil
}

// updater runs the statements of an in-place update.
type updater struct {
	fixed      time.Duration                      // the update's cost besides its statements
	created    map[schema.Label]map[uint64]string // inPlacePlan.created
	took       map[string]time.Duration
	n          map[string]int
	b          *Build
	ctx        context.Context
	statements int
}

func (u *updater) exec(stmt string) error {
	u.statements++
	kind, _, _ := strings.Cut(stmt, " ")
	t0 := time.Now()
	defer func() {
		if u.took == nil {
			u.took, u.n = map[string]time.Duration{}, map[string]int{}
		}
		u.took[kind] += time.Since(t0)
		if d := time.Since(t0); d > 20*time.Millisecond {
			u.b.log.Debug("slow in-place statement", "stmt", abbrev(stmt, 100), "took", d, "rss_MiB", RSS)
		}
		u.n[kind]++
	}()
	if err := exec(u.ctx, u.b.conn, stmt); err != nil {
		return fmt.Errorf("%s: %w", abbrev(stmt, 120), err)
	}
	return nil
}

// applyInTx runs the update (applyNodes, then createEdges) in one
// transaction: each statement on its own is a transaction of Kuzu's,
// committed (its WAL written and synced) before the next; seven statements
// of a prometheus update on a copy of its database took 40-109 ms so and
// 32-50 ms in one (session 33). A failed statement rolls the transaction
// back, and the caller then loads every row into a new database, as for
// any failure in place.
//
// The edges of nodes the update creates are matched by constant ids
// (narrowStored), which see the nodes created earlier in the transaction;
// when a rel pair has more such edges than literalRows (constant
// statements of a row each), the edges go in a second transaction instead,
// after the nodes commit, matched as every other edge is: an UNWIND list
// joined with a narrowed scan. Unnarrowed, such a join scanned the whole
// table for its rows (kubernetes, 50 files each given a new function: 1.7,
// 3.2 and 4.2 s statements, the load 14 s against a full load's 4).
func (u *updater) applyInTx(p *inPlacePlan, w *edgeWork) error {
	var created, rest map[string][][]byte
	many := false
	if p.counts.added > 0 {
		created, rest, many = u.byCreatedEnds(w)
	}
	if !many {
		return u.inTx(func() error {
			if err := u.applyNodes(p, w); err != nil {
				return err
			}
			if created == nil {
				return u.createEdges(w.creates)
			}
			return u.createEdges(rest, created)
		})
	}
	u.created = nil // committed before the edges: narrow sees them
	if err := u.inTx(func() error { return u.applyNodes(p, w) }); err != nil {
		return err
	}
	return u.inTx(func() error { return u.createEdges(w.creates) })
}

// isCreated reports whether id is a node of label l the update creates.
func (u *updater) isCreated(l schema.Label, id []byte) bool {
	got, ok := u.created[l][u.b.digest.hash64(id)]
	return ok && got == string(id)
}

// createdEnd reports whether the edge row line has an endpoint of pair p
// that the update creates on a side narrow would narrow (a symbol table).
func (u *updater) createdEnd(p schema.Pair, line []byte) bool {
	from, to, ok := edgeEnds(line)
	if !ok {
		e, err := parseEdgeLine(line)
		if err != nil {
			return true // the statement reports it; never narrowed
		}
		from, to = bytesOf(e.From), bytesOf(e.To)
	}
	return (p.From.IsSymbol() && u.isCreated(p.From, from)) || (p.To.IsSymbol() && u.isCreated(p.To, to))
}

// byCreatedEnds parts the edges w creates, by rel pair (relKey), into
// those to or from nodes the update creates (createdEnd) and the rest;
// many reports whether a pair has more of the first than literalRows.
func (u *updater) byCreatedEnds(w *edgeWork) (created, rest map[string][][]byte, many bool) {
	created, rest = map[string][][]byte{}, map[string][][]byte{}
	for _, r := range schema.Rels {
		for _, pair := range r.Pairs {
			key := relKey(r.Type, pair.From, pair.To)
			for _, line := range w.creates[key] {
				if u.createdEnd(pair, line) {
					created[key] = append(created[key], line)
				} else {
					rest[key] = append(rest[key], line)
				}
			}
			many = many || len(created[key]) > literalRows
		}
	}
	return created, rest, many
}

// narrowStored is narrow for a statement of applyInTx's transaction: ""
// when one of ids is a node the update creates. In Kuzu 0.11.3 a
// statement that scans a node table under a condition (narrow's filePath
// IN ...) to join it with an UNWIND list does not see the nodes created
// earlier in its transaction, so an edge to or from a new node was
// silently not created (TestNewNodesEdgesInPlace: once caught by
// verifyCounts, the update falling back to a full load; with one
// transaction and the condition kept, the test finds the graph differing
// from a full load's, every count right). A match by a constant id sees
// them, as measured on a copy of prometheus's database; nodes set, and
// edges deleted or moved, are seen too (the equivalence tests).
func (u *updater) narrowStored(alias string, l schema.Label, ids []string) string {
	if len(u.created[l]) > 0 {
		for _, id := range ids {
			if u.isCreated(l, bytesOf(id)) {
				return ""
			}
		}
	}
	return narrow(alias, l, ids)
}

// removeStmts delete the nodes n that match binds (cond its WHERE, or
// ""): their edges out, their edges in, then the nodes. Not DETACH
// DELETE: in Kuzu 0.11.3, after other nodes' edges were deleted, it left
// an edge in its target's list of edges in (a caller still listed, or
// one missing) in about a third of random graphs, with or without a
// transaction, every table's count right (TestRemoveStmtsKeepAdjacency;
// it reached an update of goshop that random edits made, where an
// edge's count was off and the update loaded whole).
func removeStmts(match, cond string) []string {
	return []string{match + "-[r]->()" + cond + " DELETE r", match + "<-[r]-()" + cond + " DELETE r", match + cond + " DELETE n"}
}

// inTx runs f in one transaction: committed when f succeeds, else rolled
// back.
func (u *updater) inTx(f func() error) error {
	if err := exec(u.ctx, u.b.conn, txStmts[0]); err != nil {
		return err
	}
	err := f()
	if err == nil {
		err = exec(u.ctx, u.b.conn, txStmts[1])
	}
	if err != nil {
		if rerr := exec(context.WithoutCancel(u.ctx), u.b.conn, txStmts[2]); rerr != nil {
			u.b.log.Debug("in-place update: rollback failed", "err", rerr)
		}
	}
	return err
}

// txStmts begin, commit and roll back applyInTx's transaction (a variable
// for the tests of a failed update).
var txStmts = [3]string{"BEGIN TRANSACTION", "COMMIT", "ROLLBACK"}

// applyNodes runs the update but for the edges created (createEdges):
// edges deleted and moved, nodes deleted, set and created.
func (u *updater) applyNodes(p *inPlacePlan, w *edgeWork) error {
	const batch = 1000
	for _, t := range schema.NodeTables() {
		for ids := range slices.Chunk(w.dropAll[t.Label], batch) {
			parts, err := unwindIDs("i", ids)
			if err != nil {
				return err
			}
			for _, in := range parts {
				if err := u.exec(in.then(fmt.Sprintf("MATCH (n:%s {id: %s})-[r]->()%s DELETE r", t.Label, in.field["id"], where(narrow("n", t.Label, ids[in.lo:in.hi]))))); err != nil {
					return err
				}
			}
		}
	}
	for _, stmt := range w.deletes {
		if err := u.exec(stmt); err != nil {
			return err
		}
	}
	for _, r := range schema.Rels {
		for _, pair := range r.Pairs {
			lineMoves := w.lineMoves[relKey(r.Type, pair.From, pair.To)]
			if err := u.moveLines(r.Type, pair, lineMoves); err != nil {
				return err
			}
			// A source with many moved edges has a statement of its own
			// that finds it by its key (moveFrom); the others' are set by
			// statements over many sources (move).
			own, rest := splitBySource(w.moves[relKey(r.Type, pair.From, pair.To)])
			for _, ms := range own {
				for chunk := range slices.Chunk(ms, createBatchRows) {
					if err := u.moveFrom(r.Type, pair, chunk); err != nil {
						return err
					}
				}
			}
			for moves := range slices.Chunk(rest, createBatchRows) {
				if err := u.move(r.Type, pair, moves); err != nil {
					return err
				}
			}
			if err := u.settleLines(r.Type, pair, lineMoves); err != nil {
				return err
			}
		}
	}
	for _, t := range schema.NodeTables() {
		for ids := range slices.Chunk(p.removed[t.Label], batch) {
			parts, err := unwindIDs("i", ids)
			if err != nil {
				return err
			}
			for _, in := range parts {
				for _, stmt := range removeStmts(fmt.Sprintf("MATCH (n:%s {id: %s})", t.Label, in.field["id"]), where(narrow("n", t.Label, ids[in.lo:in.hi]))) {
					if err := u.exec(in.then(stmt)); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, t := range schema.NodeTables() {
		want := p.set[t.Label]
		if len(want) == 0 {
			continue
		}
		var creates, sets [][]byte
		seq := uint32(0)
		err := eachLine(u.b.files[nodeKey(t.Label)].path, func(line []byte) error {
			set, ok := want[seq]
			seq++
			switch {
			case !ok:
			case set:
				sets = append(sets, slices.Clone(line))
			default:
				creates = append(creates, slices.Clone(line))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for lines := range slices.Chunk(sets, 500) {
			if err := u.set(t, lines); err != nil {
				return err
			}
		}
		if err := u.create(creates, schema.Pair{From: t.Label}, "", t.Columns); err != nil {
			return err
		}
	}
	return nil
}

// createEdges creates the update's new edges (their endpoints exist by
// then: applyNodes ran): each list's rows of each rel pair (by relKey), a
// list after another. In applyInTx's one transaction the edges to or from
// nodes it creates (at most literalRows a pair) are a list of their own,
// created by constant ids, after the others, narrowed.
func (u *updater) createEdges(lists ...map[string][][]byte) error {
	for _, r := range schema.Rels {
		for _, pair := range r.Pairs {
			for _, l := range lists {
				if err := u.create(l[relKey(r.Type, pair.From, pair.To)], pair, r.Type, schema.RelColumns()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// move sets the lines of edges of rel pair p of rt that moved.
func (u *updater) move(rt schema.RelType, p schema.Pair, moves []edgeMove) error {
	rows := make([][]json.RawMessage, len(moves))
	from := make([]string, len(moves))
	for i, m := range moves {
		var err error
		if rows[i], err = jsonValues(m.from, m.ident.to, m.ident.confidence, m.ident.reason, m.ident.step, m.was, m.now); err != nil {
			return err
		}
		from[i] = m.from
	}
	parts, err := unwindParts("e", moveColumns, rows)
	if err != nil {
		return err
	}
	for _, e := range parts {
		f := e.field
		if err := u.exec(e.then(fmt.Sprintf("MATCH (a:%s {id: %s})-[r:%s]->(b:%s {id: %s})%s SET r.line = %s",
			p.From, f["src"], rt, p.To, f["dst"],
			where(narrow("a", p.From, from[e.lo:e.hi]), fmt.Sprintf("r.line = %s AND r.confidence = %s AND r.reason = %s AND r.step = %s",
				f["was"], f["c"], f["reason"], f["step"])), f["now"]))); err != nil {
			return err
		}
	}
	return nil
}

// splitBySource parts moves into the moves of each source that has at
// least moveBySource of them (in the order the sources first appear) and
// the rest (in their order).
func splitBySource(moves []edgeMove) (own [][]edgeMove, rest []edgeMove) {
	bySource := map[string][]edgeMove{}
	for _, m := range moves {
		bySource[m.from] = append(bySource[m.from], m)
	}
	done := map[string]bool{}
	for _, m := range moves {
		ms := bySource[m.from]
		if len(ms) < moveBySource {
			rest = append(rest, m)
		} else if !done[m.from] {
			done[m.from] = true
			own = append(own, ms)
		}
	}
	return own, rest
}

// sourceEdges is the MATCH of the edges of rel pair p of rt from the node
// whose key is from: a (the source, found by its key), r and b bound.
func sourceEdges(rt schema.RelType, p schema.Pair, from string) string {
	return fmt.Sprintf("MATCH (a:%s {id: %s})-[r:%s]->(b:%s)", p.From, schema.Quote(from), rt, p.To)
}

// moveLines moves the lines of rel pair p of rt (lineMove), each line's
// edges to the negative of their new line, where no statement after it
// takes them for edges of another line (code shifted down a line moves 10
// to 11 and 11 to 12): edges are never stored on negative lines, and the
// pair's other moves match each edge by its target and its stored line.
// It runs after the deletes and before the pair's other moves;
// settleLines, after them, brings the lines back.
func (u *updater) moveLines(rt schema.RelType, p schema.Pair, moves []lineMove) error {
	for _, m := range moves {
		k := m.key
		if err := u.exec(fmt.Sprintf("%s WHERE r.line = %d AND r.confidence = %s AND r.reason = %s AND r.step = %d SET r.line = %d",
			sourceEdges(rt, p, m.from), k.line, doubleLiteral(k.confidence), schema.Quote(k.reason), k.step, -m.now)); err != nil {
			return err
		}
	}
	return nil
}

// settleLines makes the negative lines moveLines left positive again:
// one statement for each source of moves.
func (u *updater) settleLines(rt schema.RelType, p schema.Pair, moves []lineMove) error {
	var sources []string
	for _, m := range moves {
		sources = append(sources, m.from)
	}
	slices.Sort(sources)
	for _, from := range slices.Compact(sources) {
		if err := u.exec(sourceEdges(rt, p, from) + " WHERE r.line < 0 SET r.line = -r.line"); err != nil {
			return err
		}
	}
	return nil
}

// moveBySource is how many moved edges of one source (and rel pair) get a
// statement of their own (moveFrom). Kuzu finds a node by a constant key
// through its primary-key index, but a key read from an UNWIND by scanning
// the table: move's statements over many sources scan the source and
// target tables, about 400 ms each on the Linux kernel's 700k functions,
// where a one-line edit in fs/read_write.c moved 4,285 edges of a few
// sources (23 statements, 9.6 s); moveFrom's took 100-160 ms each
// (3.9 s), and with whole lines moved first (moveLines, 20 statements of
// 30-500 ms) the rest took 4 (0.9 s). A variable for tests.
var moveBySource = 16

// moveFrom sets the lines of moved edges of rel pair p of rt that all
// leave one source: the source is a constant key, its edges are read from
// it, and only its neighbours are matched with the moves.
func (u *updater) moveFrom(rt schema.RelType, p schema.Pair, moves []edgeMove) error {
	rows := make([][]json.RawMessage, len(moves))
	for i, m := range moves {
		var err error
		if rows[i], err = jsonValues(m.ident.to, m.ident.confidence, m.ident.reason, m.ident.step, m.was, m.now); err != nil {
			return err
		}
	}
	parts, err := unwindParts("e", moveColumns[1:], rows)
	if err != nil {
		return err
	}
	for _, e := range parts {
		f := e.field
		if err := u.exec(e.then(fmt.Sprintf("%s WHERE b.id = %s AND r.line = %s AND r.confidence = %s AND r.reason = %s AND r.step = %s SET r.line = %s",
			sourceEdges(rt, p, moves[0].from), f["dst"], f["was"], f["c"], f["reason"], f["step"], f["now"]))); err != nil {
			return err
		}
	}
	return nil
}

// moveColumns are the fields of move's rows.
var moveColumns = []schema.Column{{Name: "src", Type: "STRING"}, {Name: "dst", Type: "STRING"}, {Name: "c", Type: "DOUBLE"},
	{Name: "reason", Type: "STRING"}, {Name: "step", Type: "INT64"}, {Name: "was", Type: "INT64"}, {Name: "now", Type: "INT64"}}

// jsonValues is vs as JSON values, a row for unwindRows.
func jsonValues(vs ...any) ([]json.RawMessage, error) {
	row := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		row[i] = b
	}
	return row, nil
}

// estimate is how long apply(p, w) should take, by the costs measured
// (inPlaceFixed and the rest), counting its statements as apply runs them.
func (u *updater) estimate(p *inPlacePlan, w *edgeWork) time.Duration {
	stmts, rows := len(w.deletes), 0
	for _, t := range schema.NodeTables() {
		stmts += (len(w.dropAll[t.Label])+999)/1000 + 3*((len(p.removed[t.Label])+999)/1000) // removeStmts
		set, create := p.nodeRows(t.Label)
		stmts += set + (set+499)/500
		rows += create
	}
	for _, lines := range w.creates {
		rows += len(lines)
	}
	return u.fixed + time.Duration(stmts)*inPlaceStatement + time.Duration(rows)*inPlaceRow + time.Duration(w.nMove)*inPlaceRow/2
}

// query runs a read on the database being updated.
func (u *updater) query(stmt string) (*Result, error) {
	u.statements++
	t0 := time.Now()
	defer func() {
		if d := time.Since(t0); d > 20*time.Millisecond {
			u.b.log.Debug("slow in-place query", "stmt", abbrev(stmt, 100), "took", d)
		}
	}()
	res, err := run(u.ctx, u.b.conn, stmt, nil)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	return collect(res, 0)
}

// set brings the nodes of table t whose rows changed to their new rows
// lines: it reads their stored values and sets only the properties that
// differ. Setting a string property makes Kuzu rewrite the column's chunk
// at the next checkpoint (about 100 ms for prometheus's function sources),
// and most changed rows differ only in their lines (code above them moved).
func (u *updater) set(t schema.NodeTable, lines [][]byte) error {
	rows := make([]map[string]json.RawMessage, len(lines))
	ids := make([]string, len(lines))
	for i, line := range lines {
		m, err := rowFields(line)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(m["id"], &ids[i]); err != nil {
			return fmt.Errorf("row without id: %w", err)
		}
		rows[i] = m
	}
	var q strings.Builder
	parts, err := unwindIDs("i", ids)
	if err != nil {
		return err
	}
	old := make(map[string][]any, len(ids))
	for _, in := range parts {
		q.Reset()
		fmt.Fprintf(&q, "MATCH (n:%s {id: %s})%s RETURN n.id", t.Label, in.field["id"], where(narrow("n", t.Label, ids[in.lo:in.hi])))
		for _, c := range t.Columns[1:] {
			fmt.Fprintf(&q, ", n.%s", c.Name)
		}
		stored, err := u.query(in.then(q.String()))
		if err != nil {
			return fmt.Errorf("read the rows to set: %w", err)
		}
		for _, r := range stored.Rows {
			if id, ok := r[0].(string); ok {
				old[id] = r[1:]
			}
		}
	}
	// The nodes are set in batches, one statement per set of columns that
	// differ (most often startLine and endLine alone), an UNWIND of their
	// rows (unwindParts) as create's: prometheus's one-line edit moved 107
	// functions, 107 statements and 84 ms one by one.
	type batch struct {
		cols  []schema.Column // id, then the columns set
		rows  [][]json.RawMessage
		ids   []string
		bytes int
	}
	batches := map[string]*batch{}
	var order []string
	flush := func(bt *batch) error {
		if len(bt.ids) == 0 {
			return nil
		}
		parts, err := unwindParts("r", bt.cols, bt.rows)
		if err != nil {
			return err
		}
		for _, r := range parts {
			var set strings.Builder
			for i, c := range bt.cols[1:] {
				if i > 0 {
					set.WriteString(", ")
				}
				fmt.Fprintf(&set, "n.`%s` = %s", c.Name, r.field[c.Name])
			}
			if err := u.exec(r.then(fmt.Sprintf("MATCH (n:%s {id: %s})%s SET %s", t.Label, r.field["id"], where(narrow("n", t.Label, bt.ids[r.lo:r.hi])), set.String()))); err != nil {
				return err
			}
		}
		bt.rows, bt.ids, bt.bytes = bt.rows[:0], bt.ids[:0], 0
		return nil
	}
	for i, m := range rows {
		prev, ok := old[ids[i]]
		if !ok {
			return fmt.Errorf("%s %s is not stored", t.Label, ids[i])
		}
		cols := []schema.Column{t.Columns[0]}
		row := []json.RawMessage{m["id"]}
		size := len(m["id"])
		for k, c := range t.Columns[1:] {
			now := "NULL"
			raw, ok := m[c.Name]
			if ok {
				var err error
				if now, err = schema.Literal(c.Type, raw); err != nil {
					return fmt.Errorf("%s: %w", c.Name, err)
				}
			}
			was := "NULL"
			if raw, err := json.Marshal(prev[k]); err == nil {
				was, _ = schema.Literal(c.Type, raw)
			}
			if now == was {
				continue
			}
			cols = append(cols, c)
			row = append(row, raw) // nil when absent: NULL
			size += len(raw)
		}
		if len(cols) == 1 {
			continue
		}
		var key strings.Builder
		for _, c := range cols[1:] {
			key.WriteString(c.Name + ",")
		}
		bt := batches[key.String()]
		if bt == nil {
			bt = &batch{cols: cols}
			batches[key.String()] = bt
			order = append(order, key.String())
		}
		bt.rows, bt.ids, bt.bytes = append(bt.rows, row), append(bt.ids, ids[i]), bt.bytes+size
		if len(bt.ids) >= createBatchRows || bt.bytes >= createBatchBytes {
			if err := flush(bt); err != nil {
				return err
			}
		}
	}
	for _, key := range order {
		if err := flush(batches[key]); err != nil {
			return err
		}
	}
	return nil
}

// create creates the rows lines (NDJSON, as the row files hold them) of a
// node table (rt "", p.From its label) or of rel pair p of rt, in
// statements of up to createBatchRows rows (or about createBatchBytes of
// text): an UNWIND of literal maps whose values schema.Literal renders as
// a COPY would store them. Not COPY: a COPY into a rel table that has
// rows rewrites the table (prometheus: 300 ms, and more than a 160 MiB
// buffer pool), where a batched CREATE costs about 0.7 ms a row.
func (u *updater) create(lines [][]byte, p schema.Pair, rt schema.RelType, cols []schema.Column) error {
	all := cols // the row's fields: the edge's ends first
	if rt != "" {
		all = append([]schema.Column{{Name: "_src", Type: "STRING"}, {Name: "_dst", Type: "STRING"}}, cols...)
	}
	var rows [][]json.RawMessage
	var srcs, dsts []string // the rel rows' ends, for narrow
	size := 0
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		parts, err := unwindParts("r", all, rows)
		if err != nil {
			return err
		}
		for _, r := range parts {
			var b strings.Builder
			for i, c := range cols {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "`%s`: %s", c.Name, r.field[c.Name])
			}
			var stmt string
			if rt == "" {
				stmt = fmt.Sprintf("CREATE (n:%s {%s})", p.From, b.String())
			} else {
				stmt = fmt.Sprintf("MATCH (a:%s {id: %s}), (b:%s {id: %s})%s CREATE (a)-[:%s {%s}]->(b)",
					p.From, r.field["_src"], p.To, r.field["_dst"], where(u.narrowStored("a", p.From, srcs[r.lo:r.hi]), u.narrowStored("b", p.To, dsts[r.lo:r.hi])), rt, b.String())
			}
			if err := u.exec(r.then(stmt)); err != nil {
				return err
			}
		}
		rows, srcs, dsts, size = rows[:0], srcs[:0], dsts[:0], 0
		return nil
	}
	for _, line := range lines {
		m, err := rowFields(line)
		if err != nil {
			return err
		}
		row := make([]json.RawMessage, 0, len(all))
		if rt != "" {
			var src, dst string
			if err := errors.Join(json.Unmarshal(m["from"], &src), json.Unmarshal(m["to"], &dst)); err != nil {
				return fmt.Errorf("edge row: %w", err)
			}
			srcs, dsts = append(srcs, src), append(dsts, dst)
			row = append(row, m["from"], m["to"])
		}
		for _, c := range cols {
			row = append(row, m[c.Name]) // nil when absent: NULL
		}
		rows = append(rows, row)
		if size += len(line); len(rows) >= createBatchRows || size >= createBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// rowFields decodes one NDJSON row into its fields.
func rowFields(line []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("decode row: %w", err)
	}
	return m, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
