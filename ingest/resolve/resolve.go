package resolve

import (
	"cmp"
	"context"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// Input is what resolution works from.
type Input struct {
	// Root is the repository root on disk (go.mod, tsconfig.json and
	// composer.json are read from it).
	Root string
	// Files are the facts of every parsed file. Symbols' ParentID must be
	// final (cross-file methods linked) before Resolve is called.
	Files []*lang.Facts
	// Paths lists every indexed file, parsed or not (go.mod, headers).
	Paths []string
	// Workers is how many call sites are resolved at once (parallel.go):
	// 0 means one per core. The output is the same for any number.
	Workers int
	// Resolved, when set, is called with each file once its call sites
	// are resolved and turned into edges, in file order: the caller may
	// drop what it no longer needs of them (ingest keeps a few kinds), so
	// that the call sites of a large tree are not all live beside their
	// edges at the end.
	Resolved func(f *lang.Facts)
	// Sites, when set, is the path of the last resolution's site cache
	// (sites.go): when its key is this resolution's, the call sites of
	// every file whose content hash (Hashes) it holds are read from it
	// instead of resolved. SitesOut, when set, is where this resolution
	// writes its own, keyed with Stamp (the build's: a cache of another
	// gitnexus never serves).
	Sites    string
	SitesOut string
	Hashes   map[string]string // path → content hash
	Stamp    string
}

// Output is what resolution found.
type Output struct {
	Edges []schema.Edge
	// Unresolved counts, per file, the call sites that could not be linked
	// to a repository symbol and are not known to be external.
	Unresolved map[string]int
	// Samples are up to MaxSamples unresolved call sites, "file:line
	// receiver.name", for the summary and for debugging the resolver.
	Samples []string
	Stats   Stats
	// SitesMiss says why Input.Sites served no file ("" when it was not
	// given or its key was this resolution's).
	SitesMiss string
	// SitesFuncs counts the functions added, removed or changed since
	// Input.Sites was written, when it served (staleSites): the files that
	// can reach them were resolved again.
	SitesFuncs int
}

// MaxSamples bounds Output.Samples.
var MaxSamples = 50

// Stats count call sites and imports by outcome.
type Stats struct {
	CallSites  int            `json:"call_sites"`
	Resolved   int            `json:"resolved"`
	External   int            `json:"external"`
	Dynamic    int            `json:"dynamic"` // calls of local function values, interface values with no method node
	Unresolved int            `json:"unresolved"`
	ByReason   map[string]int `json:"by_reason"`
	Imports    int            `json:"imports"`
	ImportsIn  int            `json:"imports_in_repo"` // imports resolved to repository files
	// SitesReused counts the files whose call sites' outcomes came from
	// the last resolution's site cache (Input.Sites) instead of being
	// resolved again.
	SitesReused int `json:"sites_reused"`
}

// implFact is a Rust impl clause recorded as a type fact, with its file.
type implFact struct {
	tf   lang.TypeFact
	file string
}

// Sym is a symbol with the facts resolution needs at hand.
type sym = schema.Symbol

// resolver holds the repository-wide tables.
type resolver struct {
	in    Input
	files map[string]*lang.Facts
	syms  map[string]*sym
	paths map[string]bool
	// inactive marks files the default build leaves out (Go build
	// constraints and GOOS/GOARCH file suffixes).
	inactive map[string]bool
	dirs     map[string][]string // dir → files in it (all indexed files)

	funcsByFile  map[string]map[string][]*sym // file → function name → functions
	typesByFile  map[string]map[string][]*sym // file → type name → Class/Interface
	funcsByName  map[string][]*sym            // language-qualified: lang+"\x00"+name
	typesByName  map[string][]*sym
	methsByName  map[string][]*sym
	methodsOf    map[string]map[string][]*sym // type id → name → methods
	facts        map[string]factTable         // scope (symbol id, or "file:"+path) → name → facts
	returns      map[string][]string          // symbol id → result types in order
	heritage     map[string][]lang.Heritage   // child id → clauses
	impls        []implFact                   // Rust `impl Trait for Type` with Type declared elsewhere
	implementers map[string][]*sym            // Go interface id → the named types that satisfy it
	byPackage    map[string][]string          // lang+"\x00"+package → files
	scopes       map[string]*fileScope

	goMods  []goModule
	pyMods  map[string]string // dotted module → file
	rustMod map[string]string // module path (a::b) → file
	tsPaths *tsConfig
	psr4    map[string][]string // composer PSR-4: namespace prefix → dirs
	byBase  map[string][]string // file base name → paths, built on first use
	ctab    cTables             // C: prototypes, include closures, member stores (c.go)

	// extHit is set when type inference stopped at a type from outside the
	// repository (read right after a typeOfExpr call).
	extHit bool

	parentCache map[string][]*sym   // type id → resolved parents
	pkgCache    map[string][]string // file → its package's files
	// parentLocal is a worker's own parentCache for the types the shared
	// one lacks (see worker); nil on the resolver itself.
	parentLocal map[string][]*sym
	// reasons interns the reasons a worker reads from the site cache
	// (decodeSites).
	reasons map[string]string
	// keyed delivers the site cache's key (sitesKey), made beside the
	// tables when there is a site cache to read or write.
	keyed <-chan siteKeys

	out Output
	// edges is the output's edges as they are made (out.Edges is filled,
	// sorted, at the end: edgeBlocks.sorted).
	edges edgeBlocks
}

func key(l, name string) string { return l + "\x00" + name }

// Resolve links the references of in.Files.
func Resolve(ctx context.Context, in Input) (*Output, error) {
	r := newResolver(in)
	start := time.Now()
	lap := func(step string) {
		slog.Debug("resolve: "+step, "took", time.Since(start))
		start = time.Now()
	}
	r.index()
	r.cIndex()
	r.goMods = readGoModules(in.Root, in.Paths)
	r.tsPaths = readTSConfig(in.Root)
	r.psr4 = readPSR4(in.Root)
	if in.Sites != "" || in.SitesOut != "" {
		// The site cache's key reads the facts and the configuration
		// only: made beside the tables (kubernetes: 0.2-0.3 s of CPU).
		keyed := make(chan siteKeys, 1)
		go func() {
			var k siteKeys
			k.key, k.fsums = r.sitesKey()
			keyed <- k
		}()
		r.keyed = keyed
	}
	for _, f := range in.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.scopes[f.Path] = r.imports(f)
	}
	lap("tables and imports")
	r.heritageEdges()
	r.goImplements()
	r.cStores()
	lap("heritage")
	if err := r.resolveCalls(ctx, in.Files); err != nil {
		return nil, err
	}
	lap("calls")
	r.out.Edges = r.edges.sorted()
	r.edges = edgeBlocks{}
	return &r.out, nil
}

