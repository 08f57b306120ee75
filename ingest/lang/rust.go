package lang

// Rust extraction.
//
// Conventions:
//   - Facts.Package is the module path the file's location implies, in
//     Rust's own spelling: the path after the last "src/" directory with
//     ".rs" dropped and "/" turned into "::"; mod.rs names its directory and
//     the crate roots lib.rs and main.rs are "" ("src/net/server.rs" →
//     "net::server", "src/net/mod.rs" → "net", "crates/x/src/lib.rs" → "").
//     Files outside any src/ use their whole path.
//   - QualifiedNames join inline `mod x { }` blocks, the impl's type and the
//     item with "." ("tests.helper", "Server.run"). The file's own module
//     path is not repeated (it is Facts.Package).
//   - Symbols: fn → function, fns in impl and trait blocks → method (trait
//     method signatures without a body included), struct, enum, union,
//     trait → trait, type alias → type_alias, `mod x { }` → module. A method's
//     ParentID is its type (or trait) when that is declared in the file;
//     otherwise it gets TypeFact{Scope: method id, Name: "receiver", Type:
//     the impl type, Kind: "receiver"}.
//   - IsExported: a plain `pub` (pub(crate) and pub(super) are not); methods
//     of `impl Trait for T` and of a trait follow the trait (always treated as
//     exported for impls, the trait's own visibility for trait bodies).
//   - Heritage: `impl Trait for T` → implements, with ChildID T's id when T
//     is declared in the file, else TypeFact{Scope: "", Name: T, Type:
//     Trait, Kind: "impl"}; supertraits `trait A: B + C` → extends.
//   - Imports: `use a::b::C;` → Spec "a::b", Names [C]; `use a::{b, c::d}`
//     → Spec "a", Names [b, c::d]; an aliased item is its own Import with
//     Alias; `use a::*` → Kind "wildcard"; `mod x;` → Kind "mod", Spec x;
//     `extern crate x [as y];` → Kind "crate".
//   - Calls: `x.f()` has Receiver "x", `T::f()` Receiver "T" (Kind "call":
//     `Server::new()` is an ordinary call). Macros are not calls, but
//     `f(..)`, `x.f(..)` and `T::f(..)` inside their token trees are (Args
//     -1 when there are arguments: token trees do not delimit them; the
//     receiver is only the token before the "." or "::").
//     Lower-case identifiers passed as arguments that are not parameters or
//     locals (`spawn(worker)`) and paths ending in a lower-case name
//     (`map(Self::fmt)`) are Kind "reference".
//   - TypeFacts: struct fields, parameters (`&dyn Handler` → Handler),
//     typed lets, return types; `Self` is replaced by the impl type.

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsrs "github.com/tree-sitter/tree-sitter-rust/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "rust",
		Extensions: []string{".rs"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsrs.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &rustWalker{f: f}
			w.run(root)
		},
	})
}

// rustModulePath derives a file's module path from its repo-relative path.
func rustModulePath(p string) string {
	segs := strings.Split(p, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i] == "src" {
			segs = segs[i+1:]
			break
		}
	}
	if len(segs) == 0 {
		return ""
	}
	last := strings.TrimSuffix(segs[len(segs)-1], ".rs")
	segs[len(segs)-1] = last
	switch {
	case last == "mod":
		segs = segs[:len(segs)-1]
	case len(segs) == 1 && (last == "lib" || last == "main"):
		segs = nil
	}
	return strings.Join(segs, "::")
}

// rustImpl is the impl or trait block being walked.
type rustImpl struct {
	typ      string // the impl's type name (or the trait's own name)
	trait    string // the implemented trait, "" for inherent impls
	parentID string // the trait's id when walking a trait body
	exported bool   // members are exported without `pub` (trait impls, pub traits)
}

type rustPending struct {
	id, qualified, typ, trait string
	line                      int
}

type rustWalker struct {
	f      *File
	mods   []string
	impl   *rustImpl
	locals map[string]bool
	self   string        // the impl type `Self` stands for, "" outside impls
	recvs  []rustPending // impl methods: receiver type to link
	impls  []rustPending // impl Trait for Type
}

func (w *rustWalker) run(root *sitter.Node) {
	w.f.Facts.Package = rustModulePath(w.f.Path)
	w.walk(root, "")
	lxLinkParents(w.f)
	w.resolve()
}

