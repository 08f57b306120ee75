package graph

// This file owns durable moves: a file moved into .gitnexus/ is on disk
// (synced) before the commit point names it, and its sum (FileSum, which
// meta.json records) is taken on the way instead of by reading it again.

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// moved is a file moved into place: its sum, once synced (or the error).
type moved struct {
	sum FileSum
	err error
}

// moveDurably renames src to dst, or, across file systems, copies it to a
// temporary name beside dst (summing what it copies), syncs it and renames
// that; src is removed. It returns dst's sum.
func moveDurably(src, dst string) (FileSum, error) {
	if err := os.Rename(src, dst); err == nil {
		if err := fsyncFile(dst); err != nil {
			return FileSum{}, err
		}
		return sumFile(dst)
	} else if !errors.Is(err, syscall.EXDEV) {
		return FileSum{}, err
	}
	return copyDurably(src, dst)
}

// moveSyncLater is moveDurably that, on one file system, renames at once
// and syncs and sums dst on a goroutine: the disk writes several files at
// once faster than one after another, and beside a copy (Commit:
// kubernetes's 135 MB fact cache is synced and summed while its database
// is copied off /dev/shm). Nothing may name dst before the result comes.
func moveSyncLater(src, dst string) (<-chan moved, error) {
	done := make(chan moved, 1)
	if err := os.Rename(src, dst); err != nil {
		if !errors.Is(err, syscall.EXDEV) {
			return nil, err
		}
		s, err := copyDurably(src, dst)
		done <- moved{s, err}
		return done, nil
	}
	go func() {
		if err := fsyncFile(dst); err != nil {
			done <- moved{err: err}
			return
		}
		s, err := sumFile(dst)
		done <- moved{s, err}
	}()
	return done, nil
}

// copyDurably copies src to a temporary name beside dst (copySummed,
// synced), renames it to dst and removes src.
func copyDurably(src, dst string) (FileSum, error) {
	tmp := dst + ".copying"
	sum, err := copySummed(src, tmp, true, nil)
	if err != nil {
		return FileSum{}, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return FileSum{}, err
	}
	return sum, os.Remove(src)
}

// errCopyStopped is copySummed's error when its stop flag was raised.
var errCopyStopped = errors.New("copy stopped")

// copySummed copies src to dst (created, or truncated) and returns the sum
// of the bytes it copied, so that no one reads either file again to check
// it; with sync, dst is synced before it is closed. A stop flag (may be
// nil) raised ends the copy with errCopyStopped at the next megabyte. On
// error dst is removed.
func copySummed(src, dst string, sync bool, stop *atomic.Bool) (sum FileSum, err error) {
	in, err := os.Open(src)
	if err != nil {
		return FileSum{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return FileSum{}, err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(dst)
		}
	}()
	h := crc32.New(castagnoli)
	buf := make([]byte, 1<<20)
	for {
		if stop != nil && stop.Load() {
			return FileSum{}, errCopyStopped
		}
		n, rerr := in.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			if _, err := out.Write(buf[:n]); err != nil {
				return FileSum{}, err
			}
			sum.Size += int64(n)
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				break
			}
			return FileSum{}, rerr
		}
	}
	sum.CRC32C = h.Sum32()
	if sync {
		if err := out.Sync(); err != nil {
			return FileSum{}, err
		}
	}
	if err := out.Close(); err != nil {
		return FileSum{}, err
	}
	return sum, nil
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
