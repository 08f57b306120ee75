package ingest

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/internal/writeback"
)

// The fact cache keeps each file's parse result (its lang.Facts and parse
// status) from the last analyze, keyed by path, language and content hash,
// so that a re-analyze parses only the files whose content changed. A
// parse is a pure function of (path, language, content) for a given
// build of gitnexus, so a cached result is the result a parse would give:
// the index built from it is the index a cold analyze builds. The file is
// stamped (FactStamp) with the layout of the cached types and the identity
// of the executable that wrote it; another stamp, or a record that does not
// decode, is a miss, never an error: the cache can only save work.
//
// Layout (all integers unsigned varints unless said):
//
//	"GNXFACTS\x01" stamp-len stamp
//	record*                    each: the encoded (status, Facts)
//	index: count, then per record path lang hash offset length
//	8-byte little-endian offset of the index, "GNXFEND\x00"
//
// Records are read with ReadAt, one per file, when that file is met: what a
// run holds in memory is the index of the cache (a few dozen bytes a file),
// not its records.

const (
	factMagic    = "GNXFACTS\x01"
	factEndMagic = "GNXFEND\x00"
	// maxFactRecord bounds one record (a file's facts): larger ones are not
	// cached, and a longer length read back is damage.
	maxFactRecord = 64 << 20
)

// FactStamp identifies the parser that writes a fact cache: the layout of
// the cached types and the executable's path, size and modification time
// (so any rebuild of gitnexus, released or not, starts a fresh cache).
// Empty when the executable cannot be found: then no cache is used.
func FactStamp() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s|%s|%d|%d|v%d", factLayout, exe, fi.Size(), fi.ModTime().UnixNano(), schema.Version)
}

// factLayout is a digest of the cached types' field names and types.
var factLayout = func() string {
	var b strings.Builder
	var walk func(t reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(t reflect.Type) {
		fmt.Fprintf(&b, "%s:%s;", t.String(), t.Kind())
		switch t.Kind() {
		case reflect.Slice:
			walk(t.Elem())
		case reflect.Struct:
			if seen[t] {
				return
			}
			seen[t] = true
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				fmt.Fprintf(&b, "%s.", f.Name)
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(cachedFacts{}))
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}()

// cachedFacts is one record: what parseOne learns from a file's content.
type cachedFacts struct {
	Status schema.ParseStatus
	Facts  lang.Facts
}

// cacheable reports whether a parse result may be cached: a parser error
// (timeout, cancellation) is not a function of the content.
func cacheable(status schema.ParseStatus) bool {
	return status == schema.ParseOK || status == schema.ParsePartial || status == schema.ParseNoGrammar
}

type factKey struct{ path, lang, hash string }

type factLoc struct{ off, n int64 }

// FactCache reads the fact cache an earlier analyze wrote. Its methods are
// safe for concurrent use.
type FactCache struct {
	f   *os.File
	idx map[factKey]factLoc
}

// OpenFactCache opens the fact cache at path if it was written with stamp.
// It returns (nil, nil) when there is no such file, and an error saying
// why when the file cannot be used (another stamp, damage): the caller
// logs it and parses every file.
func OpenFactCache(path, stamp string) (*FactCache, error) {
	if stamp == "" {
		return nil, errors.New("fact cache: no stamp for this executable")
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fact cache: %w", err)
	}
	c, err := readFactIndex(f, stamp)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("fact cache %s: %w", path, err)
	}
	return c, nil
}

func readFactIndex(f *os.File, stamp string) (*FactCache, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	head := make([]byte, len(factMagic)+binary.MaxVarintLen64+len(stamp))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	d := &factDecoder{b: head}
	if string(d.bytes(len(factMagic))) != factMagic {
		return nil, errors.New("not a fact cache")
	}
	if s := d.str(); d.err != nil || s != stamp {
		return nil, errors.New("written by another build of gitnexus")
	}
	if size < int64(16) {
		return nil, errors.New("truncated")
	}
	tail := make([]byte, 16)
	if _, err := f.ReadAt(tail, size-16); err != nil {
		return nil, err
	}
	if string(tail[8:]) != factEndMagic {
		return nil, errors.New("truncated (no end mark)")
	}
	idxOff := int64(binary.LittleEndian.Uint64(tail[:8]))
	if idxOff <= 0 || idxOff > size-16 {
		return nil, errors.New("damaged (index offset)")
	}
	buf := make([]byte, size-16-idxOff)
	if _, err := f.ReadAt(buf, idxOff); err != nil {
		return nil, err
	}
	d = &factDecoder{b: buf}
	n := d.uint()
	if n > uint64(len(buf)) {
		return nil, errors.New("damaged (index count)")
	}
	idx := make(map[factKey]factLoc, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		k := factKey{path: d.str(), lang: d.str(), hash: d.str()}
		off, ln := int64(d.uint()), int64(d.uint())
		if off < 0 || ln < 0 || ln > maxFactRecord || off+ln > idxOff {
			return nil, errors.New("damaged (record bounds)")
		}
		idx[k] = factLoc{off, ln}
	}
	if d.err != nil {
		return nil, fmt.Errorf("damaged index: %w", d.err)
	}
	return &FactCache{f: f, idx: idx}, nil
}

// Len is the number of files the cache holds.
func (c *FactCache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.idx)
}

