package graph

// This file owns the end of a build: Commit (move the new database into
// place, then replace meta.json atomically: the swap), Attach (companion
// files that move with it) and Abort.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// commitHook lets tests fail Commit at a named step.
var commitHook = func(step string) error { return nil }

// Commit makes the new database the live index: it closes it (Kuzu
// checkpoints), moves it into .gitnexus/ under a fresh name, then atomically
// replaces meta.json to name it (the commit point), then removes the previous
// database files and the staging directory, and releases the lock.
//
// meta may be nil. Commit sets its SchemaVersion, RepoRoot, RepoName (when
// empty), IndexedAt (when zero), DBFile, Counts, DroppedEdges and Sums (the
// size and checksum of the database and its companions, which Open and
// Verify check). On error the
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
	lapStart := time.Now()
	lap := func(step string) { // the debug log's account of where a commit's time goes
		b.log.Debug("commit", "step", step, "took", time.Since(lapStart))
		lapStart = time.Now()
	}
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
	// Closing checkpointed the database: everything is in the one file
	// (Open removes a WAL beside a committed database as debris).
	if fi, err := os.Stat(src + ".wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("graph build: the new database kept a %d-byte WAL after closing", fi.Size())
	}
	dbInfo, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("new database: %w", err)
	}
	if !b.digest.broken {
		// The row digest, for the next build's in-place load: its header
		// carries the database's size after its last full load.
		hdr := b.digestHdr
		if !b.stats.InPlace {
			hdr = digestHeader{FullSize: dbInfo.Size()}
		}
		path := filepath.Join(b.staging, "rows")
		if err := b.digest.write(path, hdr); err != nil {
			return err
		}
		if b.attach == nil {
			b.attach = map[string]string{}
		}
		b.attach[RowsSuffix] = path
	}
	lap("row digest written")
	// The companions (in staging, on the index's file system) are renamed
	// into place, then synced and summed in the background while the
	// database is moved (copied off a memory file system after a full
	// load, and summed as it is copied; renamed after an update in place,
	// which happens in staging); meta.json names none of them before every
	// sync is done.
	sums := map[string]FileSum{}
	pending := map[string]<-chan moved{}
	wait := func() error {
		var errs []error
		for name, c := range pending {
			m := <-c
			sums[name] = m.sum
			errs = append(errs, m.err)
		}
		clear(pending)
		return errors.Join(errs...)
	}
	for suffix, path := range b.attach {
		c, err := moveSyncLater(path, newPath+suffix)
		if err != nil {
			_ = wait()
			return fmt.Errorf("move %s into place: %w", filepath.Base(path), err)
		}
		pending[name+suffix] = c
	}
	dbSum, moveErr := moveDurably(src, newPath)
	sums[name] = dbSum
	if err := errors.Join(moveErr, wait()); err != nil {
		return fmt.Errorf("move new database into place: %w", err)
	}
	if err := syncDir(b.dir); err != nil {
		return err
	}
	lap("files moved and synced")
	if err := commitHook("before-meta"); err != nil {
		return err
	}

	old, _ := ReadMetaHead(b.root) // for the database it names: not its list of files
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
	if err := recordSums(b.dir, name, meta, sums); err != nil {
		return err
	}
	if err := writeMeta(b.root, meta); err != nil {
		return err
	}
	lap("meta.json written")
	newPath = "" // committed: never remove it now

	// The previous database goes only after the swap (retire). Readers
	// that have it open keep reading it until they reopen (DB.Stale).
	if old != nil && old.DBFile != name {
		b.retire(old.DBFile)
	}
	lap("previous index retired")
	b.abortLocked() // staging and lock
	lap("staging removed")
	return nil
}

// KeepLive ends the build without a new database, when the caller found
// that the live index already is what this build would load (the same
// build of gitnexus over the same files: index.Build compares them, and
// verifies the live index first). live is meta.json as the caller read it
// after NewBuild took the lock, so no other build can have replaced it
// since; KeepLive checks that it still names the live database, applies
// update to it (this analyze's commit, branch and time) and replaces
// meta.json atomically, still naming the live database and its
// companions; the staging directory goes and the lock is released. It
// must be called before Load. On error the build is aborted and the live
// index is left as it was. A stat cache attached (StatSuffix) replaces the
// live one first: it is no part of meta.json's sums, and holds the same
// content hashes under the files' stats as they are now.
func (b *Build) KeepLive(live *Meta, update func(*Meta)) (*Meta, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer b.abortLocked()
	if b.state != stateAdding {
		return nil, errors.New("graph build: KeepLive called after Load, Commit or Abort")
	}
	head, err := ReadMetaHead(b.root)
	if err != nil {
		return nil, fmt.Errorf("keep the live index: %w", err)
	}
	if head.DBFile != live.DBFile {
		return nil, fmt.Errorf("keep the live index: meta.json names %s, not the %s this build read", head.DBFile, live.DBFile)
	}
	if path, ok := b.attach[StatSuffix]; ok {
		if _, err := moveDurably(path, filepath.Join(b.dir, live.DBFile+StatSuffix)); err != nil {
			return nil, fmt.Errorf("keep the live index: refresh its stat cache: %w", err)
		}
		if err := syncDir(b.dir); err != nil {
			return nil, err
		}
	}
	update(live)
	if err := writeMeta(b.root, live); err != nil {
		return nil, err
	}
	return live, nil
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
	if er := b.earlyRows; er != nil && er.full == nil {
		close(er.ready) // unprepared: its waits fail
	}
	b.state = stateDone
	if b.early != nil {
		b.early.stop.Store(true)
		<-b.early.done // its copy goes with the staging directory
		b.early.close()
	}
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

func newDBName() (string, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("name new database: %w", err)
	}
	return dbPrefix + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(rnd[:]) + dbSuffix, nil
}