// walk visits n and, unless its handler took care of them, its
// descendants.
func (w *rustWalker) walk(n *sitter.Node, caller string) {
	if w.visit(n, kindOf(n), caller) {
		w.walkChildren(n, caller)
	}
}

// walkChildren visits n's named descendants in source order with the
// tree traversal done in C (walkNamedKind); a visit that returns false has
// handled its node's subtree itself.
func (w *rustWalker) walkChildren(n *sitter.Node, caller string) {
	w.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool { return w.visit(c, kind, caller) })
}

// visit handles one node and reports whether its descendants still need
// visiting.
func (w *rustWalker) visit(n *sitter.Node, kind, caller string) bool {
	switch kind {
	case "line_comment", "block_comment", "attribute_item", "inner_attribute_item", "macro_definition":
		return false
	case "macro_invocation":
		// Macro arguments are token trees, not expressions; calls inside
		// them (println!("{}", x.len()), assert!(f(x))) are recovered from
		// the token sequence.
		namedChildren(n, func(c *sitter.Node) {
			if kindOf(c) == "token_tree" {
				w.tokenCalls(c, caller)
			}
		})
		return false
	case "use_declaration":
		w.use(field(n, "argument"), "", lineOf(n))
		return false
	case "extern_crate_declaration":
		w.f.Facts.Imports = append(w.f.Facts.Imports, Import{Spec: fieldText(w.f, n, "name"), Alias: fieldText(w.f, n, "alias"), Kind: "crate", Line: lineOf(n)})
		return false
	case "mod_item":
		w.mod(n, caller)
		return false
	case "struct_item", "enum_item", "union_item", "type_item", "trait_item":
		w.typeItem(n, caller)
		return false
	case "impl_item":
		w.implItem(n, caller)
		return false
	case "function_item", "function_signature_item":
		w.function(n, caller)
		return false
	case "let_declaration":
		w.let(n, caller)
		return false
	case "closure_expression":
		if w.locals != nil {
			w.patternNames(field(n, "parameters"), func(name string) { w.locals[name] = true })
		}
	case "match_pattern", "let_condition", "for_expression":
		// Bindings of match arms, if/while let and for loops are locals.
		pat := field(n, "pattern")
		if kindOf(n) == "match_pattern" {
			pat = n
		}
		if w.locals != nil {
			w.patternNames(pat, func(name string) { w.locals[name] = true })
		}
	case "call_expression":
		w.call(n, caller)
	}
	return true
}

// rustDoc is the block of comments directly above an item, skipping the
// attributes between them (`/// doc` then `#[derive(..)]` then the item).
func rustDoc(f *File, n *sitter.Node) string {
	return lxTextDoc(f.Src, n.StartByte(), lxDocStyle{rustAttrs: true})
}

// rustPub reports whether an item is plainly `pub`.
func rustPub(f *File, n *sitter.Node) bool {
	pub := false
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "visibility_modifier" && f.Text(c) == "pub" {
			pub = true
		}
	})
	return pub
}

// use flattens one use tree into Imports. prefix is the path of the
// enclosing use list, "" at the top.
func (w *rustWalker) use(arg *sitter.Node, prefix string, line int) {
	join := func(a, b string) string {
		if a == "" {
			return b
		}
		if b == "" {
			return a
		}
		return a + "::" + b
	}
	split := func(p string) (string, string) {
		if i := strings.LastIndex(p, "::"); i >= 0 {
			return p[:i], p[i+2:]
		}
		return "", p
	}
	add := func(imp Import) {
		imp.Line = line
		w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
	}
	switch kindOf(arg) {
	case "":
		return
	case "use_as_clause":
		full := join(prefix, w.f.Text(field(arg, "path")))
		spec, name := split(full)
		if spec == "" {
			add(Import{Spec: name, Alias: fieldText(w.f, arg, "alias")})
			return
		}
		add(Import{Spec: spec, Names: []string{name}, Alias: fieldText(w.f, arg, "alias")})
	case "use_wildcard":
		var path string
		namedChildren(arg, func(c *sitter.Node) { path = w.f.Text(c) })
		if spec := join(prefix, path); spec != "" { // `use *;` (2015 edition) names nothing
			add(Import{Spec: spec, Kind: "wildcard"})
		}
	case "scoped_use_list", "use_list":
		list := arg
		p := prefix
		if kindOf(arg) == "scoped_use_list" {
			p = join(prefix, fieldText(w.f, arg, "path"))
			list = field(arg, "list")
		}
		var names []string
		namedChildren(list, func(c *sitter.Node) {
			switch kindOf(c) {
			case "identifier", "self", "scoped_identifier", "crate", "super":
				names = append(names, w.f.Text(c))
			case "use_as_clause", "use_wildcard", "scoped_use_list", "use_list":
				w.use(c, p, line)
			}
		})
		if len(names) > 0 {
			add(Import{Spec: p, Names: names})
		}
	default: // identifier, scoped_identifier, crate, self, super
		full := join(prefix, w.f.Text(arg))
		spec, name := split(full)
		if spec == "" {
			add(Import{Spec: name})
			return
		}
		add(Import{Spec: spec, Names: []string{name}})
	}
}

