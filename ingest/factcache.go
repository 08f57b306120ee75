package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/internal/recfile"
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
// The file is a recfile (internal/recfile: records back to back, found
// by key through an index at the end, each checked by its CRC-32C) of kind
// factMagic, stamped with FactStamp, one record per file keyed by path,
// language and content hash (factKey). Records are read with ReadAt, one
// per file, when that file is met: what a run holds in memory is the
// index of the cache (a few dozen bytes a file), not its records.

const (
	factMagic = "GNXFACTS\x02"
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

// factKey is the recfile key of a file's record.
func factKey(path, language, hash string) string {
	return path + "\x00" + language + "\x00" + hash
}

// factLoc is where a record lies in the cache.
type factLoc = recfile.Loc

// FactCache reads the fact cache an earlier analyze wrote. Its methods are
// safe for concurrent use.
type FactCache struct {
	r *recfile.Reader
}

// OpenFactCache opens the fact cache at path if it was written with stamp.
// It returns (nil, nil) when there is no such file, and an error saying
// why when the file cannot be used (another stamp, damage): the caller
// logs it and parses every file.
func OpenFactCache(path, stamp string) (*FactCache, error) {
	if stamp == "" {
		return nil, errors.New("fact cache: no stamp for this executable")
	}
	r, err := recfile.Open(path, factMagic, stamp, maxFactRecord)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.Is(err, recfile.ErrStamp):
		return nil, fmt.Errorf("fact cache %s: written by another build of gitnexus", path)
	case err != nil:
		return nil, fmt.Errorf("fact cache %s: %w", path, err)
	}
	return &FactCache{r: r}, nil
}

// Len is the number of files the cache holds.
func (c *FactCache) Len() int {
	if c == nil {
		return 0
	}
	return c.r.Len()
}