// newResolver is a resolver of in with its tables empty; the symbol,
// name and file tables are made by index, at their size.
func newResolver(in Input) *resolver {
	return &resolver{
		in: in, dirs: map[string][]string{}, inactive: map[string]bool{},
		methodsOf: map[string]map[string][]*sym{}, facts: map[string]factTable{},
		returns: map[string][]string{}, heritage: map[string][]lang.Heritage{},
		byPackage: map[string][]string{}, implementers: map[string][]*sym{},
		scopes: map[string]*fileScope{}, parentCache: map[string][]*sym{}, pkgCache: map[string][]string{}, pyMods: map[string]string{}, rustMod: map[string]string{},
		out: Output{Unresolved: map[string]int{}, Stats: Stats{ByReason: map[string]int{}}},
	}
}

// edgeBlock is how many edges a block of edgeBlocks holds: 1 MB of them,
// so that the first block's growth (a copy at each doubling, into pages
// faulted in afresh) stays small; at 1<<16 it cost kubernetes' one-file
// re-analyze 0.18 s of its resolution's CPU.
const edgeBlock = 1 << 13

// parallelSortMin is the number of edges from which edgeBlocks.sorted
// sorts on two goroutines.
const parallelSortMin = 1 << 14

// edgeBlocks holds the edges a resolution makes, in the order made, in
// blocks of edgeBlock (the first grows to that size as a slice does):
// appended to one slice, the Linux kernel's 3.6 million edges (400 MB)
// were copied about four times their size as it grew by a quarter at a
// time, each copy leaving the last as garbage for a heap already near its
// limit (growslice: 21 s of the resolution's 44 s of CPU).
type edgeBlocks struct {
	blocks [][]schema.Edge
	n      int
}

