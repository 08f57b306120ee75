//go:build unix

package query

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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
// debug.SetPanicOnFault so that it becomes a recoverable panic. A reader
// that keeps packs for long and swaps them uses ReadPack, whose mapping
// goes when the pack does.
func MapPack(path string) (*Pack, error) {
	p, _, err := mapPack(path, nil)
	if err != nil {
		return nil, err
	}
	p.oneShot = true
	return p, nil
}

// mapPack opens the pack file at path mapped read-only, and returns the
// mapping it lies in; data is nil when the file system cannot map it and
// it was read into memory instead (readPackFile). The sections named in
// held are read into memory of their own, from the file mapped (see
// heldSections).
func mapPack(path string, held []string) (p *Pack, data []byte, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w (%s is missing)", ErrNoPack, path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read search pack: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read search pack: %w", err)
	}
	size := fi.Size()
	if size == 0 || !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrPackDamaged)
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("%s: %w (too large)", path, ErrPackDamaged)
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		p, err := readPackFile(path) // a file system that cannot map: read it
		return p, nil, err
	}
	p, err = openPack(unsafe.String(&data[0], len(data)))
	if err == nil {
		err = readHeld(f, p, held)
	}
	if err != nil {
		_ = syscall.Munmap(data) // nothing points into it yet
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, data, nil
}

// readHeld reads the sections of p named in held from f, the file p is
// mapped from, into memory of their own: with pread, not by copying them
// out of the mapping, whose every page would first be faulted in. The
// Linux kernel's 217 MB (string table and details) on the 2-core VM: 0.9
// s read, 1.1-3.1 s copied from the mapping (session 31), which was most
// of an MCP server's first query there.
func readHeld(f *os.File, p *Pack, held []string) error {
	for _, name := range held {
		s := p.src.sections[name]
		if s == nil || len(s.data) == 0 {
			continue
		}
		b := make([]byte, len(s.data))
		if _, err := f.ReadAt(b, int64(s.off)); err != nil {
			return fmt.Errorf("read section %s: %w", name, err)
		}
		s.data, s.keep = unsafe.String(&b[0], len(b)), nil
	}
	return nil
}

// mappingsUnmapped counts the pack mappings ReadPack's cleanups unmapped.
var mappingsUnmapped atomic.Int64

// heldSections are the sections ReadPack copies into memory: their bytes
// become the strings a reader hands out and keeps (names, paths, ids from
// the string table; qualified names, signatures and doc comments from the
// details). Every other section holds numbers and string references —
// node records, edges, their properties, flows, the orders, the indexes,
// whose terms are only compared — and is read from the mapping.
var heldSections = []string{secStrings, secDetails}

// ReadPack reads the pack file at path for a reader that keeps it (the
// MCP server, a tool, analyze's pack reuse): the file is mapped read-only;
// the string table and the details are read into memory (readHeld), the other
// sections are read where they lie and count in the process's memory only
// for the pages read. On the Linux kernel (a 763 MB pack) the server's
// heap no longer holds the 540 MB of indexes, edges and flows. The mapping
// is unmapped once nothing that reads it is reachable (each section holds
// it; runtime.AddCleanup): strings read from mapped sections are never
// handed out — mergeIndex clones the terms it keeps — so none outlives
// it. A pack file is only ever replaced, never rewritten, so the mapped
// bytes stay those checked; one truncated by someone else would fault on
// access, which callers turn into an error (debug.SetPanicOnFault, as
// for MapPack). Where a file cannot be mapped it is read whole.
func ReadPack(path string) (*Pack, error) {
	p, data, err := mapPack(path, heldSections)
	if err != nil || data == nil {
		return p, err
	}
	m := &mapping{size: len(data)}
	runtime.AddCleanup(m, func(b []byte) {
		if syscall.Munmap(b) == nil {
			mappingsUnmapped.Add(1)
		}
	}, data)
	p.src.keep = m
	for _, s := range p.src.sections {
		if !slices.Contains(heldSections, s.name) {
			s.keep = m
		}
	}
	return p, nil
}

// release tells the system that this process is done with the pages of a
// mapped section (a whole-section decoder has copied out what it needs):
// they leave its resident set, and come back from the page cache should
// anything read them again. A section in memory is left as it is.
func (s *section) release() {
	if s.keep == nil || len(s.data) == 0 {
		return
	}
	page := os.Getpagesize()
	b := unsafe.Slice(unsafe.StringData(s.data), len(s.data))
	lo := (page - int(uintptr(unsafe.Pointer(&b[0])))%page) % page // the first whole page
	if n := (len(b) - lo) / page * page; lo < len(b) && n > 0 {
		_ = unix.Madvise(b[lo:lo+n], unix.MADV_DONTNEED)
	}
}
