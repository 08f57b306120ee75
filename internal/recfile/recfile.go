// Package recfile is the file format of gitnexus's caches (ingest's fact
// cache, resolve's site cache): records written one after another, each
// found by a string key through an index written at the end, and read
// one at a time with ReadAt, so that what a reader holds in memory is the
// index (a few dozen bytes a record), not the records.
//
// Layout (integers unsigned varints unless said; strings a length and
// their bytes):
//
//	magic, stamp              the file's kind and the writer's identity
//	record*                   the records' bytes, back to back
//	index: count, then per record key, offset, length, CRC-32C of it
//	8-byte little-endian offset of the index, CRC-32C of the index
//	(4 bytes), endMagic
//
// A reader is opened for one stamp: a file of another stamp, or one that
// does not check (truncated, an index or record whose checksum differs,
// bounds outside the file) is refused or its record is a miss, never a
// wrong record: a cache can only save work.
package recfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/gitnexus/gitnexus/internal/writeback"
)

const endMagic = "GNXREND\x00"

// tailLen is the length of what follows the index.
const tailLen = 8 + 4 + len(endMagic)

// maxIndex bounds the index a reader reads (the Linux kernel's fact
// cache: a few MB).
const maxIndex = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrStamp is Open's error for a file written with another stamp.
var ErrStamp = errors.New("written with another stamp")

// Loc is where a record lies in its file, with its checksum.
type Loc struct {
	off, n int64
	sum    uint32
}

// Len is the record's length.
func (l Loc) Len() int64 { return l.n }

// Reader reads a file Create wrote. Its methods are safe for concurrent
// use.
type Reader struct {
	f   *os.File
	idx map[string]Loc
}

// Open opens the file at path if it starts with magic and stamp; a record
// longer than maxRecord is damage. A missing file's error wraps
// os.ErrNotExist, another stamp's is ErrStamp.
func Open(path, magic, stamp string, maxRecord int64) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := readIndex(f, magic, stamp, maxRecord)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func readIndex(f *os.File, magic, stamp string, maxRecord int64) (*Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	head := make([]byte, len(magic)+binary.MaxVarintLen64+len(stamp))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	d := &Decoder{B: head}
	if string(d.Bytes(len(magic))) != magic {
		return nil, fmt.Errorf("not a %q file", magic)
	}
	if s := d.Str(); d.Err != nil || s != stamp {
		return nil, ErrStamp
	}
	start := int64(d.Pos)
	if size < start+int64(tailLen) {
		return nil, errors.New("truncated")
	}
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, size-int64(tailLen)); err != nil {
		return nil, err
	}
	if string(tail[12:]) != endMagic {
		return nil, errors.New("truncated (no end mark)")
	}
	idxOff := int64(binary.LittleEndian.Uint64(tail[:8]))
	if idxOff < start || idxOff > size-int64(tailLen) || size-int64(tailLen)-idxOff > maxIndex {
		return nil, errors.New("damaged (index offset)")
	}
	buf := make([]byte, size-int64(tailLen)-idxOff)
	if _, err := f.ReadAt(buf, idxOff); err != nil {
		return nil, err
	}
	if crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(tail[8:12]) {
		return nil, errors.New("damaged (index checksum)")
	}
	d = &Decoder{B: buf}
	n := d.Uint()
	if n > uint64(len(buf)) {
		return nil, errors.New("damaged (index count)")
	}
	idx := make(map[string]Loc, n)
	for i := uint64(0); i < n && d.Err == nil; i++ {
		k := d.Str()
		l := Loc{off: int64(d.Uint()), n: int64(d.Uint()), sum: uint32(d.Uint())}
		if l.off < start || l.n < 0 || l.n > maxRecord || l.off+l.n > idxOff {
			return nil, errors.New("damaged (record bounds)")
		}
		idx[k] = l
	}
	if d.Err != nil || d.Pos != len(buf) {
		return nil, fmt.Errorf("damaged index: %v", d.Err)
	}
	return &Reader{f: f, idx: idx}, nil
}

// Len is the number of records.
func (r *Reader) Len() int {
	if r == nil {
		return 0
	}
	return len(r.idx)
}

// Find is where the record of key lies.
func (r *Reader) Find(key string) (Loc, bool) {
	if r == nil {
		return Loc{}, false
	}
	l, ok := r.idx[key]
	return l, ok
}

