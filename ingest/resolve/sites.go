package resolve

// This file owns the site cache: every file's call sites as one
// resolution resolved them (resolveSites), under the key of the tables
// they were resolved against (sitesKey), so that the next resolution over
// tables with the same key resolves only the files whose content changed
// and reads the others' outcomes back (kubernetes, a function body
// edited: 1.0-1.2 s of call resolution). What a call site resolves to is a
// function of its own file's facts and of the tables every file's facts
// make; the call sites of other files are not among them (they are read
// only by their own file's resolveSites). So when no file's facts but its
// call sites changed, every other file resolves as it did.
//
// The key leaves lines out where no answer depends on them: the tables
// compare a fact's line only with lines of the same file (the call's, or
// another fact's), so a file's fact lines enter the key as their order
// (ranks), and an edit that moves the code below it keeps the key. Symbol
// lines, content and documentation are not read by resolution at all.
//
// The file: sitesMagic, the key (32 bytes), the blocks, the index (each
// file's path, content hash, block offset and length), the index's offset
// (8 bytes) and a CRC-32C of the index. A block is a CRC-32C of the rest,
// a string table (the targets' ids and the reasons) and the sites. A
// block that does not decode, or names a symbol the tables lack, is a
// miss: the file is resolved again.

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/ingest/lang"
)

// sitesMagic starts a site cache; the number changes with the format and
// whenever a resolution rule changes without the build stamp (Input.Stamp)
// changing.
const sitesMagic = "gitnexus sites 1\x00"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SiteCache is a site cache opened for reading (OpenSiteCache).
type SiteCache struct {
	f     *os.File
	key   [32]byte
	files map[string]siteEntry
}

type siteEntry struct {
	hash   string
	off, n int64
}

// maxSiteIndex bounds the index OpenSiteCache reads (the Linux kernel's:
// about 6 MB).
const maxSiteIndex = 256 << 20

// OpenSiteCache opens the site cache at path. A missing, foreign or
// damaged file is an error: the caller resolves every file.
func OpenSiteCache(path string) (*SiteCache, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c, err := readSiteIndex(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("site cache %s: %w", path, err)
	}
	return c, nil
}

func readSiteIndex(f *os.File) (*SiteCache, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	head := make([]byte, len(sitesMagic)+32)
	if size < int64(len(head))+12 {
		return nil, errors.New("not a site cache")
	}
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(head[:len(sitesMagic)]) != sitesMagic {
		return nil, errors.New("not a site cache of this version")
	}
	c := &SiteCache{f: f, files: map[string]siteEntry{}}
	copy(c.key[:], head[len(sitesMagic):])
	var tail [12]byte
	if _, err := f.ReadAt(tail[:], size-12); err != nil {
		return nil, err
	}
	off := int64(binary.LittleEndian.Uint64(tail[:8]))
	if off < int64(len(head)) || off > size-12 || size-12-off > maxSiteIndex {
		return nil, errors.New("damaged (index offset)")
	}
	idx := make([]byte, size-12-off)
	if _, err := f.ReadAt(idx, off); err != nil {
		return nil, err
	}
	if crc32.Checksum(idx, castagnoli) != binary.LittleEndian.Uint32(tail[8:]) {
		return nil, errors.New("damaged (index checksum)")
	}
	d := decoder{b: idx}
	n := d.uint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		p, h := d.str(), d.str()
		e := siteEntry{hash: h, off: int64(d.uint()), n: int64(d.uint())}
		if e.off < int64(len(head)) || e.n < 4 || e.off+e.n > off {
			return nil, errors.New("damaged (block bounds)")
		}
		c.files[p] = e
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errors.New("damaged (index)")
	}
	return c, nil
}