func (w *rustWalker) mod(n *sitter.Node, caller string) {
	name := fieldText(w.f, n, "name")
	body := field(n, "body")
	if body == nil {
		w.f.Facts.Imports = append(w.f.Facts.Imports, Import{Spec: name, Kind: "mod", Line: lineOf(n)})
		return
	}
	w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: lxJoin(append(w.mods, name)...), Kind: schema.KindModule,
		Signature: signatureOf(w.f, n, body), DocComment: rustDoc(w.f, n), IsExported: rustPub(w.f, n),
	}, n)
	w.mods = append(w.mods, name)
	savedImpl := w.impl
	w.impl = nil
	w.walkChildren(body, caller)
	w.impl = savedImpl
	w.mods = w.mods[:len(w.mods)-1]
}

func (w *rustWalker) typeItem(n *sitter.Node, caller string) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	var kind schema.Kind
	switch kindOf(n) {
	case "struct_item":
		kind = schema.KindStruct
	case "enum_item":
		kind = schema.KindEnum
	case "union_item":
		kind = schema.KindUnion
	case "type_item":
		kind = schema.KindTypeAlias
	default:
		kind = schema.KindTrait
	}
	body := field(n, "body")
	qname := lxJoin(append(append([]string{}, w.mods...), name)...)
	exported := rustPub(w.f, n)
	id := w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: qname, Kind: kind,
		Signature: signatureOf(w.f, n, body), DocComment: rustDoc(w.f, n), IsExported: exported,
	}, n)
	switch kind {
	case schema.KindStruct, schema.KindUnion:
		namedChildren(body, func(fd *sitter.Node) {
			if kindOf(fd) != "field_declaration" {
				return
			}
			if t := w.typeName(field(fd, "type")); t != "" {
				w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: fieldText(w.f, fd, "name"), Type: t, Kind: "field", Line: lineOf(fd)})
			}
		})
	case schema.KindTrait:
		namedChildren(field(n, "bounds"), func(b *sitter.Node) {
			if t := w.typeName(b); t != "" {
				w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: id, Parent: t, Kind: "extends", Line: lineOf(b)})
			}
		})
		saved := w.impl
		w.impl = &rustImpl{typ: qname, parentID: id, exported: exported}
		w.walkChildren(body, caller)
		w.impl = saved
	}
}

// typeName reduces a type node to the name the resolver links, "" for
// primitives, tuples, arrays of primitives and the like.
func (w *rustWalker) typeName(t *sitter.Node) string {
	switch kindOf(t) {
	case "", "primitive_type", "unit_type", "tuple_type", "never_type", "function_type":
		return ""
	case "reference_type", "pointer_type", "array_type", "slice_type":
		return w.typeName(field(t, "type"))
	case "generic_type":
		return w.typeName(field(t, "type"))
	case "dynamic_type", "abstract_type":
		tr := field(t, "trait")
		if tr == nil {
			namedChildren(t, func(c *sitter.Node) {
				if tr == nil {
					tr = c
				}
			})
		}
		return w.typeName(tr)
	case "bounded_type":
		var first *sitter.Node
		namedChildren(t, func(c *sitter.Node) {
			if first == nil && kindOf(c) != "lifetime" {
				first = c
			}
		})
		return w.typeName(first)
	}
	s := baseType(w.f.Text(t))
	if s == "Self" && w.self != "" {
		return w.self
	}
	return s
}

