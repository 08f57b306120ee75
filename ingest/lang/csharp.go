package lang

// C# extraction.
//
// Conventions:
//   - Facts.Package is the first namespace of the file (block or
//     file-scoped), as written ("Acme.Orders"). QualifiedNames do not repeat
//     it: they join enclosing types and the member with "."
//     ("OrderService.Place", "Outer.Inner.Run").
//   - Symbols: class, struct, record (and record struct) → record,
//     interface, enum, delegate → type_alias, methods (interface members
//     included), constructors and destructors → constructor. Properties,
//     fields, events, operators and local functions are not symbols.
//   - IsExported: the declaration says `public`; interface members are
//     exported when their interface is.
//   - Heritage: a base that is declared in the same file takes its kind
//     from that declaration (interface → implements, otherwise extends).
//     Otherwise, for classes and records the first base is extends unless
//     its name looks like an interface (I followed by an upper-case letter),
//     and every other base is implements; struct bases are implements;
//     interface bases are extends.
//   - Imports: `using A.B;` → Spec "A.B"; `using X = A.B;` → Alias "X";
//     `using static A.B;` → Kind "static".
//   - Calls: Receiver is the text before the member name ("this",
//     "_repo", "Helpers", "a?.b" without the trailing "."); `new T()` is
//     Kind "new" with Name T (and Receiver the namespace of a qualified T);
//     target-typed `new()` takes the declared type of its variable.
//     PascalCase identifiers passed as arguments that are not parameters,
//     locals, fields or properties (`items.ForEach(Process)`) are Kind
//     "reference". Calls outside any method body (field initializers,
//     property accessors) have CallerID "".
//   - TypeFacts: fields and properties (Kind "field"), parameters, locals
//     (`var x = new T()` is typed T), return types; predefined types
//     (int, string, ...) are left out.

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscs "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "csharp",
		Extensions: []string{".cs"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tscs.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &csWalker{f: f}
			w.run(root)
		},
	})
}

type csType struct {
	id, qname string
	kind      schema.Kind
	exported  bool
	members   map[string]bool // field and property names
}

// csBase is a base-list entry waiting for the whole file to be seen.
type csBase struct {
	childID   string
	childKind schema.Kind
	parent    string
	index     int
	line      int
}

type csWalker struct {
	f      *File
	types  []csType
	locals map[string]bool
	bases  []csBase
}

func (w *csWalker) run(root *sitter.Node) {
	w.walk(root, "")
	w.resolveBases()
	lxLinkParents(w.f)
}

// walk visits n and, unless its handler took care of them, its
// descendants.
func (w *csWalker) walk(n *sitter.Node, caller string) {
	if w.visit(n, kindOf(n), caller) {
		w.walkChildren(n, caller)
	}
}

// walkChildren visits n's named descendants in source order with the
// tree traversal done in C (walkNamedKind); a visit that returns false has
// handled its node's subtree itself.
func (w *csWalker) walkChildren(n *sitter.Node, caller string) {
	w.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool { return w.visit(c, kind, caller) })
}

// visit handles one node and reports whether its descendants still need
// visiting.
func (w *csWalker) visit(n *sitter.Node, kind, caller string) bool {
	switch kind {
	case "comment":
		return false
	case "using_directive":
		w.using(n)
		return false
	case "namespace_declaration", "file_scoped_namespace_declaration":
		if w.f.Facts.Package == "" {
			w.f.Facts.Package = fieldText(w.f, n, "name")
		}
		w.walkChildren(field(n, "body"), caller)
		return false
	case "class_declaration", "struct_declaration", "record_declaration", "interface_declaration", "enum_declaration":
		w.typeDecl(n)
		return false
	case "delegate_declaration":
		name := fieldText(w.f, n, "name")
		w.f.AddSymbol(schema.Symbol{
			Name: name, QualifiedName: lxJoin(w.prefix(), name), Kind: schema.KindTypeAlias,
			Signature: signatureOf(w.f, n, nil), DocComment: csDoc(w.f, n), IsExported: w.exported(n),
		}, n)
		return false
	case "method_declaration", "constructor_declaration", "destructor_declaration":
		w.method(n)
		return false
	case "field_declaration", "property_declaration", "event_field_declaration":
		w.member(n, caller)
		return false
	case "local_declaration_statement":
		w.local(n, caller)
		return false
	case "invocation_expression":
		w.invocation(n, caller)
	case "object_creation_expression", "implicit_object_creation_expression":
		w.creation(n, caller)
	}
	return true
}

