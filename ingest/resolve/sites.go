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
// The file is a recfile (internal/recfile) of kind sitesMagic stamped
// with the key (hex), one record per file keyed by its path and content
// hash: a string table (the targets' ids and the reasons) and the sites.
// A record that does not check or decode, or names a symbol the tables
// lack, is a miss: the file is resolved again.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/internal/recfile"
)

// sitesMagic starts a site cache; the number changes with the format and
// whenever a resolution rule changes without the build stamp (Input.Stamp)
// changing.
const sitesMagic = "gitnexus sites 2\x00"

// maxSiteRecord bounds one file's record.
const maxSiteRecord = 1 << 30

// siteStamp is the file's stamp for key.
func siteStamp(key [32]byte) string { return hex.EncodeToString(key[:]) }

// siteKey is the record key of a file's sites.
func siteKey(path, hash string) string { return path + "\x00" + hash }

// openSites opens the site cache at path for key; why is "" when it
// serves, else why not (missing, another key, damaged).
func openSites(path string, key [32]byte) (r *recfile.Reader, why string) {
	r, err := recfile.Open(path, sitesMagic, siteStamp(key), maxSiteRecord)
	switch {
	case errors.Is(err, recfile.ErrStamp):
		return nil, "the tables changed"
	case err != nil:
		return nil, err.Error()
	}
	return r, ""
}

// readSites reads the record of path at content hash, nil when the cache
// does not hold it (or it does not check).
func readSites(r *recfile.Reader, path, hash string) []byte {
	if hash == "" {
		return nil
	}
	l, ok := r.Find(siteKey(path, hash))
	if !ok {
		return nil
	}
	var b []byte
	rec, err := r.Read(l, &b)
	if err != nil {
		return nil
	}
	return rec
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
	out := binary.AppendUvarint(e.out[:0], uint64(len(strs)))
	for _, s := range strs {
		out = recfile.AppendStr(out, s)
	}
	out = append(out, body...)
	clear(strs) // the ids: not kept alive by the scratch
	e.strs, e.body, e.out = strs[:0], body[:0], out
	return out
}

// decodeSites reads a block back for f, whose call sites it must hold
// one for one, resolving ids in r's tables; ok is false on any mismatch.
func (r *resolver) decodeSites(f *lang.Facts, b []byte) (sites []site, ok bool) {
	d := recfile.Decoder{B: b}
	ns := d.Uint()
	if ns > uint64(len(b)) {
		return nil, false
	}
	// The strings stay in the record: ids are looked up (no copy),
	// reasons, few, interned in the resolver's reasons.
	strs := make([][]byte, 0, ns)
	for i := uint64(0); i < ns && d.Err == nil; i++ {
		strs = append(strs, d.StrBytes())
	}
	str := func(i uint64) ([]byte, bool) {
		if i >= uint64(len(strs)) {
			return nil, false
		}
		return strs[i], true
	}
	n := d.Uint()
	if d.Err != nil || n != uint64(len(f.Calls)) {
		return nil, false
	}
	sites = make([]site, 0, n)
	for range n {
		flags := d.Bytes(1)
		if flags == nil {
			return nil, false
		}
		if flags[0]&1 != 0 {
			sites = append(sites, site{skip: true})
			continue
		}
		var s site
		s.out = outcome(flags[0] >> 1)
		reason, ok := str(d.Uint())
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
		s.conf = math.Float64frombits(d.U64())
		nt := d.Uint()
		if nt > uint64(len(b)) {
			return nil, false
		}
		if nt > 0 {
			s.targets = make([]*sym, 0, nt)
		}
		for range nt {
			id, ok := str(d.Uint())
			t := r.syms[string(id)]
			if !ok || t == nil {
				return nil, false
			}
			s.targets = append(s.targets, t)
		}
		if d.Err != nil {
			return nil, false
		}
		sites = append(sites, s)
	}
	if d.Err != nil || d.Pos != len(b) {
		return nil, false
	}
	return sites, true
}

// sitesKey is the digest of everything resolveSites reads but a file's
// own call sites: every file's facts (factsKey), the indexed paths, the
// configuration read from the tree (Go modules, tsconfig paths, PSR-4)
// and the build's stamp.
func (r *resolver) sitesKey() [32]byte {
	h := sha256.New()
	var b []byte
	put := func(s string) { b = recfile.AppendStr(b, s) }
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
	put := func(s string) { b = recfile.AppendStr(b, s) }
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
