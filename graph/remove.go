package graph

import (
	"fmt"
	"os"
	"path/filepath"
)

// RemoveIndex deletes the index of the repository at repoRoot (its whole
// .gitnexus directory). It takes the index lock first, so it never deletes
// an index while an analyze is writing it (that gives ErrLocked). A repo
// with no index gives ErrNoIndex.
func RemoveIndex(repoRoot string) error {
	dir := IndexDir(repoRoot)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return fmt.Errorf("%w in %s", ErrNoIndex, repoRoot)
	}
	lock, err := tryLock(filepath.Join(dir, lockFileName), "the index of "+repoRoot)
	if err != nil {
		return err
	}
	defer lock.unlock()
	// Move it aside first so that a reader never sees a half-deleted index,
	// then remove it.
	trash := dir + ".removing"
	os.RemoveAll(trash)
	if err := os.Rename(dir, trash); err != nil {
		return fmt.Errorf("remove index %s: %w", dir, err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("remove index %s: %w", trash, err)
	}
	return nil
}
