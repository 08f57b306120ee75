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

// This file owns opening an index in two steps. Reading meta.json and
// checking the database file (schema version; size, header and CRC-32C) is
// cheap — 13 ms for prometheus's 54 MB database — while opening Kuzu on it
// costs 0.1-0.3 s (most of what a tool call spends after a re-analyze
// swapped the index). Most calls never need Kuzu: searches, context,
// impact and trace read the search pack, and the MCP server runs cypher in
// a child process. A Lazy does the cheap step when it is made and opens
// Kuzu on its first statement, once.

// ErrSwapped means the index was replaced by a re-analyze between reading
// its meta.json and opening the database it named (the file was retired):
// the call should start again from the new meta.json.
var ErrSwapped = errors.New("index was replaced")

// Lazy is an index whose Kuzu database opens on its first statement. Its
// methods are safe for concurrent use; Close it as a DB.
type Lazy struct {
	root string
	meta *Meta
	opts OpenOptions

	mu      sync.Mutex
	checked os.FileInfo // the database file as OpenLazy checked it; nil: not checked yet
	db      *DB
	closed  bool
}

// OpenLazy reads the live index of the repository at repoRoot and checks
// its database file as Open does, with the same errors (ErrNoIndex,
// ErrSchemaVersion, a *DamageError), and leaves Kuzu closed until the first
// statement.
func OpenLazy(ctx context.Context, repoRoot string, opts OpenOptions) (*Lazy, error) {
	root, err := canonical(repoRoot)
	if err != nil {
		return nil, err
	}
	// A re-analyze may swap the database between reading meta.json and
	// checking the file it names; then meta.json names a newer one: retry.
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		meta, err := ReadMeta(root)
		if err != nil {
			return nil, err
		}
		if err := checkVersion(root, meta); err != nil {
			return nil, err
		}
		path := filepath.Join(IndexDir(root), meta.DBFile)
		err = checkDBFile(root, meta)
		var file os.FileInfo
		if err == nil {
			file, err = os.Stat(path)
		}
		if err != nil {
			if again, merr := ReadMeta(root); merr == nil && again.DBFile != meta.DBFile && attempt < 3 {
				continue
			}
			return nil, err
		}
		return &Lazy{root: root, meta: meta, opts: opts.withDefaults(), checked: file}, nil
	}
}

// checkVersion fails with ErrSchemaVersion for an index of another schema.
func checkVersion(root string, meta *Meta) error {
	if meta.SchemaVersion != schema.Version {
		return fmt.Errorf("%w: %s was indexed with schema v%d, this gitnexus reads v%d: run `gitnexus analyze` to rebuild it",
			ErrSchemaVersion, root, meta.SchemaVersion, schema.Version)
	}
	return nil
}

// OpenLazyHead is OpenLazy for a command that may not need the database
// (the graph tools read the search pack): it reads meta.json's head only
// (ReadMetaHead) and checks the schema; the database file is checked by
// the first statement, as NewLazy's is. On the Linux kernel OpenLazy's
// full meta.json and file check were 0.28 s of every `gitnexus context`.
func OpenLazyHead(repoRoot string, opts OpenOptions) (*Lazy, error) {
	root, err := canonical(repoRoot)
	if err != nil {
		return nil, err
	}
	meta, err := ReadMetaHead(root)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(root, meta); err != nil {
		return nil, err
	}
	return NewLazy(root, meta, opts), nil
}

// NewLazy is a Lazy for the index of root (canonical, as RepoEntry.Path
// is) that meta, read by the caller (ReadMetaHead will do), describes. It
// checks nothing now: the first statement reads meta.json in full, fails
// with ErrSwapped unless it still names meta's database, and checks that
// file (OpenLazy's check) before Kuzu opens it.
func NewLazy(root string, meta *Meta, opts OpenOptions) *Lazy {
	return &Lazy{root: root, meta: meta, opts: opts.withDefaults()}
}

// Meta is the metadata of the index (as read when l was made).
func (l *Lazy) Meta() *Meta { return l.meta }

// RepoRoot is the canonical root of the indexed repository.
func (l *Lazy) RepoRoot() string { return l.root }

// Stale reports whether meta.json no longer names l's database (see
// DB.Stale).
func (l *Lazy) Stale() bool { return swapped(l.root, l.meta.DBFile) }

