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
// The key also leaves out the Function symbols (with the type facts of
// their scopes), which the cache lists file by file instead (funcsKey):
// a function added, removed or changed reaches other files' call sites
// through its name or its file's imports, so staleSites resolves again
// only the files that name it or import its file (a function added:
// prometheus, 19 files of 1,177; kubernetes, 4 of 7,919), and none of
// the cache serves when a fact that other files read names it.
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
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/internal/recfile"
)

// sitesMagic starts a site cache; the number changes with the format and
// whenever a resolution rule changes without the build stamp (Input.Stamp)
// changing.
const sitesMagic = "gitnexus sites 3\x00"

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
// own call sites and the Function symbols: every file's facts (factsKey),
// the indexed paths, the configuration read from the tree (Go modules,
// tsconfig paths, PSR-4) and the build's stamp; funcs are the functions
// of each file (by path) that factsKey leaves out of it.
func (r *resolver) sitesKey() (key [32]byte, fsums map[string][16]byte) {
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
	// Each file's functions are kept as the digest of their record only
	// (funcsSum): the entries of every file (the Linux kernel: 0.7
	// million) would be held through resolution, at its peak.
	fsums = make(map[string][16]byte, len(r.in.Files))
	var es []funcEntry
	var rec []byte
	for _, f := range r.in.Files {
		b, es = factsKey(b, f, es[:0])
		rec = appendFuncs(rec[:0], es)
		fsums[f.Path] = funcsSum(rec)
		if len(b) > 64<<10 {
			flush()
		}
	}
	flush()
	h.Sum(key[:0])
	return key, fsums
}

// siteKeys is what sitesKey returns.
type siteKeys struct {
	key   [32]byte
	fsums map[string][16]byte
}

// funcEntry is one Function symbol of a file as the site cache records
// it: its name and a digest of what resolution reads of it and of the
// type facts in its scope (funcScopes.appendEntries).
type funcEntry struct {
	name string
	sum  [16]byte
}

// funcScopes groups a file's Function symbols by id (a repeated id is one
// function) with the type facts of their scopes: indexes into the facts'
// Symbols and Types.
type funcScopes struct {
	at          map[string]int // symbol id → function
	syms, types [][]int
}

// scopesOf is f's funcScopes.
func scopesOf(f *lang.Facts) funcScopes {
	var fs funcScopes
	for i := range f.Symbols {
		s := &f.Symbols[i]
		if s.Label != schema.LabelFunction {
			continue
		}
		if fs.at == nil {
			fs.at = map[string]int{}
		}
		k, ok := fs.at[s.ID]
		if !ok {
			k = len(fs.syms)
			fs.at[s.ID] = k
			fs.syms, fs.types = append(fs.syms, nil), append(fs.types, nil)
		}
		fs.syms[k] = append(fs.syms[k], i)
	}
	for i, t := range f.Types {
		if k, ok := fs.at[t.Scope]; ok {
			fs.types[k] = append(fs.types[k], i)
		}
	}
	return fs
}

// appendEntries appends f's functions to funcs, each digested from its
// symbols and the type facts of its scope, their lines as their ranks
// among its own (scratch is reused and returned).
func (fs funcScopes) appendEntries(funcs []funcEntry, f *lang.Facts, scratch []byte) ([]funcEntry, []byte) {
	var own []int
	var stubs map[string]bool // f.ConfigStubs as a set (nil: none)
	if len(f.ConfigStubs) > 0 {
		stubs = make(map[string]bool, len(f.ConfigStubs))
		for _, id := range f.ConfigStubs {
			stubs[id] = true
		}
	}
	for k, is := range fs.syms {
		b := scratch[:0]
		for _, i := range is {
			b = symbolKey(b, &f.Symbols[i])
		}
		// Whether the function is a configuration stub
		// (lang.Facts.ConfigStubs) decides which calls land on it.
		if stubs[f.Symbols[is[0]].ID] {
			b = append(b, 1)
		}
		b = binary.AppendVarint(b, int64(len(fs.types[k])))
		own = own[:0]
		for _, i := range fs.types[k] {
			own = append(own, f.Types[i].Line)
		}
		slices.Sort(own)
		own = slices.Compact(own)
		for _, i := range fs.types[k] {
			b = appendTypeFact(b, &f.Types[i], own)
		}
		sum := sha256.Sum256(b)
		e := funcEntry{name: f.Symbols[is[0]].Name}
		copy(e.sum[:], sum[:])
		funcs = append(funcs, e)
		scratch = b
	}
	return funcs, scratch
}

