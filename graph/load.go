package graph

// This file owns the bulk load: Load creates the schema in the new
// database and COPYs the row files into it, nodes then relationships
// (dangling edges are filtered out first, filter.go).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/internal/cheap"
)

// Load fills the new database: it prepares the rows if the caller did not
// (Prepare), then creates the schema in a fresh database in the staging
// directory and copies every row file into it (nodes, then
// relationships), or, when the build has a base (UpdateFrom) whose rows it
// can compare with, updates a copy of the base's database in place
// (inplace.go; LoadStats says which and why). progress, if not nil, is
// called with the stage ("schema", "nodes", "edges") and rows (or
// statements) done of total.
// After a failed Load the build can only be aborted; the live index is
// untouched.
func (b *Build) Load(ctx context.Context, progress func(stage string, done, total int)) (err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateAdding && b.state != statePrepared {
		return errors.New("graph build: Load called twice or after Commit/Abort")
	}
	defer func() {
		if err != nil {
			b.state = stateFailed
			b.closeDB()
		}
	}()
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if b.state == stateAdding {
		if err := b.prepareLocked(ctx); err != nil {
			return err
		}
	}
	start := time.Now()
	tables := schema.NodeTables()
	kept := b.kept

	if b.base != nil {
		why, err := b.loadInPlace(ctx, kept, b.totalRows)
		if err != nil {
			return err
		}
		if why == "" {
			b.state = stateLoaded
			return nil
		}
		b.stats = LoadStats{Whole: why}
		b.counts = map[string]int{}
		b.log.Debug("loading every row", "why", why)
	}

	threads := b.loadThreads()
	// The load lets glibc serve Kuzu's large blocks from its arenas and
	// keep their free memory, rather than map and fault in each again:
	// alone, the Linux kernel's load took 30.9 s against 37.6-39.0 s
	// (3.08M page faults in the whole run against 3.55-3.62M; one run
	// each, session 24). Beside the search pack, whose memory it adds to,
	// the arenas keep less free memory (cheap.BulkBeside: prometheus' cold
	// analyze 4.8-5.0 -> 3.4-3.9 s, peak 164-170 -> 191-194 MiB). The C
	// heap is trimmed when the load ends (the database is closed by then),
	// before the steps after it.
	if b.shared {
		defer cheap.BulkBeside()()
	} else {
		defer cheap.Bulk()()
	}
	b.loadPool = b.poolForLoad(threads)
	cfg := systemConfig(b.loadPool, threads, false)
	if b.db, err = openKuzu(b.dbPath(), cfg); err != nil {
		return err
	}
	if b.conn, err = kuzu.OpenConnection(b.db); err != nil {
		return fmt.Errorf("connect to new database: %w", err)
	}

	ddl := schema.DDL()
	for i, stmt := range ddl {
		if err := exec(ctx, b.conn, stmt); err != nil {
			return fmt.Errorf("create schema (%s): %w", stmt, err)
		}
		progress("schema", i+1, len(ddl))
	}
	b.log.Debug("database created", "took", time.Since(start), "rss_MiB", RSS)

	// Nodes.
	total, done := 0, 0
	for _, t := range tables {
		if rf := b.files[nodeKey(t.Label)]; rf != nil {
			total += rf.rows
		}
	}
	for _, t := range tables {
		b.counts[string(t.Label)] = 0
		rf := b.files[nodeKey(t.Label)]
		if rf == nil || rf.rows == 0 {
			continue
		}
		t0 := time.Now()
		stmt := fmt.Sprintf("COPY %s FROM %s", t.Label, schema.Quote(rf.path))
		if err := exec(ctx, b.conn, stmt); err != nil {
			return fmt.Errorf("load %d %s rows from %s: %w", rf.rows, t.Label, filepath.Base(rf.path), err)
		}
		n, err := queryInt(ctx, b.conn, fmt.Sprintf("MATCH (n:%s) RETURN count(n)", t.Label))
		if err != nil {
			return fmt.Errorf("count %s rows: %w", t.Label, err)
		}
		if n != rf.rows {
			return fmt.Errorf("load %s: wrote %d rows, table holds %d", t.Label, rf.rows, n)
		}
		b.counts[string(t.Label)] = n
		done += rf.rows
		b.log.Debug("copied nodes", "table", t.Label, "rows", n, "took", time.Since(t0), "rss_MiB", RSS)
		progress("nodes", done, total)
	}

	// Relationships, filtered above.
	total, done = 0, 0
	for _, rf := range b.files {
		total += rf.rows
	}
	total -= sumNodes(b.files, tables)
	for _, r := range schema.Rels {
		b.counts[string(r.Type)] = 0
		for _, p := range r.Pairs {
			key := relKey(r.Type, p.From, p.To)
			rf := b.files[key]
			if rf == nil || rf.rows == 0 {
				continue
			}
			t0 := time.Now()
			n := 0
			if kept[key] > 0 {
				if n, err = b.copyRel(ctx, r.Type, p, b.loaded[key], kept[key]); err != nil {
					return err
				}
			}
			if d := kept[key] - n; d > 0 {
				b.dropped[key] += d
				b.edgeRowsInexact = true // the table lacks rows its file has
			}
			b.counts[string(r.Type)] += n
			done += rf.rows
			b.log.Debug("copied edges", "rel", key, "rows", n, "took", time.Since(t0), "rss_MiB", RSS)
			progress("edges", done, total)
		}
	}

	b.log.Debug("graph loaded", "took", time.Since(start), "rss_MiB", RSS)
	// Closed (Kuzu checkpoints it), not opened again: a keyword-only
	// build reads nothing more from it (the search pack reads the row
	// files), and Exec and Query open it again for a build that does
	// (vectors). Opening it again here cost a keyword-only build an open
	// and a second close for nothing (prometheus: about 0.4 s). Should
	// the close leave a WAL (its checkpoint failed), it is opened again,
	// which replays the WAL, for Commit's close to checkpoint.
	b.closeDB()
	cheap.Trim()
	if fi, err := os.Stat(b.dbPath() + ".wal"); err == nil && fi.Size() > 0 {
		b.log.Debug("the loaded database kept a WAL on closing; opening it again", "wal_bytes", fi.Size())
		if err := b.reopen(); err != nil {
			return err
		}
	}
	b.state = stateLoaded
	return nil
}

