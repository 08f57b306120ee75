package resolve

import (
	"fmt"
	"os"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// traceSite ("path:line", from GITNEXUS_RESOLVE_TRACE) prints how the
// call sites on that line were resolved: a debugging aid for the resolver.
var traceSite = os.Getenv("GITNEXUS_RESOLVE_TRACE")

// outcome of one call site.
type outcome int

const (
	resolved   outcome = iota
	external           // names something outside the repository
	dynamic            // a call of a local function value, or an interface method with no node
	unresolved         // we don't know
	noEdge             // resolved to a type with no constructor node, or top-level code
)

// implicitThis lists the languages where a bare call inside a method may
// name another method of the same class.
var implicitThis = map[string]bool{"java": true, "csharp": true, "cpp": true, "ruby": true}

// constructorNames are method names that construct an instance.
var constructorNames = []string{"__init__", "constructor", "initialize", "__construct"}

// site is what resolveCall found for one call site (skip: top-level
// code, no symbol to draw an edge from).
type site struct {
	targets []*sym
	reason  string
	conf    float64
	out     outcome
	skip    bool
}

// resolveSites resolves every call site of f, without emitting anything:
// it reads the resolver's tables and writes only its own scratch state (a
// worker's, see resolveCalls), so several files are resolved at once.
func (r *resolver) resolveSites(f *lang.Facts) []site {
	sc := r.scopes[f.Path]
	out := make([]site, 0, len(f.Calls))
	for _, cs := range f.Calls {
		caller := r.syms[cs.CallerID]
		if caller == nil || (caller.Label != schema.LabelFunction && caller.Label != schema.LabelMethod) {
			out = append(out, site{skip: true})
			continue
		}
		targets, reason, conf, o := r.resolveCall(ctx{sc: sc, caller: caller, line: cs.Line}, cs)
		if traceSite != "" && traceSite == fmt.Sprintf("%s:%d", f.Path, cs.Line) {
			fmt.Fprintf(os.Stderr, "resolve trace %s: %s(%s) kind=%s → outcome=%d reason=%s targets=%v\n", traceSite, schema.Qualify(cs.Receiver, cs.Name), cs.Kind, cs.Kind, o, reason, targets)
		}
		out = append(out, site{targets: targets, reason: reason, conf: conf, out: o})
	}
	return out
}

// calls counts the call sites of f as resolveSites resolved them (sites,
// one per call) and emits CALLS edges (one per caller→callee pair, the
// most confident kept). Files are applied one after another, in order.
func (r *resolver) calls(f *lang.Facts, sites []site) {
	best := map[[2]string]int{} // caller,callee → index in r.edges
	for i, cs := range f.Calls {
		st := sites[i]
		if st.skip {
			continue
		}
		caller := r.syms[cs.CallerID]
		r.out.Stats.CallSites++
		targets, reason, conf, out := st.targets, st.reason, st.conf, st.out
		if cs.Kind == "reference" && out != resolved {
			// a name used as a value that is not a function or method of the
			// repository (a constant, a variable, a field): not a call site.
			r.out.Stats.CallSites--
			continue
		}
		switch out {
		case external:
			r.out.Stats.External++
			continue
		case dynamic:
			r.out.Stats.Dynamic++
			continue
		case unresolved:
			r.out.Stats.Unresolved++
			r.out.Unresolved[f.Path]++
			if len(r.out.Samples) < MaxSamples {
				r.out.Samples = append(r.out.Samples, fmt.Sprintf("%s:%d %s", f.Path, cs.Line, schema.Qualify(cs.Receiver, cs.Name)))
			}
			continue
		case noEdge:
			r.out.Stats.Resolved++
			r.out.Stats.ByReason["type-without-constructor"]++
			continue
		}
		r.out.Stats.Resolved++
		if cs.Kind == "reference" {
			reason = schema.ReasonReference
			if conf > referenceConf {
				conf = referenceConf
			}
		}
		r.out.Stats.ByReason[reason]++
		for _, t := range targets {
			if t.ID == caller.ID && cs.Kind == "reference" {
				continue
			}
			k := [2]string{caller.ID, t.ID}
			if i, ok := best[k]; ok {
				if e := r.edges.at(i); conf > e.Confidence {
					e.Confidence, e.Reason = conf, reason
				}
				continue
			}
			best[k] = r.edges.n
			r.edge(schema.RelCalls, caller, t, conf, reason, cs.Line)
		}
	}
}

// resolveCall finds what one call site calls. Several targets come back
// only when the language leaves it open (overloads of one name).
func (r *resolver) resolveCall(c ctx, cs lang.CallSite) ([]*sym, string, float64, outcome) {
	fam := Family(c.sc.f.Language)
	recv := strings.TrimSpace(cs.Receiver)
	name := cs.Name

	if cs.Kind == "new" {
		t := r.typeNamed(c, schema.Qualify(recv, name))
		if t == nil {
			if r.isExternalName(c, recv, name) {
				return nil, "", 0, external
			}
			return nil, "", 0, unresolved
		}
		if ctors := r.constructors(t); len(ctors) > 0 {
			return ctors, schema.ReasonReceiverTyped, 0.9, resolved
		}
		return nil, "", 0, noEdge
	}

	if recv == "" && c.sc.f.Language == "c" {
		ss, reason, conf, out := r.cBareCall(c, name)
		if cs.Kind == "reference" && reason == schema.ReasonGlobalName {
			// a name used as a value that no visible declaration makes a
			// function is rather a variable, a member or a macro's
			// argument than a callback defined in a file nothing includes
			return nil, "", 0, unresolved
		}
		return ss, reason, conf, out
	}
	if recv == "" {
		cands, reason := r.bareName(c, name)
		switch reason {
		case "dynamic":
			return nil, "", 0, dynamic
		case "external":
			return nil, "", 0, external
		}
		if len(cands) > 0 {
			return r.callTargets(cands, reason)
		}
		if r.isExternalName(c, "", name) {
			return nil, "", 0, external
		}
		if g := r.globalUnique(r.funcsByName, fam, name); g != nil {
			return []*sym{g}, schema.ReasonGlobalName, globalConf(fam), resolved
		}
		return nil, "", 0, unresolved
	}

	// self / this / super
	if isSelf(recv) || isSuper(recv) {
		t := r.selfType(c.caller) // super
		if isSelf(recv) {
			t = r.selfOf(c, recv)
		}
		if t == nil {
			return nil, "", 0, unresolved
		}
		if name == "constructor" { // super(...) / this(...) in JS, TS, Java
			targets := []*sym{t}
			if isSuper(recv) {
				targets = r.parents(t)
			}
			for _, tt := range targets {
				if ctors := r.constructors(tt); len(ctors) > 0 {
					return ctors, schema.ReasonReceiverTyped, 0.95, resolved
				}
			}
			if isSuper(recv) && r.hasExternalAncestor(t) {
				return nil, "", 0, external
			}
			return nil, "", 0, noEdge
		}
		var ms []*sym
		if isSuper(recv) {
			for _, p := range r.parents(t) {
				if ms = r.methodLookup(p, name); len(ms) > 0 {
					break
				}
			}
		} else {
			ms = r.methodLookup(t, name)
		}
		if len(ms) > 0 {
			return ms, schema.ReasonReceiverTyped, 0.95, resolved
		}
		if r.hasExternalAncestor(t) {
			return nil, "", 0, external
		}
		return nil, "", 0, unresolved
	}

	// a module or package qualifier
	if files, ok := c.sc.modules[recv]; ok {
		var cands []*sym
		for _, f := range files {
			cands = append(cands, r.topLevel(f, name)...)
		}
		if len(cands) > 0 {
			return r.callTargets(cands, schema.ReasonImportScoped)
		}
		for _, f := range files {
			if _, ok := r.facts["file:"+f].get(name, 0); ok {
				return nil, "", 0, dynamic // a package-level function variable
			}
		}
		return nil, "", 0, unresolved
	}
	root := splitChain(recv)
	if len(root) > 0 && c.sc.external[root[0]] && !r.isLocal(c, root[0]) {
		return nil, "", 0, external
	}
	if len(root) > 0 && r.externalTyped(c, root[0]) {
		return nil, "", 0, external
	}

	// a typed receiver (variables, fields, chains, calls, type names)
	r.extHit = false
	t := r.typeOfExpr(c, recv)
	if t == nil && r.extHit {
		return nil, "", 0, external // the chain reached a type from outside the repository
	}
	if t != nil {
		if ms := r.methodLookup(t, name); len(ms) > 0 {
			return r.preferActive(ms), schema.ReasonReceiverTyped, 0.9, resolved
		}
		if c.sc.f.Language == "c" {
			return r.cFieldCall(c.sc.f.Path, t, name)
		}
		if t.Label == schema.LabelInterface {
			if ms := r.interfaceTargets(t, name, c.caller); len(ms) > 0 {
				return ms, schema.ReasonInterface, interfaceConf, resolved
			}
			return nil, "", 0, dynamic
		}
		if r.hasExternalAncestor(t) {
			return nil, "", 0, dynamic
		}
		if ctor := strings.EqualFold(name, "new"); ctor { // Ruby Foo.new, Rust T::new without a method node
			if ctors := r.constructors(t); len(ctors) > 0 {
				return ctors, schema.ReasonReceiverTyped, 0.9, resolved
			}
			return nil, "", 0, noEdge
		}
		return nil, "", 0, unresolved
	}
	// a module reached through a chain (pkg.sub.f, a::b::f)
	if _, files := r.firstSegment(c, recv); files != nil || len(root) > 1 {
		if files == nil {
			var t *sym
			t, files = r.chainModule(c, root)
			if t != nil {
				if ms := r.methodLookup(t, name); len(ms) > 0 {
					return ms, schema.ReasonReceiverTyped, 0.9, resolved
				}
			}
		}
		var cands []*sym
		for _, f := range files {
			cands = append(cands, r.topLevel(f, name)...)
		}
		if len(cands) > 0 {
			return r.callTargets(cands, schema.ReasonImportScoped)
		}
	}
	if c.sc.f.Language == "c" {
		if out, reason, conf, o := r.cFieldCall(c.sc.f.Path, nil, name); o != unresolved {
			return out, reason, conf, o
		}
	}
	if r.isExternalName(c, recv, "") {
		return nil, "", 0, external
	}
	if g := r.globalUnique(r.methsByName, fam, name); g != nil {
		return []*sym{g}, schema.ReasonGlobalName, globalConf(fam), resolved
	}
	return nil, "", 0, unresolved
}

// chainModule walks a chain that starts with a module: a.b.c → module a,
// then submodules or types.
func (r *resolver) chainModule(c ctx, segs []string) (*sym, []string) {
	t, files := r.firstSegment(c, segs[0])
	for _, seg := range segs[1:] {
		switch {
		case t != nil:
			t = r.memberType(c, t, seg)
		case files != nil:
			t, files = r.moduleMember(c, files, seg)
		default:
			return nil, nil
		}
	}
	return t, files
}

// callTargets turns candidates into call targets: a type called as a
// function (Python, JS factory style) means its constructor.
func (r *resolver) callTargets(cands []*sym, reason string) ([]*sym, string, float64, outcome) {
	cands = r.preferActive(cands)
	var out []*sym
	typeOnly := false
	for _, s := range cands {
		switch s.Label {
		case schema.LabelFunction, schema.LabelMethod:
			out = append(out, s)
		case schema.LabelClass, schema.LabelInterface:
			if ctors := r.constructors(s); len(ctors) > 0 {
				out = append(out, ctors...)
			} else {
				typeOnly = true
			}
		}
	}
	if len(out) == 0 {
		if typeOnly {
			return nil, "", 0, noEdge
		}
		return nil, "", 0, unresolved
	}
	return out, reason, confidenceOf(reason), resolved
}

func confidenceOf(reason string) float64 {
	switch reason {
	case schema.ReasonSameFile:
		return 1
	case schema.ReasonPackage:
		return 0.95
	case schema.ReasonImportScoped, schema.ReasonReceiverTyped:
		return 0.9
	case schema.ReasonGlobalName:
		return 0.6
	}
	return 0.8
}

// maxInterfaceImpls is the most implementations a Go interface may have in
// the repository for a call on it to link to each of them: past that the
// call is a dispatch point (a plugin interface) and edges would say less
// than they claim.
const maxInterfaceImpls = 3

// interfaceConf is the confidence of an interface-impl edge: the call may
// reach that method (it is one of the few the value can hold, by
// class-hierarchy analysis), not that it does. At the trace threshold, so
// flows cross interfaces; below every static reason.
const interfaceConf = 0.5

// interfaceTargets returns the methods named name of the repository types
// that satisfy Go interface t (its implementers, from goImplements), when
// there are at most maxInterfaceImpls of them; nil otherwise. A type
// declared in test code implements it only for a caller in test code: the
// production build never holds one.
func (r *resolver) interfaceTargets(t *sym, name string, caller *sym) []*sym {
	var impls []*sym
	for _, it := range r.implementers[t.ID] {
		if !it.IsTest || caller != nil && caller.IsTest {
			impls = append(impls, it)
		}
	}
	if len(impls) == 0 || len(impls) > maxInterfaceImpls {
		return nil
	}
	var out []*sym
	for _, it := range impls {
		out = append(out, r.methodLookup(it, name)...)
	}
	sortSyms(out)
	return out
}

// referenceConf caps the confidence of a callback edge: the caller names
// the function but the call happens elsewhere (in whatever it was passed
// to), so it is the least certain kind of CALLS edge.
const referenceConf = 0.55

// globalConf is the confidence of a global-name match: C and C++ link
// non-static functions in one global namespace, so a unique name there is
// nearly certain.
func globalConf(fam string) float64 {
	if fam == "c" {
		return 0.8
	}
	return 0.6
}

// bareName resolves an unqualified call name. The reason is "dynamic" for
// a call of a local variable and "external" for a name imported from
// outside the repository.
func (r *resolver) bareName(c ctx, name string) ([]*sym, string) {
	f := c.sc.f
	if c.caller != nil && r.isLocal(c, name) {
		return nil, "dynamic"
	}
	if implicitThis[f.Language] {
		if t := r.selfType(c.caller); t != nil {
			if ms := r.methodLookup(t, name); len(ms) > 0 {
				return ms, schema.ReasonReceiverTyped
			}
		}
	}
	if ss := r.topLevel(f.Path, name); len(ss) > 0 {
		return ss, schema.ReasonSameFile
	}
	if ss := c.sc.names[name]; len(ss) > 0 {
		return ss, schema.ReasonImportScoped
	}
	if c.sc.external[name] {
		return nil, "external"
	}
	if _, _, ok := r.packageGlobal(c.sc, name); ok {
		return nil, "dynamic" // a package-level function variable
	}
	var pkg []*sym
	for _, p := range r.packageFiles(f) {
		if p != f.Path {
			pkg = append(pkg, r.topLevel(p, name)...)
		}
	}
	if len(pkg) > 0 {
		return pkg, schema.ReasonPackage
	}
	var open []*sym
	for _, p := range c.sc.open {
		open = append(open, r.topLevel(p, name)...)
	}
	if len(open) > 0 {
		return open, schema.ReasonImportScoped
	}
	return nil, ""
}

// isLocal reports whether name is a parameter or local of the caller that
// is in scope at the call's line. A local declared on the call's own line
// or later does not shadow the call: in `stack := stack(3)` the right-hand
// side is evaluated before the local exists, so it calls the function.
func (r *resolver) isLocal(c ctx, name string) bool {
	if c.caller == nil {
		return false
	}
	for _, tf := range r.facts[c.caller.ID].named(name) {
		switch tf.Kind {
		case "param":
			return true
		case "local":
			if c.line == 0 || tf.Line == 0 || tf.Line < c.line {
				return true
			}
		}
	}
	return false
}

// constructors returns t's constructor methods (inherited ones included).
func (r *resolver) constructors(t *sym) []*sym {
	for _, tt := range r.ancestry(t) {
		var out []*sym
		for _, ms := range r.methodsOf[tt.ID] {
			for _, m := range ms {
				if m.Kind == schema.KindConstructor {
					out = append(out, m)
				}
			}
		}
		if len(out) > 0 {
			sortSyms(out)
			return out
		}
		for _, n := range constructorNames {
			if ms := r.methodsOf[tt.ID][n]; len(ms) > 0 {
				return ms
			}
		}
	}
	return nil
}

// globalUnique returns the only symbol of that name in the language
// family, or nil.
func (r *resolver) globalUnique(tbl map[string][]*sym, fam, name string) *sym {
	if ss := tbl[key(fam, name)]; len(ss) == 1 {
		return ss[0]
	}
	return nil
}

// hasExternalAncestor reports whether t extends something outside the
// repository (so a method it lacks may live there).
func (r *resolver) hasExternalAncestor(t *sym) bool {
	for _, tt := range r.ancestry(t) {
		if len(r.heritage[tt.ID]) > len(r.parents(tt)) {
			return true
		}
	}
	return false
}

// isExternalName reports whether a receiver or name is evidently not from
// the repository: its root is an import of something outside it, or an
// identifier declared nowhere in the repository (a language global such as
// console, Math, os, System, std).
func (r *resolver) isExternalName(c ctx, recv, name string) bool {
	id := name
	if recv != "" {
		segs := splitChain(recv)
		if len(segs) == 0 {
			return false
		}
		id = segs[0]
		if _, isCall := callName(id); isCall {
			return false
		}
	}
	if c.sc.external[id] {
		return true
	}
	if recv == "" {
		return false
	}
	if builtinTypes[id] {
		return true
	}
	if r.isLocal(c, id) {
		return false
	}
	if _, _, ok := r.packageGlobal(c.sc, id); ok {
		return false
	}
	fam := Family(c.sc.f.Language)
	if len(r.typesByName[key(fam, id)]) > 0 || len(r.funcsByName[key(fam, id)]) > 0 {
		return false
	}
	if _, ok := c.sc.modules[id]; ok {
		return false
	}
	if c.caller != nil {
		if _, ok := r.facts[c.caller.ID].get(id, 0); ok {
			return false
		}
	}
	return true
}

// externalTyped reports whether id is a variable declared with a type
// that lives outside the repository (`r *http.Request`, `x: List[str]`).
func (r *resolver) externalTyped(c ctx, id string) bool {
	tf, ok := r.factOf(c.caller, c.sc.f.Path, id, c.line)
	if !ok || tf.Type == "" || strings.HasPrefix(tf.Type, "call:") || strings.HasPrefix(tf.Type, "elem:") || strings.HasPrefix(tf.Type, "expr:") {
		return false
	}
	segs := splitChain(tf.Type)
	if len(segs) == 0 {
		return false
	}
	if len(segs) > 1 {
		if _, ok := c.sc.modules[segs[0]]; ok {
			return false
		}
		return c.sc.external[segs[0]] || r.typeNamed(c, tf.Type) == nil
	}
	fam := Family(c.sc.f.Language)
	return len(r.typesByName[key(fam, segs[0])]) == 0
}

// builtinTypes are predeclared type names whose methods live outside the
// repository.
var builtinTypes = map[string]bool{
	"string": true, "error": true, "int": true, "int64": true, "int32": true, "uint": true, "uint64": true,
	"float64": true, "float32": true, "bool": true, "byte": true, "rune": true, "any": true, "interface{}": true,
	"str": true, "list": true, "dict": true, "set": true, "bytes": true, "object": true, "tuple": true,
	"String": true, "Object": true, "Array": true, "Map": true, "Set": true, "Promise": true, "number": true,
	"boolean": true, "Integer": true, "Long": true, "Boolean": true, "Double": true, "void": true, "unknown": true,
}

// isExternalType reports whether a type string as written names a type
// from outside the repository: a builtin, a type qualified by an external
// import, a function-type or map literal, or the result of a call into an
// external package.
func (r *resolver) isExternalType(c ctx, typ string) bool {
	typ = strings.TrimSpace(typ)
	if typ == "" {
		return false
	}
	expr, ok := strings.CutPrefix(typ, "call:")
	if !ok {
		expr, ok = strings.CutPrefix(typ, "elem:")
	}
	if !ok {
		expr, ok = strings.CutPrefix(typ, "expr:")
	}
	if ok {
		segs := splitChain(expr)
		return len(segs) > 1 && c.sc != nil && c.sc.external[segs[0]] && !r.isLocal(c, segs[0])
	}
	if builtinTypes[typ] || strings.HasPrefix(typ, "func") || strings.HasPrefix(typ, "map[") || strings.HasPrefix(typ, "chan") {
		return true
	}
	segs := splitChain(typ)
	if len(segs) > 1 {
		_, inRepo := c.sc.modules[segs[0]]
		return c.sc.external[segs[0]] || !inRepo && len(r.typesByName[key(Family(c.sc.f.Language), segs[len(segs)-1])]) == 0
	}
	return len(r.typesByName[key(Family(c.sc.f.Language), typ)]) == 0
}
