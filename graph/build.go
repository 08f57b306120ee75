package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// BuildOptions tune a build. The zero value is ready to use.
type BuildOptions struct {
	// BufferPoolSize is Kuzu's buffer pool in bytes (default
	// DefaultBuildBufferPool, 512 MiB; at least MinBuildBufferPool).
	BufferPoolSize uint64
	// MaxThreads bounds Kuzu's worker threads (default: all CPUs).
	MaxThreads int
	// Logger receives progress and warnings (default slog.Default()).
	Logger *slog.Logger
	// StopWords, when not empty, replaces Kuzu's default English stop-word
	// list in every full-text index (e.g. the words of text.StopWordsCSV).
	StopWords []string
}

type buildState int

const (
	stateAdding buildState = iota
	stateLoaded
	stateFailed
	stateDone // committed or aborted
)

// Build writes a new index beside the live one and swaps it in on Commit.
//
// Rows are streamed to NDJSON files in the staging directory as they are
// added (nothing is held in memory); Load bulk-copies them into a fresh Kuzu
// database; Commit swaps it in. Add* methods may be called from several
// goroutines. Load, Exec, Query, Commit and Abort must not overlap.
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
	ids   idSet               // hashes of the node ids added, by label

	db      *kuzu.Database
	conn    *kuzu.Connection
	counts  map[string]int
	dropped map[string]int
	attach  map[string]string // companion suffix → file in staging (Attach)
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
	if opts.BufferPoolSize == 0 {
		opts.BufferPoolSize = DefaultBuildBufferPool
		if mb, err := strconv.Atoi(os.Getenv("GITNEXUS_BUILD_POOL_MB")); err == nil && mb > 0 {
			opts.BufferPoolSize = uint64(mb) << 20
		}
	}
	if opts.MaxThreads == 0 {
		if n, err := strconv.Atoi(os.Getenv("GITNEXUS_BUILD_THREADS")); err == nil && n > 0 {
			opts.MaxThreads = n
		}
	}
	if opts.BufferPoolSize < MinBuildBufferPool {
		log.Warn("build buffer pool too small for Kuzu's COPY; raised", "asked_MiB", opts.BufferPoolSize>>20, "using_MiB", MinBuildBufferPool>>20)
		opts.BufferPoolSize = MinBuildBufferPool
	}
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
	b := &Build{root: root, dir: dir, opts: opts, log: log, lock: lock, files: map[string]*rowFile{}, ids: newIDSet(), work: memWorkDir(log)}
	b.cleanStale()
	b.staging, err = os.MkdirTemp(dir, "staging-")
	if err != nil {
		lock.unlock()
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	return b, nil
}

// cleanStale removes what killed runs left: staging directories and database
// files that meta.json does not name. Called only while holding the lock.
func (b *Build) cleanStale() {
	live := ""
	if m, err := ReadMeta(b.root); err == nil {
		live = m.DBFile
	} else if !errors.Is(err, ErrNoIndex) {
		// Damaged metadata: leave database files alone, only staging goes.
		live = "\x00keep-all"
	}
	ents, err := os.ReadDir(b.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if ok, _ := filepath.Match(stagingGlob, name); ok && e.IsDir() {
			b.log.Info("removing staging directory of an interrupted analyze", "dir", name)
			os.RemoveAll(filepath.Join(b.dir, name))
			continue
		}
		if db, ok := isDBFile(name); ok && db != live && live != "\x00keep-all" {
			b.log.Info("removing orphan database file of an interrupted analyze", "file", name)
			os.Remove(filepath.Join(b.dir, name))
		}
	}
}

// StagingDir is the directory of this build's row files and database; later
// stages may write their own NDJSON files here for Exec'd COPY statements.
func (b *Build) StagingDir() string { return b.staging }

// RepoRoot is the canonical repository root.
func (b *Build) RepoRoot() string { return b.root }

func nodeKey(l schema.Label) string { return string(l) }

func relKey(t schema.RelType, from, to schema.Label) string {
	return fmt.Sprintf("%s:%s->%s", t, from, to)
}