// Opened reports whether a statement has opened Kuzu.
func (l *Lazy) Opened() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.db != nil
}

// DB opens the database on first use and returns it. A failed open is
// tried again by the next call (a long-lived server keeps its Lazy until
// the index is swapped: a passing failure must not stick). A file retired
// by a swap since l was made fails with ErrSwapped.
func (l *Lazy) DB(ctx context.Context) (*DB, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return nil, errors.New("graph: query on a closed index")
	case l.db != nil:
		return l.db, nil
	}
	d, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	l.db = d
	return d, nil
}

// Query runs one statement as DB.Query does, opening the database first.
// Lazy is a tools.Querier.
func (l *Lazy) Query(ctx context.Context, cypher string, params map[string]any) (*Result, error) {
	d, err := l.DB(ctx)
	if err != nil {
		return nil, err
	}
	return d.Query(ctx, cypher, params)
}

// Close closes the database if a statement opened it. Statements in
// flight finish first.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.db == nil {
		return nil
	}
	return l.db.Close()
}

// open opens Kuzu on l's database file, checking it first when OpenLazy
// did not, and that it is still the file checked.
func (l *Lazy) open(ctx context.Context) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	root, name := l.root, l.meta.DBFile
	path := filepath.Join(IndexDir(root), name)
	checked := l.checked
	if checked == nil {
		var err error
		if checked, err = l.checkLive(ctx); err != nil {
			return nil, err
		}
		l.checked = checked
	}
	if err := clearReadDebris(path); err != nil {
		return nil, fmt.Errorf("index of %s: %w", root, err)
	}
	file, err := os.Stat(path)
	if err != nil {
		return nil, l.orSwapped(fmt.Errorf("index of %s: %w", root, err))
	}
	if !os.SameFile(file, checked) || written(file, checked) {
		return nil, l.orSwapped(&DamageError{Root: root, File: name, Reason: "the file was replaced or written to since it was checked"})
	}
	kdb, err := openKuzu(path, systemConfig(l.opts.BufferPoolSize, l.opts.MaxThreads, true))
	if err != nil {
		return nil, l.orSwapped(fmt.Errorf("open index of %s: %w", root, err))
	}
	d := &DB{root: root, meta: l.meta, opts: l.opts, db: kdb, pool: make(chan *kuzu.Connection, l.opts.Connections), file: file}
	for i := 0; i < l.opts.Connections; i++ {
		c, err := kuzu.OpenConnection(kdb)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("connect to index of %s: %w", root, err)
		}
		d.pool <- c
	}
	slog.Debug("index opened", "db", name, "took", time.Since(t0), "rss_MiB", RSS)
	return d, nil
}

// Check makes now the check of the database file that the first
// statement would make (OpenLazy's: meta.json read whole, the file's size,
// header and checksum), unless it was made: a command that may never make
// a statement (a graph tool reading the search pack) runs it beside its
// call and still reports a damaged index (a *DamageError). ErrSwapped
// when meta.json names another database now.
func (l *Lazy) Check(ctx context.Context) error {
	l.mu.Lock()
	done := l.checked != nil
	l.mu.Unlock()
	if done {
		return nil
	}
	checked, err := l.checkLive(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.checked == nil {
		l.checked = checked
	}
	l.mu.Unlock()
	return nil
}

// checkLive is OpenLazy's check of the live index, which must still be
// the database l's meta named.
func (l *Lazy) checkLive(ctx context.Context) (os.FileInfo, error) {
	live, err := OpenLazy(ctx, l.root, l.opts)
	if err != nil {
		return nil, err
	}
	if live.meta.DBFile != l.meta.DBFile {
		return nil, l.swapped(errors.New("meta.json names " + live.meta.DBFile))
	}
	return live.checked, nil
}

// orSwapped is err, or ErrSwapped when meta.json names another database
// now: the failure came from a swap, not from this index.
func (l *Lazy) orSwapped(err error) error {
	if l.Stale() {
		return l.swapped(err)
	}
	return err
}

func (l *Lazy) swapped(cause error) error {
	return fmt.Errorf("%w: the index of %s was replaced by a re-analyze while it was being opened (%v): call again", ErrSwapped, l.root, cause)
}