// factsKey appends to b what resolution reads of f but its call sites and
// its Function symbols: every field of its facts except symbols' lines,
// content and documentation, and with the lines of its type facts,
// registrations and returned functions as their ranks among those lines
// (see the file comment). The Function symbols, each with the type facts
// of its scope (its parameters, locals and results), are appended to
// funcs instead, one digest a function (funcScopes.appendEntries, with
// whether Facts.ConfigStubs lists it): a function added, removed or
// changed leaves the key as it was, and
// staleSites decides which files' sites it can reach.
// TestFactsKeyCoversFacts fails when a field is added to the facts
// without a decision here.
func factsKey(b []byte, f *lang.Facts, funcs []funcEntry) ([]byte, []funcEntry) {
	put := func(s string) { b = recfile.AppendStr(b, s) }
	num := func(n int) { b = binary.AppendVarint(b, int64(n)) }
	fs := scopesOf(f)
	var lines []int
	restTypes := 0
	for _, t := range f.Types {
		if _, ok := fs.at[t.Scope]; !ok {
			lines = append(lines, t.Line)
			restTypes++
		}
	}
	for _, rg := range f.Registrations {
		lines = append(lines, rg.Line)
	}
	for _, rt := range f.Returned {
		lines = append(lines, rt.Line)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	put(f.Path)
	put(f.Language)
	put(f.Package)
	put(f.BuildConstraint)
	num(len(f.Symbols) - len(fs.at))
	for i := range f.Symbols {
		if s := &f.Symbols[i]; s.Label != schema.LabelFunction {
			b = symbolKey(b, s)
		}
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
	num(restTypes)
	for i := range f.Types {
		if _, ok := fs.at[f.Types[i].Scope]; !ok {
			b = appendTypeFact(b, &f.Types[i], lines)
		}
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
		b = appendRank(b, lines, rg.Line)
	}
	num(len(f.Returned))
	for _, rt := range f.Returned {
		put(rt.OuterID)
		put(rt.InnerID)
		b = appendRank(b, lines, rt.Line)
	}
	// The functions' digests are made in b's room past the rest.
	funcs, _ = fs.appendEntries(funcs, f, b[len(b):])
	return b, funcs
}

// appendRank appends line l of a fact as its rank among lines (sorted,
// without repeats), and whether it is 0 or 1 (typeFromFact reads line 1 as
// "anywhere").
func appendRank(b []byte, lines []int, l int) []byte {
	i, _ := slices.BinarySearch(lines, l)
	b = binary.AppendVarint(b, int64(i))
	return append(b, flagByte(l == 0), flagByte(l == 1))
}

// appendTypeFact appends a type fact, its line as its rank among lines.
func appendTypeFact(b []byte, t *lang.TypeFact, lines []int) []byte {
	b = recfile.AppendStr(b, t.Scope)
	b = recfile.AppendStr(b, t.Name)
	b = recfile.AppendStr(b, t.Type)
	b = recfile.AppendStr(b, t.Kind)
	return appendRank(b, lines, t.Line)
}

// flagByte is a bool as the keys hold it.
func flagByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// symbolKey appends what resolution reads of symbol s to b.
func symbolKey(b []byte, s *schema.Symbol) []byte {
	put := func(v string) { b = recfile.AppendStr(b, v) }
	put(s.ID)
	put(string(s.Label))
	put(string(s.Kind))
	put(s.Name)
	put(s.QualifiedName)
	put(s.FilePath)
	put(s.Language)
	put(s.Signature)
	b = append(b, flagByte(s.IsExported), flagByte(s.IsTest))
	put(s.ParentID)
	return b
}

// funcsKey is the record key of a file's functions (the funcEntry list
// sitesKey leaves out of the key): no file's site record key starts with
// a NUL. One record a file, written as its sites are: one record of every
// file's would be a buffer of tens of MB on the Linux kernel at the peak
// of resolution.
func funcsKey(path string) string { return "\x00f\x00" + path }

// fileFuncs is f's functions as factsKey lists them.
func fileFuncs(f *lang.Facts) []funcEntry {
	es, _ := scopesOf(f).appendEntries(nil, f, nil)
	return es
}

// readFuncs reads the record of the functions of path from the site
// cache r (into *buf); why says why it cannot when it cannot.
func readFuncs(r *recfile.Reader, path string, buf *[]byte) (rec []byte, why string) {
	l, ok := r.Find(funcsKey(path))
	if !ok {
		return nil, "it holds no list of the functions of " + path
	}
	rec, err := r.Read(l, buf)
	if err != nil {
		return nil, "the list of the functions of " + path + ": " + err.Error()
	}
	return rec, ""
}

// funcsRecord is the record of f's functions, whose digest is sum: the
// cache's (r, which may be nil) when it has that digest, else made. The
// cache's record is read again here, on the worker, rather than kept from
// staleSites: kept for every file, the records would sit at resolution's
// peak.
func funcsRecord(r *recfile.Reader, f *lang.Facts, sum [16]byte) []byte {
	if r != nil {
		var b []byte
		if rec, why := readFuncs(r, f.Path, &b); why == "" && funcsSum(rec) == sum {
			return rec
		}
	}
	return appendFuncs(nil, fileFuncs(f))
}

// funcsSum is the digest sitesKey keeps of a record of functions.
func funcsSum(rec []byte) (d [16]byte) {
	sum := sha256.Sum256(rec)
	copy(d[:], sum[:])
	return d
}

// appendFuncs appends the record of a file's functions to b.
func appendFuncs(b []byte, es []funcEntry) []byte {
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = recfile.AppendStr(b, e.name)
		b = append(b, e.sum[:]...)
	}
	return b
}

// decodeFuncs reads appendFuncs's record back; ok is false when it does
// not decode whole.
func decodeFuncs(b []byte) (es []funcEntry, ok bool) {
	d := recfile.Decoder{B: b}
	n := d.Uint()
	if d.Err != nil || n > uint64(len(b)) {
		return nil, false
	}
	es = make([]funcEntry, n)
	for i := range es {
		es[i].name = d.Str()
		copy(es[i].sum[:], d.Bytes(len(es[i].sum)))
	}
	return es, d.Err == nil && d.Pos == len(b)
}

// staleSites decides which records of a site cache whose key is this
// resolution's the functions changed since it was written can make
// wrong. The key leaves the Function symbols out (factsKey), so a
// function added, removed or changed (its signature, its result type, its
// export) keeps it; the cache's lists (funcsKey) say which were. A call
// site's outcome depends on a function elsewhere through the function's
// name (a call or a receiver naming it, a type fact "call:F"), or through
// its file (an import binding the file's names: a JS default import binds
// the file's only exported function). So with N the names of the
// functions that changed and D their files, every file is served from the
// cache but:
//   - the files of D, and the files with a call site whose name or
//     receiver names one of N, or a local or parameter whose type fact
//     does, and the files whose imports bind names of a D file: resolved
//     again (redo);
//   - none, when a fact read across files (a field, global or result
//     type, an import, a heritage clause, a prototype, a macro, a
//     registration, a returned function, a type's signature) names one of
//     N: it can carry the change to sites that do not name it (why says
//     which).
//
// why is also set when the record is missing or damaged.
func (r *resolver) staleSites(cache *recfile.Reader, fsums map[string][16]byte) (redo map[string]bool, changed int, why string) {
	names := map[string]bool{}
	redo = map[string]bool{}
	d := map[string]bool{} // the files whose functions changed
	// diff records lists that differ (their records' digests do).
	diff := func(p string, was, now []funcEntry) {
		count := map[funcEntry]int{}
		for _, e := range was {
			count[e]++
		}
		for _, e := range now {
			count[e]--
		}
		for e, c := range count {
			if c != 0 {
				names[e.name] = true
			}
		}
		redo[p], d[p] = true, true
	}
	// The key holds every file's path: a file added or removed misses
	// before this, so the cache has a list for each file.
	var buf []byte
	for _, f := range r.in.Files {
		p := f.Path
		rec, why := readFuncs(cache, p, &buf)
		if why != "" {
			return nil, 0, why
		}
		if funcsSum(rec) == fsums[p] { // the same record: the same list
			continue
		}
		was, ok := decodeFuncs(rec)
		if !ok {
			return nil, 0, "the list of the functions of " + p + " does not decode"
		}
		diff(p, was, fileFuncs(f))
	}
	if len(names) == 0 {
		return redo, 0, ""
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	slices.Sort(list)
	named := func(s string) string {
		if len(list) <= 8 {
			// A few names: each searched for (strings.Index, fast on the
			// short strings facts hold) and taken where it is a whole
			// identifier; tokenizing every string of every file cost
			// kubernetes 0.14 s for one name.
			for _, n := range list {
				for from := 0; from+len(n) <= len(s); {
					i := strings.Index(s[from:], n)
					if i < 0 {
						break
					}
					i += from
					j := i + len(n)
					if (i == 0 || !identByte(s[i-1])) && (j == len(s) || !identByte(s[j])) {
						return n
					}
					from = i + 1
				}
			}
			return ""
		}
		for i := 0; i < len(s); {
			if !identByte(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && identByte(s[j]) {
				j++
			}
			if names[s[i:j]] {
				return s[i:j]
			}
			i = j
		}
		return ""
	}
	for _, f := range r.in.Files {
		across := func(what string, ss ...string) string {
			for _, s := range ss {
				if n := named(s); n != "" {
					return fmt.Sprintf("%s of %s names %s, a function that changed", what, f.Path, n)
				}
			}
			return ""
		}
		for i := range f.Symbols {
			if s := &f.Symbols[i]; s.Label != schema.LabelFunction {
				if w := across("a signature", s.Signature); w != "" {
					return nil, 0, w
				}
			}
		}
		for _, im := range f.Imports {
			if w := across("an import", append([]string{im.Spec, im.Alias}, im.Names...)...); w != "" {
				return nil, 0, w
			}
		}
		for _, h := range f.Heritage {
			if w := across("a heritage clause", h.Parent); w != "" {
				return nil, 0, w
			}
		}
		for _, t := range f.Types {
			if t.Kind == "local" || t.Kind == "param" {
				if named(t.Name) != "" || named(t.Type) != "" {
					redo[f.Path] = true
				}
				continue
			}
			if w := across("a type fact", t.Name, t.Type); w != "" {
				return nil, 0, w
			}
		}
		if w := across("a prototype or macro", append(slices.Clone(f.Prototypes), f.Macros...)...); w != "" {
			return nil, 0, w
		}
		for _, rg := range f.Registrations {
			if w := across("a registration", rg.Name, rg.Field, rg.Type, rg.Receiver); w != "" {
				return nil, 0, w
			}
		}
		for _, rt := range f.Returned {
			if w := across("a returned function", rt.OuterID, rt.InnerID); w != "" {
				return nil, 0, w
			}
		}
		if redo[f.Path] {
			continue
		}
		for _, c := range f.Calls {
			if named(c.Name) != "" || named(c.Receiver) != "" {
				redo[f.Path] = true
				break
			}
		}
	}
	// The importers of a changed file.
	for p, sc := range r.scopes {
		if redo[p] || sc == nil {
			continue
		}
		if bindsAny(sc, d) {
			redo[p] = true
		}
	}
	return redo, len(names), ""
}

// bindsAny reports whether scope sc binds names of one of files (an
// import of one, a module standing for one, a name denoting a symbol of
// one, a file whose names are all visible).
func bindsAny(sc *fileScope, files map[string]bool) bool {
	for _, fs := range sc.modules {
		for _, f := range fs {
			if files[f] {
				return true
			}
		}
	}
	for _, ss := range sc.names {
		for _, s := range ss {
			if files[s.FilePath] {
				return true
			}
		}
	}
	for _, f := range sc.open {
		if files[f] {
			return true
		}
	}
	return false
}

// identByte reports whether c can be part of an identifier of a language
// gitnexus parses (letters, digits, '_', '$'; any byte of a multi-byte
// UTF-8 letter).
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
