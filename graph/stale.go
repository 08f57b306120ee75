package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Staleness says how a repository has moved on from what its index holds:
// HEAD is not the indexed commit, or indexed files were modified or
// deleted since. Answers carry it (Origin.Stale) so that an agent knows
// when what it reads may be out of date.
type Staleness struct {
	IndexedCommit string `json:"indexed_commit,omitempty"`
	Head          string `json:"head,omitempty"`
	HeadMoved     bool   `json:"head_moved"`
	// ChangedFiles counts indexed files modified after the index was built
	// or deleted; Files names the first few (sorted).
	ChangedFiles int      `json:"changed_files"`
	Files        []string `json:"files,omitempty"`
	// AddedFiles counts files that appeared since the index was built in
	// a directory the index holds files of, with an extension indexed
	// files have; Added names the first few (sorted).
	AddedFiles int      `json:"added_files"`
	Added      []string `json:"added,omitempty"`
	Note       string   `json:"note"`
}

// staleFilesListed bounds Staleness.Files.
const staleFilesListed = 10

// CheckStale compares the repository at root with the index's meta, cheaply:
// HEAD is read from the git files (no git process), each indexed file is
// stat'ed (modified after m.IndexedAt, or gone), and each directory
// holding indexed files is stat'ed: only one whose entries changed since
// (its modification time moved) is read, for files added with an indexed
// extension. Files added in directories the index has no file of are not
// seen. nil when nothing moved, or when m is nil.
func CheckStale(root string, m *Meta) *Staleness {
	if m == nil {
		return nil
	}
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	return CheckStalePaths(root, m, paths)
}

// CheckStalePaths is CheckStale for a meta whose indexed files are paths
// (ReadMetaPaths: m.Files is not read).
func CheckStalePaths(root string, m *Meta, paths []string) *Staleness {
	if m == nil {
		return nil
	}
	s := &Staleness{IndexedCommit: m.Commit}
	if head, err := gitHead(root); err == nil && m.Commit != "" && head != m.Commit {
		s.Head, s.HeadMoved = head, true
	}
	changed, newerDirs := statIndexed(root, paths, m.IndexedAt)
	added := addedFiles(root, paths, newerDirs)
	if !s.HeadMoved && len(changed) == 0 && len(added) == 0 {
		return nil
	}
	sort.Strings(added)
	s.AddedFiles = len(added)
	s.Added = added[:min(len(added), staleFilesListed)]
	sort.Strings(changed)
	s.ChangedFiles = len(changed)
	s.Files = changed[:min(len(changed), staleFilesListed)]
	var parts []string
	if s.HeadMoved {
		parts = append(parts, fmt.Sprintf("HEAD is %.12s, the index is of %.12s", s.Head, s.IndexedCommit))
	}
	if len(changed) > 0 {
		parts = append(parts, fmt.Sprintf("%d indexed files changed since it was built (%s)", len(changed), strings.Join(s.Files, ", ")))
	}
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("%d files added since (%s)", len(added), strings.Join(s.Added, ", ")))
	}
	s.Note = "the index may be out of date: " + strings.Join(parts, "; ") + ": run `gitnexus analyze` to refresh"
	return s
}

// statIndexedEach is statIndexed one path at a time: os.Lstat of every
// indexed file, os.Stat of every directory holding one.
func statIndexedEach(root string, paths []string, since time.Time) (changed, newerDirs []string) {
	dirs := map[string]bool{}
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || fi.ModTime().After(since) {
			changed = append(changed, p)
		}
		dirs[path.Dir(p)] = true
	}
	for d := range dirs {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(d)))
		if err == nil && fi.ModTime().After(since) {
			newerDirs = append(newerDirs, d)
		}
	}
	return changed, newerDirs
}

// addedFiles lists the files of root that are not among the indexed
// paths, sit in one of newerDirs (directories that hold indexed files and
// whose entries changed after the index was built), and have an extension
// some indexed file has.
func addedFiles(root string, paths []string, newerDirs []string) []string {
	if len(newerDirs) == 0 {
		return nil
	}
	exts := map[string]bool{}
	indexed := make(map[string]bool, len(paths))
	for _, p := range paths {
		indexed[p] = true
		if e := path.Ext(p); e != "" {
			exts[e] = true
		}
	}
	var out []string
	for _, d := range newerDirs {
		full := filepath.Join(root, filepath.FromSlash(d))
		entries, err := os.ReadDir(full)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !exts[path.Ext(e.Name())] {
				continue
			}
			p := path.Join(d, e.Name())
			if d == "." {
				p = e.Name()
			}
			if !indexed[p] {
				out = append(out, p)
			}
		}
	}
	return out
}

// staleTTL is how long CheckStaleCached reuses an answer.
var staleTTL = 2 * time.Second // a variable for tests

var staleCache sync.Map // root + "\x00" + dbFile → staleEntry

type staleEntry struct {
	at   time.Time
	head string // the commit HEAD named when the check began ("" outside git)
	s    *Staleness
}