func (w *csWalker) prefix() string {
	if len(w.types) == 0 {
		return ""
	}
	return w.types[len(w.types)-1].qname
}

// exported reports whether a declaration is public: it says `public`, or it
// is an interface member of an exported interface.
func (w *csWalker) exported(n *sitter.Node) bool {
	public, hasAccess := false, false
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) != "modifier" {
			return
		}
		switch w.f.Text(c) {
		case "public":
			public, hasAccess = true, true
		case "private", "protected", "internal":
			hasAccess = true
		}
	})
	if !hasAccess && len(w.types) > 0 {
		top := w.types[len(w.types)-1]
		if top.kind == schema.KindInterface {
			return top.exported
		}
	}
	return public
}

func (w *csWalker) using(n *sitter.Node) {
	imp := Import{Line: lineOf(n), Alias: fieldText(w.f, n, "name")}
	children(n, func(c *sitter.Node) {
		switch kindOf(c) {
		case "static":
			imp.Kind = "static"
		case "qualified_name", "identifier", "generic_name":
			if field(n, "name") != nil && c.Id() == field(n, "name").Id() {
				return
			}
			imp.Spec = w.f.Text(c)
		}
	})
	if imp.Spec != "" {
		w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
	}
}

func (w *csWalker) typeDecl(n *sitter.Node) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	var kind schema.Kind
	switch kindOf(n) {
	case "class_declaration":
		kind = schema.KindClass
	case "struct_declaration":
		kind = schema.KindStruct
	case "record_declaration":
		kind = schema.KindRecord
	case "interface_declaration":
		kind = schema.KindInterface
	default:
		kind = schema.KindEnum
	}
	body := field(n, "body")
	sigEnd := body
	qname := lxJoin(w.prefix(), name)
	exported := w.exported(n)
	id := w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: qname, Kind: kind,
		Signature: signatureOf(w.f, n, sigEnd), DocComment: csDoc(w.f, n), IsExported: exported,
	}, n)
	t := csType{id: id, qname: qname, kind: kind, exported: exported, members: map[string]bool{}}
	namedChildren(n, func(c *sitter.Node) {
		switch kindOf(c) {
		case "base_list":
			i := 0
			namedChildren(c, func(b *sitter.Node) {
				if isCommentKind(kindOf(b)) {
					return
				}
				if kindOf(b) == "primary_constructor_base_type" {
					b = field(b, "type")
				}
				if p := baseType(w.f.Text(b)); p != "" {
					w.bases = append(w.bases, csBase{childID: id, childKind: kind, parent: p, index: i, line: lineOf(b)})
				}
				i++
			})
		case "parameter_list": // record primary constructor: its parameters are properties
			namedChildren(c, func(p *sitter.Node) {
				if pn := fieldText(w.f, p, "name"); pn != "" {
					t.members[pn] = true
					if typ := csTypeName(w.f, field(p, "type")); typ != "" {
						w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: pn, Type: typ, Kind: "field", Line: lineOf(p)})
					}
				}
			})
		}
	})
	if kind == schema.KindEnum {
		return
	}
	// Fields and properties are collected first so that method bodies
	// above their declaration still know them.
	namedChildren(body, func(c *sitter.Node) {
		switch kindOf(c) {
		case "field_declaration", "event_field_declaration":
			namedChildren(csVarDecl(c), func(d *sitter.Node) {
				if kindOf(d) == "variable_declarator" {
					t.members[fieldText(w.f, d, "name")] = true
				}
			})
		case "property_declaration", "event_declaration":
			t.members[fieldText(w.f, c, "name")] = true
		}
	})
	w.types = append(w.types, t)
	w.walkChildren(body, "")
	w.types = w.types[:len(w.types)-1]
}

// csVarDecl is the variable_declaration child of a field or local
// declaration.
func csVarDecl(n *sitter.Node) *sitter.Node {
	var v *sitter.Node
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "variable_declaration" {
			v = c
		}
	})
	return v
}