func (e *edgeBlocks) add(ed schema.Edge) {
	if len(e.blocks) == 0 || len(e.blocks[len(e.blocks)-1]) == edgeBlock {
		var b []schema.Edge
		if len(e.blocks) > 0 {
			b = make([]schema.Edge, 0, edgeBlock)
		}
		e.blocks = append(e.blocks, b)
	}
	last := &e.blocks[len(e.blocks)-1]
	*last = append(*last, ed)
	e.n++
}

// at is the i-th edge added.
func (e *edgeBlocks) at(i int) *schema.Edge { return &e.blocks[i/edgeBlock][i%edgeBlock] }

// sorted is the edges sorted by type, source and target, keeping the
// order of edges equal in all three (a stable sort), in a slice of their
// number: a permutation of indexes is sorted, then each edge copied once
// to its place (sort.SliceStable's rotations had moved the 120-byte edges
// O(n log² n) times through reflection: the kernel's edges, 18 s of CPU).
// Past parallelSortMin edges the two halves of the permutation are sorted
// on two goroutines and merged: the order compares the positions last, so
// no two indexes are equal in it and the merge is the one sort's result.
func (e *edgeBlocks) sorted() []schema.Edge {
	if e.n == 0 {
		return nil
	}
	idx := make([]int32, e.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	order := func(x, y int32) int {
		a, b := e.at(int(x)), e.at(int(y))
		if c := cmp.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		if c := strings.Compare(a.From, b.From); c != 0 {
			return c
		}
		if c := strings.Compare(a.To, b.To); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	}
	if e.n < parallelSortMin {
		slices.SortFunc(idx, order)
	} else {
		lo, hi := idx[:e.n/2], idx[e.n/2:]
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			slices.SortFunc(lo, order)
		}()
		slices.SortFunc(hi, order)
		wg.Wait()
		merged := make([]int32, 0, e.n)
		for len(lo) > 0 && len(hi) > 0 {
			if order(lo[0], hi[0]) < 0 {
				merged, lo = append(merged, lo[0]), lo[1:]
			} else {
				merged, hi = append(merged, hi[0]), hi[1:]
			}
		}
		idx = append(append(merged, lo...), hi...)
	}
	out := make([]schema.Edge, e.n)
	for i, x := range idx {
		out[i] = *e.at(int(x))
	}
	return out
}

