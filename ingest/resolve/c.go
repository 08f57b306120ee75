package resolve

// C resolution. A C call is resolved the way the compiler and linker see
// it: from the calling translation unit (the .c file and every header it
// includes, transitively), never across another file's static functions.
//
//  1. a definition in the same file                          → same-file
//  2. a definition in a file the caller's file includes, directly or
//     through other headers (static inline functions of headers)
//  3. a prototype in the caller's file or a file it includes: the call
//     lands on the non-static definitions of that name        → import-scoped
//     (several definitions — configuration alternatives such as mm/mmap.c
//     and mm/nommu.c — are all linked, with lower confidence)
//  4. the only non-static definition of that name in the repository
//     (the include chain was not followed: a generated or arch header
//     missing from the tree)                                  → global-name
//     — for a call; a function named as a value (a callback) must be
//     visible by 1–3; and not when the caller's translation unit defines
//     the name as a function-like macro (the kernel's igb driver's wr32
//     is a macro of its own header, not irdma's function)
//
// Configuration stubs: among the definitions rules 1–3 find, a stub
// defined where a configuration option is off (lang.Facts.ConfigStubs:
// `{ return 0; }` in the #else of `#ifdef CONFIG_OF`) is left out when
// another is not: the call lands on the option's own definition (the
// header's other branch, or out of line behind its prototype), which is
// right for every caller that can be built with the option on, where the
// stub is wrong for every caller whose Kconfig selects it (a sample of the
// kernel's edges had four such in 200). A stub alone stays linked.
//
// Programs: a top-level directory with an include/ directory of its own
// (the kernel's tools/, scripts/ and usr/) is a program of its own, built
// apart from the rest of the tree. Rules 3 and 4, which land on
// definitions the caller's includes do not reach, never cross into or out
// of such a program: a kernel call of mutex_init (a macro in the kernel)
// would land on tools/perf's function, and perf's call of libc's free on
// the kernel's decompressor's. A prototype that code of the tree's main
// program includes from such a program is the way in: rule 3 lands on that
// program's definitions too (samples/bpf's programs call libbpf's
// bpf_map_lookup_elem, declared in tools/lib/bpf/bpf.h, not the kernel's
// BPF helper of that name). The way out is not: a program that includes a
// header of the tree (tools' selftests, for their types) is not linked with
// its functions. Such a directory holds many programs: each directory
// below it with a Makefile of its own (tools/perf, tools/lib/bpf,
// tools/testing/selftests/bpf) is a unit, and rules 3 and 4 land code of a
// unit only on definitions of its own unit or, for rule 3, of the unit of
// the prototype it sees (a library's header: tools/lib/bpf/bpf.h for
// tools/lib/bpf/bpf.c) — a bpf selftest's libc usleep is not the cgroup
// selftests' own usleep, nor its memcmp the kvm selftests' string_override.c.
//
// Architectures: in a tree with arch/<name>/ directories (the kernel, and
// others built for one architecture at a time), code under arch/A never
// reaches a definition under arch/B: every rule above, and the struct
// member calls below, drop such candidates. Code outside arch/ reaches
// any architecture's definitions (the one built is not known).
//
// Include paths are searched relative to the including file (quoted
// includes), then under the kernel's include roots — include/, each
// arch/*/include/ (x86 first), include/uapi/, arch/*/include/uapi/, with
// <asm/x.h> falling back to include/asm-generic/x.h — then at the
// repository root and finally as the one indexed path ending in the spec.
//
// A call through a struct member (`file->f_op->read(...)`) is linked to
// every function stored in that member of that struct type anywhere in the
// tree (designated initializers `.read = foo_read` of a declared struct
// type, the kernel's attribute macros, and assignments `x->read =
// foo_read` whose receiver type can be inferred), with reason
// field-pointer. When the receiver's type cannot be inferred, a member
// name that only one struct type stores functions in stands for that
// type, with lower confidence.

