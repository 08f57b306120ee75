package lang

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "java",
		Extensions: []string{".java"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsjava.Language()) },
		Extract:    extractJava,
	})
}

// Java extraction.
//
// Symbols: classes (class), interfaces (interface), enums (enum), records
// (record), annotation types (interface), nested ones qualified
// "Outer.Inner"; methods (Method "Outer.Inner.method", interface methods
// included, overloads numbered) and constructors (constructor, named after
// the class: "Foo.Foo"), with ParentID the enclosing type. Exported means a
// `public` modifier, or a member of an interface. Anonymous and local
// classes are not symbols: their code belongs to the enclosing method.
//
// Calls: method invocations (receiver = the object expression, "super" for
// super.m()), `new X()` (Kind "new", a qualified type split into receiver
// and name), `super(...)`/`this(...)` (Name "constructor", Receiver "super"
// or "this"), method references `Foo::bar` (Kind "reference"; `Foo::new`
// is Kind "new").
//
// Types: fields, parameters, locals (`var x = new Foo()` gives Foo, `var x
// = f()` gives "call:f"), return types (void omitted), record components
// as fields, and "this" as a param of every method.

type javaExtractor struct {
	f *File
}

type javaCtx struct {
	qual      string
	classID   string
	className string
	iface     bool // directly in an interface body
}

func extractJava(f *File, root *sitter.Node) {
	x := &javaExtractor{f: f}
	x.members(root, javaCtx{})
}

// members handles the declarations of a program or a type body.
func (x *javaExtractor) members(n *sitter.Node, c javaCtx) {
	namedChildren(n, func(m *sitter.Node) {
		switch kindOf(m) {
		case "package_declaration":
			namedChildren(m, func(e *sitter.Node) {
				if k := kindOf(e); k == "scoped_identifier" || k == "identifier" {
					x.f.Facts.Package = x.f.Text(e)
				}
			})
		case "import_declaration":
			x.importDecl(m)
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			x.typeDecl(m, c)
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
			x.method(m, c)
		case "field_declaration", "constant_declaration":
			x.field(m, c)
		case "enum_body_declarations", "ERROR":
			x.members(m, c)
		case "enum_constant":
			// Constant arguments and bodies run at class initialization.
			x.body(m, "")
		case "static_initializer", "block":
			x.body(m, "")
		}
	})
}

func (x *javaExtractor) importDecl(n *sitter.Node) {
	imp := Import{Line: lineOf(n)}
	static := false
	children(n, func(e *sitter.Node) {
		switch kindOf(e) {
		case "static":
			static = true
		case "scoped_identifier", "identifier":
			imp.Spec = x.f.Text(e)
		case "asterisk":
			imp.Names = []string{"*"}
		}
	})
	switch {
	case static:
		imp.Kind = "static"
	case len(imp.Names) > 0:
		imp.Kind = "wildcard"
	}
	x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
}

func javaModifiers(f *File, n *sitter.Node) string {
	var mods string
	namedChildren(n, func(e *sitter.Node) {
		if kindOf(e) == "modifiers" {
			mods = f.Text(e)
		}
	})
	return mods
}

// javaHasModifier reports whether the modifiers text has the keyword (not
// inside an annotation argument).
func javaHasModifier(mods, kw string) bool {
	for _, w := range strings.Fields(mods) {
		if w == kw {
			return true
		}
	}
	return false
}

