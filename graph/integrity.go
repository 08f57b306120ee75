package graph

// This file owns damage detection: the size and CRC-32C of the database
// file and its companions, recorded in meta.json at Commit (Meta.Sums) and
// checked before a file is handed to Kuzu, which segfaults or fails
// obscurely on a garbled, truncated or empty file (an empty one it even
// takes for a new database).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// ErrDamaged means the index's files are not what its commit wrote: a
// database or companion file is missing, truncated, garbled or of another
// format. Only `gitnexus analyze` repairs it. Errors wrapping it are a
// *DamageError.
var ErrDamaged = errors.New("index is damaged")

// DamageError says which index is damaged and why. It wraps ErrDamaged.
type DamageError struct {
	Root   string // the repository
	File   string // the damaged file, relative to .gitnexus/
	Reason string
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("the index of %s is damaged (%s: %s): run `gitnexus analyze %s` to rebuild it", e.Root, e.File, e.Reason, e.Root)
}

// Unwrap makes errors.Is(err, ErrDamaged) hold.
func (e *DamageError) Unwrap() error { return ErrDamaged }

// FileSum is a file's size and CRC-32C (Castagnoli) as Commit wrote it.
type FileSum struct {
	Size   int64  `json:"size"`
	CRC32C uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sumFile computes the FileSum of the file at path.
func sumFile(path string) (FileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileSum{}, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.CopyBuffer(h, f, make([]byte, 1<<20))
	if err != nil {
		return FileSum{}, fmt.Errorf("read %s: %w", path, err)
	}
	return FileSum{Size: n, CRC32C: h.Sum32()}, nil
}

// Kuzu 0.11's database file starts with the magic "KUZU", the storage
// version (uint64 LE, 39 for Kuzu 0.11) and the page ranges (start page,
// page count: uint32 LE each) of its catalog and of its metadata; pages
// are 4 KiB. TestDamageHeaderOfRealDatabase fails when a Kuzu upgrade
// changes this.
const (
	kuzuMagic          = "KUZU"
	kuzuStorageVersion = 39
	kuzuPageSize       = 4096
	kuzuHeaderLen      = 4 + 8 + 2*8
)

// checkKuzuHeader checks, cheaply, that the file at path can be a complete
// Kuzu database of this version: its size is a whole number of pages and
// its header's page ranges lie inside it. It returns the reason it cannot,
// or "".
func checkKuzuHeader(path string, size int64) (string, error) {
	switch {
	case size == 0:
		return "the file is empty", nil
	case size%kuzuPageSize != 0:
		return fmt.Sprintf("%d bytes is not a whole number of %d-byte pages: the file is truncated", size, kuzuPageSize), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var h [kuzuHeaderLen]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !bytes.Equal(h[:4], []byte(kuzuMagic)) {
		return "not a Kuzu database file (no KUZU magic)", nil
	}
	if v := binary.LittleEndian.Uint64(h[4:12]); v != kuzuStorageVersion {
		return fmt.Sprintf("Kuzu storage version %d, this gitnexus reads %d", v, kuzuStorageVersion), nil
	}
	pages := uint64(size / kuzuPageSize)
	for i, what := range []string{"catalog", "metadata"} {
		start := uint64(binary.LittleEndian.Uint32(h[12+8*i:]))
		n := uint64(binary.LittleEndian.Uint32(h[16+8*i:]))
		if n > 0 && start+n > pages {
			return fmt.Sprintf("its %s (pages %d-%d) lies past its end (%d pages): the file is truncated or garbled", what, start, start+n-1, pages), nil
		}
	}
	return "", nil
}

// checkDBFile checks the live database file before Kuzu opens it: that it
// exists, its header (checkKuzuHeader) and, when meta.json recorded one
// (Meta.Sums, written by Commit), its size and CRC-32C. Reading the whole
// file costs little beside a command (doc.go has the numbers; the page
// cache keeps it for the queries that follow), and only a whole checksum
// finds the garbled page on which Kuzu would crash at open or mid-query.
// A *DamageError when damaged; other errors are I/O failures.
func checkDBFile(root string, m *Meta) error {
	if err := checkDBHeader(root, m); err != nil {
		return err
	}
	want, recorded := m.Sums[m.DBFile]
	if !recorded {
		return nil // an index from an older gitnexus: the header is all we can check
	}
	return checkSum(root, m.DBFile, filepath.Join(IndexDir(root), m.DBFile), want)
}

// checkDBHeader is checkDBFile but for the whole file's checksum: the file
// exists, is regular, has its recorded size and a sound Kuzu header.
func checkDBHeader(root string, m *Meta) error {
	path := filepath.Join(IndexDir(root), m.DBFile)
	damaged := func(reason string) error { return &DamageError{Root: root, File: m.DBFile, Reason: reason} }
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return damaged("the database file is missing")
	}
	if err != nil {
		return fmt.Errorf("index of %s: %w", root, err)
	}
	if !fi.Mode().IsRegular() {
		return damaged("not a regular file")
	}
	want, recorded := m.Sums[m.DBFile]
	if recorded && fi.Size() != want.Size {
		return damaged(fmt.Sprintf("%d bytes, %d at commit", fi.Size(), want.Size))
	}
	reason, err := checkKuzuHeader(path, fi.Size())
	if err != nil {
		return fmt.Errorf("index of %s: %w", root, err)
	}
	if reason != "" {
		return damaged(reason)
	}
	return nil
}

// checkSum compares the file at path with its recorded sum. Only a
// regular file of the recorded size is read (a FIFO put in its place
// would block the reader forever).
func checkSum(root, name, path string, want FileSum) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &DamageError{Root: root, File: name, Reason: "the file is missing"}
	case err != nil:
		return fmt.Errorf("index of %s: %w", root, err)
	case !fi.Mode().IsRegular():
		return &DamageError{Root: root, File: name, Reason: "not a regular file"}
	case fi.Size() != want.Size:
		return &DamageError{Root: root, File: name, Reason: fmt.Sprintf("%d bytes, %d at commit", fi.Size(), want.Size)}
	}
	got, err := sumFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &DamageError{Root: root, File: name, Reason: "the file is missing"}
	}
	if err != nil {
		return fmt.Errorf("index of %s: %w", root, err)
	}
	return compareSum(root, name, got, want)
}

