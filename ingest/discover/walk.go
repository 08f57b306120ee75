package discover

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// countCap bounds how many files are counted inside one excluded directory
// during a walk; Skipped is approximate (a lower bound) beyond it.
const countCap = 10000

// walker lists a tree that is not in a git work tree (or when git is
// missing), honouring .gitignore files the way git would.
type walker struct {
	root string
	flt  *filter
	t    *tally
	jobs chan<- job
}

func walk(ctx context.Context, root string, flt *filter, t *tally, jobs chan<- job) error {
	w := &walker{root: root, flt: flt, t: t, jobs: jobs}
	return w.dir(ctx, "", state{}, nil)
}

// dir lists directory rel, whose filter state is st; gi holds the rules of
// the .gitignore files of rel and its ancestors, shallowest first.
func (w *walker) dir(ctx context.Context, rel string, st state, gi [][]rule) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("read %s: %w", abs, err)
		}
		// A directory that vanished or cannot be listed costs its files,
		// not the run. It counts once: its files are unknown.
		w.t.skip(statReason(err), rel+"/", 1)
		if len(entries) == 0 {
			return nil
		}
	}
	if content, ok := w.read(rel, ".gitignore", entries); ok {
		if rules := parseRules(content, rel, "", path.Join(rel, ".gitignore")); len(rules) > 0 {
			gi = append(gi[:len(gi):len(gi)], rules)
		}
	}
	// As in git mode: a nested .gitnexusignore counts only where git would
	// list it, and never inside an excluded directory.
	ignp := path.Join(rel, IgnoreFileName)
	if _, _, excluded := st.excluded(); !excluded && (rel == "" || !gitIgnored(gi, ignp, IgnoreFileName, false)) {
		if content, ok := w.read(rel, IgnoreFileName, entries); ok {
			w.flt.addIgnoreFile(rel, content)
		}
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if name == ".git" || name == ".gitnexus" {
			continue
		}
		p := path.Join(rel, name)
		typ := e.Type()
		isDir := typ.IsDir() // a symlink is not a directory to git either
		if r := gitIgnoredBy(gi, p, name, isDir); r != nil {
			n := 1
			if isDir {
				n = w.count(ctx, filepath.Join(abs, name))
			}
			w.t.byRule(r.source, ReasonIgnored, n)
			continue
		}
		cs := w.flt.child(st, p, isDir)
		reason, where, excluded := cs.excluded()
		switch {
		case isDir && excluded && (reason != ReasonDefaultExclude || len(w.flt.includes) == 0):
			// Nothing below can come back: count, don't descend.
			n := w.count(ctx, filepath.Join(abs, name))
			w.t.skip(reason, where, n)
			w.t.byRule(cs.excludedBy(), reason, n)
		case isDir:
			// A default-excluded directory is walked only when an include
			// may bring part of it back; its files are then judged one by one.
			if err := w.dir(ctx, p, cs, gi); err != nil {
				return err
			}
		case excluded:
			w.t.skip(reason, where, 1)
			w.t.byRule(cs.excludedBy(), reason, 1)
		case typ&fs.ModeSymlink != 0:
			w.t.skip(ReasonSymlink, p, 1)
		case !typ.IsRegular():
			w.t.skip(ReasonNotRegular, p, 1)
		default:
			select {
			case w.jobs <- job{rel: p, abs: filepath.Join(abs, name), exempt: w.flt.sniffExempt(cs)}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// read returns the content of the ignore file called name in directory
// rel when the listing has it.
func (w *walker) read(rel, name string, entries []os.DirEntry) ([]byte, bool) {
	for _, e := range entries {
		if e.Name() == name {
			return readSmallFile(filepath.Join(w.root, filepath.FromSlash(rel), name))
		}
	}
	return nil, false
}

// gitIgnored applies the .gitignore rules: the deepest file with a
// matching rule decides, and within it the last matching line.
func gitIgnored(gi [][]rule, p, name string, isDir bool) bool {
	return gitIgnoredBy(gi, p, name, isDir) != nil
}

// gitIgnoredBy is gitIgnored returning the deciding rule, nil when the
// path is not ignored.
func gitIgnoredBy(gi [][]rule, p, name string, isDir bool) *rule {
	for i := len(gi) - 1; i >= 0; i-- {
		if r := lastMatch(gi[i], p, name, isDir); r != nil {
			if r.negate {
				return nil
			}
			return r
		}
	}
	return nil
}

// count returns how many files (non-directories) lie under dir, up to
// countCap, without following symlinks. It is the Skipped count of an
// excluded directory; it does not apply ignore rules inside it, so it can
// count a few files git would not have listed.
func (w *walker) count(ctx context.Context, dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are simply not counted
		}
		if ctx.Err() != nil || n >= countCap {
			return filepath.SkipAll
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}