// Close closes the cache file; a second Close does nothing.
func (c *FactCache) Close() error {
	if c == nil || c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f, c.idx = nil, nil
	return err
}

// lookup returns the cached record of a file's content, decoded, and
// where it lies in the cache (for factWriter.addFrom), or ok false. The
// record is read into a buffer lookups share: decoding copies what it keeps,
// and a buffer allocated per record was garbage at once (kubernetes: 75 MB a
// re-analyze).
func (c *FactCache) lookup(path, language, hash string) (loc factLoc, rec cachedFacts, ok bool) {
	if c == nil {
		return loc, rec, false
	}
	loc, found := c.idx[factKey{path, language, hash}]
	if !found {
		return loc, rec, false
	}
	bp := recordPool.Get().(*[]byte)
	defer recordPool.Put(bp)
	raw, err := c.read(loc, bp)
	if err != nil {
		return loc, rec, false
	}
	if err := decodeFacts(raw, &rec); err != nil {
		return loc, rec, false
	}
	if rec.Facts.Path != path || rec.Facts.Language != language || !cacheable(rec.Status) {
		return loc, rec, false
	}
	return loc, rec, true
}

// read reads the record at loc into *buf, grown when too small.
func (c *FactCache) read(loc factLoc, buf *[]byte) ([]byte, error) {
	if int64(cap(*buf)) < loc.n {
		*buf = make([]byte, loc.n)
	}
	rec := (*buf)[:loc.n]
	_, err := c.f.ReadAt(rec, loc.off)
	return rec, err
}

// recordPool holds the buffers lookup reads records into.
var recordPool = sync.Pool{New: func() any { return new([]byte) }}

// factWriter writes a new fact cache.
type factWriter struct {
	f       *os.File
	w       *bufio.Writer
	copyBuf []byte // addFrom's
	off     int64
	idx     []byte
	n       int
}

func newFactWriter(path, stamp string) (*factWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("fact cache: %w", err)
	}
	fw := &factWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}
	head := appendStr([]byte(factMagic), stamp)
	if err := fw.write(head); err != nil {
		f.Close()
		return nil, err
	}
	return fw, nil
}

func (fw *factWriter) write(b []byte) error {
	if _, err := fw.w.Write(b); err != nil {
		return fmt.Errorf("write fact cache: %w", err)
	}
	fw.off += int64(len(b))
	return nil
}

// add appends one file's encoded record.
func (fw *factWriter) add(path, language, hash string, rec []byte) error {
	if len(rec) == 0 || len(rec) > maxFactRecord {
		return nil
	}
	off := fw.off
	if err := fw.write(rec); err != nil {
		return err
	}
	fw.idx = appendStr(fw.idx, path)
	fw.idx = appendStr(fw.idx, language)
	fw.idx = appendStr(fw.idx, hash)
	fw.idx = binary.AppendUvarint(fw.idx, uint64(off))
	fw.idx = binary.AppendUvarint(fw.idx, uint64(len(rec)))
	fw.n++
	return nil
}

// addFrom appends the record at loc of the cache c (which the reader
// decoded, lookup) as add would: copied through the writer's buffer, never
// held beside the decoded facts.
func (fw *factWriter) addFrom(c *FactCache, loc factLoc, path, language, hash string) error {
	rec, err := c.read(loc, &fw.copyBuf)
	if err != nil {
		return fmt.Errorf("fact cache: copy the record of %s: %w", path, err)
	}
	return fw.add(path, language, hash, rec)
}

