package graph

// This file owns the Build type and its life: options, NewBuild, the
// accessors and the statements run on the new database between Load and
// Commit. The other jobs of a build live beside it: rows.go (NDJSON rows),
// load.go (bulk load), bufferpool.go (buffer-pool tuning), commit.go (the commit/abort
// swap), scratch.go (staging and scratch directories), durable.go (durable
// moves).

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

// BuildOptions tune a build. The zero value is ready to use.
type BuildOptions struct {
	// BufferPoolSize is Kuzu's buffer pool in bytes (default
	// DefaultBuildBufferPool, 256 MiB, or GITNEXUS_BUILD_POOL_MB; raised to
	// 96 MiB + 32 MiB per thread when smaller, below which a COPY fails).
	BufferPoolSize uint64
	// MaxThreads bounds Kuzu's worker threads (default:
	// GITNEXUS_BUILD_THREADS, else all CPUs).
	MaxThreads int
	// Logger receives progress and warnings (default slog.Default()).
	Logger *slog.Logger
	// Retire, when set, is handed the directory (under .gitnexus/) that
	// Commit moved the replaced database and its companions into, to
	// remove them (RemoveRetired) when and where it likes: analyze hands
	// it to a process of its own, so that the command does not wait for
	// it. nil: Commit removes them before it returns.
	Retire func(dir string)
}

type buildState int

const (
	stateAdding   buildState = iota
	statePrepared            // rows sealed (Prepare), the database not loaded
	stateLoaded
	stateFailed
	stateDone // committed or aborted
)

// Build writes a new index beside the live one and swaps it in on Commit.
//
// Rows are streamed to NDJSON files in the staging directory as they are
// added (nothing is held in memory); Load bulk-copies them into a fresh Kuzu
// database; Commit swaps it in. Add* methods may be called from several
// goroutines. Load, Exec, Query, Commit and Abort must not overlap; the
// Rows view of a prepared build may be read while Load runs.
type Build struct {
	root    string
	dir     string // <root>/.gitnexus
	staging string
	work    string // scratch dir on a memory file system for the database, "" to build in staging
	opts    BuildOptions
	log     *slog.Logger
	lock    *fileLock

	mu    sync.Mutex
	state buildState
	files map[string]*rowFile // by nodeKey / relKey
	// loaded is the row file each rel pair was copied from (its own, or
	// the copy without dangling edges), by relKey: what EachEdge reads.
	loaded map[string]string
	// kept counts the sound edges of each rel pair and totalRows every row
	// Load copies (Prepare); rows is the view of them (Rows).
	kept      map[string]int
	totalRows int
	rows      *Rows
	// early is the base read ahead of Load (StartInPlace), nil if not.
	early *inPlaceBase
	// earlyRows is the view EarlyRows made, nil if none: Prepare
	// completes it, and Abort fails its waits.
	earlyRows *Rows
	// edgeRowsInexact: a COPY dropped rows its file has (EachEdge refuses).
	edgeRowsInexact bool
	ids             idSet // hashes of the node ids added, by label
	// loadPool is the buffer pool Load opened the database with
	// (poolForLoad); after Load the database runs on opts.BufferPoolSize.
	loadPool uint64
	// shared says something runs beside a full load (ShareLoad).
	shared bool

	db      *kuzu.Database
	conn    *kuzu.Connection
	counts  map[string]int
	dropped map[string]int
	attach  map[string]string // companion suffix → file in staging (Attach)

	// digest records every row added (digest.go), written at Commit;
	// base is the index Load may update in place (UpdateFrom, inplace.go),
	// stats how Load went, digestHdr the header Commit writes.
	digest    *rowDigest
	base      *Meta
	stats     LoadStats
	digestHdr digestHeader
}

// NewBuild takes the repository's index lock and creates a staging directory
// for a new index of repoRoot. It fails with an error wrapping ErrLocked when
// another process holds the lock. Holding the lock, it first removes staging
// directories and orphan database files left by killed runs.
func NewBuild(ctx context.Context, repoRoot string, opts BuildOptions) (*Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := canonical(repoRoot)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("repository %s is not a directory", repoRoot)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	opts = poolDefaults(opts, log)
	dir := IndexDir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index directory: %w", err)
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		os.WriteFile(ignore, []byte("# gitnexus index: never commit\n*\n"), 0o644)
	}
	lock, err := tryLock(filepath.Join(dir, lockFileName), "the index of "+root)
	if err != nil {
		return nil, err
	}
	b := &Build{root: root, dir: dir, opts: opts, log: log, lock: lock, files: map[string]*rowFile{}, ids: newIDSet(), digest: newRowDigest(), work: memWorkDir(log)}
	b.cleanStale()
	b.staging, err = os.MkdirTemp(dir, "staging-")
	if err != nil {
		lock.unlock()
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	return b, nil
}

// StagingDir is the directory of this build's row files and database; later
// stages may write their own NDJSON files here for Exec'd COPY statements.
func (b *Build) StagingDir() string { return b.staging }

// RepoRoot is the canonical repository root.
func (b *Build) RepoRoot() string { return b.root }

// Counts are the rows loaded: nodes by label, edges by rel type. Valid after
// Load.
func (b *Build) Counts() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return cloneCounts(b.counts)
}

// DroppedEdges counts edges refused at Load because an endpoint has no node,
// by "TYPE:From->To".
func (b *Build) DroppedEdges() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return cloneCounts(b.dropped)
}

func cloneCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Exec runs a statement on the new database after Load (extra tables,
// vector indexes, COPY of files written to StagingDir).
func (b *Build) Exec(ctx context.Context, stmt string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: Exec needs a successful Load first")
	}
	if err := b.openedLocked(); err != nil {
		return err
	}
	t0 := time.Now()
	if err := exec(ctx, b.conn, stmt); err != nil {
		return fmt.Errorf("build exec: %w", err)
	}
	b.log.Debug("exec", "stmt", abbrev(stmt, 60), "took", time.Since(t0), "rss_MiB", RSS)
	return nil
}

// abbrev is s cut to at most n bytes, for logs.
func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Query runs a read query on the new database after Load.
func (b *Build) Query(ctx context.Context, cypher string, params map[string]any) (*Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return nil, errors.New("graph build: Query needs a successful Load first")
	}
	if err := b.openedLocked(); err != nil {
		return nil, err
	}
	res, err := run(ctx, b.conn, cypher, params)
	if err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	defer res.Close()
	return collect(res, 0)
}

// openedLocked opens the loaded database again if Load left it closed
// (every Load does: its pages and C heap are not kept through the steps
// after it, and a keyword-only build never opens it again). Callers hold
// b.mu.
func (b *Build) openedLocked() error {
	if b.conn != nil {
		return nil
	}
	return b.settleLocked()
}

func (b *Build) closeDB() {
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	if b.db != nil {
		b.db.Close()
		b.db = nil
	}
}

// canonical is the absolute, symlink-free form of path.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}