// add appends one encoded row to the file of key; for a node row (label not
// empty) it records the id's hash in the label's id set.
func (b *Build) add(key, fileName string, line []byte, label schema.Label, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateAdding {
		return errors.New("graph build: rows added after Load, Commit or Abort")
	}
	if label != "" {
		b.ids.add(label, id)
	}
	rf := b.files[key]
	if rf == nil {
		var err error
		if rf, err = createRowFile(filepath.Join(b.staging, fileName)); err != nil {
			return err
		}
		b.files[key] = rf
	}
	return rf.write(line)
}

func (b *Build) addNode(l schema.Label, id string, v any, extra []column) error {
	if id == "" {
		return fmt.Errorf("graph build: %s row with empty id", l)
	}
	line, err := encodeRow(v, extra)
	if err != nil {
		return err
	}
	return b.add(nodeKey(l), "node-"+string(l)+".json", line, l, id)
}

// AddFolder adds a Folder node.
func (b *Build) AddFolder(f schema.Folder) error {
	return b.addNode(schema.LabelFolder, f.ID, f, nil)
}

// AddFile adds a File node. An empty SearchText is filled with
// text.SearchText(name, "", path), so the file-name index always has words.
func (b *Build) AddFile(f schema.File) error {
	if f.SearchText == "" {
		f.SearchText = text.SearchText(f.Name, "", f.Path)
	}
	return b.addNode(schema.LabelFile, f.ID, f, nil)
}

// AddSymbol adds a symbol node to the table of s.Label (or, when Label is
// empty, the table of s.Kind).
func (b *Build) AddSymbol(s schema.Symbol) error {
	l := s.Label
	if l == "" {
		l = schema.LabelOf(s.Kind)
	}
	if !l.IsSymbol() {
		return fmt.Errorf("graph build: symbol %s has label %q, not a symbol table", s.ID, l)
	}
	return b.addNode(l, s.ID, s, nil)
}

// AddCommunity adds a Community node.
func (b *Build) AddCommunity(c schema.Community) error {
	if c.Keywords == nil {
		c.Keywords = []string{}
	}
	return b.addNode(schema.LabelCommunity, c.ID, c, nil)
}

// AddProcess adds a Process node.
func (b *Build) AddProcess(p schema.Process) error {
	if p.Communities == nil {
		p.Communities = []string{}
	}
	return b.addNode(schema.LabelProcess, p.ID, p, nil)
}

// AddEdge adds a relationship row. Its (Type, FromLabel, ToLabel) must be a
// pair of schema.Rels. An edge whose endpoint id has no node is dropped at
// Load and counted in Meta.DroppedEdges.
func (b *Build) AddEdge(e schema.Edge) error {
	if !schema.HasPair(e.Type, schema.Pair{From: e.FromLabel, To: e.ToLabel}) {
		return fmt.Errorf("graph build: %s has no %s→%s pair (edge %s → %s); see schema.Rels", e.Type, e.FromLabel, e.ToLabel, e.From, e.To)
	}
	line, err := encodeRow(e, nil)
	if err != nil {
		return err
	}
	return b.add(relKey(e.Type, e.FromLabel, e.ToLabel),
		fmt.Sprintf("rel-%s-%s-%s.json", e.Type, e.FromLabel, e.ToLabel), line, "", "")
}