// index makes and fills the name tables: the symbols' on this goroutine,
// the facts' (indexFacts) beside them, as the two read and write nothing
// of each other's (kubernetes' one-file re-analyze: 0.17-0.25 s on one
// goroutine).
func (r *resolver) index() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.indexFacts()
	}()
	defer wg.Wait()
	// The tables sized for every entry at once: grown entry by entry they
	// rehashed their way up (kubernetes: 42k symbols, 8k files).
	nsyms, nfuncs, ntypes, nmeths := 0, 0, 0, 0
	for _, f := range r.in.Files {
		nsyms += len(f.Symbols)
		for i := range f.Symbols {
			switch f.Symbols[i].Label {
			case schema.LabelFunction:
				nfuncs++
			case schema.LabelClass, schema.LabelInterface:
				ntypes++
			case schema.LabelMethod:
				nmeths++
			}
		}
	}
	r.syms = make(map[string]*sym, nsyms)
	r.funcsByName, r.typesByName, r.methsByName = make(map[string][]*sym, nfuncs), make(map[string][]*sym, ntypes), make(map[string][]*sym, nmeths)
	r.files = make(map[string]*lang.Facts, len(r.in.Files))
	r.funcsByFile, r.typesByFile = make(map[string]map[string][]*sym, len(r.in.Files)), make(map[string]map[string][]*sym, len(r.in.Files))
	r.paths = make(map[string]bool, len(r.in.Paths))
	for _, p := range r.in.Paths {
		r.paths[p] = true
		d := path.Dir(p)
		r.dirs[d] = append(r.dirs[d], p)
	}
	for _, f := range r.in.Files {
		r.files[f.Path] = f
		if !Active(f) {
			r.inactive[f.Path] = true
		}
		if !r.paths[f.Path] {
			r.paths[f.Path] = true
			d := path.Dir(f.Path)
			r.dirs[d] = append(r.dirs[d], f.Path)
		}
		if f.Package != "" {
			k := key(Family(f.Language), f.Package)
			r.byPackage[k] = append(r.byPackage[k], f.Path)
		}
		switch f.Language {
		case "python":
			if f.Package != "" {
				r.pyMods[f.Package] = f.Path
			}
		case "rust":
			if f.Package != "" {
				r.rustMod[f.Package] = f.Path
			}
		}
		ff, ft := map[string][]*sym{}, map[string][]*sym{}
		r.funcsByFile[f.Path], r.typesByFile[f.Path] = ff, ft
		for i := range f.Symbols {
			s := &f.Symbols[i]
			r.syms[s.ID] = s
			fam := Family(s.Language)
			switch s.Label {
			case schema.LabelFunction:
				ff[s.Name] = append(ff[s.Name], s)
				r.funcsByName[key(fam, s.Name)] = append(r.funcsByName[key(fam, s.Name)], s)
			case schema.LabelClass, schema.LabelInterface:
				ft[s.Name] = append(ft[s.Name], s)
				r.typesByName[key(fam, s.Name)] = append(r.typesByName[key(fam, s.Name)], s)
			case schema.LabelMethod:
				r.methsByName[key(fam, s.Name)] = append(r.methsByName[key(fam, s.Name)], s)
			}
		}
	}
	for _, s := range r.syms {
		if s.Label == schema.LabelMethod && s.ParentID != "" {
			m := r.methodsOf[s.ParentID]
			if m == nil {
				m = map[string][]*sym{}
				r.methodsOf[s.ParentID] = m
			}
			m[s.Name] = append(m[s.Name], s)
		}
	}
	// deterministic candidate order everywhere
	for _, tbl := range []map[string][]*sym{r.funcsByName, r.typesByName, r.methsByName} {
		for _, v := range tbl {
			r.sortActiveFirst(v)
		}
	}
}

// indexFacts fills the type-fact, return, impl and heritage tables, a
// file at a time in file order (a scope in two files merges in it).
func (r *resolver) indexFacts() {
	for _, f := range r.in.Files {
		// The facts tables are runs of the file's own facts, sorted in
		// place: the return and impl facts first, in source order, then
		// by scope and name (see factTable). The parse has sorted them
		// already (SortFacts); facts made otherwise are sorted here.
		SortFacts(f)
		for i := 0; i < len(f.Types); {
			tf := &f.Types[i]
			if !tableFact(tf) {
				switch tf.Kind {
				case "return":
					r.returns[tf.Scope] = append(r.returns[tf.Scope], tf.Type)
				case "impl":
					r.impls = append(r.impls, implFact{*tf, f.Path})
				}
				i++
				continue
			}
			j := i + 1
			for j < len(f.Types) && f.Types[j].Scope == tf.Scope {
				j++
			}
			scope := tf.Scope
			if scope == "" {
				scope = "file:" + f.Path
			}
			run := factTable(f.Types[i:j:j])
			if have, ok := r.facts[scope]; ok { // a scope in two files
				run = mergeFacts(have, run)
			}
			r.facts[scope] = run
			i = j
		}
		for _, h := range f.Heritage {
			if h.ChildID != "" {
				r.heritage[h.ChildID] = append(r.heritage[h.ChildID], h)
			}
		}
	}
}

func sortSyms(v []*sym) {
	sort.Slice(v, func(i, j int) bool { return v[i].ID < v[j].ID })
}

// sortActiveFirst orders candidates so that those of active files come
// first (then by id): code that takes the first candidate takes the
// variant the default build compiles.
func (r *resolver) sortActiveFirst(v []*sym) {
	sort.SliceStable(v, func(i, j int) bool {
		ai, aj := !r.inactive[v[i].FilePath], !r.inactive[v[j].FilePath]
		if ai != aj {
			return ai
		}
		return v[i].ID < v[j].ID
	})
}

// Family groups languages that share a namespace: TS, TSX and JS modules
// import each other; C and C++ share headers.
func Family(l string) string {
	switch l {
	case "typescript", "tsx", "javascript":
		return "js"
	case "c", "cpp":
		return "c"
	}
	return l
}