// Read reads the record at l into *buf (grown when too small) and checks
// its checksum.
func (r *Reader) Read(l Loc, buf *[]byte) ([]byte, error) {
	if r == nil || r.f == nil {
		return nil, os.ErrClosed
	}
	if int64(cap(*buf)) < l.n {
		*buf = make([]byte, l.n)
	}
	rec := (*buf)[:l.n]
	if _, err := r.f.ReadAt(rec, l.off); err != nil {
		return nil, err
	}
	if crc32.Checksum(rec, castagnoli) != l.sum {
		return nil, errors.New("damaged record (checksum)")
	}
	return rec, nil
}

// Close closes the file; a second Close, or Close of nil, does nothing.
func (r *Reader) Close() error {
	if r == nil || r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f, r.idx = nil, nil
	return err
}

// Writer writes a file, records in the order added.
type Writer struct {
	f   *os.File
	w   *bufio.Writer
	off int64
	idx []byte
	n   int
	err error
}

// Create starts the file at path, of kind magic, with stamp.
func Create(path, magic, stamp string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 256<<10)}
	w.write(AppendStr([]byte(magic), stamp))
	if w.err != nil {
		f.Close()
		return nil, w.err
	}
	return w, nil
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.err = err
}

// Add appends the record of key (whose bytes are copied).
func (w *Writer) Add(key string, rec []byte) error {
	off := w.off
	w.write(rec)
	w.idx = AppendStr(w.idx, key)
	w.idx = binary.AppendUvarint(w.idx, uint64(off))
	w.idx = binary.AppendUvarint(w.idx, uint64(len(rec)))
	w.idx = binary.AppendUvarint(w.idx, uint64(crc32.Checksum(rec, castagnoli)))
	w.n++
	return w.err
}

// Close writes the index and the tail and closes the file; the data is
// on its way to the disk (writeback.Start), the caller's commit syncs it.
func (w *Writer) Close() error {
	idxOff := w.off
	idx := append(binary.AppendUvarint(nil, uint64(w.n)), w.idx...)
	w.write(idx)
	tail := binary.LittleEndian.AppendUint64(nil, uint64(idxOff))
	tail = binary.LittleEndian.AppendUint32(tail, crc32.Checksum(idx, castagnoli))
	w.write(append(tail, endMagic...))
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err == nil {
		writeback.Start(w.f)
	}
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	return w.err
}

// Abort closes the file without finishing it (its caller removes it); on
// nil it does nothing.
func (w *Writer) Abort() {
	if w != nil {
		w.f.Close()
	}
}

// AppendStr appends s as a string of the format: its length and bytes.
func AppendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decoder reads the format's integers and strings off B from Pos; the
// first read past the end or malformed sets Err, after which every read
// returns zero.
type Decoder struct {
	B   []byte
	Pos int
	Err error
}

// Fail records the first error: a bad what at the current position.
func (d *Decoder) Fail(what string) {
	if d.Err == nil {
		d.Err = fmt.Errorf("bad %s at byte %d", what, d.Pos)
	}
}

// Uint reads an unsigned varint.
func (d *Decoder) Uint() uint64 {
	if d.Err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.B[d.Pos:])
	if n <= 0 {
		d.Fail("length")
		return 0
	}
	d.Pos += n
	return x
}

// Int reads a signed varint.
func (d *Decoder) Int() int64 {
	if d.Err != nil {
		return 0
	}
	x, n := binary.Varint(d.B[d.Pos:])
	if n <= 0 {
		d.Fail("integer")
		return 0
	}
	d.Pos += n
	return x
}

// U64 reads a little-endian 8-byte integer.
func (d *Decoder) U64() uint64 {
	b := d.Bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Bytes reads n bytes, in place.
func (d *Decoder) Bytes(n int) []byte {
	if d.Err != nil {
		return nil
	}
	if n < 0 || n > len(d.B)-d.Pos {
		d.Fail("size")
		return nil
	}
	s := d.B[d.Pos : d.Pos+n : d.Pos+n]
	d.Pos += n
	return s
}

// StrBytes reads a string (AppendStr's), in place.
func (d *Decoder) StrBytes() []byte {
	n := d.Uint()
	if d.Err != nil {
		return nil
	}
	if n > uint64(len(d.B)) {
		d.Fail("string length")
		return nil
	}
	return d.Bytes(int(n))
}

// Str reads a string (AppendStr's).
func (d *Decoder) Str() string { return string(d.StrBytes()) }
