package resolve

import (
	"path"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// maxInfer bounds the recursion of type inference (a chain of locals
// initialised from calls whose results are other locals...).
const maxInfer = 8

// splitChain splits a receiver expression at its top-level member
// accesses: "s.db.Query()" → [s db Query()], "a::b::C" → [a b C],
// "$this->repo" → [$this repo], "r.URL.Query().Get" → [r URL Query() Get].
// Index expressions and parentheses around the whole are dropped.
func splitChain(expr string) []string {
	segs, _ := splitChainIdx(expr)
	return segs
}

// splitChainIdx is splitChain that also says which segments were indexed
// (`la[0]`: the element of la, which for a named slice type is not la's
// type).
func splitChainIdx(expr string) ([]string, []bool) {
	expr = strings.TrimSpace(expr)
	for strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") && balanced(expr[1:len(expr)-1]) {
		expr = strings.TrimSpace(expr[1 : len(expr)-1])
	}
	expr = strings.TrimLeft(expr, "*&")
	var parts []string
	depth := 0
	start := 0
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; c {
		case '(', '[', '{', '<':
			if c == '<' && depth == 0 { // generic args: Foo<Bar>::new
				depth++
				continue
			}
			depth++
		case ')', ']', '}', '>':
			if c == '>' && i > 0 && expr[i-1] == '-' { // "->"
				if depth == 0 {
					parts = append(parts, expr[start:i-1])
					start = i + 1
				}
				continue
			}
			if depth > 0 {
				depth--
			}
		case '.':
			if depth == 0 {
				parts = append(parts, expr[start:i])
				start = i + 1
			}
		case ':':
			if depth == 0 && i+1 < len(expr) && expr[i+1] == ':' {
				parts = append(parts, expr[start:i])
				start = i + 2
				i++
			}
		case '?': // optional chaining a?.b
			if depth == 0 && i+1 < len(expr) && expr[i+1] == '.' {
				parts = append(parts, expr[start:i])
				start = i + 2
				i++
			}
		}
	}
	parts = append(parts, expr[start:])
	out := parts[:0]
	var indexed []bool
	for _, p := range parts {
		p = strings.TrimSpace(p)
		ix := false
		for strings.HasSuffix(p, "]") { // x[0], f()[i] → x, f()
			i := strings.LastIndexByte(p, '[')
			if i <= 0 {
				break
			}
			p, ix = strings.TrimSpace(p[:i]), true
		}
		if p != "" {
			out = append(out, p)
			indexed = append(indexed, ix)
		}
	}
	return out, indexed
}

// elemOf is the type of an element of a value of type t: for a named
// slice, array or map type (`type Rules []*Rule`) its element type; for
// anything else t itself, because slice markers are stripped from written
// types (a variable of type []*Rule has type Rule here).
func (r *resolver) elemOf(t *sym) *sym {
	if t == nil || t.Kind != schema.KindTypeAlias {
		return t
	}
	sig := strings.TrimSpace(strings.TrimPrefix(t.Signature, "type "))
	sig = strings.TrimSpace(strings.TrimPrefix(sig, t.Name))
	sig = strings.TrimSpace(strings.TrimPrefix(sig, "="))
	var elem string
	switch {
	case strings.HasPrefix(sig, "map["):
		if i := closingBracket(sig, 3); i > 0 {
			elem = sig[i+1:]
		}
	case strings.HasPrefix(sig, "["):
		if i := closingBracket(sig, 0); i > 0 {
			elem = sig[i+1:]
		}
	default:
		return t
	}
	elem = strings.TrimLeft(strings.TrimSpace(elem), "*&")
	if e := r.typeNamed(ctx{sc: r.scopeOf(t.FilePath)}, elem); e != nil {
		return e
	}
	return nil
}

// closingBracket returns the index of the ']' matching the '[' at open.
func closingBracket(s string, open int) int {
	d := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[':
			d++
		case ']':
			d--
			if d == 0 {
				return i
			}
		}
	}
	return -1
}

func balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			d++
		case ')':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// callName returns the callee name of a segment written as a call ("F(x)"
