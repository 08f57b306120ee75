//go:build unix

package query

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// MapPack is ReadPack for a process that reads one pack and then exits
// (a CLI command): the file is mapped read-only instead of copied, so a
// query pays for the pages of the sections it reads, not for the whole
// file (astropy's 13 MB pack: ReadFile 41–57 ms, mapping and touching
// every page 7 ms on the 2-core machine). The mapping is never unmapped:
// the strings a Pack hands out point into it, and they live until the
// process exits. A pack file is only ever replaced (a new file, renamed
// into place; the old one unlinked), never rewritten in place, so the
// mapped bytes stay those that were checked; a file truncated by someone
// else while mapped would fault on access — callers run the search with
// debug.SetPanicOnFault so that it becomes a recoverable panic. A server,
// which keeps packs for long and swaps them, uses ReadPack.
func MapPack(path string) (*Pack, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w (%s is missing)", ErrNoPack, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read search pack: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read search pack: %w", err)
	}
	size := fi.Size()
	if size == 0 || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrPackDamaged)
	}
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s: %w (too large)", path, ErrPackDamaged)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return ReadPack(path) // a file system that cannot map: read it
	}
	p, err := openPack(unsafe.String(&data[0], len(data)))
	if err != nil {
		_ = syscall.Munmap(data) // nothing points into it yet
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.oneShot = true
	return p, nil
}
