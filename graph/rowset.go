package graph

// This file owns a build's rows as they stand once every row is added:
// Prepare seals them (files closed, dangling edges filtered out, the row
// digest complete) and Rows hands out a read-only view of them that does
// not touch the database. The search pack is built from that view while
// Load updates the database (index.Build runs the two side by side when
// the load is in place), and EachNode, EachEdge and NodeRowHashes of the
// build read the same view after Load. An early view (EarlyRows) holds
// some node tables before Prepare and waits for Prepare for the rest.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Rows is a read-only view of a prepared build's row files: the rows Load
// copies, in the order it copies them. It is safe for use by several
// goroutines and while Load runs. Its Query method answers an error: a
// reader that needs the database (query.BuildPackFrom's fallbacks) fails
// on it, and its caller then reads the build after Load instead.
type Rows struct {
	nodes  map[schema.Label]string     // node table → its row file
	texts  map[schema.Label]string     // symbol table → its text file (rowtext.go)
	edges  map[schema.RelType][]string // rel type → the files Load copies, in schema.Rels's pair order
	counts map[string]int              // rows by label, and kept edges by rel type
	hashes map[schema.Label][]uint64   // row digest hashes in file order (NodeRowHashes)
	// An early view (Build.EarlyRows) holds the node tables in early
	// itself; what else it is asked for waits until Prepare has made the
	// whole view (full) and closed ready.
	early map[schema.Label]bool
	ready chan struct{}
	full  *Rows
}

// ErrRowsOnly is Rows.Query's answer: the view has no database.
var ErrRowsOnly = errors.New("graph build: the rows view has no database; read the build after Load")

// Prepare seals the build's rows for Load and Rows: it closes the row
// files, completes the row digest and filters out edges whose endpoint is
// not a node (kept in a file of their own beside the original; dropped
// and counted in DroppedEdges). Load prepares a build that was not. After
// Prepare no row may be added.
func (b *Build) Prepare(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == statePrepared {
		return nil
	}
	if b.state != stateAdding {
		return errors.New("graph build: Prepare called after Load, Commit or Abort")
	}
	t0 := time.Now()
	if err := b.prepareLocked(ctx); err != nil {
		b.state = stateFailed
		return err
	}
	b.log.Debug("rows prepared", "took", time.Since(t0), "rss_MiB", RSS)
	return nil
}

// prepareLocked is Prepare with b.mu held.
func (b *Build) prepareLocked(ctx context.Context) error {
	for _, rf := range b.files {
		if err := rf.close(); err != nil {
			return err
		}
	}
	tables := schema.NodeTables()
	b.digest.seal()
	b.counts = map[string]int{}
	b.dropped = map[string]int{}
	b.loaded = map[string]string{}

	// Relationship files are checked first. A row whose endpoint is not a
	// node fails the whole COPY ("Unable to find primary key value X").
	// COPY's ignore_errors option skips such rows but makes the COPY about
	// 3x slower, so dangling edges are filtered out here against the ids
	// added (dropped and counted), and ignore_errors is only the fallback
	// should a COPY still fail on one. The sound edges go into the row
	// digest.
	// The files are checked a core at a time (kubernetes: 250k edges in
	// 14 files); the digest's edge sums commute, so the order does not
	// matter.
	b.kept = map[string]int{}
	b.totalRows = sumNodes(b.files, tables)
	type relJob struct {
		key    string
		rf     *rowFile
		rt     schema.RelType
		p      schema.Pair
		path   string
		kept   int
		sample string
		err    error
	}
	var jobs []*relJob
	for _, r := range schema.Rels {
		for _, p := range r.Pairs {
			key := relKey(r.Type, p.From, p.To)
			if rf := b.files[key]; rf != nil && rf.rows > 0 {
				jobs = append(jobs, &relJob{key: key, rf: rf, rt: r.Type, p: p})
			}
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newEdgeHasher()
			for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
				j := jobs[i]
				if j.err = ctx.Err(); j.err == nil {
					j.path, j.kept, j.sample, j.err = b.filterDangling(h, j.rf, j.rt, j.p)
				}
			}
		}()
	}
	wg.Wait()
	if b.digest.brokenEdge.Load() {
		b.digest.broken = true
	}
	for _, j := range jobs {
		if j.err != nil {
			return j.err
		}
		b.loaded[j.key], b.kept[j.key] = j.path, j.kept
		b.totalRows += j.kept
		if d := j.rf.rows - j.kept; d > 0 {
			b.dropped[j.key] = d
			b.log.Warn("dropped edges whose endpoint is not a node", "rel", j.key, "dropped", d, "of", j.rf.rows, "sample", j.sample)
		}
	}

	rows := newRows()
	for _, t := range tables {
		l := t.Label
		rf := b.files[nodeKey(l)]
		var hs []uint64
		if b.earlyRows != nil && b.earlyRows.early[l] {
			hs = b.earlyRows.hashes[l] // made once
		} else if rf != nil {
			hs = nodeHashes(b.digest.nodes[l], rf.rows)
		}
		rows.addNodeTable(l, rf, hs)
	}
	for _, r := range schema.Rels {
		rows.counts[string(r.Type)] = 0 // every rel type has a count, as after a load
		for _, p := range r.Pairs {
			key := relKey(r.Type, p.From, p.To)
			if path, ok := b.loaded[key]; ok {
				rows.edges[r.Type] = append(rows.edges[r.Type], path)
				rows.counts[string(r.Type)] += b.kept[key]
			}
		}
	}
	b.rows = rows
	b.state = statePrepared
	if b.earlyRows != nil {
		b.earlyRows.full = rows
		close(b.earlyRows.ready)
	}
	return nil
}