// compareSum is nil when got, the sum of the file name read, is the one
// recorded, want; else a *DamageError.
func compareSum(root, name string, got, want FileSum) error {
	switch {
	case got.Size != want.Size:
		return &DamageError{Root: root, File: name, Reason: fmt.Sprintf("%d bytes, %d at commit", got.Size, want.Size)}
	case got.CRC32C != want.CRC32C:
		return &DamageError{Root: root, File: name, Reason: fmt.Sprintf("checksum %08x, %08x at commit: the file was changed or garbled", got.CRC32C, want.CRC32C)}
	}
	return nil
}

// Verify checks every file of the index of root as meta m describes it:
// the database (as Open does) and each companion with a recorded sum,
// reading all of them. It returns nil when all match, a *DamageError for
// the first damaged file, or another error when a file cannot be read.
// Companions of an index from an older gitnexus (no Meta.Sums) are not
// checked.
func Verify(root string, m *Meta) error {
	if err := checkDBFile(root, m); err != nil {
		return err
	}
	return checkCompanions(root, m)
}

// checkCompanions is Verify for the companions alone.
func checkCompanions(root string, m *Meta) error {
	for _, suffix := range CompanionSuffixes {
		name := m.DBFile + suffix
		want, ok := m.Sums[name]
		if !ok {
			continue
		}
		if err := checkSum(root, name, filepath.Join(IndexDir(root), name), want); err != nil {
			return err
		}
	}
	return nil
}

// recordSums fills m.Sums with the sums of the database file named name in
// dir and of its companions that exist: those of known (by file name, taken
// as the files were moved into place) and, for the others, read.
func recordSums(dir, name string, m *Meta, known map[string]FileSum) error {
	m.Sums = map[string]FileSum{}
	names := []string{name}
	for _, s := range CompanionSuffixes {
		if s != StatSuffix { // see StatSuffix
			names = append(names, name+s)
		}
	}
	for i, n := range names {
		if s, ok := known[n]; ok {
			m.Sums[n] = s
			continue
		}
		s, err := sumFile(filepath.Join(dir, n))
		if i > 0 && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checksum %s: %w", n, err)
		}
		m.Sums[n] = s
	}
	return nil
}

// clearReadDebris removes the WAL and shadow files a read-only session
// leaves beside a committed database when it tries to write (Kuzu 0.11
// creates them for a CHECKPOINT on a read-only database before failing to
// write the database file, which it opened read-only). A committed
// database never has them (Commit closes, so checkpoints, it first), and
// while they exist Kuzu refuses to open it ("failed to open database with
// status 1"). Only called once the database file itself has been checked.
func clearReadDebris(path string) error {
	var errs []error
	for _, p := range []string{path + ".wal", path + ".shadow"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