func (r *resolver) edge(t schema.RelType, from, to *sym, conf float64, reason string, line int) {
	r.edges.add(schema.Edge{
		Type: t, From: from.ID, FromLabel: from.Label, To: to.ID, ToLabel: to.Label,
		Confidence: conf, Reason: reason, Line: line,
	})
}

func (r *resolver) fileEdge(from, to string, conf float64, reason string, line int) {
	r.edges.add(schema.Edge{
		Type: schema.RelImports, From: from, FromLabel: schema.LabelFile, To: to, ToLabel: schema.LabelFile,
		Confidence: conf, Reason: reason, Line: line,
	})
}

// factTable holds the type facts of one scope sorted by name, those of
// one name in source order. It is a run of its file's Facts.Types, which
// are sorted in place (factOrder: SortFacts, at the parse, or index): a
// map of the names to copies of their facts had been most of the
// resolver's tables (the Linux kernel: 3 million facts, 100 MB of the
// 480 MB live during the resolution of a fifth of it), marked again by
// every collection while calls resolve.
type factTable []lang.TypeFact

// factOrder sorts a file's type facts (stably): the facts no table holds
// (a function's return types, Rust's impls) first, in source order, then
// the others by scope and name.
func factOrder(a, b lang.TypeFact) int {
	ta, tb := tableFact(&a), tableFact(&b)
	switch {
	case ta != tb:
		if ta {
			return 1
		}
		return -1
	case !ta:
		return 0
	}
	if c := strings.Compare(a.Scope, b.Scope); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortFacts puts f's type facts in the order the resolver's tables read
// them (factOrder, stably), in place, unless they are in it already. The
// parse calls it on each file's facts before they are cached (ingest's
// workers, both cores), so that a resolution that reuses them only
// checks the order: sorted on the resolver's one goroutine, they had been
// a third of its tables' time (kubernetes' one-file re-analyze: 0.12 of
// 0.34 s).
func SortFacts(f *lang.Facts) {
	if !slices.IsSortedFunc(f.Types, factOrder) {
		slices.SortStableFunc(f.Types, factOrder)
	}
}

// tableFact reports whether a fact goes into its scope's factTable.
func tableFact(tf *lang.TypeFact) bool { return tf.Kind != "return" && tf.Kind != "impl" }

// mergeFacts is the table of a scope whose facts come from two files (a,
// the earlier, then b), in a new slice.
func mergeFacts(a, b factTable) factTable {
	out := make(factTable, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.SortStableFunc(out, func(x, y lang.TypeFact) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// named is the facts of name, in source order.
func (t factTable) named(name string) []lang.TypeFact {
	i := sort.Search(len(t), func(k int) bool { return t[k].Name >= name })
	j := i
	for j < len(t) && t[j].Name == name {
		j++
	}
	return t[i:j]
}

// get returns the fact for name that holds at line: the last one declared
// at or above it (a variable re-declared or narrowed — Go's `if v, ok :=
// x.(T)`, a type switch case — has the type of its nearest declaration).
// line 0 means "anywhere": the first declaration.
func (t factTable) get(name string, line int) (lang.TypeFact, bool) {
	fs := t.named(name)
	if len(fs) == 0 {
		return lang.TypeFact{}, false
	}
	best := fs[0]
	if line > 0 {
		for _, f := range fs[1:] {
			if f.Line <= line && f.Line >= best.Line {
				best = f
			}
		}
	}
	return best, true
}

// factOf returns the type fact for name in scope at line, falling back
// from the symbol's own scope to the file (globals).
func (r *resolver) factOf(scope *sym, file, name string, line int) (lang.TypeFact, bool) {
	if scope != nil {
		if tf, ok := r.facts[scope.ID].get(name, line); ok {
			return tf, true
		}
	}
	return r.facts["file:"+file].get(name, 0)
}

// isSelf reports whether a receiver names the enclosing object.
func isSelf(recv string) bool {
	switch recv {
	case "self", "this", "$this", "cls", "Self", "static", "@", "me":
		return true
	}
	return false
}

func isSuper(recv string) bool {
	switch recv {
	case "super", "super()", "parent", "base":
		return true
	}
	return strings.HasPrefix(recv, "super(")
}
