package graph

// This file owns what becomes of a database that a Commit replaced: it is
// moved at once into a retired-<name>/ directory of .gitnexus (renames:
// readers that have it open keep reading it, as they did when it was
// unlinked) and removed when BuildOptions.Retire chooses. Removing a
// large file costs the page cache's pages of it (kubernetes: 0.2-0.3 s
// for its 300 MB of database and companions), time a command need not
// wait for.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// retire takes the replaced database name (in .gitnexus/) out of the index:
// removed now when BuildOptions.Retire is nil, else moved into a retired
// directory handed to Retire. A file that cannot be moved is removed here.
func (b *Build) retire(name string) {
	path := filepath.Join(b.dir, name)
	if b.opts.Retire != nil {
		dir := filepath.Join(b.dir, "retired-"+name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			for _, p := range dbFiles(path) {
				if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err == nil || errors.Is(err, os.ErrNotExist) {
					continue
				}
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					b.log.Warn("could not remove the previous database", "err", err)
				}
			}
			b.opts.Retire(dir)
			return
		}
		b.log.Debug("previous database removed now: no retired directory", "err", err)
	}
	if err := removeDBFiles(path); err != nil {
		b.log.Warn("could not remove the previous database", "err", err)
	}
}

// RemoveRetired removes dir, a directory of replaced database files that a
// Commit handed to BuildOptions.Retire, and nothing else: it refuses a
// path that is not a retired-db-* directory directly inside a .gitnexus
// directory, or is a symbolic link (the command that removes it in the
// background reads the path from its command line). A directory already
// gone is not an error: the next build's clean-up removes what a remover
// left, and may race it.
func RemoveRetired(dir string) error {
	dir = filepath.Clean(dir)
	if ok, _ := filepath.Match(retiredGlob, filepath.Base(dir)); !ok || filepath.Base(filepath.Dir(dir)) != IndexDirName {
		return fmt.Errorf("%s is not a retired database directory of an index", dir)
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a retired database directory of an index", dir)
	}
	return os.RemoveAll(dir)
}