// rustLastSegment is the last "::" segment of a path.
func rustLastSegment(p string) string {
	if i := strings.LastIndex(p, "::"); i >= 0 {
		return p[i+2:]
	}
	return p
}

func (w *rustWalker) implItem(n *sitter.Node, caller string) {
	typ := rustLastSegment(w.typeName(field(n, "type")))
	trait := ""
	if tr := field(n, "trait"); tr != nil {
		trait = baseType(w.f.Text(tr))
	}
	if typ == "" {
		w.walkChildren(field(n, "body"), caller)
		return
	}
	if trait != "" {
		w.impls = append(w.impls, rustPending{qualified: lxJoin(append(append([]string{}, w.mods...), typ)...), typ: typ, trait: trait, line: lineOf(n)})
	}
	saved, savedSelf := w.impl, w.self
	w.impl, w.self = &rustImpl{typ: typ, trait: trait, exported: trait != ""}, typ
	w.walkChildren(field(n, "body"), caller)
	w.impl, w.self = saved, savedSelf
}

func (w *rustWalker) function(n *sitter.Node, caller string) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	body := field(n, "body")
	sym := schema.Symbol{Name: name, Signature: signatureOf(w.f, n, body), DocComment: rustDoc(w.f, n)}
	impl := w.impl
	if impl != nil {
		sym.Kind = schema.KindMethod
		sym.IsExported = rustPub(w.f, n) || impl.exported
		if impl.parentID != "" { // trait body
			sym.QualifiedName = lxJoin(impl.typ, name)
			sym.ParentID = impl.parentID
		} else {
			sym.QualifiedName = lxJoin(append(append([]string{}, w.mods...), impl.typ, name)...)
		}
	} else {
		sym.Kind = schema.KindFunction
		sym.QualifiedName = lxJoin(append(append([]string{}, w.mods...), name)...)
		sym.IsExported = rustPub(w.f, n)
	}
	id := w.f.AddSymbol(sym, n)
	if impl != nil && impl.parentID == "" {
		w.recvs = append(w.recvs, rustPending{id: id, typ: impl.typ, line: lineOf(n)})
	}
	if rt := w.typeName(field(n, "return_type")); rt != "" {
		w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "return", Type: rt, Kind: "return", Line: lineOf(n)})
	}
	saved := w.locals
	w.locals = map[string]bool{}
	namedChildren(field(n, "parameters"), func(p *sitter.Node) {
		if kindOf(p) != "parameter" {
			return
		}
		pat := field(p, "pattern")
		w.patternNames(pat, func(nm string) { w.locals[nm] = true })
		if nm := rustSimpleName(w.f, pat); nm != "" {
			if t := w.typeName(field(p, "type")); t != "" {
				w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: nm, Type: t, Kind: "param", Line: lineOf(p)})
			}
		}
	})
	// Items nested in a function body are not impl members.
	w.impl = nil
	w.walkChildren(body, id)
	w.impl = impl
	w.locals = saved
}

// rustSimpleName is the bound name of an `x` or `mut x` pattern, "" for
// destructuring patterns.
func rustSimpleName(f *File, pat *sitter.Node) string {
	switch kindOf(pat) {
	case "identifier":
		return f.Text(pat)
	case "mut_pattern":
		var id string
		namedChildren(pat, func(c *sitter.Node) {
			if kindOf(c) == "identifier" {
				id = f.Text(c)
			}
		})
		return id
	}
	return ""
}

// patternNames calls fn for every identifier a pattern binds.
func (w *rustWalker) patternNames(pat *sitter.Node, fn func(string)) {
	if pat == nil {
		return
	}
	if kindOf(pat) == "identifier" {
		fn(w.f.Text(pat))
		return
	}
	walkNamed(pat, func(c *sitter.Node) bool {
		switch kindOf(c) {
		case "identifier":
			// In `Some(x)` and `Foo { a: x }` the path is an identifier too;
			// only lower-case names can be bindings.
			if t := w.f.Text(c); t != "" && !(t[0] >= 'A' && t[0] <= 'Z') {
				fn(t)
			}
		case "type_identifier", "scoped_identifier", "scoped_type_identifier":
			return false
		}
		return true
	})
}