// csTypeName is the bare name of a declared type, "" for predefined types,
// var and tuples.
func csTypeName(f *File, t *sitter.Node) string {
	switch kindOf(t) {
	case "", "predefined_type", "implicit_type", "tuple_type", "function_pointer_type":
		return ""
	case "nullable_type", "array_type", "pointer_type", "ref_type":
		var inner *sitter.Node
		namedChildren(t, func(c *sitter.Node) {
			if inner == nil {
				inner = c
			}
		})
		if ft := field(t, "type"); ft != nil {
			inner = ft
		}
		return csTypeName(f, inner)
	}
	return baseType(f.Text(t))
}

func (w *csWalker) resolveBases() {
	declared := map[string]schema.Kind{}
	for _, s := range w.f.Facts.Symbols {
		if s.Label == schema.LabelClass || s.Label == schema.LabelInterface {
			declared[s.Name] = s.Kind
		}
	}
	for _, b := range w.bases {
		short := b.parent
		if i := strings.LastIndexByte(short, '.'); i >= 0 {
			short = short[i+1:]
		}
		kind := "implements"
		if pk, ok := declared[short]; ok {
			if pk != schema.KindInterface {
				kind = "extends"
			}
		} else {
			switch b.childKind {
			case schema.KindInterface:
				kind = "extends"
			case schema.KindClass, schema.KindRecord:
				if b.index == 0 && !csLooksLikeInterface(short) {
					kind = "extends"
				}
			}
		}
		if b.childKind == schema.KindInterface {
			kind = "extends"
		}
		w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: b.childID, Parent: b.parent, Kind: kind, Line: b.line})
	}
}

// csLooksLikeInterface: the .NET naming convention, I followed by an
// upper-case letter (IDisposable, IRepository).
func csLooksLikeInterface(name string) bool {
	return len(name) >= 2 && name[0] == 'I' && name[1] >= 'A' && name[1] <= 'Z'
}

func (w *csWalker) method(n *sitter.Node) {
	name := fieldText(w.f, n, "name")
	if name == "" || len(w.types) == 0 {
		return
	}
	top := w.types[len(w.types)-1]
	kind := schema.KindMethod
	if kindOf(n) != "method_declaration" {
		kind = schema.KindConstructor
		if kindOf(n) == "destructor_declaration" {
			name = "~" + name
		}
	}
	body := field(n, "body")
	sigEnd := body
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "constructor_initializer" {
			sigEnd = c
		}
	})
	id := w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: lxJoin(top.qname, name), Kind: kind,
		Signature: signatureOf(w.f, n, sigEnd), DocComment: csDoc(w.f, n),
		IsExported: w.exported(n), ParentID: top.id,
	}, n)
	if rt := csTypeName(w.f, field(n, "returns")); rt != "" {
		w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "return", Type: rt, Kind: "return", Line: lineOf(n)})
	}
	saved := w.locals
	w.locals = map[string]bool{}
	namedChildren(field(n, "parameters"), func(p *sitter.Node) {
		pn := fieldText(w.f, p, "name")
		if pn == "" {
			return
		}
		w.locals[pn] = true
		if t := csTypeName(w.f, field(p, "type")); t != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: pn, Type: t, Kind: "param", Line: lineOf(p)})
		}
	})
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "constructor_initializer" {
			w.walk(c, id)
		}
	})
	if body != nil {
		w.walk(body, id)
	}
	w.locals = saved
}

// member records field and property types and walks their initializers.
func (w *csWalker) member(n *sitter.Node, caller string) {
	scope := ""
	if len(w.types) > 0 {
		scope = w.types[len(w.types)-1].id
	}
	if kindOf(n) == "property_declaration" {
		if t := csTypeName(w.f, field(n, "type")); t != "" && scope != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: scope, Name: fieldText(w.f, n, "name"), Type: t, Kind: "field", Line: lineOf(n)})
		}
		w.walkChildren(n, caller)
		return
	}
	v := csVarDecl(n)
	typ := csTypeName(w.f, field(v, "type"))
	namedChildren(v, func(d *sitter.Node) {
		if kindOf(d) != "variable_declarator" {
			return
		}
		if typ != "" && scope != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: scope, Name: fieldText(w.f, d, "name"), Type: typ, Kind: "field", Line: lineOf(d)})
		}
		w.walkChildren(d, caller)
	})
}