import (
	"path"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Confidences of C resolution (see doc.go).
const (
	cAltConf         = 0.7  // one of several visible definitions (configuration alternatives)
	cMaxAlternatives = 4    // more visible definitions than this: ambiguous, unresolved
	cFieldConf       = 0.45 // call through a member of an inferred struct type
	cFieldGuessConf  = 0.4  // call through a member name only one struct type stores functions in
	cVisibleConf     = 0.9
)

// cTables are the repository-wide tables of C resolution.
type cTables struct {
	protos map[string][]string // function name → files declaring it without a body
	macros map[string][]string // name → files defining it as a function-like macro
	stubs  map[string]bool     // ids of the stubs of options that are off (lang.Facts.ConfigStubs)

	ids   map[string]int32 // file → dense id, for include closures
	files []string         // id → file
	incl  [][]int32        // id → resolved includes

	// sees memoizes cSeesAny per (file, header) id pair; mark and markGen
	// are its walks' visited marks.
	sees    map[uint64]bool
	mark    []uint32
	markGen uint32

	// The include closure of one file at a time (calls are resolved file
	// by file): stamp[id] == cur marks the files it reaches.
	stamp     []uint32
	cur       uint32
	closureOf string

	stores     map[string][]*sym   // struct type's key (cTypeKey) + "\x00" + member → functions stored in it
	storeTypes map[string][]string // member → keys of the struct types with functions stored in it

	archIncludes []string // arch/*/include directories, x86 first
	// includeRoots are the roots cIncludePath tries after the directories
	// above the includer: include, archIncludes, include/uapi and the
	// arch uapi directories, each with a trailing "/".
	includeRoots []string
	programs     map[string]bool   // top-level directories that are programs of their own (cProgram)
	units        map[string]string // directory under a program of its own → its unit (cUnitReaches)
}

func (t *cTables) id(file string) int32 {
	if i, ok := t.ids[file]; ok {
		return i
	}
	i := int32(len(t.files))
	t.ids[file] = i
	t.files = append(t.files, file)
	t.incl = append(t.incl, nil)
	t.stamp = append(t.stamp, 0)
	return i
}

// cIndex fills the tables that need only the facts: prototypes, the arch
// include roots and the programs.
func (r *resolver) cIndex() {
	t := &r.ctab
	t.protos, t.ids, t.sees = map[string][]string{}, map[string]int32{}, map[uint64]bool{}
	t.macros, t.stubs = map[string][]string{}, map[string]bool{}
	t.stores, t.storeTypes = map[string][]*sym{}, map[string][]string{}
	for _, f := range r.in.Files {
		if f.Language != "c" {
			continue
		}
		addFileOf(t.protos, f.Prototypes, f.Path)
		addFileOf(t.macros, f.Macros, f.Path)
		for _, id := range f.ConfigStubs {
			t.stubs[id] = true
		}
	}
	t.programs = map[string]bool{}
	for d := range r.dirs {
		if top, rest, ok := strings.Cut(d, "/"); ok && top != "arch" && top != "include" && (rest == "include" || strings.HasPrefix(rest, "include/")) {
			t.programs[top] = true
		}
		rest, ok := strings.CutPrefix(d, "arch/")
		if !ok {
			continue
		}
		if arch, sub, ok := strings.Cut(rest, "/"); ok && (sub == "include" || strings.HasPrefix(sub, "include/")) {
			root := "arch/" + arch + "/include"
			if !contains(t.archIncludes, root) {
				t.archIncludes = append(t.archIncludes, root)
			}
		}
	}
	sort.Slice(t.archIncludes, func(i, j int) bool {
		a, b := t.archIncludes[i], t.archIncludes[j]
		if (a == "arch/x86/include") != (b == "arch/x86/include") {
			return a == "arch/x86/include"
		}
		return a < b
	})
	t.units = map[string]string{}
	for d := range r.dirs {
		top, _, ok := strings.Cut(d, "/")
		if !ok || !t.programs[top] {
			if t.programs[d] {
				t.units[d] = d
			}
			continue
		}
		u := d
		for u != top && !r.paths[u+"/Makefile"] {
			u = path.Dir(u)
		}
		t.units[d] = u
	}
	t.includeRoots = []string{"include/"}
	for _, a := range t.archIncludes {
		t.includeRoots = append(t.includeRoots, a+"/")
	}
	t.includeRoots = append(t.includeRoots, "include/uapi/")
	for _, a := range t.archIncludes {
		t.includeRoots = append(t.includeRoots, a+"/uapi/")
	}
}

// addFileOf records file under each of names in byName, once.
func addFileOf(byName map[string][]string, names []string, file string) {
	for _, n := range names {
		if fs := byName[n]; len(fs) == 0 || fs[len(fs)-1] != file {
			byName[n] = append(fs, file)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// cIncludePath resolves the spec of an #include written in file from to an
// indexed path, "" when it is not in the repository.
func (r *resolver) cIncludePath(from, spec string, quoted bool) string {
	spec = path.Clean(spec)
	if quoted {
		if p := path.Join(path.Dir(from), spec); r.paths[p] {
			return p
		}
	}
	// the include/ directory nearest above the including file that has
	// it: a program in the tree with its own include root (the kernel's
	// tools/ against tools/include, arch/arm code against
	// arch/arm/include) sees its own headers first, as its build's -I
	// does. The candidates, here and below, are put together in one
	// buffer and looked up without making a string of each (a string is
	// made of the one found): the kernel's 1.5 million includes had
	// allocated 0.57 GB.
	var buf [256]byte
	b := buf[:0]
	for d := path.Dir(from); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		b = append(append(append(b[:0], d...), "/include/"...), spec...)
		if r.paths[string(b)] {
			return string(b)
		}
	}
	for _, root := range r.ctab.includeRoots {
		b = append(append(b[:0], root...), spec...)
		if r.paths[string(b)] {
			return string(b)
		}
	}
	if rest, ok := strings.CutPrefix(spec, "asm/"); ok {
		if p := "include/asm-generic/" + rest; r.paths[p] {
			return p
		}
	}
	if r.paths[spec] {
		return spec
	}
	return r.bySuffix("/" + spec)
}

// cAddInclude records that from includes to.
func (r *resolver) cAddInclude(from, to string) {
	t := &r.ctab
	a, b := t.id(from), t.id(to)
	t.incl[a] = append(t.incl[a], b)
}

// cClosure makes the include closure of file current (the file itself and
// every file it reaches through includes).
func (r *resolver) cClosure(file string) {
	t := &r.ctab
	if t.closureOf == file && t.cur != 0 {
		return
	}
	t.closureOf = file
	t.cur++
	start := t.id(file)
	t.stamp[start] = t.cur
	queue := []int32{start}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, m := range t.incl[n] {
			if t.stamp[m] != t.cur {
				t.stamp[m] = t.cur
				queue = append(queue, m)
			}
		}
	}
}

// cReaches reports whether file is in the current include closure.
func (r *resolver) cReaches(file string) bool {
	t := &r.ctab
	i, ok := t.ids[file]
	return ok && t.stamp[i] == t.cur
}

// cSeesAny reports whether the include closure of file reaches one of
// headers (memoized per pair; the walk stops at the first found). It
// leaves the current closure (cClosure) as it is.
func (r *resolver) cSeesAny(file string, headers []string) bool {
	t := &r.ctab
	from, ok := t.ids[file]
	if !ok {
		return false
	}
	for _, h := range headers {
		to, ok := t.ids[h]
		if !ok {
			continue
		}
		k := uint64(uint32(from))<<32 | uint64(uint32(to))
		seen, ok := t.sees[k]
		if !ok {
			seen = t.reachesFrom(from, to)
			t.sees[k] = seen
		}
		if seen {
			return true
		}
	}
	return false
}

// reachesFrom reports whether file id to is in the include closure of
// file id from, with a walk of its own (mark/markGen, not the current
// closure's stamp).
func (t *cTables) reachesFrom(from, to int32) bool {
	if from == to {
		return true
	}
	if len(t.mark) < len(t.incl) {
		t.mark = make([]uint32, len(t.incl))
	}
	t.markGen++
	t.mark[from] = t.markGen
	queue := []int32{from}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, m := range t.incl[n] {
			if m == to {
				return true
			}
			if t.mark[m] != t.markGen {
				t.mark[m] = t.markGen
				queue = append(queue, m)
			}
		}
	}
	return false
}

// cBareCall resolves a bare call (or function reference) in a C file by
// translation-unit visibility.
func (r *resolver) cBareCall(c ctx, name string) ([]*sym, string, float64, outcome) {
	f := c.sc.f.Path
	if c.caller != nil && r.isLocal(c, name) {
		return nil, "", 0, dynamic // a function-pointer parameter or local
	}
	if ss := r.funcsByFile[f][name]; len(ss) > 0 {
		return r.cDropStubs(ss), schema.ReasonSameFile, 1, resolved
	}
	all := r.funcsByName[key("c", name)]
	if len(all) == 0 {
		return nil, "", 0, unresolved
	}
	r.cClosure(f)
	var vis []*sym
	for _, s := range all {
		if r.cReaches(s.FilePath) && !cOtherArch(f, s.FilePath) {
			vis = append(vis, s)
		}
	}
	declared := false
	for _, p := range r.ctab.protos[name] {
		if r.cReaches(p) {
			declared = true
			break
		}
	}
	if declared {
		// the definitions the prototype can land on: those whose own
		// translation unit sees one of the prototypes the caller sees (a
		// definition includes its declaration); all of them when none does
		var protos []string
		for _, p := range r.ctab.protos[name] {
			if r.cReaches(p) {
				protos = append(protos, p)
			}
		}
		var cands, seeing []*sym
		for _, s := range all {
			if s.IsExported && !r.cReaches(s.FilePath) && (r.cLinkable(f, s.FilePath) && r.cUnitReaches(f, s.FilePath, protos) || r.cDeclaredFor(f, protos, s.FilePath)) {
				cands = append(cands, s)
				if r.cSeesAny(s.FilePath, protos) {
					seeing = append(seeing, s)
				}
			}
		}
		if len(seeing) > 0 {
			cands = seeing
		}
		vis = append(vis, cands...)
	}
	vis = r.cDropStubs(vis)
	switch {
	case len(vis) == 1:
		return vis, schema.ReasonImportScoped, cVisibleConf, resolved
	case len(vis) > 1 && len(vis) <= cMaxAlternatives:
		return vis, schema.ReasonImportScoped, cAltConf, resolved
	case len(vis) > cMaxAlternatives:
		return nil, "", 0, unresolved
	}
	for _, m := range r.ctab.macros[name] {
		if r.cReaches(m) {
			return nil, "", 0, unresolved // a macro here: no guess at a function elsewhere
		}
	}
	var global *sym
	for _, s := range all {
		if s.IsExported && r.cLinkable(f, s.FilePath) && r.cUnitReaches(f, s.FilePath, nil) {
			if global != nil {
				return nil, "", 0, unresolved // ambiguous
			}
			global = s
		}
	}
	if global != nil {
		return []*sym{global}, schema.ReasonGlobalName, globalConf("c"), resolved
	}
	return nil, "", 0, unresolved
}

// cDropStubs is ss without the stubs of an option that is off (a header's
// `#else` stub of `#ifdef CONFIG_OF`, lang.Facts.ConfigStubs) when one of
// ss is not such a stub; ss itself when none, or all, are.
func (r *resolver) cDropStubs(ss []*sym) []*sym {
	n := 0
	for _, s := range ss {
		if r.ctab.stubs[s.ID] {
			n++
		}
	}
	if n == 0 || n == len(ss) {
		return ss
	}
	out := make([]*sym, 0, len(ss)-n)
	for _, s := range ss {
		if !r.ctab.stubs[s.ID] {
			out = append(out, s)
		}
	}
	return out
}

// cStores builds the member-store tables from every C file's
// registrations: the struct type (declared, or inferred from the assigned
// receiver) and the functions the stored name resolves to in that file.
func (r *resolver) cStores() {
	t := &r.ctab
	seen := map[string]bool{}
	for _, f := range r.in.Files {
		if f.Language != "c" {
			continue
		}
		sc := r.scopes[f.Path]
		for _, reg := range f.Registrations {
			if reg.Field == "" {
				continue
			}
			c := ctx{sc: sc, caller: r.syms[reg.CallerID], line: reg.Line}
			typ := ""
			switch {
			case reg.Type != "":
				typ = reg.Type
				if st := r.typeNamed(ctx{sc: sc}, reg.Type); st != nil {
					typ = cTypeKey(st)
				}
			case reg.Receiver != "":
				if st := r.typeOfExpr(c, reg.Receiver); st != nil {
					typ = cTypeKey(st)
				}
			}
			if typ == "" {
				continue
			}
			targets, _, _, out := r.cBareCall(ctx{sc: sc}, reg.Name)
			if out != resolved {
				continue
			}
			k := typ + "\x00" + reg.Field
			for _, s := range targets {
				if seen[k+"\x00"+s.ID] {
					continue
				}
				seen[k+"\x00"+s.ID] = true
				if len(t.stores[k]) == 0 {
					t.storeTypes[reg.Field] = append(t.storeTypes[reg.Field], typ)
				}
				t.stores[k] = append(t.stores[k], s)
			}
		}
	}
	for _, v := range t.stores {
		sortSyms(v)
	}
	for _, v := range t.storeTypes {
		sort.Strings(v)
	}
}

// cFieldCall resolves a call through member name of a value of struct
// type st (nil when the receiver's type is unknown) in file from.
func (r *resolver) cFieldCall(from string, st *sym, name string) ([]*sym, string, float64, outcome) {
	t := &r.ctab
	if st != nil {
		if ss := cSameArch(from, t.stores[cTypeKey(st)+"\x00"+name]); len(ss) > 0 {
			return ss, schema.ReasonFieldPointer, cFieldConf, resolved
		}
		if _, ok := r.facts[st.ID].get(name, 0); ok {
			return nil, "", 0, dynamic // a function-pointer member nothing is stored in
		}
		return nil, "", 0, unresolved
	}
	switch types := t.storeTypes[name]; len(types) {
	case 0:
		return nil, "", 0, unresolved
	case 1:
		if ss := cSameArch(from, t.stores[types[0]+"\x00"+name]); len(ss) > 0 {
			return ss, schema.ReasonFieldPointer, cFieldGuessConf, resolved
		}
		return nil, "", 0, dynamic // only other architectures store functions in it
	}
	return nil, "", 0, dynamic // several struct types store functions in that member
}

// cTypeKey is the key of struct type st in the member-store tables: its
// name, which every translation unit that includes its header shares;
// for a struct defined in a .c file, private to it, its id: two drivers'
// own `struct stmmac_pci_info` are two types, and a call through one's
// member must not reach the functions stored in the other's.
func cTypeKey(st *sym) string {
	if strings.HasSuffix(st.FilePath, ".c") {
		return st.ID
	}
	return st.Name
}

// cArch is the architecture directory a path lies under (arch/<name>/...),
// "" when it lies under none.
func cArch(p string) string {
	rest, ok := strings.CutPrefix(p, "arch/")
	if !ok {
		return ""
	}
	a, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return a
}

// cOtherArch reports whether a definition in file def is out of reach of
// code in file from: both lie under arch/ directories, not the same one.
func cOtherArch(from, def string) bool {
	a, b := cArch(from), cArch(def)
	return a != "" && b != "" && a != b
}

// cSameArch is ss without the definitions out of reach of from
// (cOtherArch); ss itself when none is.
func cSameArch(from string, ss []*sym) []*sym {
	for i, s := range ss {
		if cOtherArch(from, s.FilePath) {
			out := append([]*sym(nil), ss[:i]...)
			for _, s := range ss[i+1:] {
				if !cOtherArch(from, s.FilePath) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return ss
}

// cLinkable reports whether a definition in file def can be linked into
// the program of code in file from without an include between them (rules
// 3 and 4): the same program, and not another architecture's.
func (r *resolver) cLinkable(from, def string) bool {
	return !cOtherArch(from, def) && r.cProgram(from) == r.cProgram(def)
}

// cUnitReaches reports whether a definition in file def is linked into
// the unit of code in file from (see the file comment): always in the
// tree's main program; in a program of its own when def lies in from's
// unit or in the unit of one of protos (the prototypes from sees).
func (r *resolver) cUnitReaches(from, def string, protos []string) bool {
	t := &r.ctab
	uf, ok := t.units[path.Dir(from)]
	if !ok {
		return true
	}
	ud := t.units[path.Dir(def)]
	if ud == uf {
		return true
	}
	for _, p := range protos {
		if t.units[path.Dir(p)] == ud {
			return true
		}
	}
	return false
}

// cDeclaredFor reports whether a definition in file def, of a program of
// its own (cProgram), is declared for code of the tree's main program in
// file from by one of the prototypes in protos (which from's includes
// reach): a prototype of def's program, and def not another
// architecture's.
func (r *resolver) cDeclaredFor(from string, protos []string, def string) bool {
	prog := r.cProgram(def)
	if prog == "" || r.cProgram(from) != "" || cOtherArch(from, def) {
		return false
	}
	for _, p := range protos {
		if r.cProgram(p) == prog {
			return true
		}
	}
	return false
}

// cProgram is the program a path belongs to: its top-level directory when
// that directory has an include/ directory of its own (and is neither
// include/ nor arch/), else "" (the tree's main program).
func (r *resolver) cProgram(p string) string {
	if top, _, ok := strings.Cut(p, "/"); ok && r.ctab.programs[top] {
		return top
	}
	return ""
}