// Close closes the cache; a nil cache is fine.
func (c *SiteCache) Close() error {
	if c == nil || c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// block is the raw block of path when the cache holds it for content
// hash, else nil.
func (c *SiteCache) block(path, hash string) []byte {
	e, ok := c.files[path]
	if !ok || e.hash != hash || hash == "" {
		return nil
	}
	b := make([]byte, e.n)
	if _, err := c.f.ReadAt(b, e.off); err != nil {
		return nil
	}
	return b
}

// siteEncoder makes blocks (encode); its tables and its block are
// scratch kept from one file to the next, so that writing the cache
// allocates nothing a file (on kubernetes, blocks made on the workers
// and held until written raised a cold analyze's peak by 15-20 MiB).
type siteEncoder struct {
	index map[string]uint64
	strs  []string
	body  []byte
	out   []byte
}

// encode is the block of one file's sites, valid until the next call.
func (e *siteEncoder) encode(sites []site) []byte {
	if e.index == nil {
		e.index = map[string]uint64{}
	}
	clear(e.index)
	strs, index := e.strs[:0], e.index
	ref := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(strs))
			index[s] = i
			strs = append(strs, s)
		}
		return i
	}
	body := binary.AppendUvarint(e.body[:0], uint64(len(sites)))
	for _, s := range sites {
		flags := byte(s.out) << 1
		if s.skip {
			body = append(body, 1)
			continue
		}
		body = append(body, flags)
		body = binary.AppendUvarint(body, ref(s.reason))
		body = binary.LittleEndian.AppendUint64(body, math.Float64bits(s.conf))
		body = binary.AppendUvarint(body, uint64(len(s.targets)))
		for _, t := range s.targets {
			body = binary.AppendUvarint(body, ref(t.ID))
		}
	}
	out := append(e.out[:0], 0, 0, 0, 0)
	out = binary.AppendUvarint(out, uint64(len(strs)))
	for _, s := range strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = append(out, body...)
	binary.LittleEndian.PutUint32(out, crc32.Checksum(out[4:], castagnoli))
	clear(strs) // the ids: not kept alive by the scratch
	e.strs, e.body, e.out = strs[:0], body[:0], out
	return out
}

// decodeSites reads a block back for f, whose call sites it must hold
// one for one, resolving ids in r's tables; ok is false on any mismatch.
func (r *resolver) decodeSites(f *lang.Facts, b []byte) (sites []site, ok bool) {
	if len(b) < 4 || crc32.Checksum(b[4:], castagnoli) != binary.LittleEndian.Uint32(b) {
		return nil, false
	}
	d := decoder{b: b[4:]}
	ns := d.uint()
	if ns > uint64(len(d.b)) {
		return nil, false
	}
	// The strings stay in the block: ids are looked up (no copy), reasons,
	// few, interned in the resolver's reasons.
	strs := make([][]byte, 0, ns)
	for i := uint64(0); i < ns && d.err == nil; i++ {
		strs = append(strs, d.bytes())
	}
	str := func(i uint64) ([]byte, bool) {
		if i >= uint64(len(strs)) {
			return nil, false
		}
		return strs[i], true
	}
	n := d.uint()
	if d.err != nil || n != uint64(len(f.Calls)) {
		return nil, false
	}
	sites = make([]site, 0, n)
	for range n {
		flags := d.byte()
		if flags&1 != 0 {
			sites = append(sites, site{skip: true})
			continue
		}
		var s site
		s.out = outcome(flags >> 1)
		reason, ok := str(d.uint())
		if !ok {
			return nil, false
		}
		if s.reason, ok = r.reasons[string(reason)]; !ok {
			if r.reasons == nil {
				r.reasons = map[string]string{}
			}
			s.reason = string(reason)
			r.reasons[s.reason] = s.reason
		}
		s.conf = math.Float64frombits(d.u64())
		nt := d.uint()
		if nt > uint64(len(d.b)) {
			return nil, false
		}
		if nt > 0 {
			s.targets = make([]*sym, 0, nt)
		}
		for range nt {
			id, ok := str(d.uint())
			t := r.syms[string(id)]
			if !ok || t == nil {
				return nil, false
			}
			s.targets = append(s.targets, t)
		}
		if d.err != nil {
			return nil, false
		}
		sites = append(sites, s)
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, false
	}
	return sites, true
}

// decoder reads varints, strings and fixed-size numbers off b; the first
// overrun sets err, after which every read returns zero.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("short block")

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.err = errShort
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errShort
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) str() string { return string(d.bytes()) }

// bytes reads a string's bytes in place.
func (d *decoder) bytes() []byte {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errShort
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

// siteWriter writes a site cache: blocks in the order added, then the
// index.
type siteWriter struct {
	f     *os.File
	w     *bufio.Writer
	off   int64
	index []byte
	n     int
	err   error
}

func newSiteWriter(path string, key [32]byte) (*siteWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("site cache: %w", err)
	}
	w := &siteWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}
	w.write([]byte(sitesMagic))
	w.write(key[:])
	return w, w.err
}

func (w *siteWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.err = err
}

// add writes the block of path, whose content hash is hash.
func (w *siteWriter) add(path, hash string, block []byte) {
	w.index = appendStr(w.index, path)
	w.index = appendStr(w.index, hash)
	w.index = binary.AppendUvarint(w.index, uint64(w.off))
	w.index = binary.AppendUvarint(w.index, uint64(len(block)))
	w.n++
	w.write(block)
}