// → "F", true); generic arguments are dropped ("F[int](x)" → "F").
func callName(seg string) (string, bool) {
	if !strings.HasSuffix(seg, ")") {
		return "", false
	}
	i := strings.IndexAny(seg, "([<")
	if i <= 0 {
		return "", false
	}
	name := strings.TrimSpace(seg[:i])
	name = strings.TrimPrefix(name, "new ")
	return name, true
}

// ctx is where an expression is evaluated: a file's scope and the symbol
// enclosing it.
type ctx struct {
	sc     *fileScope
	caller *sym
	depth  int
	line   int // the line being resolved (0: anywhere), for line-aware facts
}

func (r *resolver) scopeOf(file string) *fileScope { return r.scopes[file] }

// typeOfExpr infers the type an expression evaluates to, or nil.
func (r *resolver) typeOfExpr(c ctx, expr string) *sym {
	if c.depth > maxInfer || c.sc == nil {
		return nil
	}
	c.depth++
	segs, indexed := splitChainIdx(expr)
	if len(segs) == 0 {
		return nil
	}
	t, files := r.firstSegment(c, segs[0])
	if indexed[0] {
		t = r.elemOf(t)
	}
	for i, seg := range segs[1:] {
		switch {
		case t != nil:
			t = r.memberType(c, t, seg)
		case files != nil:
			t, files = r.moduleMember(c, files, seg)
		default:
			return nil
		}
		if indexed[i+1] {
			t = r.elemOf(t)
		}
	}
	return t
}

// firstSegment evaluates the head of a chain: a type, or a module (files).
func (r *resolver) firstSegment(c ctx, seg string) (*sym, []string) {
	if name, ok := callName(seg); ok {
		if strings.HasPrefix(seg, "new ") {
			return r.typeNamed(c, name), nil
		}
		return r.callResultType(c, name, nil), nil
	}
	if isSelf(seg) {
		return r.selfOf(c, seg), nil
	}
	if isSuper(seg) {
		if t := r.selfType(c.caller); t != nil {
			if ps := r.parents(t); len(ps) > 0 {
				return ps[0], nil
			}
		}
		return nil, nil
	}
	if tf, ok := r.factOf(c.caller, c.sc.f.Path, seg, c.line); ok {
		return r.typeFromFact(c, r.factFile(tf.Scope, c.sc.f.Path), tf.Scope, tf.Type, tf.Line), nil
	}
	if implicitThis[c.sc.f.Language] {
		// a field of the enclosing class named without this. (Java, C#, C++)
		if t := r.selfType(c.caller); t != nil {
			for _, tt := range r.ancestry(t) {
				if tf, ok := r.facts[tt.ID].get(seg, 0); ok && tf.Kind == "field" {
					return r.typeFromFact(c, tt.FilePath, tt.ID, tf.Type, 0), nil
				}
			}
		}
	}
	if c.caller != nil && c.sc.f.Language == "python" {
		// a module-level name used inside a function
		if tf, ok := r.facts["file:"+c.sc.f.Path].get(seg, 0); ok {
			return r.typeFromFact(c, c.sc.f.Path, "", tf.Type, 0), nil
		}
	}
	if files, ok := c.sc.modules[seg]; ok {
		return nil, files
	}
	if c.sc.external[seg] {
		r.extHit = true
		return nil, nil
	}
	if t := r.typeNamed(c, seg); t != nil {
		return t, nil
	}
	if tf, file, ok := r.packageGlobal(c.sc, seg); ok {
		return r.typeFromFact(ctx{sc: r.scopeOf(file), depth: c.depth}, file, "", tf.Type, 0), nil
	}
	return nil, nil
}

// memberType is the type of t.seg: a field, or the result of a method.
func (r *resolver) memberType(c ctx, t *sym, seg string) *sym {
	if name, ok := callName(seg); ok {
		ms := r.methodLookup(t, name)
		if len(ms) == 0 {
			if r.hasExternalAncestor(t) {
				// the method comes from an ancestor outside the repository
				// (a Go interface embedding http.ResponseWriter): so does
				// its result, and nothing called on it is ours.
				r.extHit = true
			}
			return nil
		}
		return r.returnType(c, ms[0])
	}
	for _, tt := range r.ancestry(t) {
		if tf, ok := r.facts[tt.ID].get(seg, 0); ok && tf.Kind == "field" {
			return r.typeFromFact(c, tt.FilePath, tt.ID, tf.Type, 0)
		}
	}
	return nil
}