// EarlyRows is a view of the rows of node tables labels before Prepare,
// for the search pack to start reading them while the build goes on
// (index.Build: beside the processes): it reads those tables as Rows
// does; what else it is asked for (other tables, edges, the counts of
// other tables) waits until Prepare, then is the prepared view's. Every
// row of labels must have been added: one added later fails. A context's
// end ends the wait; so does an Abort, which fails it. Call it at most
// once, before Prepare.
func (b *Build) EarlyRows(labels []schema.Label) (*Rows, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateAdding || b.earlyRows != nil {
		return nil, errors.New("graph build: EarlyRows called twice or after Prepare")
	}
	r := newRows()
	r.early, r.ready = map[schema.Label]bool{}, make(chan struct{})
	for _, l := range labels {
		r.early[l] = true
		rf := b.files[nodeKey(l)]
		var hs []uint64
		if rf != nil {
			if err := rf.close(); err != nil {
				return nil, err
			}
			hs = nodeHashes(b.digest.nodes[l], rf.rows)
		}
		r.addNodeTable(l, rf, hs)
	}
	b.earlyRows = r
	return r, nil
}

// newRows is an empty view.
func newRows() *Rows {
	return &Rows{nodes: map[schema.Label]string{}, texts: map[schema.Label]string{}, edges: map[schema.RelType][]string{},
		counts: map[string]int{}, hashes: map[schema.Label][]uint64{}}
}

// addNodeTable adds node table l to the view: its row file rf (nil: no
// rows; closed) and its rows' hashes hs (nodeHashes; nil: unknown).
func (r *Rows) addNodeTable(l schema.Label, rf *rowFile, hs []uint64) {
	r.counts[string(l)] = 0
	if rf == nil {
		return
	}
	r.nodes[l] = rf.path
	if rf.text != nil {
		r.texts[l] = rf.text.path
	}
	r.counts[string(l)] = rf.rows
	if hs != nil {
		r.hashes[l] = hs
	}
}

// nodeHashes is the row hashes of a node table's digest entries es in file
// order, nil unless they cover its rows rows.
func nodeHashes(es []digestEntry, rows int) []uint64 {
	if len(es) != rows {
		return nil
	}
	hs := make([]uint64, len(es))
	for _, e := range es {
		hs[e.seq] = e.row
	}
	return hs
}

// preparedNow is the prepared view of an early view whose Prepare has
// happened, else nil (never waits).
func (r *Rows) preparedNow() *Rows {
	if r.ready == nil {
		return nil
	}
	select {
	case <-r.ready:
		return r.full
	default:
		return nil
	}
}

