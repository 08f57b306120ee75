package query

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync/atomic"
	"unsafe"
)

// packBlock is the size of the blocks a pack section is checked by: the
// header holds a CRC-32C of every packBlock bytes of every section, and a
// reader checks a block the first time it reads from it. A query that
// reads a few terms' postings and a few dozen nodes touches a few dozen
// blocks, not the whole section (on the Linux kernel the strings section
// alone is 95 MB, the body index 136 MB: checking them whole was most of a
// one-shot query's time). Whole-section decoders (a warm server's tables)
// check every block once, as before.
const packBlock = 16 << 10

// section is one section of a pack image: its bytes, its blocks' CRCs
// (from the header, which its own CRC covers) and which blocks have been
// checked.
type section struct {
	name    string
	off     int    // in the file
	data    string // the section's bytes, unchecked
	crcs    string // uint32 LE per block
	checked []atomic.Uint32
	// keep is the mapping data lies in, when it does (ReadPack): whatever
	// reads a section holds it, so the mapping outlives its readers.
	keep *mapping
}

// mapping stands for a read-only mapping of a pack file that ReadPack
// unmaps once nothing holds it (runtime.AddCleanup); see packmap_unix.go.
type mapping struct{ size int }

// blocks is the number of packBlock blocks of n bytes.
func blocks(n int) int { return (n + packBlock - 1) / packBlock }

func newSection(name string, off int, data, crcs string) *section {
	return &section{name: name, off: off, data: data, crcs: crcs, checked: make([]atomic.Uint32, (blocks(len(data))+31)/32)}
}

// span is the section's bytes [off, off+n), its blocks checked.
func (s *section) span(off, n int) (string, error) {
	if off < 0 || n < 0 || off > len(s.data)-n {
		return "", s.damaged()
	}
	if n == 0 {
		return "", nil
	}
	for b := off / packBlock; b <= (off+n-1)/packBlock; b++ {
		if err := s.check(b); err != nil {
			return "", err
		}
	}
	return s.data[off : off+n], nil
}

// all is the whole section, every block checked.
func (s *section) all() (string, error) { return s.span(0, len(s.data)) }

// check checks block b once.
func (s *section) check(b int) error {
	w, bit := &s.checked[b/32], uint32(1)<<(b%32)
	if w.Load()&bit != 0 {
		return nil
	}
	lo, hi := b*packBlock, min((b+1)*packBlock, len(s.data))
	blk := s.data[lo:hi]
	want := binary.LittleEndian.Uint32([]byte(s.crcs[4*b : 4*b+4]))
	if crc32.Checksum(unsafe.Slice(unsafe.StringData(blk), len(blk)), castagnoli) != want {
		return fmt.Errorf("%w (%s section checksum)", ErrPackDamaged, s.name)
	}
	w.Or(bit)
	return nil
}

func (s *section) damaged() error {
	return fmt.Errorf("%w (%s section)", ErrPackDamaged, s.name)
}

// u32 is the uint32 LE at off.
func (s *section) u32(off int) (uint32, error) {
	b, err := s.span(off, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32([]byte(b)), nil
}

// appendBlockCRCs appends the CRC-32C of every packBlock of data.
func appendBlockCRCs(buf, data []byte) []byte {
	for lo := 0; lo < len(data); lo += packBlock {
		buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(data[lo:min(lo+packBlock, len(data))], castagnoli))
	}
	return buf
}

// entry is entry i of an offset table at table in the section: uint32 LE
// offsets, entry i's bytes from offset i to offset i+1 of the bytes at
// base.
func (s *section) entry(table, base, i int) (string, error) {
	o, err := s.span(table+4*i, 8)
	if err != nil {
		return "", err
	}
	a, b := int(binary.LittleEndian.Uint32([]byte(o))), int(binary.LittleEndian.Uint32([]byte(o[4:])))
	if a > b {
		return "", s.damaged()
	}
	return s.span(base+a, b-a)
}

// offTable is a section laid out as a count n, n+1 offsets (uint32 LE)
// into the bytes that follow them, then the bytes (the strings, the
// processes, the memberships): entry i is read in place, without decoding
// the others.
type offTable struct {
	sec  *section
	n    int
	base int // where the bytes start in the section
}

func newOffTable(s *section) (*offTable, error) {
	n, err := s.u32(0)
	if err != nil {
		return nil, err
	}
	if int64(n) > int64(len(s.data)) || 4+4*(int(n)+1) > len(s.data) {
		return nil, s.damaged()
	}
	t := &offTable{sec: s, n: int(n), base: 4 + 4*(int(n)+1)}
	if end, err := s.u32(4 + 4*t.n); err != nil || t.base+int(end) != len(s.data) {
		return nil, cmp.Or(err, s.damaged())
	}
	return t, nil
}

// get is entry i.
func (t *offTable) get(i int) (string, error) {
	if i < 0 || i >= t.n {
		return "", t.sec.damaged()
	}
	return t.sec.entry(4, t.base, i)
}

// appendOffTable appends entries laid out as an offTable.
func appendOffTable[E ~string | ~[]byte](buf []byte, entries []E) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(entries)))
	off := 0
	for _, e := range entries {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(off))
		off += len(e)
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(off))
	for _, e := range entries {
		buf = append(buf, e...)
	}
	return buf
}