// Close closes the cache file; a second Close does nothing.
func (c *FactCache) Close() error {
	if c == nil {
		return nil
	}
	return c.r.Close()
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
	loc, found := c.r.Find(factKey(path, language, hash))
	if !found {
		return loc, rec, false
	}
	bp := recordPool.Get().(*[]byte)
	defer recordPool.Put(bp)
	raw, err := c.r.Read(loc, bp)
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

// recordPool holds the buffers lookup reads records into.
var recordPool = sync.Pool{New: func() any { return new([]byte) }}

// factWriter writes a new fact cache.
type factWriter struct {
	w       *recfile.Writer
	copyBuf []byte // addFrom's
}

func newFactWriter(path, stamp string) (*factWriter, error) {
	w, err := recfile.Create(path, factMagic, stamp)
	if err != nil {
		return nil, fmt.Errorf("fact cache: %w", err)
	}
	return &factWriter{w: w}, nil
}

// add appends one file's encoded record.
func (fw *factWriter) add(path, language, hash string, rec []byte) error {
	if len(rec) == 0 || len(rec) > maxFactRecord {
		return nil
	}
	if err := fw.w.Add(factKey(path, language, hash), rec); err != nil {
		return fmt.Errorf("write fact cache: %w", err)
	}
	return nil
}

// addFrom appends the record at loc of the cache c (which the reader
// decoded, lookup) as add would: copied through the writer's buffer, never
// held beside the decoded facts.
func (fw *factWriter) addFrom(c *FactCache, loc factLoc, path, language, hash string) error {
	rec, err := c.r.Read(loc, &fw.copyBuf)
	if err != nil {
		return fmt.Errorf("fact cache: copy the record of %s: %w", path, err)
	}
	return fw.add(path, language, hash, rec)
}

// close writes the index and closes the file (the commit syncs it;
// recfile starts the write-back: kubernetes' is 135 MB).
func (fw *factWriter) close() error {
	if err := fw.w.Close(); err != nil {
		return fmt.Errorf("write fact cache: %w", err)
	}
	return nil
}

// abort closes the file without finishing it.
func (fw *factWriter) abort() { fw.w.Abort() }

// encodeFacts encodes a record: every field of cachedFacts in declaration
// order (strings and slices length-prefixed, a nil slice apart from an
// empty one, so a decoded record equals the parsed one exactly). A string
// of at most internMax bytes that the record holds already is written as a
// reference to its first occurrence (factEncoder.str): a record repeats them
// (a call site's caller id, a symbol's file path, type names), and the
// decoder then makes one string of each without a lookup.
func encodeFacts(rec *cachedFacts) []byte {
	e := encoders.Get().(*factEncoder)
	e.value(reflect.ValueOf(rec).Elem())
	out := make([]byte, len(e.b))
	copy(out, e.b)
	if cap(e.b) <= maxPooledRecord {
		e.b = e.b[:0]
		clear(e.seen)
		encoders.Put(e)
	}
	return out
}

// encoders holds factEncoders for reuse: a record is encoded into a
// buffer kept from one file to the next and copied out at its size, where
// a buffer of its own grew by doubling from nothing for each record (the
// Linux kernel: 4.1 GB allocated for 0.96 GB of records, a sixth of what
// its analyze allocated up to resolution).
var encoders = sync.Pool{New: func() any { return &factEncoder{seen: map[string]uint64{}} }}

// maxPooledRecord bounds the buffer an encoder goes back to the pool with.
const maxPooledRecord = 4 << 20

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
	d := &factDecoder{Decoder: recfile.Decoder{B: b}, table: (*tp)[:0]}
	defer func() {
		clear(d.table) // the strings belong to rec, not to the pool
		*tp = d.table[:0]
		tablePool.Put(tp)
	}()
	decodeCachedFacts(d, unsafe.Pointer(rec))
	if d.Err == nil && d.Pos != len(b) {
		d.Err = errors.New("trailing bytes")
	}
	if d.Err != nil {
		return fmt.Errorf("fact cache record: %w", d.Err)
	}
	return nil
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
			b := d.Bytes(1)
			if d.Err != nil {
				return
			}
			if b[0] > 1 {
				d.Fail("bool")
				return
			}
			*(*bool)(p) = b[0] == 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return func(d *factDecoder, p unsafe.Pointer) {
			x := d.Int()
			if bits < 64 && x != x<<(64-bits)>>(64-bits) {
				d.Fail("integer")
				return
			}
			storeBits(p, bits, uint64(x))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := t.Bits()
		return func(d *factDecoder, p unsafe.Pointer) {
			x := d.Uint()
			if bits < 64 && x>>bits != 0 {
				d.Fail("integer")
				return
			}
			storeBits(p, bits, x)
		}
	case reflect.Slice:
		elem := compileDecoder(t.Elem(), depth+1)
		size := t.Elem().Size()
		return func(d *factDecoder, p unsafe.Pointer) {
			field := reflect.NewAt(t, p).Elem()
			n := d.Uint()
			if n == 0 || d.Err != nil {
				field.SetZero() // nil
				return
			}
			n--
			// Every element takes at least one byte: a longer count is
			// damage, caught before it allocates.
			if n > uint64(len(d.B)-d.Pos) {
				d.Fail("slice length")
				return
			}
			s := reflect.MakeSlice(t, int(n), int(n))
			base := s.UnsafePointer()
			for i := uintptr(0); i < uintptr(n) && d.Err == nil; i++ {
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
				if d.Err != nil {
					return
				}
				f.op(d, unsafe.Add(p, f.off))
			}
		}
	}
	panic(fmt.Sprintf("fact cache: cannot decode %s", t))
}

type factDecoder struct {
	recfile.Decoder
	// table holds a record's short strings in the order written
	// (factEncoder.str): a reference decodes to the string made for its
	// first occurrence, so a parse shares one string where decoding every
	// occurrence would allocate one each (kubernetes: 85 MiB of strings,
	// above a cold run's peak).
	table []string
}

// rstr reads a record string (factEncoder.str).
func (d *factDecoder) rstr() string {
	h := d.Uint()
	if d.Err != nil {
		return ""
	}
	if h&1 == 1 {
		i := h >> 1
		if i >= uint64(len(d.table)) {
			d.Fail("string reference")
			return ""
		}
		return d.table[i]
	}
	n := h >> 1
	if n > uint64(len(d.B)) {
		d.Fail("string length")
		return ""
	}
	b := d.Bytes(int(n))
	if d.Err != nil || n == 0 {
		return ""
	}
	s := string(b)
	if n <= internMax {
		d.table = append(d.table, s)
	}
	return s
}
