package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/gitnexus/gitnexus/graph"
)

// WatchOptions tune Watch. The zero value is usable.
type WatchOptions struct {
	// Debounce is how long the tree must stay quiet after a change before
	// the re-analyze starts (default DefaultDebounce): a save that writes
	// several files, or a `git checkout` of hundreds, is one update.
	Debounce time.Duration
	// MaxDelay bounds how long a stream of changes may put an update off
	// (default DefaultMaxDelay): after it the update runs, and the changes
	// that come during it make the next one.
	MaxDelay time.Duration
	// OnUpdate is told the outcome of each analyze: the first (Changed
	// empty) and one per burst of changes. Called on Watch's goroutine.
	OnUpdate func(WatchUpdate)
}

// Defaults of WatchOptions.
const (
	DefaultDebounce = 100 * time.Millisecond
	DefaultMaxDelay = 3 * time.Second
)

// WatchUpdate is one analyze run by Watch.
type WatchUpdate struct {
	// Summary is the committed build; nil when Err is set.
	Summary *Summary
	// Err is why the update failed; the previous index stays live, and
	// Watch goes on.
	Err error
	// Changed are the changed paths that started the update (repo-relative,
	// sorted, the first few of Events).
	Changed []string
	// Events counts the file system events coalesced into the update.
	Events int
}

// watchedChangedListed bounds WatchUpdate.Changed.
const watchedChangedListed = 5

// Watch analyzes the repository at root (as Build, with opts), then
// watches it and re-analyzes after each burst of changes until ctx is
// cancelled; it returns ctx's error then, or an error when the watching
// itself cannot start. Re-analyzes reuse the fact cache, so each parses
// only the files that changed. A failed update (a lock held by another
// analyze is retried) is reported and the watch goes on.
//
// What is watched follows the index, so the ignore rules analyze applies
// hold: the root and every directory holding an indexed file, and their
// ancestors. A change is relevant when it touches an indexed file, a file
// with an extension the index has files of, an ignore file, or a
// directory. A directory discovery leaves out (node_modules/, vendor/, an
// ignored build folder) is never watched, so its churn costs nothing; its
// creation in a watched directory costs at most one update.
func Watch(ctx context.Context, root string, opts Options, wo WatchOptions) error {
	if wo.Debounce <= 0 {
		wo.Debounce = DefaultDebounce
	}
	if wo.MaxDelay <= 0 {
		wo.MaxDelay = DefaultMaxDelay
	}
	report := wo.OnUpdate
	if report == nil {
		report = func(WatchUpdate) {}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	defer w.Close()

	ws := &watchSet{w: w, root: root, dirs: map[string]bool{}}
	update := func(changed []string, events int) error {
		for {
			sum, err := Build(ctx, root, opts)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, graph.ErrLocked) {
				slog.Debug("watch: another analyze holds the lock; retrying", "err", err)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Second):
				}
				continue
			}
			u := WatchUpdate{Summary: sum, Err: err, Changed: changed, Events: events}
			if err == nil {
				ws.follow(sum.Meta)
			}
			report(u)
			return nil
		}
	}
	if err := update(nil, 0); err != nil {
		return err
	}
	if len(ws.dirs) == 0 { // the first analyze failed: watch the root at least
		if err := ws.add("."); err != nil {
			return fmt.Errorf("watch %s: %w", root, err)
		}
	}

	pending := map[string]bool{}
	events := 0
	var first time.Time
	var fire <-chan time.Time // armed while changes are pending
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch: the file system watcher closed")
			}
			// An overflowed event queue loses changes: analyze anyway.
			slog.Warn("watch: " + err.Error())
			pending["(events lost)"] = true
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watch: the file system watcher closed")
			}
			rel, relevant := ws.relevant(ev)
			if !relevant {
				continue
			}
			pending[rel] = true
			events++
		case <-fire:
			changed := make([]string, 0, len(pending))
			for p := range pending {
				changed = append(changed, p)
			}
			sort.Strings(changed)
			n := events
			clear(pending)
			events, fire = 0, nil
			if err := update(changed[:min(len(changed), watchedChangedListed)], n); err != nil {
				return err
			}
			continue
		}
		// A change: the update waits for Debounce of quiet, but never
		// more than MaxDelay after the first change it holds.
		now := time.Now()
		if fire == nil {
			first = now
		}
		at := min(now.Add(wo.Debounce).Sub(now), first.Add(wo.MaxDelay).Sub(now))
		fire = time.After(max(at, 0))
	}
}

// watchSet is what Watch watches and how it judges an event.
type watchSet struct {
	w    *fsnotify.Watcher
	root string
	dirs map[string]bool // repo-relative directories watched
	// files are the indexed files; exts the extensions they have.
	files map[string]bool
	exts  map[string]bool
}

// follow updates the watch to the index described by m: every directory
// holding an indexed file, and its ancestors, is watched.
func (ws *watchSet) follow(m *graph.Meta) {
	ws.files = make(map[string]bool, len(m.Files))
	ws.exts = map[string]bool{}
	want := map[string]bool{".": true}
	for p := range m.Files {
		ws.files[p] = true
		if e := path.Ext(p); e != "" {
			ws.exts[e] = true
		}
		for d := path.Dir(p); d != "." && !want[d]; d = path.Dir(d) {
			want[d] = true
		}
	}
	failed, example := 0, ""
	var firstErr error
	for d := range want {
		if !ws.dirs[d] {
			if err := ws.add(d); err != nil {
				if failed++; failed == 1 {
					example, firstErr = d, err
				}
			}
		}
	}
	if failed > 0 {
		// One line, not one per directory: the usual cause is the
		// system's inotify watch limit (fs.inotify.max_user_watches).
		slog.Warn(fmt.Sprintf("watch: %d of %d directories cannot be watched (changes there are not seen until another change starts an update); first %s: %v; if the inotify watch limit is the cause, raise fs.inotify.max_user_watches",
			failed, len(want), example, firstErr))
	}
	for d := range ws.dirs {
		if !want[d] {
			_ = ws.w.Remove(filepath.Join(ws.root, filepath.FromSlash(d)))
			delete(ws.dirs, d)
		}
	}
}

// add watches dir; a directory that vanished meanwhile is no error.
func (ws *watchSet) add(dir string) error {
	if err := ws.w.Add(filepath.Join(ws.root, filepath.FromSlash(dir))); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	ws.dirs[dir] = true
	return nil
}

// relevant says whether ev may change the index, and its repo-relative path.
func (ws *watchSet) relevant(ev fsnotify.Event) (string, bool) {
	if ev.Op == fsnotify.Chmod {
		return "", false
	}
	rel, err := filepath.Rel(ws.root, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	first, _, _ := strings.Cut(rel, "/")
	if first == ".gitnexus" || first == ".git" {
		return "", false
	}
	base := path.Base(rel)
	switch {
	case ws.files[rel], ws.dirs[rel]:
		return rel, true
	case base == ".gitignore" || base == ".gitnexusignore":
		return rel, true
	case ws.exts[path.Ext(base)]:
		return rel, true
	}
	if ev.Op.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			return rel, true // a new directory may hold sources: discovery decides
		}
	}
	return "", false
}