// moduleMember evaluates seg inside a module (a set of files): a type, a
// function call's result, a global variable, or a submodule.
func (r *resolver) moduleMember(c ctx, files []string, seg string) (*sym, []string) {
	if name, ok := callName(seg); ok {
		return r.callResultType(c, name, files), nil
	}
	for _, f := range files {
		if ts := r.typesByFile[f][seg]; len(ts) > 0 {
			return ts[0], nil
		}
	}
	for _, f := range files {
		if tf, ok := r.facts["file:"+f].get(seg, 0); ok {
			return r.typeFromFact(ctx{sc: r.scopeOf(f), depth: c.depth}, f, "", tf.Type, 0), nil
		}
	}
	// Python package attribute that is a submodule: pkg.sub
	if len(files) == 1 && strings.HasSuffix(files[0], ".py") {
		if mod := r.files[files[0]]; mod != nil {
			if sub, ok := r.pyModuleFile(schema.Qualify(mod.Package, seg)); ok {
				return nil, []string{sub}
			}
		}
	}
	return nil, nil
}

// callResultType resolves a call of name (in files when given, else in the
// caller's scope) and returns its result type; a call of a type name
// (constructor or conversion) is that type.
func (r *resolver) callResultType(c ctx, name string, files []string) *sym {
	var cands []*sym
	if files != nil {
		for _, f := range files {
			cands = append(cands, r.topLevel(f, name)...)
		}
	} else if strings.Contains(name, ".") || strings.Contains(name, "::") {
		segs := splitChain(name)
		head, last := strings.Join(segs[:len(segs)-1], "."), segs[len(segs)-1]
		if t := r.typeOfExpr(c, head); t != nil {
			if ms := r.methodLookup(t, last); len(ms) > 0 {
				return r.returnType(c, ms[0])
			}
			return nil
		}
		if _, fs := r.firstSegment(c, head); fs != nil {
			return r.callResultType(c, last, fs)
		}
		return nil
	} else {
		cands, _ = r.bareName(c, name)
		if len(cands) == 0 {
			if t := r.typeNamed(c, name); t != nil {
				return t
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	s := cands[0]
	if s.Label == schema.LabelClass || s.Label == schema.LabelInterface {
		return s
	}
	if s.Kind == schema.KindConstructor {
		return r.syms[s.ParentID]
	}
	return r.returnType(c, s)
}

// callee resolves a call expression written without its arguments
// ("F", "pkg.F", "x.m") to the function or method it calls, or nil.
func (r *resolver) callee(c ctx, expr string) *sym {
	segs := splitChain(expr)
	if len(segs) == 0 {
		return nil
	}
	last := segs[len(segs)-1]
	if len(segs) == 1 {
		cands, _ := r.bareName(c, last)
		for _, s := range cands {
			if s.Label == schema.LabelFunction || s.Label == schema.LabelMethod {
				return s
			}
		}
		return nil
	}
	head := strings.Join(segs[:len(segs)-1], ".")
	t, files := r.firstSegment(c, head)
	if len(segs) > 2 {
		t, files = r.chainModule(c, segs[:len(segs)-1])
	}
	switch {
	case t != nil:
		return first(r.methodLookup(t, last))
	case files != nil:
		for _, f := range files {
			if fs := r.funcsByFile[f][last]; len(fs) > 0 {
				return fs[0]
			}
		}
	}
	return nil
}

// returnType is the declared (first) result type of a function or method,
// resolved in the scope of its own file.
func (r *resolver) returnType(c ctx, fn *sym) *sym {
	rets := r.returns[fn.ID]
	if len(rets) == 0 {
		return nil
	}
	ret := rets[0]
	if ret == "Self" || ret == "self" || ret == "static" || ret == "$this" {
		return r.syms[fn.ParentID]
	}
	return r.typeFromFact(c, fn.FilePath, fn.ID, ret, 0)
}

// typeFromFact resolves a fact's type string in the file that declared it:
// a type name, "call:F" (the result of F; "call:F#i" its i-th result),
// "elem:X" (an element of X) or "expr:X" (whatever expression X is). line is the fact's own line: its expression
// is evaluated just above it, so `for _, c := range c.items` reads the
// outer c.
func (r *resolver) typeFromFact(c ctx, file, scopeID, typ string, line int) *sym {
	sc := r.scopeOf(file)
	if sc == nil {
		return nil
	}
	scope := r.syms[scopeID]
	if scope != nil && scope.Label != schema.LabelFunction && scope.Label != schema.LabelMethod {
		scope = nil // a field's scope is its type: evaluate in the file
	}
	nc := ctx{sc: sc, caller: scope, depth: c.depth + 1}
	if line > 1 {
		nc.line = line - 1
	}
	if nc.depth > maxInfer {
		return nil
	}
	if expr, ok := strings.CutPrefix(typ, "expr:"); ok {
		// the value of another expression (`root := t[i].root`)
		return r.typeOfExpr(nc, expr)
	}
	if expr, ok := strings.CutPrefix(typ, "elem:"); ok {
		// the element of a slice, array or map: slice markers are stripped
		// from written types and map types resolve to their value type, so
		// the collection's type is the element's.
		return r.typeOfExpr(nc, expr)
	}
	if expr, ok := strings.CutPrefix(typ, "call:"); ok {
		if base, idx, ok := strings.Cut(expr, "#"); ok {
			i, err := strconv.Atoi(idx)
			if fn := r.callee(nc, base); fn != nil && err == nil {
				if rets := r.returns[fn.ID]; i < len(rets) {
					return r.typeFromFact(nc, fn.FilePath, fn.ID, rets[i], 0)
				}
			}
			return nil
		}
		t := r.typeOfExpr(nc, expr+"()")
		if t == nil && r.isExternalType(nc, typ) {
			r.extHit = true
		}
		return t
	}
	t := r.typeNamed(nc, typ)
	if t == nil && r.isExternalType(nc, typ) {
		r.extHit = true
	}
	return t
}

// factFile is the file a fact with this scope was declared in.
func (r *resolver) factFile(scopeID, fallback string) string {
	if s := r.syms[scopeID]; s != nil {
		return s.FilePath
	}
	return fallback
}

// typeNamed resolves a type name as written in c's file: qualified
// ("pkg.T", "a.b.T", "ns::T", "NS\T") or bare.
func (r *resolver) typeNamed(c ctx, name string) *sym {
	name = strings.TrimSpace(strings.TrimLeft(name, "*&"))
	if strings.HasPrefix(name, "map[") {
		// only elements of maps (range, index) reach here: the value type
		if i := closingBracket(name, 3); i > 0 {
			name = strings.TrimLeft(strings.TrimSpace(name[i+1:]), "*&[]")
		}
	}
	if name == "" || c.sc == nil {
		return nil
	}
	name = strings.ReplaceAll(name, "\\", ".")
	name = strings.TrimPrefix(name, ".")
	if strings.Contains(name, ".") || strings.Contains(name, "::") {
		segs := splitChain(name)
		q, n := strings.Join(segs[:len(segs)-1], "."), segs[len(segs)-1]
		if files, ok := c.sc.modules[q]; ok {
			return first(r.typesIn(files, n))
		}
		fam := Family(c.sc.f.Language)
		if ts := r.typesIn(r.byPackage[key(fam, q)], n); len(ts) > 0 {
			return ts[0]
		}
		if t := r.typeNamed(c, q); t != nil { // nested type Outer.Inner
			for _, ts := range r.typesByName[key(fam, n)] {
				if ts.FilePath == t.FilePath {
					return ts
				}
			}
		}
		if len(segs) > 1 && c.sc.f.Language == "rust" {
			mod := r.rustPath(c.sc.f.Package, strings.ReplaceAll(q, ".", "::"))
			if f, ok := r.rustMod[mod]; ok {
				return first(r.typesByFile[f][n])
			}
		}
		return nil
	}
	f := c.sc.f
	if ts := r.typesByFile[f.Path][name]; len(ts) > 0 {
		return ts[0]
	}
	for _, s := range c.sc.names[name] {
		if s.Label == schema.LabelClass || s.Label == schema.LabelInterface {
			return s
		}
	}
	if c.sc.external[name] {
		return nil
	}
	if ts := r.typesIn(r.packageFiles(f), name); len(ts) > 0 {
		return ts[0]
	}
	if ts := r.typesIn(c.sc.open, name); len(ts) > 0 {
		return ts[0]
	}
	if ts := r.typesByName[key(Family(f.Language), name)]; len(ts) == 1 {
		return ts[0]
	}
	return nil
}

func first(ss []*sym) *sym {
	if len(ss) == 0 {
		return nil
	}
	return ss[0]
}

// packageFiles are the files sharing f's package scope: the Go package
// (same directory, same package name), the Java package, the C# or PHP
// namespace. Python, JS and Rust modules are single files; C and Ruby share
// one global space, which the global-name fallback covers.
func (r *resolver) packageFiles(f *lang.Facts) []string {
	if ps, ok := r.pkgCache[f.Path]; ok {
		return ps
	}
	var out []string
	switch f.Language {
	case "go":
		for _, p := range r.dirs[path.Dir(f.Path)] {
			if g := r.files[p]; g != nil && g.Language == "go" && g.Package == f.Package {
				out = append(out, p)
			}
		}
	case "java", "csharp", "php":
		if f.Package != "" {
			out = r.byPackage[key(Family(f.Language), f.Package)]
		}
	}
	r.pkgCache[f.Path] = out
	return out
}

// packageGlobal finds a file-level variable's type fact in the package
// scope or the open files of sc.
func (r *resolver) packageGlobal(sc *fileScope, name string) (lang.TypeFact, string, bool) {
	for _, files := range [][]string{{sc.f.Path}, r.packageFiles(sc.f), sc.open} {
		for _, f := range files {
			if tf, ok := r.facts["file:"+f].get(name, 0); ok {
				return tf, f, true
			}
		}
	}
	return lang.TypeFact{}, "", false
}

// selfType is the class enclosing a method (or a nested function's
// method).
// selfOf is the class a self receiver (self, this, cls) names in c: the
// caller's enclosing class, or — in a function nested in a method, which
// sees the method's self as a captured local (a Python decorator's inner
// def: `def route(self, rule): def decorator(f): self.add_url_rule(...)`)
// — the type the caller's own facts give the name.
func (r *resolver) selfOf(c ctx, recv string) *sym {
	if t := r.selfType(c.caller); t != nil || c.caller == nil {
		return t
	}
	if tf, ok := r.facts[c.caller.ID].get(recv, c.line); ok {
		return r.typeFromFact(c, r.factFile(tf.Scope, c.sc.f.Path), tf.Scope, tf.Type, tf.Line)
	}
	return nil
}

func (r *resolver) selfType(s *sym) *sym {
	for s != nil {
		if s.ParentID == "" {
			return nil
		}
		p := r.syms[s.ParentID]
		if p == nil {
			return nil
		}
		if p.Label == schema.LabelClass || p.Label == schema.LabelInterface {
			return p
		}
		s = p
	}
	return nil
}

// parents resolves t's extends/implements/embeds clauses.
func (r *resolver) parents(t *sym) []*sym {
	if ps, ok := r.parentCache[t.ID]; ok {
		return ps
	}
	cache := r.parentCache
	if r.parentLocal != nil { // a worker: the shared cache is read-only
		if ps, ok := r.parentLocal[t.ID]; ok {
			return ps
		}
		cache = r.parentLocal
	}
	cache[t.ID] = nil // cycle guard
	var out []*sym
	sc := r.scopeOf(t.FilePath)
	for _, h := range r.heritage[t.ID] {
		if p := r.typeNamed(ctx{sc: sc}, h.Parent); p != nil && p.ID != t.ID {
			out = append(out, p)
		}
	}
	cache[t.ID] = out
	return out
}

// ancestry is t followed by its ancestors, breadth first, each once.
func (r *resolver) ancestry(t *sym) []*sym {
	out := []*sym{t}
	seen := map[string]bool{t.ID: true}
	for i := 0; i < len(out) && i < 64; i++ {
		for _, p := range r.parents(out[i]) {
			if !seen[p.ID] {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// methodLookup finds name among t's methods, then its ancestors' (the
// nearest level that has it).
func (r *resolver) methodLookup(t *sym, name string) []*sym {
	for _, tt := range r.ancestry(t) {
		if ms := r.methodsOf[tt.ID][name]; len(ms) > 0 {
			return ms
		}
	}
	return nil
}