// ShareLoad tells the build that something will run beside a full load
// (one that does not update in place): index.Build's search pack, built
// beside the full load of a small build. The load then runs Kuzu's COPYs
// on one thread fewer than the build's own (at least one), and lets
// glibc's arenas keep less free memory (cheap.BulkBeside, not Bulk),
// since what its C heap keeps adds to the memory of what runs beside it.
// On 2 cores two COPY threads beside the
// pack only took turns with it: kubernetes' cold analyze took 12.45 s
// with two and 11.6 s with one, peak RSS 468 and 443 MiB (medians of 8
// alternated runs, session 24). Call it before Load.
func (b *Build) ShareLoad() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.shared = true
}

// loadThreads is Kuzu's threads for a full load's COPYs: the build's own
// (opts.MaxThreads; 0, all CPUs), one fewer (at least one) when shared.
// Callers hold b.mu.
func (b *Build) loadThreads() int {
	if !b.shared {
		return b.opts.MaxThreads
	}
	threads := b.opts.MaxThreads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	return max(1, threads-1)
}

// EachNode calls fn with every row of node table l as Load copied it (an
// NDJSON line, the order of offset(id(n))) and its text (Rows.EachNode),
// without going through the database. Load checked that the table holds
// as many rows as the file. Only after a successful Load, before Commit.
// Line and text are valid only until fn returns.
func (b *Build) EachNode(ctx context.Context, l schema.Label, fn func(line, text []byte) error) error {
	r, err := b.loadedRows("EachNode")
	if err != nil {
		return err
	}
	return r.EachNode(ctx, l, fn)
}

// NodeRowHashes is Rows.NodeRowHashes after a successful Load, before
// Commit (nil otherwise).
func (b *Build) NodeRowHashes(l schema.Label) []uint64 {
	r, err := b.loadedRows("NodeRowHashes")
	if err != nil {
		return nil
	}
	return r.NodeRowHashes(l)
}