// prepared is the view that answers for r: r itself, or for an early
// view the prepared one, once there is one.
func (r *Rows) prepared(ctx context.Context) (*Rows, error) {
	if r.ready == nil {
		return r, nil
	}
	select {
	case <-r.ready:
		if r.full == nil {
			return nil, errors.New("graph build: aborted before its rows were prepared")
		}
		return r.full, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Rows is the view of the prepared build's rows (nil before Prepare or
// Load, and after Commit or Abort).
func (b *Build) Rows() *Rows {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != statePrepared && b.state != stateLoaded {
		return nil
	}
	return b.rows
}

// EachNode calls fn with every row of node table l (an NDJSON line), in
// the order Load copies them: the order of offset(id(n)), and, for a
// symbol table, the row's text (its source, which the database does not
// hold: rowtext.go; nil for other tables). Both are valid only until fn
// returns.
func (r *Rows) EachNode(ctx context.Context, l schema.Label, fn func(line, text []byte) error) error {
	if r.ready != nil && !r.early[l] {
		full, err := r.prepared(ctx)
		if err != nil {
			return err
		}
		return full.EachNode(ctx, l, fn)
	}
	path, ok := r.nodes[l]
	if !ok {
		return nil
	}
	tpath, ok := r.texts[l]
	if !ok {
		return eachLineCtx(ctx, path, func(line []byte) error { return fn(line, nil) })
	}
	f, err := os.Open(tpath)
	if err != nil {
		return fmt.Errorf("read back row texts: %w", err)
	}
	defer f.Close()
	tr := &textReader{path: tpath, r: bufio.NewReaderSize(f, 256<<10)}
	return eachLineCtx(ctx, path, func(line []byte) error {
		text, err := tr.next()
		if err != nil {
			return err
		}
		return fn(line, text)
	})
}

// EachEdge calls fn with every row of rel type rt that Load copies, in the
// order of the table (schema.Rels's pairs, each file's rows in order: the
// order offset(id(r)) gives).
func (r *Rows) EachEdge(ctx context.Context, rt schema.RelType, fn func(EdgeRow) error) error {
	return r.EachEdgeView(ctx, rt, func(v EdgeView) error { return fn(v.Row()) })
}

// EachEdgeView is EachEdge with each row read in place (EdgeView: its
// bytes valid only during fn), without making its strings: the search
// pack looks its ids up and keeps none of them (kubernetes: 230k edges).
func (r *Rows) EachEdgeView(ctx context.Context, rt schema.RelType, fn func(EdgeView) error) error {
	if r.ready != nil {
		full, err := r.prepared(ctx)
		if err != nil {
			return err
		}
		return full.EachEdgeView(ctx, rt, fn)
	}
	for _, path := range r.edges[rt] {
		if err := eachLineCtx(ctx, path, func(line []byte) error {
			v, err := parseEdgeView(line)
			if err != nil {
				return fmt.Errorf("read back %s: %w", filepath.Base(path), err)
			}
			return fn(v)
		}); err != nil {
			return err
		}
	}
	return nil
}

// NodeRowHashes is the row digest's hash of every row of node table l, in
// EachNode's order: equal hashes, equal rows (a 64-bit SHA-256 prefix of
// the NDJSON line, as the next build's in-place load compares them). The
// search pack keeps them to reuse what it derived from a row that did not
// change (query.BuildPackFrom). Nil when the digest does not cover the
// table's file. The caller must not change the slice.
func (r *Rows) NodeRowHashes(l schema.Label) []uint64 {
	if r.ready != nil && !r.early[l] {
		if full := r.preparedNow(); full != nil {
			return full.NodeRowHashes(l)
		}
		return nil
	}
	return r.hashes[l]
}

// Counts are the rows by node label and the edges Load copies by rel type
// (the database holds as many after a successful Load, unless a COPY
// skipped rows: Build.EachEdge then refuses). An early view's, before
// Prepare, are those of its own tables only.
func (r *Rows) Counts() map[string]int {
	if full := r.preparedNow(); full != nil {
		return full.Counts()
	}
	return maps.Clone(r.counts)
}

// Total is the number of rows of every table.
func (r *Rows) Total() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

// Query answers ErrRowsOnly: the view has no database.
func (r *Rows) Query(context.Context, string, map[string]any) (*Result, error) {
	return nil, ErrRowsOnly
}
