package graph

// This file owns durable moves: a file moved into .gitnexus/ is on disk
// (synced) before the commit point names it.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

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