func (x *javaExtractor) typeDecl(n *sitter.Node, c javaCtx) {
	name := fieldText(x.f, n, "name")
	var kind schema.Kind
	switch kindOf(n) {
	case "class_declaration":
		kind = schema.KindClass
	case "interface_declaration", "annotation_type_declaration":
		kind = schema.KindInterface
	case "enum_declaration":
		kind = schema.KindEnum
	case "record_declaration":
		kind = schema.KindRecord
	}
	body := field(n, "body")
	mods := javaModifiers(x.f, n)
	qual := schema.Qualify(c.qual, name)
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: qual,
		Kind:          kind,
		Signature:     signatureOf(x.f, n, body),
		DocComment:    docComment(x.f, n),
		IsExported:    javaHasModifier(mods, "public") || c.iface,
	}, n)
	if sc := field(n, "superclass"); sc != nil && sc.NamedChildCount() > 0 {
		x.heritage(id, sc.NamedChild(0), "extends")
	}
	namedChildren(n, func(h *sitter.Node) {
		switch kindOf(h) {
		case "super_interfaces", "extends_interfaces":
			rel := "implements"
			if kindOf(h) == "extends_interfaces" {
				rel = "extends"
			}
			namedChildren(h, func(tl *sitter.Node) {
				namedChildren(tl, func(t *sitter.Node) { x.heritage(id, t, rel) })
			})
		}
	})
	// record components are fields
	namedChildren(field(n, "parameters"), func(p *sitter.Node) {
		if kindOf(p) == "formal_parameter" {
			nm := field(p, "name")
			x.typeFact(id, x.f.Text(nm), baseType(fieldText(x.f, p, "type")), "field", nm)
		}
	})
	inner := javaCtx{qual: qual, classID: id, className: name, iface: kind == schema.KindInterface}
	x.members(body, inner)
}

func (x *javaExtractor) heritage(id string, t *sitter.Node, kind string) {
	x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: baseType(x.f.Text(t)), Kind: kind, Line: lineOf(t)})
}

func (x *javaExtractor) typeFact(scope, name, typ, kind string, at *sitter.Node) {
	if typ == "" || name == "" || typ == "void" {
		return
	}
	x.f.Facts.Types = append(x.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: typ, Kind: kind, Line: lineOf(at)})
}

func (x *javaExtractor) method(n *sitter.Node, c javaCtx) {
	name := fieldText(x.f, n, "name")
	kind := schema.KindMethod
	if kindOf(n) != "method_declaration" {
		kind = schema.KindConstructor
	}
	body := field(n, "body")
	mods := javaModifiers(x.f, n)
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          kind,
		Signature:     strings.TrimSuffix(signatureOf(x.f, n, body), ";"),
		DocComment:    docComment(x.f, n),
		IsExported:    javaHasModifier(mods, "public") || c.iface,
		ParentID:      c.classID,
	}, n)
	if c.className != "" && !javaHasModifier(mods, "static") {
		x.typeFact(id, "this", c.className, "param", n)
	}
	x.params(id, field(n, "parameters"))
	x.typeFact(id, "return", baseType(fieldText(x.f, n, "type")), "return", n)
	x.body(body, id)
}

func (x *javaExtractor) params(scope string, ps *sitter.Node) {
	namedChildren(ps, func(p *sitter.Node) {
		switch kindOf(p) {
		case "formal_parameter":
			nm := field(p, "name")
			x.typeFact(scope, x.f.Text(nm), baseType(fieldText(x.f, p, "type")), "param", nm)
		case "spread_parameter":
			var typ string
			namedChildren(p, func(e *sitter.Node) {
				switch kindOf(e) {
				case "variable_declarator":
					nm := field(e, "name")
					x.typeFact(scope, x.f.Text(nm), typ, "param", nm)
				case "modifiers":
				default:
					if typ == "" {
						typ = baseType(x.f.Text(e))
					}
				}
			})
		}
	})
}

func (x *javaExtractor) field(n *sitter.Node, c javaCtx) {
	typ := baseType(fieldText(x.f, n, "type"))
	eachField(n, "declarator", func(d *sitter.Node) {
		nm := field(d, "name")
		x.typeFact(c.classID, x.f.Text(nm), typ, "field", nm)
		if v := field(d, "value"); v != nil {
			x.body(v, "") // initializers run outside any method
		}
	})
}