// close writes the index and closes the file.
func (w *siteWriter) close() error {
	idx := binary.AppendUvarint(nil, uint64(w.n))
	idx = append(idx, w.index...)
	at := w.off
	w.write(idx)
	var tail [12]byte
	binary.LittleEndian.PutUint64(tail[:8], uint64(at))
	binary.LittleEndian.PutUint32(tail[8:], crc32.Checksum(idx, castagnoli))
	w.write(tail[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	if w.err != nil {
		return fmt.Errorf("site cache: %w", w.err)
	}
	return nil
}

// abort closes the file after a failure (its caller removes it).
func (w *siteWriter) abort() {
	if w != nil {
		w.f.Close()
	}
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// sitesKey is the digest of everything resolveSites reads but a file's
// own call sites: every file's facts (factsKey), the indexed paths, the
// configuration read from the tree (Go modules, tsconfig paths, PSR-4)
// and the build's stamp.
func (r *resolver) sitesKey() [32]byte {
	h := sha256.New()
	var b []byte
	put := func(s string) { b = appendStr(b, s) }
	num := func(n int) { b = binary.AppendVarint(b, int64(n)) }
	flush := func() {
		h.Write(b)
		b = b[:0]
	}
	put(sitesMagic)
	put(r.in.Stamp)
	num(len(r.in.Paths))
	for _, p := range r.in.Paths {
		put(p)
		if len(b) > 64<<10 {
			flush()
		}
	}
	num(len(r.goMods))
	for _, m := range r.goMods {
		put(m.path)
		put(m.dir)
	}
	if r.tsPaths != nil {
		put(r.tsPaths.baseURL)
		pats := make([]string, 0, len(r.tsPaths.paths))
		for p := range r.tsPaths.paths {
			pats = append(pats, p)
		}
		sort.Strings(pats)
		for _, p := range pats {
			put(p)
			put(strings.Join(r.tsPaths.paths[p], "\x00"))
		}
	}
	num(-1)
	prefixes := make([]string, 0, len(r.psr4))
	for p := range r.psr4 {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		put(p)
		put(strings.Join(r.psr4[p], "\x00"))
	}
	num(len(r.in.Files))
	flush()
	for _, f := range r.in.Files {
		b = factsKey(b, f)
		if len(b) > 64<<10 {
			flush()
		}
	}
	flush()
	var key [32]byte
	h.Sum(key[:0])
	return key
}

// factsKey appends to b what resolution reads of f but its call sites:
// every field of its facts except symbols' lines, content and
// documentation, and with the lines of its type facts, registrations and
// returned functions as their ranks among those lines (see the file
// comment). TestFactsKeyCoversFacts fails when a field is added to the
// facts without a decision here.
func factsKey(b []byte, f *lang.Facts) []byte {
	put := func(s string) { b = appendStr(b, s) }
	num := func(n int) { b = binary.AppendVarint(b, int64(n)) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	var lines []int
	for _, t := range f.Types {
		lines = append(lines, t.Line)
	}
	for _, rg := range f.Registrations {
		lines = append(lines, rg.Line)
	}
	for _, rt := range f.Returned {
		lines = append(lines, rt.Line)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	line := func(l int) {
		i, _ := slices.BinarySearch(lines, l)
		num(i)
		flag(l == 0)
		flag(l == 1) // typeFromFact reads line 1 as "anywhere"
	}
	put(f.Path)
	put(f.Language)
	put(f.Package)
	put(f.BuildConstraint)
	num(len(f.Symbols))
	for i := range f.Symbols {
		s := &f.Symbols[i]
		put(s.ID)
		put(string(s.Label))
		put(string(s.Kind))
		put(s.Name)
		put(s.QualifiedName)
		put(s.FilePath)
		put(s.Language)
		put(s.Signature)
		flag(s.IsExported)
		flag(s.IsTest)
		put(s.ParentID)
	}
	num(len(f.Imports))
	for _, im := range f.Imports {
		put(im.Spec)
		num(len(im.Names))
		for _, n := range im.Names {
			put(n)
		}
		put(im.Alias)
		put(im.Kind)
	}
	num(len(f.Heritage))
	for _, h := range f.Heritage {
		put(h.ChildID)
		put(h.Parent)
		put(h.Kind)
	}
	num(len(f.Types))
	for _, t := range f.Types {
		put(t.Scope)
		put(t.Name)
		put(t.Type)
		put(t.Kind)
		line(t.Line)
	}
	num(len(f.Prototypes))
	for _, p := range f.Prototypes {
		put(p)
	}
	num(len(f.Macros))
	for _, m := range f.Macros {
		put(m)
	}
	num(len(f.Registrations))
	for _, rg := range f.Registrations {
		put(rg.CallerID)
		put(rg.Name)
		put(rg.Via)
		put(rg.Field)
		put(rg.Type)
		put(rg.Receiver)
		line(rg.Line)
	}
	num(len(f.Returned))
	for _, rt := range f.Returned {
		put(rt.OuterID)
		put(rt.InnerID)
		line(rt.Line)
	}
	return b
}
