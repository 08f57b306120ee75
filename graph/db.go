package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// ErrQueryTimeout means a query ran past OpenOptions.QueryTimeout.
var ErrQueryTimeout = errors.New("query timed out")

// OpenOptions tune the read side. The zero value opens read-only.
type OpenOptions struct {
	// ReadWrite opens the live database for writing. Only one read-write
	// opener may exist at a time, and a build never needs one (it writes a
	// new database); leave false.
	ReadWrite bool
	// BufferPoolSize is Kuzu's buffer pool in bytes (default
	// DefaultReadBufferPool, 256 MiB).
	BufferPoolSize uint64
	// MaxThreads bounds Kuzu's worker threads per query (default: all CPUs).
	MaxThreads int
	// Connections is how many queries may run at once (default 4).
	Connections int
	// QueryTimeout interrupts queries that run longer (0: no limit).
	QueryTimeout time.Duration
	// MaxRows stops a result at this many rows and sets Result.Truncated
	// (0: no limit).
	MaxRows int
}

// DB is an open index. Its methods are safe for concurrent use.
type DB struct {
	root string
	meta *Meta
	opts OpenOptions

	mu     sync.RWMutex // Close takes it exclusively
	closed bool
	db     *kuzu.Database
	pool   chan *kuzu.Connection
}

// Open opens the live index of the repository at repoRoot (read-only unless
// opts.ReadWrite). It fails with ErrNoIndex when there is none and
// ErrSchemaVersion when it was written by an incompatible gitnexus.
func Open(ctx context.Context, repoRoot string, opts OpenOptions) (*DB, error) {
	root, err := canonical(repoRoot)
	if err != nil {
		return nil, err
	}
	if opts.BufferPoolSize == 0 {
		opts.BufferPoolSize = DefaultReadBufferPool
	}
	if opts.Connections <= 0 {
		opts.Connections = 4
	}
	t0 := time.Now()
	// A re-analyze may swap the database between reading meta.json and
	// opening the file it names; then meta.json names a newer one: retry.
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		meta, err := ReadMeta(root)
		if err != nil {
			return nil, err
		}
		if meta.SchemaVersion != schema.Version {
			return nil, fmt.Errorf("%w: %s was indexed with schema v%d, this gitnexus reads v%d: run `gitnexus analyze` to rebuild it",
				ErrSchemaVersion, root, meta.SchemaVersion, schema.Version)
		}
		path := filepath.Join(IndexDir(root), meta.DBFile)
		if _, err := os.Stat(path); err != nil {
			if again, merr := ReadMeta(root); merr == nil && again.DBFile != meta.DBFile && attempt < 3 {
				continue
			}
			return nil, fmt.Errorf("index of %s is damaged (database %s: %v): run `gitnexus analyze` to rebuild it", root, meta.DBFile, err)
		}
		kdb, err := openKuzu(path, systemConfig(opts.BufferPoolSize, opts.MaxThreads, !opts.ReadWrite))
		if err != nil {
			if again, merr := ReadMeta(root); merr == nil && again.DBFile != meta.DBFile && attempt < 3 {
				continue
			}
			return nil, fmt.Errorf("open index of %s: %w", root, err)
		}
		d := &DB{root: root, meta: meta, opts: opts, db: kdb, pool: make(chan *kuzu.Connection, opts.Connections)}
		for i := 0; i < opts.Connections; i++ {
			c, err := kuzu.OpenConnection(kdb)
			if err != nil {
				d.Close()
				return nil, fmt.Errorf("connect to index of %s: %w", root, err)
			}
			d.pool <- c
		}
		slog.Debug("index opened", "db", meta.DBFile, "took", time.Since(t0), "rss_MiB", RSS)
		return d, nil
	}
}

// Query runs a Cypher query. params bind $name placeholders (see run for the
// go-kuzu string-parameter leak). On a read-only DB a write fails with an
// error wrapping ErrReadOnly.
func (d *DB) Query(ctx context.Context, cypher string, params map[string]any) (*Result, error) {
	return d.query(ctx, cypher, params, d.opts.MaxRows)
}

// QueryAll is Query without OpenOptions.MaxRows: for the program's own
// statements that must read a whole table (query.BuildPack), never for
// a caller's Cypher.
func (d *DB) QueryAll(ctx context.Context, cypher string, params map[string]any) (*Result, error) {
	return d.query(ctx, cypher, params, 0)
}

func (d *DB) query(ctx context.Context, cypher string, params map[string]any, maxRows int) (*Result, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, errors.New("graph: query on a closed index")
	}
	var conn *kuzu.Connection
	select {
	case conn = <-d.pool:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { d.pool <- conn }()
	// The time limit is a deadline on the statement's own context (run
	// interrupts Kuzu when it passes), not Kuzu's connection timeout: a
	// timeout is then told apart by the context, never by Kuzu's message.
	qctx := ctx
	if d.opts.QueryTimeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, d.opts.QueryTimeout)
		defer cancel()
	}
	res, err := run(qctx, conn, cypher, params)
	if err != nil {
		if errors.Is(err, ErrReadOnly) || ctx.Err() != nil {
			return nil, err
		}
		if errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: cypher ran past the %v limit", ErrQueryTimeout, d.opts.QueryTimeout)
		}
		return nil, fmt.Errorf("cypher: %w", err)
	}
	defer res.Close()
	return collect(res, maxRows)
}

// Meta is the metadata of the open index (as read at Open).
func (d *DB) Meta() *Meta { return d.meta }

// RepoRoot is the canonical root of the indexed repository.
func (d *DB) RepoRoot() string { return d.root }

// Stale reports whether meta.json no longer names the open database: a
// re-analyze committed a new index (or the index was removed). Long-running
// readers check it and reopen.
func (d *DB) Stale() bool {
	m, err := ReadMeta(d.root)
	return err != nil || m.DBFile != d.meta.DBFile
}

// Close closes the index. Queries in flight finish first.
func (d *DB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	close(d.pool)
	for c := range d.pool {
		c.Close()
	}
	d.db.Close()
	return nil
}