// body walks code (a method body, an initializer) attributing calls to
// scope. Anonymous and local classes are walked as part of it.
func (x *javaExtractor) body(n *sitter.Node, scope string) {
	if n == nil {
		return
	}
	if kindOf(n) == "method_invocation" || kindOf(n) == "object_creation_expression" || kindOf(n) == "method_reference" {
		x.expr(n, scope)
	}
	x.f.walkNamedKind(n, func(e *sitter.Node, kind string) bool {
		switch kind {
		case "method_invocation", "object_creation_expression", "explicit_constructor_invocation", "method_reference":
			x.expr(e, scope)
		case "local_variable_declaration":
			x.local(e, scope)
		case "formal_parameter", "spread_parameter", "catch_formal_parameter":
			// lambda / catch / anonymous-class method parameters
			if p := e.Parent(); p != nil && kindOf(p) == "formal_parameters" {
				x.params(scope, p)
				return false
			}
		case "enhanced_for_statement":
			if nm := field(e, "name"); nm != nil {
				x.typeFact(scope, x.f.Text(nm), baseType(fieldText(x.f, e, "type")), "local", nm)
			}
		}
		return true
	})
}

func javaArgs(args *sitter.Node) int {
	if args == nil {
		return -1
	}
	n := 0
	namedChildren(args, func(a *sitter.Node) {
		if !isCommentKind(kindOf(a)) {
			n++
		}
	})
	return n
}

func (x *javaExtractor) expr(e *sitter.Node, scope string) {
	switch kindOf(e) {
	case "method_invocation":
		recv := ""
		if o := field(e, "object"); o != nil {
			recv = exprText(x.f, o)
		} else {
			children(e, func(s *sitter.Node) {
				if kindOf(s) == "super" {
					recv = "super"
				}
			})
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: fieldText(x.f, e, "name"), Receiver: recv, Kind: "call", Args: javaArgs(field(e, "arguments")), Line: lineOf(e)})
	case "object_creation_expression":
		name, recv := javaSplitType(baseType(fieldText(x.f, e, "type")))
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Receiver: recv, Kind: "new", Args: javaArgs(field(e, "arguments")), Line: lineOf(e)})
	case "explicit_constructor_invocation":
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: "constructor", Receiver: fieldText(x.f, e, "constructor"), Kind: "call", Args: javaArgs(field(e, "arguments")), Line: lineOf(e)})
	case "method_reference":
		txt := x.f.Text(e)
		i := strings.LastIndex(txt, "::")
		if i < 0 {
			return
		}
		recv, name := strings.TrimSpace(txt[:i]), strings.TrimSpace(txt[i+2:])
		if name == "new" {
			n, r := javaSplitType(baseType(recv))
			x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: n, Receiver: r, Kind: "new", Args: -1, Line: lineOf(e)})
			return
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Receiver: collapseSpace([]byte(recv), signatureCap), Kind: "reference", Args: -1, Line: lineOf(e)})
	}
}

// javaSplitType splits "a.b.C" into name "C" and qualifier "a.b".
func javaSplitType(t string) (name, qual string) {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:], t[:i]
	}
	return t, ""
}

func (x *javaExtractor) local(n *sitter.Node, scope string) {
	typ := baseType(fieldText(x.f, n, "type"))
	eachField(n, "declarator", func(d *sitter.Node) {
		nm := field(d, "name")
		t := typ
		if t == "var" {
			t = x.exprType(field(d, "value"))
		}
		x.typeFact(scope, x.f.Text(nm), t, "local", nm)
	})
}

func (x *javaExtractor) exprType(v *sitter.Node) string {
	switch kindOf(v) {
	case "object_creation_expression":
		return baseType(fieldText(x.f, v, "type"))
	case "method_invocation":
		name := fieldText(x.f, v, "name")
		if o := field(v, "object"); o != nil {
			return "call:" + exprText(x.f, o) + "." + name
		}
		return "call:" + name
	case "cast_expression":
		return baseType(fieldText(x.f, v, "type"))
	}
	return ""
}
