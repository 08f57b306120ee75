package ingest

// The stat cache lets a re-analyze know a file's content hash without
// reading the file, as git's index does: it keeps, for every file the last
// run read, the hash, size and line count it found, with the inode, size,
// modification and change times the file had when it was read. A file
// that still has exactly that inode, size and those times was not written
// since (any write, rename or link moves its change time, which no user
// tool can set back), so its content is the content hashed then.
//
// A change within the timestamp's granularity of the read would leave the
// times as they were (the "racily clean" file of git): so an entry is
// trusted only when its change time lies StatSlack or more before the
// start of the run that read it (Since). A file written shortly before a
// run is read again by the next, and trusted by the one after.
//
// Discovery uses it too (discover.Options.Known): a file the cache trusts
// and whose stat has not moved passed discovery's content checks with the
// content it still has, so it is not opened to be judged again (unless
// its content must be judged now and was not then: sniffed).
//
// The file is a recfile of kind statMagic holding one record, key
// statKey: the run's start (Since, unix nanoseconds), then for each file in
// path order its path, hash (32 bytes), lines, flags (1: sniffed), size,
// inode, modification and change times (nanoseconds). It is read whole, once a run (the Linux
// kernel: 86k files, a few MB). A file that does not check is no cache:
// every file is read.

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/internal/recfile"
)

const (
	statMagic   = "gitnexus-stats\n"
	statVersion = "2"
	statKey     = "files"
	// maxStatRecord bounds the record a reader accepts: far above the
	// Linux kernel's (86k files, about 6 MB).
	maxStatRecord = 1 << 30
)

// StatSlack is how long before the start of the run that read a file its
// change time must be for the next run to trust the file's entry
// (above): more than the coarsest file timestamps in use (FAT's 2
// seconds). A variable for tests, which edit files within it.
var StatSlack = 3 * time.Second

// fileStat is what the operating system says of a file, compared whole:
// inode, size, and modification and change times in nanoseconds.
type fileStat struct {
	ino          uint64
	size         int64
	mtime, ctime int64
}

// statEntry is one file of a stat cache.
type statEntry struct {
	stat    fileStat
	hash    string // hex sha256, as Stats.FileHashes
	lines   int
	sniffed bool // discovery judged its content (discover.File.Sniffed)
}

// StatCache is the stat cache an earlier run wrote (see above). Its
// methods are safe for concurrent use (it is read only).
type StatCache struct {
	since  int64 // the run's start, unix nanoseconds
	byPath map[string]statEntry
}

// OpenStatCache reads the stat cache at path. It returns (nil, nil) when
// there is no such file, and an error saying why when the file cannot be
// used: the caller logs it and every file is read.
func OpenStatCache(path string) (*StatCache, error) {
	r, err := recfile.Open(path, statMagic, statVersion, maxStatRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat cache: %w", err)
	}
	defer r.Close()
	loc, ok := r.Find(statKey)
	if !ok {
		return nil, errors.New("stat cache: no record")
	}
	var buf []byte
	raw, err := r.Read(loc, &buf)
	if err != nil {
		return nil, fmt.Errorf("stat cache: %w", err)
	}
	d := recfile.Decoder{B: raw}
	c := &StatCache{since: d.Int()}
	n := d.Uint()
	if n > uint64(len(raw)) { // each entry takes bytes
		return nil, errors.New("stat cache: bad count")
	}
	c.byPath = make(map[string]statEntry, n)
	for range n {
		p := d.Str()
		sum := d.Bytes(32)
		e := statEntry{lines: int(d.Uint())}
		e.sniffed = d.Uint()&1 != 0
		e.stat.size = d.Int()
		e.stat.ino = d.Uint()
		e.stat.mtime = d.Int()
		e.stat.ctime = d.Int()
		if d.Err != nil {
			return nil, fmt.Errorf("stat cache: %w", d.Err)
		}
		e.hash = hex.EncodeToString(sum)
		c.byPath[p] = e
	}
	if d.Err == nil && d.Pos != len(raw) {
		d.Fail("end of record")
	}
	if d.Err != nil {
		return nil, fmt.Errorf("stat cache: %w", d.Err)
	}
	return c, nil
}

// Len is the number of files the cache holds.
func (c *StatCache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.byPath)
}

// trusted returns the entry of path when the cache may be believed for
// it: its change time lies StatSlack before the cache's run began.
func (c *StatCache) trusted(path string) (statEntry, bool) {
	if c == nil {
		return statEntry{}, false
	}
	e, ok := c.byPath[path]
	if !ok || e.stat.ctime >= c.since-int64(StatSlack) {
		return statEntry{}, false
	}
	return e, true
}

// match returns the entry of path when the cache trusts it and fi, the
// file's stat now, is the one it recorded.
func (c *StatCache) match(path string, fi fs.FileInfo) (statEntry, bool) {
	e, ok := c.trusted(path)
	if !ok {
		return statEntry{}, false
	}
	if st, ok := statOf(fi); !ok || st != e.stat {
		return statEntry{}, false
	}
	return e, true
}

// known is discover.Options.Known: whether the file at path, whose stat
// is fi, is one the cache trusts with that stat, and whether its content
// was sniffed.
func (c *StatCache) known(path string, fi fs.FileInfo) (sniffed, ok bool) {
	e, ok := c.match(path, fi)
	return e.sniffed, ok
}

// statWriter gathers a run's entries and writes its stat cache.
type statWriter struct {
	path    string
	since   int64
	entries []statRow
}

type statRow struct {
	path string
	statEntry
}

// newStatWriter starts the stat cache of a run that began reading files
// at since (no file was stat'ed or read before it).
func newStatWriter(path string, since time.Time) *statWriter {
	if path == "" {
		return nil
	}
	return &statWriter{path: path, since: since.UnixNano()}
}

// add records a file's hash and lines with the stat its content was read
// under (ok false: none known, the file is left out), and whether
// discovery sniffed that content.
func (w *statWriter) add(path, hash string, lines int, st fileStat, ok, sniffed bool) {
	if w == nil || !ok || len(hash) != 64 {
		return
	}
	w.entries = append(w.entries, statRow{path, statEntry{st, hash, lines, sniffed}})
}

// write writes the cache file.
func (w *statWriter) write() error {
	if w == nil {
		return nil
	}
	slices.SortFunc(w.entries, func(a, b statRow) int { return strings.Compare(a.path, b.path) })
	b := make([]byte, 0, 32+len(w.entries)*96)
	b = binary.AppendVarint(b, w.since)
	b = binary.AppendUvarint(b, uint64(len(w.entries)))
	for _, e := range w.entries {
		sum, err := hex.DecodeString(e.hash)
		if err != nil || len(sum) != 32 {
			return fmt.Errorf("stat cache: bad hash of %s", e.path)
		}
		b = recfile.AppendStr(b, e.path)
		b = append(b, sum...)
		b = binary.AppendUvarint(b, uint64(e.lines))
		flags := uint64(0)
		if e.sniffed {
			flags = 1
		}
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendVarint(b, e.stat.size)
		b = binary.AppendUvarint(b, e.stat.ino)
		b = binary.AppendVarint(b, e.stat.mtime)
		b = binary.AppendVarint(b, e.stat.ctime)
	}
	rw, err := recfile.Create(w.path, statMagic, statVersion)
	if err != nil {
		return fmt.Errorf("stat cache: %w", err)
	}
	if err := rw.Add(statKey, b); err != nil {
		rw.Abort()
		return fmt.Errorf("stat cache: %w", err)
	}
	if err := rw.Close(); err != nil {
		return fmt.Errorf("stat cache: %w", err)
	}
	return nil
}