// close writes the index and the end mark and closes the file.
func (fw *factWriter) close() error {
	idxOff := fw.off
	err := fw.write(binary.AppendUvarint(nil, uint64(fw.n)))
	if err == nil {
		err = fw.write(fw.idx)
	}
	if err == nil {
		tail := binary.LittleEndian.AppendUint64(nil, uint64(idxOff))
		err = fw.write(append(tail, factEndMagic...))
	}
	if err == nil {
		err = fw.w.Flush()
	}
	if err == nil {
		writeback.Start(fw.f) // the commit syncs it (kubernetes: 135 MB)
	}
	if cerr := fw.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort closes the file without finishing it.
func (fw *factWriter) abort() { fw.f.Close() }

// encodeFacts encodes a record: every field of cachedFacts in declaration
// order (strings and slices length-prefixed, a nil slice apart from an
// empty one, so a decoded record equals the parsed one exactly). A string
// of at most internMax bytes that the record holds already is written as a
// reference to its first occurrence (factEncoder.str): a record repeats them
// (a call site's caller id, a symbol's file path, type names), and the
// decoder then makes one string of each without a lookup.
func encodeFacts(rec *cachedFacts) []byte {
	e := &factEncoder{seen: map[string]uint64{}}
	e.value(reflect.ValueOf(rec).Elem())
	return e.b
}

// internMax is the longest string a record writes once and refers to
// after; longer ones (source text, signatures) rarely repeat.
const internMax = 128

// factEncoder is encodeFacts' state: the bytes so far, and the short
// strings written so far with their positions in the decoder's table.
type factEncoder struct {
	b    []byte
	seen map[string]uint64
}

// str writes s as a record string: uvarint(2*i+1) refers to the i-th short
// string the record wrote before; uvarint(2*len) and the bytes write a new
// one, which, when 0 < len <= internMax, takes the next position.
func (e *factEncoder) str(s string) {
	if i, ok := e.seen[s]; ok {
		e.b = binary.AppendUvarint(e.b, 2*i+1)
		return
	}
	e.b = binary.AppendUvarint(e.b, 2*uint64(len(s)))
	e.b = append(e.b, s...)
	if len(s) > 0 && len(s) <= internMax {
		e.seen[s] = uint64(len(e.seen))
	}
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (e *factEncoder) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		e.str(v.String())
		return
	case reflect.Bool:
		if v.Bool() {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
		return
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
		return
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.b = binary.AppendUvarint(e.b, v.Uint())
		return
	case reflect.Slice:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return
		}
		e.b = binary.AppendUvarint(e.b, uint64(v.Len())+1)
		for i := 0; i < v.Len(); i++ {
			e.value(v.Index(i))
		}
		return
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			e.value(v.Field(i))
		}
		return
	}
	// TestFactCodecCoversTypes keeps the cached types within the kinds above.
	panic(fmt.Sprintf("fact cache: cannot encode %s", v.Type()))
}

// decodeFacts decodes a record written by encodeFacts. Damaged input is an
// error, never a panic or an allocation beyond the record's size.
func decodeFacts(b []byte, rec *cachedFacts) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fact cache record: %v", r)
		}
	}()
	tp := tablePool.Get().(*[]string)
	d := &factDecoder{b: b, table: (*tp)[:0]}
	defer func() {
		clear(d.table) // the strings belong to rec, not to the pool
		*tp = d.table[:0]
		tablePool.Put(tp)
	}()
	decodeCachedFacts(d, unsafe.Pointer(rec))
	if d.err == nil && d.pos != len(b) {
		d.err = errors.New("trailing bytes")
	}
	return d.err
}

// tablePool keeps factDecoder.table slices for reuse across records.
var tablePool = sync.Pool{New: func() any { return new([]string) }}

// decodeCachedFacts decodes a cachedFacts (decodeOp): compiled once from
// the type, as encodeFacts walks it.
var decodeCachedFacts = compileDecoder(reflect.TypeFor[cachedFacts](), 0)

// A decodeOp decodes one value of the type it was compiled for into the
// memory at p, which holds a value of that type. The ops write through
// pointers at the offsets of the type's layout, so the decoding walks no
// reflect.Value per field: decodeFacts with reflect.Value set every field
// by reflection and cost kubernetes' re-analyze 0.6 s of CPU.
type decodeOp func(d *factDecoder, p unsafe.Pointer)

// storeBits writes the low bits of x (checked to fit) to the integer of
// that many bits at p; signed or not, the bits are the same.
func storeBits(p unsafe.Pointer, bits int, x uint64) {
	switch bits {
	case 8:
		*(*uint8)(p) = uint8(x)
	case 16:
		*(*uint16)(p) = uint16(x)
	case 32:
		*(*uint32)(p) = uint32(x)
	default:
		*(*uint64)(p) = x
	}
}