// Load creates the schema in a fresh database in the staging directory,
// copies every row file into it (nodes, then relationships), and creates the
// full-text indexes. progress, if not nil, is called with the stage
// ("schema", "nodes", "edges", "fts") and rows (or statements) done of total.
// After a failed Load the build can only be aborted; the live index is
// untouched.
func (b *Build) Load(ctx context.Context, progress func(stage string, done, total int)) (err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateAdding {
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
	for _, rf := range b.files {
		if err := rf.close(); err != nil {
			return err
		}
	}
	start := time.Now()
	cfg := systemConfig(b.opts.BufferPoolSize, b.opts.MaxThreads, false)
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

	b.counts = map[string]int{}
	b.dropped = map[string]int{}

	// Nodes.
	tables := schema.NodeTables()
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

	// Relationships. A row whose endpoint is not a node fails the whole COPY
	// ("Unable to find primary key value X"). COPY's ignore_errors option
	// skips such rows but makes the COPY about 3x slower, so dangling edges
	// are filtered out here against the ids added (dropped and counted), and
	// ignore_errors is only the fallback should a COPY still fail on one.
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
			path, kept, sample, err := b.filterDangling(rf, p)
			if err != nil {
				return err
			}
			if d := rf.rows - kept; d > 0 {
				b.dropped[key] = d
				b.log.Warn("dropped edges whose endpoint is not a node", "rel", key, "dropped", d, "of", rf.rows, "sample", sample)
			}
			n := 0
			if kept > 0 {
				if n, err = b.copyRel(ctx, r.Type, p, path, kept); err != nil {
					return err
				}
			}
			if d := kept - n; d > 0 {
				b.dropped[key] += d
			}
			b.counts[string(r.Type)] += n
			done += rf.rows
			b.log.Debug("copied edges", "rel", key, "rows", n, "took", time.Since(t0), "rss_MiB", RSS)
			progress("edges", done, total)
		}
	}

	stopWords, cleanup, err := b.stopWordsFile()
	if err != nil {
		return err
	}
	defer cleanup()
	for i, ix := range schema.FTSIndexes {
		if err := b.reopen(); err != nil {
			return err
		}
		if err := exec(ctx, b.conn, ix.CreateStatementWith(stopWords)); err != nil {
			return fmt.Errorf("create full-text index %s: %w", ix.Name, err)
		}
		progress("fts", i+1, len(schema.FTSIndexes))
	}
	b.log.Debug("graph loaded", "took", time.Since(start), "rss_MiB", RSS)
	if err := b.reopen(); err != nil {
		return err
	}
	b.state = stateLoaded
	return nil
}

// Settle closes the new database (Kuzu checkpoints it on close) and opens it
// again, so that the next statement starts from an empty buffer pool instead
// of on top of every page the statements before it touched and the C heap
// they left behind. Analyze's peak memory is the largest single step plus
// what Kuzu keeps from the steps before it; settling between the heavy
// steps (COPY, each full-text index build) removes the second term. It costs
// a checkpoint and an open, tens of milliseconds. Load settles before each
// of its full-text indexes and at its end.
func (b *Build) Settle() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: Settle needs a successful Load first")
	}
	return b.settleLocked()
}

// settleLocked reopens the database; a failure fails the build (there is
// no database left to work on). Callers hold b.mu.
func (b *Build) settleLocked() error {
	if err := b.reopen(); err != nil {
		b.state = stateFailed
		b.closeDB()
		return err
	}
	return nil
}

// GrowBufferPool raises the new database's buffer pool to at least bytes
// (capped at half the machine's memory) and settles (see Settle) so that
// the larger pool takes effect; a pool already that large is left alone.
// The pool is address space that Kuzu fills only as far as a statement
// needs, so a larger one costs no memory by itself: it lets a COPY that
// needs more pages than the default pool holds (vectors of a large
// repository) finish instead of failing with "buffer pool is full".
func (b *Build) GrowBufferPool(bytes uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: GrowBufferPool needs a successful Load first")
	}
	if half := totalMemory() / 2; half > 0 && bytes > half {
		bytes = half
	}
	if bytes <= b.opts.BufferPoolSize {
		return nil
	}
	b.log.Debug("growing the build buffer pool", "from_MiB", b.opts.BufferPoolSize>>20, "to_MiB", bytes>>20)
	b.opts.BufferPoolSize = bytes
	return b.settleLocked()
}

// totalMemory is the machine's physical memory in bytes (0 if unknown).
func totalMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

func (b *Build) reopen() (err error) {
	b.closeDB()
	releaseCMemory()
	if b.db, err = openKuzu(b.dbPath(), systemConfig(b.opts.BufferPoolSize, b.opts.MaxThreads, false)); err != nil {
		return fmt.Errorf("reopen new database: %w", err)
	}
	if b.conn, err = kuzu.OpenConnection(b.db); err != nil {
		return fmt.Errorf("reconnect to new database: %w", err)
	}
	b.log.Debug("database settled", "rss_MiB", RSS)
	return nil
}