// loadedRows is the rows view after a successful Load; what names the
// caller in the error.
func (b *Build) loadedRows(what string) (*Rows, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded || b.rows == nil {
		return nil, fmt.Errorf("graph build: %s needs a successful Load first", what)
	}
	return b.rows, nil
}

// eachLineCtx is eachLine that stops when ctx is done (checked every
// 65,536 lines: a row file of the Linux kernel has millions).
func eachLineCtx(ctx context.Context, path string, fn func([]byte) error) error {
	n := 0
	return eachLine(path, func(line []byte) error {
		if n++; n%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return fn(line)
	})
}

// ErrEdgeRowsInexact is EachEdge's answer when a COPY skipped rows of its
// file (the ignore_errors fallback): then only the database is right.
var ErrEdgeRowsInexact = errors.New("graph build: the edge tables lack rows their files hold")

// EdgeRow is one relationship row as Load copied it.
type EdgeRow struct {
	From       string  `json:"from"`
	To         string  `json:"to"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
	Step       int     `json:"step"`
	Line       int     `json:"line"`
}

// EachEdge calls fn with every row of rel type rt that Load copied, in the
// order of the table (schema.Rels's pairs, each file's rows in order: the
// order offset(id(r)) gives), without going through the database: one
// pass over the row files, where reading a large table back from Kuzu a
// slice at a time rescans it per slice (the Linux kernel's 4.2M edges:
// 81 s). Only after a successful Load, before Commit.
func (b *Build) EachEdge(ctx context.Context, rt schema.RelType, fn func(EdgeRow) error) error {
	r, err := b.edgeRows("EachEdge")
	if err != nil {
		return err
	}
	return r.EachEdge(ctx, rt, fn)
}

// EachEdgeView is EachEdge read in place (Rows.EachEdgeView).
func (b *Build) EachEdgeView(ctx context.Context, rt schema.RelType, fn func(EdgeView) error) error {
	r, err := b.edgeRows("EachEdgeView")
	if err != nil {
		return err
	}
	return r.EachEdgeView(ctx, rt, fn)
}

// edgeRows is the rows view that EachEdge and EachEdgeView (what) read,
// or ErrEdgeRowsInexact when the database does not hold exactly its edges.
func (b *Build) edgeRows(what string) (*Rows, error) {
	r, err := b.loadedRows(what)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	inexact := b.edgeRowsInexact
	b.mu.Unlock()
	if inexact {
		return nil, ErrEdgeRowsInexact
	}
	return r, nil
}

func sumNodes(files map[string]*rowFile, tables []schema.NodeTable) int {
	n := 0
	for _, t := range tables {
		if rf := files[nodeKey(t.Label)]; rf != nil {
			n += rf.rows
		}
	}
	return n
}

// copyRel COPYs one rel file (rows lines) and returns how many rows the
// table then holds for that pair. Should the strict COPY fail (an endpoint
// the id set wrongly let through), it retries with ignore_errors.
func (b *Build) copyRel(ctx context.Context, rt schema.RelType, p schema.Pair, path string, rows int) (int, error) {
	key := relKey(rt, p.From, p.To)
	stmt := fmt.Sprintf("COPY %s FROM %s (from='%s', to='%s')", rt, schema.Quote(path), p.From, p.To)
	if err := exec(ctx, b.conn, stmt); err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("load %d %s rows: %w", rows, key, err)
		}
		b.log.Warn("edge COPY failed; retrying with ignore_errors", "rel", key, "err", err)
		stmt = fmt.Sprintf("COPY %s FROM %s (from='%s', to='%s', ignore_errors=true)", rt, schema.Quote(path), p.From, p.To)
		if err := exec(ctx, b.conn, stmt); err != nil {
			return 0, fmt.Errorf("load %d %s rows from %s: %w", rows, key, filepath.Base(path), err)
		}
	}
	n, err := queryInt(ctx, b.conn, fmt.Sprintf("MATCH (:%s)-[r:%s]->(:%s) RETURN count(r)", p.From, rt, p.To))
	if err != nil {
		return 0, fmt.Errorf("count %s rows: %w", key, err)
	}
	return n, nil
}