// compileDecoder is the decodeOp of t, which holds only the kinds
// encodeFacts writes (TestFactCodecCoversTypes) and does not contain
// itself; it panics on others, at package initialization. depth is t's
// nesting in cachedFacts.
func compileDecoder(t reflect.Type, depth int) decodeOp {
	if depth > 16 {
		panic(fmt.Sprintf("fact cache: %s nests too deep (a recursive type?)", t))
	}
	switch t.Kind() {
	case reflect.String:
		return func(d *factDecoder, p unsafe.Pointer) { *(*string)(p) = d.rstr() }
	case reflect.Bool:
		return func(d *factDecoder, p unsafe.Pointer) {
			b := d.bytes(1)
			if d.err != nil {
				return
			}
			if b[0] > 1 {
				d.fail("bool")
				return
			}
			*(*bool)(p) = b[0] == 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return func(d *factDecoder, p unsafe.Pointer) {
			x := d.int()
			if bits < 64 && x != x<<(64-bits)>>(64-bits) {
				d.fail("integer")
				return
			}
			storeBits(p, bits, uint64(x))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		return func(d *factDecoder, p unsafe.Pointer) {
			x := d.uint()
			if bits < 64 && x>>bits != 0 {
				d.fail("integer")
				return
			}
			storeBits(p, bits, x)
		}
	case reflect.Slice:
		elem := compileDecoder(t.Elem(), depth+1)
		size := t.Elem().Size()
		return func(d *factDecoder, p unsafe.Pointer) {
			field := reflect.NewAt(t, p).Elem()
			n := d.uint()
			if n == 0 || d.err != nil {
				field.SetZero() // nil
				return
			}
			n--
			// Every element takes at least one byte: a longer count is
			// damage, caught before it allocates.
			if n > uint64(len(d.b)-d.pos) {
				d.fail("slice length")
				return
			}
			s := reflect.MakeSlice(t, int(n), int(n))
			base := s.UnsafePointer()
			for i := uintptr(0); i < uintptr(n) && d.err == nil; i++ {
				elem(d, unsafe.Add(base, i*size))
			}
			field.Set(s)
		}
	case reflect.Struct:
		type fieldOp struct {
			off uintptr
			op  decodeOp
		}
		fields := make([]fieldOp, t.NumField())
		for i := range fields {
			f := t.Field(i)
			fields[i] = fieldOp{f.Offset, compileDecoder(f.Type, depth+1)}
		}
		return func(d *factDecoder, p unsafe.Pointer) {
			for _, f := range fields {
				if d.err != nil {
					return
				}
				f.op(d, unsafe.Add(p, f.off))
			}
		}
	}
	panic(fmt.Sprintf("fact cache: cannot decode %s", t))
}

type factDecoder struct {
	b   []byte
	pos int
	err error
	// table holds a record's short strings in the order written
	// (factEncoder.str): a reference decodes to the string made for its
	// first occurrence, so a parse shares one string where decoding every
	// occurrence would allocate one each (kubernetes: 85 MiB of strings,
	// above a cold run's peak).
	table []string
}

func (d *factDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("fact cache record: bad %s at byte %d", what, d.pos)
	}
}

func (d *factDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		d.fail("length")
		return 0
	}
	d.pos += n
	return x
}

func (d *factDecoder) int() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b[d.pos:])
	if n <= 0 {
		d.fail("integer")
		return 0
	}
	d.pos += n
	return x
}

func (d *factDecoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.pos {
		d.fail("size")
		return nil
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s
}

// str reads a length-prefixed string (the cache's index).
func (d *factDecoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail("string length")
		return ""
	}
	return string(d.bytes(int(n)))
}

// rstr reads a record string (factEncoder.str).
func (d *factDecoder) rstr() string {
	h := d.uint()
	if d.err != nil {
		return ""
	}
	if h&1 == 1 {
		i := h >> 1
		if i >= uint64(len(d.table)) {
			d.fail("string reference")
			return ""
		}
		return d.table[i]
	}
	n := h >> 1
	if n > uint64(len(d.b)) {
		d.fail("string length")
		return ""
	}
	b := d.bytes(int(n))
	if d.err != nil || n == 0 {
		return ""
	}
	s := string(b)
	if n <= internMax {
		d.table = append(d.table, s)
	}
	return s
}