// CheckStaleCached is CheckStale, reusing an answer per index: the first
// call checks; later calls get the last answer, and one at least staleTTL
// old starts a single refresh in the background, whose result the calls
// after it get. So a server answering many calls stats the tree at most
// every staleTTL and no call after the first waits for it (the Linux
// kernel: 86k lstats, 0.2-0.5 s, which had been the slow tail of warm
// calls); an answer is at most staleTTL plus one check old. HEAD is read
// on every call (a few small reads, as CheckStaleShared does): an answer
// checked at another commit is not taken, the call checks again, so the
// first call after a commit or a checkout says stale. The Staleness
// returned is shared: do not modify it.
func CheckStaleCached(root string, m *Meta) *Staleness {
	if m == nil {
		return nil
	}
	key := root + "\x00" + m.DBFile
	head, _ := gitHead(root)
	if v, ok := staleCache.Load(key); ok && v.(staleEntry).head == head {
		e := v.(staleEntry)
		if time.Since(e.at) >= staleTTL {
			if _, running := staleRefreshing.LoadOrStore(key, true); !running {
				go func() {
					defer staleRefreshing.Delete(key)
					head, _ := gitHead(root)
					staleCache.Store(key, checkStaleEntry(root, m, head))
				}()
			}
		}
		return e.s
	}
	e := checkStaleEntry(root, m, head)
	staleCache.Store(key, e)
	return e.s
}

// checkStaleEntry checks m's index at root for staleCache; head is HEAD
// as read before the check of the tree, so that a commit made during the
// check leaves an entry the next call does not take.
func checkStaleEntry(root string, m *Meta, head string) staleEntry {
	at := time.Now()
	return staleEntry{at: at, head: head, s: CheckStale(root, m)}
}

// staleFile, in the index directory, holds CheckStaleShared's last answer.
const staleFile = "stale.json"

// sharedStale is staleFile's content.
type sharedStale struct {
	DBFile    string    `json:"db_file"`
	IndexedAt time.Time `json:"indexed_at"`
	CheckedAt time.Time `json:"checked_at"`
	// Head is the commit HEAD named when the check began ("" outside git):
	// an answer is not taken once HEAD moved, so a command right after a
	// commit or a checkout says stale at once.
	Head  string     `json:"head"`
	Stale *Staleness `json:"stale"`
}

// CheckStaleShared is CheckStalePaths for the index whose meta.json head
// is m (ReadMetaHead: the file list is read here, only when needed), its
// answer shared between processes for staleTTL through staleFile, as
// CheckStaleCached shares one within a process: a command run within
// staleTTL of the last check of the same index takes its answer instead
// of stat'ing the tree again (the Linux kernel: 86k files, 180-220 ms of
// stat calls, with 22-47 ms to read the file list, which had been the
// floor of every CLI query). An answer is at most staleTTL old, as the
// MCP server's are, and is taken only while HEAD names the commit it was
// checked at (sharedStale.Head); the file is written without syncing (a lost one only
// costs the next command a check) and not at all where the index
// directory is read-only.
func CheckStaleShared(root string, m *Meta) *Staleness {
	if m == nil {
		return nil
	}
	path := filepath.Join(IndexDir(root), staleFile)
	head, _ := gitHead(root) // a few small reads
	if b, err := os.ReadFile(path); err == nil && len(b) < 1<<20 {
		var s sharedStale
		if json.Unmarshal(b, &s) == nil && s.DBFile == m.DBFile && s.IndexedAt.Equal(m.IndexedAt) && s.Head == head {
			if age := time.Since(s.CheckedAt); age >= 0 && age < staleTTL {
				return s.Stale
			}
		}
	}
	t0 := time.Now()
	full, paths, err := ReadMetaPaths(root)
	if err != nil || full.DBFile != m.DBFile {
		return nil
	}
	st := CheckStalePaths(root, full, paths)
	if b, err := json.Marshal(sharedStale{DBFile: m.DBFile, IndexedAt: m.IndexedAt, CheckedAt: t0, Head: head, Stale: st}); err == nil {
		if f, err := os.CreateTemp(IndexDir(root), "."+staleFile+".tmp-*"); err == nil {
			_, werr := f.Write(b)
			if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
				os.Remove(f.Name())
			}
		}
	}
	return st
}

// staleRefreshing holds the keys of staleCache being refreshed.
var staleRefreshing sync.Map

// gitHead is the commit HEAD names in the git repository at root, read
// from .git (a directory, or a file "gitdir: PATH" for worktrees and
// submodules): HEAD, then the ref it names as a loose file or in
// packed-refs (of the common dir for a worktree).
func gitHead(root string) (string, error) {
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err != nil {
		return "", err
	} else if !fi.IsDir() {
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return "", err
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return "", errors.New("unreadable .git file")
		}
		gitDir = strings.TrimSpace(d)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref:")
	if !ok {
		return head, nil // detached
	}
	ref = strings.TrimSpace(ref)
	common := gitDir
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	for _, d := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b)), nil
		}
	}
	b, err = os.ReadFile(filepath.Join(common, "packed-refs"))
	if err != nil {
		return "", fmt.Errorf("ref %s not found", ref)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == ref {
			return f[0], nil
		}
	}
	return "", fmt.Errorf("ref %s not found", ref)
}