// stopWordsFile writes BuildOptions.StopWords as the CSV file that
// CREATE_FTS_INDEX reads and returns the stopWords option naming it
// ("default" when there are none). Kuzu splices that path unescaped into
// Cypher, so it goes to the system temp dir when the staging path holds a
// quote or backslash.
func (b *Build) stopWordsFile() (string, func(), error) {
	if len(b.opts.StopWords) == 0 {
		return schema.FTSStopWords, func() {}, nil
	}
	dir := b.staging
	cleanup := func() {}
	if strings.ContainsAny(dir, `'"\`) {
		tmp, err := os.MkdirTemp("", "gitnexus-fts-")
		if err != nil {
			return "", nil, fmt.Errorf("stop-word file: %w", err)
		}
		if strings.ContainsAny(tmp, `'"\`) {
			os.RemoveAll(tmp)
			return "", nil, fmt.Errorf("stop-word file: no quote-free directory (staging %s, temp %s)", dir, tmp)
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	var sb strings.Builder
	for _, w := range b.opts.StopWords {
		w = strings.TrimSpace(strings.ReplaceAll(w, "\x00", ""))
		if w != "" && !strings.ContainsAny(w, "\n\r\",\"") {
			sb.WriteString(w)
			sb.WriteByte('\n')
		}
	}
	path := filepath.Join(dir, "stopwords.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("stop-word file: %w", err)
	}
	return path, cleanup, nil
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
	res, err := run(ctx, b.conn, cypher, params)
	if err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	defer res.Close()
	return collect(res, 0)
}

// commitHook lets tests fail Commit at a named step.
var commitHook = func(step string) error { return nil }

// Commit makes the new database the live index: it closes it (Kuzu
// checkpoints), moves it into .gitnexus/ under a fresh name, then atomically
// replaces meta.json to name it (the commit point), then removes the previous
// database files and the staging directory, and releases the lock.
//
// meta may be nil. Commit sets its SchemaVersion, RepoRoot, RepoName (when
// empty), IndexedAt (when zero), DBFile, Counts and DroppedEdges. On error the
// previous index is left live and untouched and the build is aborted.
func (b *Build) Commit(meta *Meta) (err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateLoaded {
		return errors.New("graph build: Commit needs a successful Load first")
	}
	var newPath string
	defer func() {
		if err != nil {
			if newPath != "" {
				removeDBFiles(newPath)
			}
			b.abortLocked()
		}
	}()
	b.closeDB()
	src := b.dbPath()
	name, err := newDBName()
	if err != nil {
		return err
	}
	newPath = filepath.Join(b.dir, name)
	if err := commitHook("before-rename"); err != nil {
		return err
	}
	if err := moveDurably(src, newPath); err != nil {
		return fmt.Errorf("move new database into place: %w", err)
	}
	if _, err := os.Stat(src + ".wal"); err == nil {
		if err := moveDurably(src+".wal", newPath+".wal"); err != nil {
			return fmt.Errorf("move new database WAL into place: %w", err)
		}
	}
	for suffix, path := range b.attach {
		if err := moveDurably(path, newPath+suffix); err != nil {
			return fmt.Errorf("move %s into place: %w", filepath.Base(path), err)
		}
	}
	if err := syncDir(b.dir); err != nil {
		return err
	}
	if err := commitHook("before-meta"); err != nil {
		return err
	}

	old, _ := ReadMeta(b.root)
	if meta == nil {
		meta = &Meta{}
	}
	meta.SchemaVersion = schema.Version
	meta.RepoRoot = b.root
	if meta.RepoName == "" {
		meta.RepoName = filepath.Base(b.root)
	}
	if meta.IndexedAt.IsZero() {
		meta.IndexedAt = time.Now().UTC()
	}
	meta.DBFile = name
	if meta.Counts == nil {
		meta.Counts = map[string]int{}
	}
	for k, v := range b.counts {
		meta.Counts[k] = v
	}
	meta.DroppedEdges = nil
	if len(b.dropped) > 0 {
		meta.DroppedEdges = cloneCounts(b.dropped)
	}
	if err := writeMeta(b.root, meta); err != nil {
		return err
	}
	newPath = "" // committed: never remove it now

	// The previous database goes only after the swap. Readers that have it
	// open keep reading the unlinked file until they reopen (DB.Stale).
	if old != nil && old.DBFile != name {
		if err := removeDBFiles(filepath.Join(b.dir, old.DBFile)); err != nil {
			b.log.Warn("could not remove the previous database", "err", err)
		}
	}
	b.abortLocked() // staging and lock
	return nil
}

// Attach adds a companion file to the index being built: path (a file the
// caller wrote, best in StagingDir) becomes <database file><suffix> beside
// the new database at Commit, before the swap, so that readers of meta.json
// see the database and its companions together; it goes when the database
// is replaced. suffix must be one of CompanionSuffixes.
func (b *Build) Attach(suffix, path string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(CompanionSuffixes, suffix) {
		return fmt.Errorf("graph build: %q is no companion suffix", suffix)
	}
	if b.state == stateDone {
		return errors.New("graph build: Attach after Commit or Abort")
	}
	if b.attach == nil {
		b.attach = map[string]string{}
	}
	b.attach[suffix] = path
	return nil
}

// Abort discards the build: the staging directory goes, the live index is
// untouched, the lock is released. Safe after Commit (then a no-op) and
// safe to call twice, so `defer b.Abort()` is the idiom.
func (b *Build) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.abortLocked()
}