func (w *rustWalker) let(n *sitter.Node, caller string) {
	pat := field(n, "pattern")
	if w.locals != nil {
		w.patternNames(pat, func(nm string) { w.locals[nm] = true })
	}
	if nm := rustSimpleName(w.f, pat); nm != "" && caller != "" {
		if t := w.typeName(field(n, "type")); t != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: caller, Name: nm, Type: t, Kind: "local", Line: lineOf(n)})
		}
	}
	if v := field(n, "value"); v != nil {
		w.walk(v, caller)
	}
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "block" && (field(n, "value") == nil || c.Id() != field(n, "value").Id()) { // let-else
			w.walk(c, caller)
		}
	})
}

func (w *rustWalker) call(n *sitter.Node, caller string) {
	fn := field(n, "function")
	if kindOf(fn) == "generic_function" {
		fn = field(fn, "function")
	}
	var name, recv string
	switch kindOf(fn) {
	case "identifier":
		name = w.f.Text(fn)
	case "field_expression":
		name = fieldText(w.f, fn, "field")
		recv = exprText(w.f, field(fn, "value"))
	case "scoped_identifier":
		name = fieldText(w.f, fn, "name")
		recv = baseType(fieldText(w.f, fn, "path"))
	}
	args := field(n, "arguments")
	if name != "" {
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "call", Args: lxArgCount(w.f, args), Line: lineOf(n)})
	}
	namedChildren(args, func(a *sitter.Node) {
		var nm, rc string
		switch kindOf(a) {
		case "identifier":
			nm = w.f.Text(a)
			if w.locals[nm] {
				return
			}
		case "scoped_identifier":
			nm, rc = fieldText(w.f, a, "name"), fieldText(w.f, a, "path")
		default:
			return
		}
		if nm == "" || !(nm[0] >= 'a' && nm[0] <= 'z' || nm[0] == '_') || lxIsConstName(nm) || nm == "self" {
			return
		}
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: nm, Receiver: rc, Kind: "reference", Args: -1, Line: lineOf(a)})
	})
}

// tokenCalls records `name(...)`, `recv.name(...)` and `Path::name(...)`
// sequences inside a macro's token tree as calls.
func (w *rustWalker) tokenCalls(tt *sitter.Node, caller string) {
	var toks []*sitter.Node
	children(tt, func(c *sitter.Node) { toks = append(toks, c) })
	for i, c := range toks {
		k := kindOf(c)
		if k == "token_tree" {
			w.tokenCalls(c, caller)
			continue
		}
		if k != "identifier" || i+1 >= len(toks) || toks[i+1].Kind() != "token_tree" {
			continue
		}
		args := toks[i+1]
		if args.ChildCount() == 0 || args.Child(0).Kind() != "(" {
			continue
		}
		name := w.f.Text(c)
		if !lxIdentLike(name) || name[0] >= 'A' && name[0] <= 'Z' {
			continue // tuple structs and enum variants: Some(x), Ok(v)
		}
		recv := ""
		if i >= 2 {
			if sep := toks[i-1].Kind(); sep == "." || sep == "::" {
				switch toks[i-2].Kind() {
				case "identifier", "self", "crate", "super":
					recv = w.f.Text(toks[i-2])
				}
			}
		}
		argc := 0
		if args.NamedChildCount() > 0 || args.ChildCount() > 2 {
			argc = -1 // token trees do not delimit arguments
		}
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "call", Args: argc, Line: lineOf(c)})
	}
}

// resolve links impl methods and trait impls to types of this file, or
// records them as TypeFacts for the resolver.
func (w *rustWalker) resolve() {
	types := map[string]string{}
	parentOf := map[string]string{}
	for _, s := range w.f.Facts.Symbols {
		switch s.Kind {
		case schema.KindStruct, schema.KindEnum, schema.KindUnion, schema.KindTypeAlias, schema.KindTrait:
			types[s.QualifiedName] = s.ID
		}
		parentOf[s.ID] = s.ParentID
	}
	for _, r := range w.recvs {
		if parentOf[r.id] == "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: r.id, Name: "receiver", Type: r.typ, Kind: "receiver", Line: r.line})
		}
	}
	for _, im := range w.impls {
		if id, ok := types[im.qualified]; ok {
			w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: id, Parent: im.trait, Kind: "implements", Line: im.line})
		} else {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Name: im.typ, Type: im.trait, Kind: "impl", Line: im.line})
		}
	}
}
