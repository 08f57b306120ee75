package graph

// This file owns a build's scratch space: where the new database is
// built (a memory file system when there is one, else staging) and the
// removal of what killed builds left behind.

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// retiredGrace is how long cleanStale leaves a retired database to the
// process that Commit handed it to (BuildOptions.Retire), which removes it
// in well under a second; one older was left by a remover that died.
const retiredGrace = time.Minute

// cleanStale removes what killed runs left: staging directories and database
// files that meta.json does not name; and retired databases
// (BuildOptions.Retire) not removed yet. Called only while holding the lock.
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
		if ok, _ := filepath.Match(retiredGlob, name); ok && e.IsDir() {
			// A replaced database whose remover died, or is still at work
			// when the directory is young: left to it.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > retiredGrace {
				b.log.Debug("removing a retired database", "dir", name)
				os.RemoveAll(filepath.Join(b.dir, name))
			}
			continue
		}
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

// dbPath is where the new database is built: in a scratch directory on a
// memory file system when one is available (see workDir), else in staging;
// a database updated in place is in staging (inPlacePath). Callers hold
// b.mu.
func (b *Build) dbPath() string {
	if b.work != "" && !b.stats.InPlace {
		return filepath.Join(b.work, "db.kuzu")
	}
	return b.inPlacePath()
}

// inPlacePath is where an in-place load copies the live database and
// updates it: in staging, on the index's own file system, not in the
// scratch directory. An update writes a few pages, so Kuzu's syncs cost
// little there; the copy is synced (copyLive) while the build's other
// work runs; and Commit renames the file instead of copying it off a
// memory file system and syncing every page of it then (kubernetes:
// 200 MB, 0.5 s of the commit).
func (b *Build) inPlacePath() string {
	return filepath.Join(b.staging, "db.kuzu")
}

// memWorkDir makes a scratch directory on /dev/shm when it exists and has
// room, "" otherwise. Kuzu syncs its WAL after every statement (hundreds of
// fdatasync calls for the DDL and COPYs of one build):
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