func (w *csWalker) local(n *sitter.Node, caller string) {
	v := csVarDecl(n)
	typ := csTypeName(w.f, field(v, "type"))
	namedChildren(v, func(d *sitter.Node) {
		if kindOf(d) != "variable_declarator" {
			return
		}
		name := fieldText(w.f, d, "name")
		if w.locals != nil {
			w.locals[name] = true
		}
		t := typ
		if t == "" { // var x = new T(...)
			namedChildren(d, func(c *sitter.Node) {
				if kindOf(c) == "object_creation_expression" {
					t = csTypeName(w.f, field(c, "type"))
				}
			})
		}
		if t != "" && caller != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: caller, Name: name, Type: t, Kind: "local", Line: lineOf(d)})
		}
		w.walkChildren(d, caller)
	})
}

func (w *csWalker) invocation(n *sitter.Node, caller string) {
	fn := field(n, "function")
	args := field(n, "arguments")
	var nameNode *sitter.Node
	recv := ""
	switch kindOf(fn) {
	case "identifier":
		nameNode = fn
	case "generic_name":
		nameNode = fn
	case "member_access_expression":
		nameNode = field(fn, "name")
		if nameNode != nil {
			recv = csTrimRecv(collapseSpace(w.f.Src[fn.StartByte():nameNode.StartByte()], signatureCap))
		}
	case "conditional_access_expression":
		namedChildren(fn, func(c *sitter.Node) {
			if kindOf(c) == "member_binding_expression" {
				nameNode = field(c, "name")
			}
		})
		recv = exprText(w.f, field(fn, "condition"))
	}
	name := w.f.Text(nameNode)
	if kindOf(nameNode) == "generic_name" {
		name = ""
		namedChildren(nameNode, func(c *sitter.Node) {
			if name == "" && kindOf(c) == "identifier" {
				name = w.f.Text(c)
			}
		})
	}
	if name != "" {
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "call", Args: lxArgCount(w.f, args), Line: lineOf(n)})
	}
	w.references(args, caller)
}

// csTrimRecv drops the member-access punctuation that ends a receiver.
func csTrimRecv(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	s = strings.TrimSuffix(s, "?")
	s = strings.TrimSuffix(s, "->")
	return strings.TrimSpace(s)
}

// references records method groups passed as arguments.
func (w *csWalker) references(args *sitter.Node, caller string) {
	namedChildren(args, func(a *sitter.Node) {
		var id *sitter.Node
		namedChildren(a, func(c *sitter.Node) {
			if id == nil {
				id = c
			}
		})
		if kindOf(id) != "identifier" {
			return
		}
		nm := w.f.Text(id)
		if nm == "" || nm[0] < 'A' || nm[0] > 'Z' || w.locals[nm] || lxIsConstName(nm) {
			return
		}
		for _, t := range w.types {
			if t.members[nm] {
				return
			}
		}
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: nm, Kind: "reference", Args: -1, Line: lineOf(id)})
	})
}

func (w *csWalker) creation(n *sitter.Node, caller string) {
	t := field(n, "type")
	if kindOf(n) == "implicit_object_creation_expression" {
		// new() takes the type of the variable it initializes.
		if d := n.Parent(); kindOf(d) == "variable_declarator" {
			t = field(d.Parent(), "type")
		}
	}
	name := csTypeName(w.f, t)
	if name == "" {
		return
	}
	recv := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		recv, name = name[:i], name[i+1:]
	}
	var args *sitter.Node
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "argument_list" {
			args = c
		}
	})
	w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "new", Args: lxArgCount(w.f, args), Line: lineOf(n)})
	w.references(args, caller)
}

// csDoc is the doc comment above n with the bare <summary> and </summary>
// lines of XML documentation dropped.
func csDoc(f *File, n *sitter.Node) string {
	d := lxTextDoc(f.Src, n.StartByte(), lxDocStyle{})
	if !strings.Contains(d, "summary>") {
		return d
	}
	lines := strings.Split(d, "\n")
	out := lines[:0]
	for _, l := range lines {
		if t := strings.TrimSpace(l); t == "<summary>" || t == "</summary>" {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