func (b *Build) abortLocked() {
	if b.state == stateDone {
		return
	}
	b.state = stateDone
	b.closeDB()
	for _, rf := range b.files {
		rf.close()
	}
	if err := os.RemoveAll(b.staging); err != nil {
		b.log.Warn("could not remove staging directory", "dir", b.staging, "err", err)
	}
	if b.work != "" {
		os.RemoveAll(b.work)
	}
	b.lock.unlock()
}

// dbPath is where the new database is built: in a scratch directory on a
// memory file system when one is available (see workDir), else in staging.
func (b *Build) dbPath() string {
	if b.work != "" {
		return filepath.Join(b.work, "db.kuzu")
	}
	return filepath.Join(b.staging, "db.kuzu")
}

// memWorkDir makes a scratch directory on /dev/shm when it exists and has
// room, "" otherwise. Kuzu syncs its WAL after every statement (hundreds of
// fdatasync calls for the DDL, COPYs and full-text indexes of one build):
// on a memory file system they cost nothing, and Commit then copies the
// finished file to disk with a single sync. GITNEXUS_BUILD_TMPDIR overrides
// the location ("" or "none" keeps the database in staging).
func memWorkDir(log *slog.Logger) string {
	base, set := os.LookupEnv("GITNEXUS_BUILD_TMPDIR")
	if !set {
		base = "/dev/shm"
	}
	if base == "" || base == "none" {
		return ""
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(base, &st); err != nil || st.Bavail*uint64(st.Bsize) < 2<<30 {
		return ""
	}
	cleanDeadWorkDirs(base)
	d, err := os.MkdirTemp(base, fmt.Sprintf("gitnexus-build-%d-", os.Getpid()))
	if err != nil {
		log.Debug("no scratch directory on a memory file system", "base", base, "err", err)
		return ""
	}
	return d
}

// cleanDeadWorkDirs removes scratch directories of builds whose process
// is gone (killed analyzes), so they never pin memory.
func cleanDeadWorkDirs(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "gitnexus-build-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

// moveDurably renames src to dst, or, across file systems, copies it to a
// temporary name beside dst, syncs it and renames that; src is removed.
func moveDurably(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return fsyncFile(dst)
	} else if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".copying"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Remove(src)
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

func fsyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("new database: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync new database: %w", err)
	}
	return nil
}

func newDBName() (string, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("name new database: %w", err)
	}
	return dbPrefix + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(rnd[:]) + dbSuffix, nil
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

// RSS is a log attribute value that reads RSSMiB only when a record is
// written: debug logs on the load path pass it instead of calling RSSMiB,
// so nothing reads /proc when debug logging is off.
var RSS slog.LogValuer = rssValue{}

type rssValue struct{}

func (rssValue) LogValue() slog.Value { return slog.StringValue(RSSMiB()) }

// RSSMiB is this process's resident memory in MiB, for debug logs (""
// where /proc is not available).
func RSSMiB() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if kb, err := strconv.Atoi(f[0]); err == nil {
					return strconv.Itoa(kb >> 10)
				}
			}
		}
	}
	return ""
}
