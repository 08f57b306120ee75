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
)

// ErrQueryTimeout means a query ran past OpenOptions.QueryTimeout.
var ErrQueryTimeout = errors.New("query timed out")

// OpenOptions tune the read side. A committed database is only ever opened
// read-only: a write would break the checksum Commit recorded (a new index
// is a new Build).
type OpenOptions struct {
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
	// MemoryLimit fails a statement whose run grows the process's resident
	// memory by more than this many bytes (ErrQueryMemory), instead of
	// letting Kuzu's result grow until the kernel kills the process
	// (default DefaultQueryMemory; a negative value disables the check).
	MemoryLimit int64
	// MemoryExceeded, when set, is called if a statement that passed
	// MemoryLimit has still not returned a second after it was interrupted:
	// Kuzu checks interrupts only between chunks of work, and one chunk
	// (range() building a list of 10^8 values) can take gigabytes. A
	// one-shot process (the CLI, and the child the MCP server runs each
	// cypher call in) ends itself there; a long-lived one leaves it nil.
	MemoryExceeded func()
}

// withDefaults fills in the defaults of the fields left zero.
func (o OpenOptions) withDefaults() OpenOptions {
	if o.BufferPoolSize == 0 {
		o.BufferPoolSize = DefaultReadBufferPool
	}
	if o.Connections <= 0 {
		o.Connections = 4
	}
	return o
}

// DefaultQueryMemory is OpenOptions.MemoryLimit's default: what one
// statement may add to the process's resident memory.
const DefaultQueryMemory = 1 << 30

// ErrQueryMemory means a statement grew the process past
// OpenOptions.MemoryLimit and was interrupted.
var ErrQueryMemory = errors.New("query stopped: it needed too much memory")

// DB is an open index. Its methods are safe for concurrent use.
type DB struct {
	root string
	meta *Meta
	opts OpenOptions

	mu     sync.RWMutex // Close takes it exclusively
	closed bool
	db     *kuzu.Database
	pool   chan *kuzu.Connection
	file   os.FileInfo // the database file as checked at Open
}

// Open opens the live index of the repository at repoRoot read-only. It
// fails with ErrNoIndex when there is none, ErrSchemaVersion when it was
// written by an incompatible gitnexus, and a *DamageError (ErrDamaged) when
// the database file is missing, truncated, garbled or not the one Commit
// wrote (checkDBFile: checked before Kuzu, which may crash on such a file,
// sees it). WAL and shadow files a read-only session left beside it are
// removed (clearReadDebris).
func Open(ctx context.Context, repoRoot string, opts OpenOptions) (*DB, error) {
	// A re-analyze may swap the database between the check and Kuzu's
	// open; then meta.json names a newer one: start again.
	for attempt := 0; ; attempt++ {
		l, err := OpenLazy(ctx, repoRoot, opts)
		if err != nil {
			return nil, err
		}
		d, err := l.DB(ctx)
		if errors.Is(err, ErrSwapped) && attempt < 3 {
			continue
		}
		return d, err // l holds nothing more than d: the caller closes d
	}
}

// Query runs one Cypher statement (more fail with ErrManyStatements).
// params bind $name placeholders (see run for the go-kuzu string-parameter
// leak). A write fails with an error wrapping ErrReadOnly.
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
	if err := d.unchanged(); err != nil {
		return nil, err
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
	limit := d.opts.MemoryLimit
	if limit == 0 {
		limit = DefaultQueryMemory
	}
	var overMemory func() bool
	if limit > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithCancel(qctx)
		defer cancel()
		done := make(chan struct{})
		defer close(done)
		overMemory = watchMemory(qctx, done, limit, cancel, d.opts.MemoryExceeded)
	}
	res, err := runStatements(qctx, conn, cypher, params, true)
	if err != nil {
		if overMemory != nil && overMemory() {
			return nil, fmt.Errorf("%w: the statement grew memory by more than %d MiB; add a LIMIT, aggregate (count, collect) or narrow the MATCH", ErrQueryMemory, limit>>20)
		}
		if errors.Is(err, ErrReadOnly) || errors.Is(err, ErrManyStatements) || ctx.Err() != nil {
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

// unchanged fails with a *DamageError when the open database file was
// written to since Open checked it (same file, other size or modification
// time): Kuzu would read its next pages from the changed file, and may
// crash on them. A file that was removed or replaced (a re-analyze's swap)
// is fine: Kuzu keeps reading the one it opened.
func (d *DB) unchanged() error {
	fi, err := os.Stat(filepath.Join(IndexDir(d.root), d.meta.DBFile))
	if err != nil || !os.SameFile(fi, d.file) {
		return nil
	}
	if written(fi, d.file) {
		return &DamageError{Root: d.root, File: d.meta.DBFile, Reason: "the file was written to while open"}
	}
	return nil
}

// Meta is the metadata of the open index (as read at Open).
func (d *DB) Meta() *Meta { return d.meta }

// RepoRoot is the canonical root of the indexed repository.
func (d *DB) RepoRoot() string { return d.root }

// Stale reports whether meta.json no longer names the open database: a
// re-analyze committed a new index (or the index was removed). Long-running
// readers check it and reopen.
func (d *DB) Stale() bool { return swapped(d.root, d.meta.DBFile) }

// swapped reports whether meta.json of root no longer names dbFile.
func swapped(root, dbFile string) bool {
	m, err := ReadMeta(root)
	return err != nil || m.DBFile != dbFile
}

// written reports whether a file stat'ed as now was written to since it
// was stat'ed as before (the same file: other size or modification time).
func written(now, before os.FileInfo) bool {
	return now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime())
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
	// A CHECKPOINT (refused on a read-only database) still left these.
	if err := clearReadDebris(filepath.Join(IndexDir(d.root), d.meta.DBFile)); err != nil {
		slog.Warn("could not remove a read session's WAL", "err", err)
	}
	return nil
}
