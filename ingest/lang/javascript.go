package lang

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "javascript",
		Extensions: []string{".js", ".mjs", ".cjs", ".jsx"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsjs.Language()) },
		Extract:    extractES,
	})
}

// JavaScript / TypeScript / TSX extraction (one extractor: the TypeScript
// grammars extend the JavaScript one; TS-only constructs are in
// typescript.go).
//
// Symbols: function declarations; functions, arrow functions and classes
// assigned to a variable take the variable's name (`const handler = () =>
// {}` is Function "handler"); methods of object literals assigned to a
// variable are Functions qualified "api.get"; class methods are Methods
// "Class.method" (constructor → constructor), and so are class fields whose
// value is a function; `exports.f = function` and `module.exports.f = ...`
// are Functions, `Foo.prototype.bar = function` is Method "Foo.bar".
// Functions nested in functions are qualified "outer.inner". TS namespaces
// prefix qualified names. Exported means under `export` (or listed in an
// `export { }` clause, or assigned to exports).
//
// Imports: `import` (default import in Names as "default as X", named ones
// as "a" or "a as b", namespace import as Alias), `export ... from` (Kind
// "reexport"), `require("x")` (Kind "require", Alias or destructured Names
// from the declarator), `import("x")` (Kind "dynamic"), TS `import x =
// require("y")` (Kind "require").
//
// Calls: call expressions ("call"), `new X()` ("new"), `super(...)` (Name
// "constructor", Receiver "super"), JSX elements with a capitalized name
// (`<Button/>` is a call of Button), and function values passed as
// arguments, JSX attribute values, object literal values, assigned or
// returned ("reference").

type esExtractor struct {
	f        *File
	locals   map[string]bool
	exported map[string]bool // names listed in `export { a, b }`
}

type esCtx struct {
	qual      string // qualified-name prefix
	classID   string // class whose body this is directly in
	className string
	scope     string // innermost function/method id
}

func extractES(f *File, root *sitter.Node) {
	x := &esExtractor{f: f, locals: map[string]bool{}, exported: map[string]bool{}}
	x.visit(root, esCtx{})
	if len(x.exported) > 0 { // `export { a, b }` after the declarations
		for i := range f.Facts.Symbols {
			s := &f.Facts.Symbols[i]
			if s.QualifiedName == s.Name && x.exported[s.Name] {
				s.IsExported = true
			}
		}
	}
}

// visit walks the named descendants of n in context c.
func (x *esExtractor) visit(n *sitter.Node, c esCtx) {
	x.f.walkNamedKind(n, func(ch *sitter.Node, kind string) bool { return x.handle(ch, kind, c, false, nil) })
}

// node handles n and, unless that took care of its insides, walks them.
// exported says it is the declaration of an export statement, whose node
// (for doc comments) is outer.
func (x *esExtractor) node(n *sitter.Node, c esCtx, exported bool, outer *sitter.Node) {
	if x.handle(n, kindOf(n), c, exported, outer) {
		x.visit(n, c)
	}
}

// handle records what n (of the given kind) itself contributes and reports
// whether its descendants are still to be walked in the same context.
func (x *esExtractor) handle(n *sitter.Node, kind string, c esCtx, exported bool, outer *sitter.Node) bool {
	if outer == nil {
		outer = n
	}
	switch kind {
	case "export_statement":
		x.export(n, c)
	case "import_statement":
		x.importStmt(n)
	case "function_declaration", "generator_function_declaration":
		x.function(n, outer, fieldText(x.f, n, "name"), n, exported, c)
	case "class_declaration", "abstract_class_declaration":
		x.class(n, outer, fieldText(x.f, n, "name"), exported, c)
	case "lexical_declaration", "variable_declaration":
		x.varDecl(n, outer, exported, c)
	case "interface_declaration":
		x.tsInterface(n, outer, exported, c)
	case "type_alias_declaration":
		x.tsTypeAlias(n, outer, exported, c)
	case "enum_declaration":
		x.tsEnum(n, outer, exported, c)
	case "internal_module", "module":
		name := fieldText(x.f, n, "name")
		inner := c
		if name != "" && name[0] != '"' && name[0] != '\'' {
			inner.qual = schema.Qualify(c.qual, name)
		}
		x.visit(field(n, "body"), inner)
	case "expression_statement":
		e := n.NamedChild(0)
		return e == nil || kindOf(e) != "assignment_expression" || !x.assignFunction(e, n, c)
	case "call_expression":
		x.call(n, c)
		return true
	case "new_expression":
		x.newExpr(n, c)
		return true
	case "assignment_expression":
		x.assign(n, c)
		return true
	case "return_statement", "jsx_expression":
		namedChildren(n, func(e *sitter.Node) { x.ref(e, c) })
		return true
	case "pair":
		x.ref(field(n, "value"), c)
		return true
	case "jsx_opening_element", "jsx_self_closing_element":
		x.jsxElement(n, c)
		return true
	case "for_in_statement":
		x.declare(field(n, "left"), c)
		return true
	case "function_expression", "arrow_function", "generator_function":
		// An anonymous function: its calls belong to the enclosing symbol.
		x.params(field(n, "parameters"), c, "")
		if p := field(n, "parameter"); p != nil {
			x.locals[x.f.Text(p)] = true
		}
		return true
	case "class":
		name := fieldText(x.f, n, "name")
		if name == "" {
			return true
		}
		x.class(n, outer, name, false, c)
	case "function_signature", "method_signature", "comment":
		// overload and ambient signatures: no symbol
	default:
		return true
	}
	return false
}

func (x *esExtractor) export(n *sitter.Node, c esCtx) {
	if src := field(n, "source"); src != nil {
		imp := Import{Spec: unquote(x.f.Text(src)), Kind: "reexport", Line: lineOf(n)}
		namedChildren(n, func(e *sitter.Node) {
			switch kindOf(e) {
			case "export_clause":
				imp.Names = append(imp.Names, x.specifiers(e, "export_specifier")...)
			case "namespace_export":
				imp.Names = append(imp.Names, "*")
				if e.NamedChildCount() > 0 {
					imp.Alias = x.f.Text(e.NamedChild(0))
				}
			}
		})
		if len(imp.Names) == 0 {
			imp.Names = []string{"*"} // export * from "x"
		}
		x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
		return
	}
	eachField(n, "decorator", func(d *sitter.Node) { x.decorator(d, c) })
	if d := field(n, "declaration"); d != nil {
		x.node(d, c, true, n)
		return
	}
	if v := field(n, "value"); v != nil { // export default <expression>
		switch kindOf(v) {
		case "function_expression", "arrow_function", "generator_function":
			name := fieldText(x.f, v, "name")
			if name == "" {
				name = "default"
			}
			x.function(v, n, name, n, true, c)
		case "class":
			name := fieldText(x.f, v, "name")
			if name == "" {
				name = "default"
			}
			x.class(v, n, name, true, c)
		default:
			x.ref(v, c)
			x.node(v, c, false, nil)
		}
		return
	}
	namedChildren(n, func(e *sitter.Node) {
		switch kindOf(e) {
		case "export_clause":
			namedChildren(e, func(s *sitter.Node) {
				if kindOf(s) == "export_specifier" {
					x.exported[fieldText(x.f, s, "name")] = true
				}
			})
		case "function_declaration", "generator_function_declaration", "class_declaration":
			// `export default function f() {}` parses the declaration as a child.
			x.node(e, c, true, n)
		case "identifier":
			x.exported[x.f.Text(e)] = true // export default name
		}
	})
}

// specifiers lists import/export specifiers as "a" or "a as b".
func (x *esExtractor) specifiers(list *sitter.Node, kind string) []string {
	var out []string
	namedChildren(list, func(s *sitter.Node) {
		if kindOf(s) != kind {
			return
		}
		name := fieldText(x.f, s, "name")
		if a := fieldText(x.f, s, "alias"); a != "" {
			name += " as " + a
		}
		out = append(out, name)
	})
	return out
}

func (x *esExtractor) importStmt(n *sitter.Node) {
	imp := Import{Spec: unquote(fieldText(x.f, n, "source")), Line: lineOf(n)}
	namedChildren(n, func(cl *sitter.Node) {
		switch kindOf(cl) {
		case "import_clause":
			namedChildren(cl, func(e *sitter.Node) {
				switch kindOf(e) {
				case "identifier":
					imp.Names = append(imp.Names, "default as "+x.f.Text(e))
				case "named_imports":
					imp.Names = append(imp.Names, x.specifiers(e, "import_specifier")...)
				case "namespace_import":
					if e.NamedChildCount() > 0 {
						imp.Alias = x.f.Text(e.NamedChild(0))
					}
				}
			})
		case "import_require_clause": // TS: import x = require("y")
			imp.Kind = "require"
			imp.Spec = unquote(fieldText(x.f, cl, "source"))
			if cl.NamedChildCount() > 0 {
				imp.Alias = x.f.Text(cl.NamedChild(0))
			}
		}
	})
	x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
}

func (x *esExtractor) typeFact(scope, name, typ, kind string, at *sitter.Node) {
	if typ == "" || name == "" {
		return
	}
	x.f.Facts.Types = append(x.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: typ, Kind: kind, Line: lineOf(at)})
}

// annotation turns a type_annotation (": Foo<Bar>") into a bare type:
// Promise<T> is unwrapped to T, and a union takes its first member that is
// not null or undefined.
func (x *esExtractor) annotation(a *sitter.Node) string {
	if a == nil {
		return ""
	}
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(x.f.Text(a)), ":"))
	t = esUnwrapPromise(t)
	for _, part := range esTopUnion(t) {
		if p := strings.TrimSpace(part); p != "null" && p != "undefined" && p != "" {
			t = p
			break
		}
	}
	return baseType(esUnwrapPromise(t))
}

// esTopUnion splits t at the | that are not nested in <>, (), [] or {}.
func esTopUnion(t string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '<', '(', '[', '{':
			depth++
		case '>', ')', ']', '}':
			depth--
		case '|':
			if depth == 0 {
				parts = append(parts, t[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, t[start:])
}

// esUnwrapPromise turns Promise<T> into T: an awaited call's result is what
// receivers are typed by.
func esUnwrapPromise(t string) string {
	if strings.HasPrefix(t, "Promise<") && strings.HasSuffix(t, ">") {
		return strings.TrimSpace(t[len("Promise<") : len(t)-1])
	}
	return t
}

// function adds a Function (or a Method when in a class body) for a
// function-like node fn named name, with decl the node its lines span and
// outer the node doc comments sit above.
func (x *esExtractor) function(fn, outer *sitter.Node, name string, decl *sitter.Node, exported bool, c esCtx) string {
	body := field(fn, "body")
	sigNode := decl
	if sigNode.StartByte() > fn.StartByte() {
		sigNode = fn
	}
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          schema.KindFunction,
		Signature:     signatureOf(x.f, sigNode, body),
		DocComment:    docComment(x.f, outer),
		IsExported:    exported,
	}, decl)
	x.functionBody(fn, id, esCtx{qual: schema.Qualify(c.qual, name), scope: id})
	return id
}

// functionBody records parameters and return type of fn and walks its body
// with a fresh set of locals.
func (x *esExtractor) functionBody(fn *sitter.Node, id string, inner esCtx) {
	saved := x.locals
	x.locals = make(map[string]bool, len(saved)) // closures see the outer locals
	for k := range saved {
		x.locals[k] = true
	}
	x.params(field(fn, "parameters"), inner, "")
	if p := field(fn, "parameter"); p != nil { // x => ...
		x.locals[x.f.Text(p)] = true
	}
	x.typeFact(id, "return", x.annotation(field(fn, "return_type")), "return", fn)
	body := field(fn, "body")
	if body != nil && kindOf(body) != "statement_block" { // expression-bodied arrow
		x.ref(body, inner)
		x.node(body, inner, false, nil)
	} else {
		x.visit(body, inner)
	}
	x.locals = saved
}

// params records formal parameters as locals and typed ones as param facts.
// In a constructor (classID set), TS parameter properties (`private db:
// DB`) are also fields of the class.
func (x *esExtractor) params(ps *sitter.Node, c esCtx, classID string) {
	namedChildren(ps, func(p *sitter.Node) {
		var pat, typ *sitter.Node
		switch kindOf(p) {
		case "identifier":
			pat = p
		case "required_parameter", "optional_parameter":
			pat, typ = field(p, "pattern"), field(p, "type")
			if pat == nil {
				pat = field(p, "name")
			}
		case "assignment_pattern":
			pat = field(p, "left")
		default:
			x.declare(p, c)
			return
		}
		if kindOf(pat) != "identifier" {
			x.declare(pat, c)
			return
		}
		name := x.f.Text(pat)
		x.locals[name] = true
		t := x.annotation(typ)
		x.typeFact(c.scope, name, t, "param", pat)
		if classID != "" {
			property := false
			namedChildren(p, func(m *sitter.Node) {
				if kindOf(m) == "accessibility_modifier" || kindOf(m) == "override_modifier" {
					property = true
				}
			})
			children(p, func(m *sitter.Node) {
				if kindOf(m) == "readonly" {
					property = true
				}
			})
			if property {
				x.typeFact(classID, name, t, "field", pat)
			}
		}
	})
}

// declare marks the identifiers of a binding pattern as locals.
func (x *esExtractor) declare(p *sitter.Node, c esCtx) {
	if p == nil {
		return
	}
	switch kindOf(p) {
	case "identifier", "shorthand_property_identifier_pattern":
		x.locals[x.f.Text(p)] = true
		return
	}
	namedChildren(p, func(e *sitter.Node) { x.declare(e, c) })
}

func (x *esExtractor) class(n, outer *sitter.Node, name string, exported bool, c esCtx) string {
	body := field(n, "body")
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          schema.KindClass,
		Signature:     signatureOf(x.f, n, body),
		DocComment:    docComment(x.f, outer),
		IsExported:    exported,
	}, n)
	namedChildren(n, func(h *sitter.Node) {
		if kindOf(h) != "class_heritage" {
			return
		}
		namedChildren(h, func(cl *sitter.Node) {
			switch kindOf(cl) {
			case "extends_clause": // TS
				if v := field(cl, "value"); v != nil {
					x.heritage(id, v, "extends")
					x.visit(cl, c) // extends mixin(Base): a call
				}
			case "implements_clause":
				namedChildren(cl, func(t *sitter.Node) { x.heritage(id, t, "implements") })
			default: // JS: class_heritage holds the expression
				x.heritage(id, cl, "extends")
			}
		})
	})
	// decorators are calls at class definition time
	eachField(n, "decorator", func(d *sitter.Node) { x.decorator(d, c) })
	inner := esCtx{qual: schema.Qualify(c.qual, name), classID: id, className: name, scope: c.scope}
	namedChildren(body, func(m *sitter.Node) { x.member(m, inner) })
	return id
}

func (x *esExtractor) heritage(id string, t *sitter.Node, kind string) {
	if kindOf(t) == "comment" {
		return
	}
	x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: baseType(x.f.Text(t)), Kind: kind, Line: lineOf(t)})
}

func (x *esExtractor) decorator(d *sitter.Node, c esCtx) {
	if d.NamedChildCount() == 0 {
		return
	}
	e := d.NamedChild(0)
	switch kindOf(e) {
	case "identifier", "member_expression":
		name, recv := x.callee(e)
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: "call", Args: 1, Line: lineOf(d)})
	default:
		x.node(e, c, false, nil)
	}
}

// member handles one member of a class body (c.classID is the class).
func (x *esExtractor) member(m *sitter.Node, c esCtx) {
	switch kindOf(m) {
	case "method_definition", "abstract_method_signature":
		name := fieldText(x.f, m, "name")
		kind := schema.KindMethod
		if name == "constructor" {
			kind = schema.KindConstructor
		}
		body := field(m, "body")
		id := x.f.AddSymbol(schema.Symbol{
			Name:          name,
			QualifiedName: schema.Qualify(c.qual, name),
			Kind:          kind,
			Signature:     signatureOf(x.f, m, body),
			DocComment:    docComment(x.f, m),
			IsExported:    esMemberPublic(x.f, m),
			ParentID:      c.classID,
		}, m)
		eachField(m, "decorator", func(d *sitter.Node) { x.decorator(d, esCtx{scope: c.scope}) })
		x.typeFact(id, "this", c.className, "param", m)
		inner := esCtx{qual: schema.Qualify(c.qual, name), scope: id, className: c.className}
		saved := x.locals
		x.locals = map[string]bool{}
		cls := ""
		if kind == schema.KindConstructor {
			cls = c.classID
		}
		x.params(field(m, "parameters"), inner, cls)
		x.typeFact(id, "return", x.annotation(field(m, "return_type")), "return", m)
		x.thisFields(body, c.classID)
		x.visit(body, inner)
		x.locals = saved
	case "public_field_definition", "field_definition":
		nameNode := field(m, "name")
		if nameNode == nil {
			nameNode = field(m, "property")
		}
		name := x.f.Text(nameNode)
		v := field(m, "value")
		switch kindOf(v) {
		case "arrow_function", "function_expression", "generator_function":
			body := field(v, "body")
			id := x.f.AddSymbol(schema.Symbol{
				Name:          name,
				QualifiedName: schema.Qualify(c.qual, name),
				Kind:          schema.KindMethod,
				Signature:     signatureOf(x.f, m, body),
				DocComment:    docComment(x.f, m),
				IsExported:    esMemberPublic(x.f, m),
				ParentID:      c.classID,
			}, m)
			x.typeFact(id, "this", c.className, "param", m)
			x.functionBody(v, id, esCtx{qual: schema.Qualify(c.qual, name), scope: id, className: c.className})
			return
		}
		t := x.annotation(field(m, "type"))
		if t == "" && v != nil {
			t = x.exprType(v)
		}
		x.typeFact(c.classID, name, t, "field", nameNode)
		if v != nil {
			x.ref(v, esCtx{scope: c.scope})
			x.node(v, esCtx{scope: c.scope}, false, nil)
		}
	case "class_static_block":
		x.visit(m, esCtx{scope: c.scope})
	case "method_signature": // overload signature in a class: no symbol
	}
}

// esMemberPublic: a class member is exported unless private/protected or
// #private.
func esMemberPublic(f *File, m *sitter.Node) bool {
	pub := true
	namedChildren(m, func(e *sitter.Node) {
		if kindOf(e) == "accessibility_modifier" && f.Text(e) != "public" {
			pub = false
		}
		if kindOf(e) == "private_property_identifier" {
			pub = false
		}
	})
	return pub
}

// thisFields records `this.x = new Foo()` / `this.x = param` assignments in
// a constructor or method body as fields of the class.
func (x *esExtractor) thisFields(body *sitter.Node, classID string) {
	walkNamed(body, func(n *sitter.Node) bool {
		switch kindOf(n) {
		case "function_expression", "function_declaration", "class", "class_declaration":
			return false // `this` is another object there
		case "assignment_expression":
			l := field(n, "left")
			if kindOf(l) == "member_expression" && kindOf(field(l, "object")) == "this" {
				x.typeFact(classID, fieldText(x.f, l, "property"), x.exprType(field(n, "right")), "field", l)
			}
		}
		return true
	})
}

// exprType: `new X()` is X, a call f() is "call:f", an `as T` is T.
func (x *esExtractor) exprType(e *sitter.Node) string {
	switch kindOf(e) {
	case "new_expression":
		return baseType(fieldText(x.f, e, "constructor"))
	case "call_expression":
		switch fn := field(e, "function"); kindOf(fn) {
		case "identifier", "member_expression":
			if x.f.Text(fn) == "require" {
				return ""
			}
			return "call:" + exprText(x.f, fn)
		}
	case "as_expression", "satisfies_expression":
		if e.NamedChildCount() == 2 {
			return baseType(x.f.Text(e.NamedChild(1)))
		}
	case "await_expression":
		if e.NamedChildCount() == 1 {
			return x.exprType(e.NamedChild(0))
		}
	}
	return ""
}

func (x *esExtractor) varDecl(n, outer *sitter.Node, exported bool, c esCtx) {
	single := n.NamedChildCount() == 1
	namedChildren(n, func(d *sitter.Node) {
		if kindOf(d) != "variable_declarator" {
			return
		}
		nameNode, v := field(d, "name"), field(d, "value")
		if kindOf(nameNode) != "identifier" {
			x.declare(nameNode, c)
			if kindOf(v) == "call_expression" && x.requireImport(v, "", nameNode) {
				return
			}
			if v != nil {
				x.node(v, c, false, nil)
			}
			return
		}
		name := x.f.Text(nameNode)
		decl := d
		if single {
			decl = n
		}
		switch kindOf(v) {
		case "arrow_function", "function_expression", "generator_function":
			x.function(v, outer, name, decl, exported, c)
			return
		case "class":
			x.class(v, outer, name, exported, c)
			return
		case "object":
			if c.scope == "" && x.objectFunctions(v, schema.Qualify(c.qual, name), exported, c) {
				return
			}
		case "call_expression":
			if x.requireImport(v, name, nil) {
				return
			}
			if x.wrappedFunction(v, outer, name, decl, exported, c) {
				return
			}
		}
		if c.scope != "" {
			x.locals[name] = true
		}
		kind := "local"
		if c.scope == "" {
			kind = "global"
		}
		t := x.annotation(field(d, "type"))
		if t == "" {
			t = x.exprType(v)
		}
		x.typeFact(c.scope, name, t, kind, nameNode)
		if v != nil {
			x.ref(v, c)
			x.node(v, c, false, nil)
		}
	})
}

// wrappedFunction handles `const X = memo((props) => ...)`,
// `forwardRef(function (p, ref) {...})` and other wrappers: the first
// function-valued argument becomes the Function named by the variable, and
// the wrapper call is recorded in the enclosing scope. It reports whether a
// function argument was found.
func (x *esExtractor) wrappedFunction(call, outer *sitter.Node, name string, decl *sitter.Node, exported bool, c esCtx) bool {
	args := field(call, "arguments")
	var fn *sitter.Node
	namedChildren(args, func(a *sitter.Node) {
		switch kindOf(a) {
		case "arrow_function", "function_expression", "generator_function":
			if fn == nil {
				fn = a
			}
		}
	})
	if fn == nil {
		return false
	}
	x.call(call, c)
	x.visit(field(call, "function"), c)
	namedChildren(args, func(a *sitter.Node) {
		if a.StartByte() == fn.StartByte() && a.EndByte() == fn.EndByte() {
			x.function(fn, outer, name, decl, exported, c)
			return
		}
		x.node(a, c, false, nil)
	})
	return true
}

// objectFunctions makes the function-valued members of an object literal
// assigned at top level (`const api = { get() {}, post: () => {} }`)
// Functions qualified by the variable. It reports whether any was found;
// the other members are walked as ordinary expressions.
func (x *esExtractor) objectFunctions(obj *sitter.Node, qual string, exported bool, c esCtx) bool {
	found := false
	namedChildren(obj, func(m *sitter.Node) {
		switch kindOf(m) {
		case "method_definition":
			found = true
			name := fieldText(x.f, m, "name")
			x.function(m, m, name, m, exported, esCtx{qual: qual})
		case "pair":
			v := field(m, "value")
			switch kindOf(v) {
			case "arrow_function", "function_expression", "generator_function":
				found = true
				x.function(v, m, unquote(fieldText(x.f, m, "key")), m, exported, esCtx{qual: qual})
				return
			}
			x.node(m, c, false, nil)
		default:
			x.node(m, c, false, nil)
		}
	})
	return found
}

// requireImport records `require("x")` initializers as imports: alias is
// the variable, or the destructured names of pattern. It reports whether v
// was a require call.
func (x *esExtractor) requireImport(v *sitter.Node, alias string, pattern *sitter.Node) bool {
	fn := field(v, "function")
	if kindOf(fn) != "identifier" || x.f.Text(fn) != "require" {
		return false
	}
	args := field(v, "arguments")
	if args == nil || args.NamedChildCount() == 0 || args.NamedChild(0).Kind() != "string" {
		return false
	}
	imp := Import{Spec: unquote(x.f.Text(args.NamedChild(0))), Alias: alias, Kind: "require", Line: lineOf(v)}
	if kindOf(pattern) == "object_pattern" {
		namedChildren(pattern, func(p *sitter.Node) {
			switch kindOf(p) {
			case "shorthand_property_identifier_pattern":
				imp.Names = append(imp.Names, x.f.Text(p))
			case "pair_pattern":
				imp.Names = append(imp.Names, fieldText(x.f, p, "key")+" as "+fieldText(x.f, p, "value"))
			}
		})
	}
	x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
	return true
}

// assignFunction handles `exports.f = function`, `module.exports.f = ...`
// and `Foo.prototype.bar = function` statements; it reports whether it did.
func (x *esExtractor) assignFunction(a, stmt *sitter.Node, c esCtx) bool {
	l, r := field(a, "left"), field(a, "right")
	switch kindOf(r) {
	case "arrow_function", "function_expression", "generator_function":
	case "object": // window.SelectFilter = { init: function () {...} }
		if c.scope != "" {
			return false
		}
		name := ""
		switch kindOf(l) {
		case "identifier":
			name = x.f.Text(l)
		case "member_expression":
			name = fieldText(x.f, l, "property")
		}
		if name == "" || name == "exports" {
			if obj := fieldText(x.f, l, "object"); obj != "module" {
				return false
			}
			name = "" // module.exports = { f() {} }: the members are the names
		}
		return x.objectFunctions(r, schema.Qualify(c.qual, name), true, c)
	default:
		return false
	}
	if kindOf(l) != "member_expression" {
		return false
	}
	obj := fieldText(x.f, l, "object")
	name := fieldText(x.f, l, "property")
	switch {
	case obj == "exports" || obj == "module.exports":
		x.function(r, stmt, name, stmt, true, c)
		return true
	case strings.HasSuffix(obj, ".prototype"):
		cls := strings.TrimSuffix(obj, ".prototype")
		body := field(r, "body")
		id := x.f.AddSymbol(schema.Symbol{
			Name:          name,
			QualifiedName: schema.Qualify(c.qual, cls+"."+name),
			Kind:          schema.KindMethod,
			Signature:     signatureOf(x.f, stmt, body),
			DocComment:    docComment(x.f, stmt),
			IsExported:    true,
		}, stmt)
		x.typeFact(id, "this", cls, "param", stmt)
		x.functionBody(r, id, esCtx{qual: schema.Qualify(c.qual, cls+"."+name), scope: id, className: cls})
		return true
	}
	return false
}

// callee splits a call target into name and receiver.
func (x *esExtractor) callee(fn *sitter.Node) (name, recv string) {
	switch kindOf(fn) {
	case "identifier":
		return x.f.Text(fn), ""
	case "member_expression":
		return fieldText(x.f, fn, "property"), exprText(x.f, field(fn, "object"))
	case "super":
		return "constructor", "super"
	case "non_null_expression", "parenthesized_expression":
		if fn.NamedChildCount() == 1 {
			return x.callee(fn.NamedChild(0))
		}
	}
	return "", ""
}

func (x *esExtractor) call(n *sitter.Node, c esCtx) {
	fn := field(n, "function")
	args := field(n, "arguments")
	nargs := -1
	if kindOf(args) == "arguments" {
		nargs = 0
		namedChildren(args, func(a *sitter.Node) {
			if kindOf(a) == "comment" {
				return
			}
			nargs++
			x.ref(a, c)
		})
	}
	if kindOf(fn) == "import" { // import("x")
		if nargs > 0 && args.NamedChild(0).Kind() == "string" {
			x.f.Facts.Imports = append(x.f.Facts.Imports, Import{Spec: unquote(x.f.Text(args.NamedChild(0))), Kind: "dynamic", Line: lineOf(n)})
		}
		return
	}
	name, recv := x.callee(fn)
	if name == "" {
		return
	}
	if name == "require" && recv == "" {
		x.requireImport(n, "", nil)
		return
	}
	kind := "call"
	if inReturnedFunc(n, esFuncKinds, esScopeKinds) {
		kind = "closure" // runs when the returned function is called (a middleware, per request)
	}
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: kind, Args: nargs, Line: lineOf(n)})
}

var (
	esFuncKinds  = map[string]bool{"function_expression": true, "arrow_function": true, "generator_function": true, "function": true}
	esScopeKinds = map[string]bool{"function_declaration": true, "generator_function_declaration": true, "method_definition": true, "class_body": true, "program": true}
)

func (x *esExtractor) newExpr(n *sitter.Node, c esCtx) {
	name, recv := x.callee(field(n, "constructor"))
	nargs := -1
	if args := field(n, "arguments"); args != nil {
		nargs = 0
		namedChildren(args, func(a *sitter.Node) {
			if kindOf(a) != "comment" {
				nargs++
				x.ref(a, c)
			}
		})
	}
	if name != "" {
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: "new", Args: nargs, Line: lineOf(n)})
	}
}

// jsxElement records <Component .../> (capitalized or dotted names) as a
// call of the component.
func (x *esExtractor) jsxElement(n *sitter.Node, c esCtx) {
	nm := field(n, "name")
	name, recv := x.callee(nm)
	if name == "" || (recv == "" && !(name[0] >= 'A' && name[0] <= 'Z')) {
		return
	}
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: "call", Args: -1, Line: lineOf(n)})
}

func (x *esExtractor) assign(n *sitter.Node, c esCtx) {
	if l := field(n, "left"); kindOf(l) == "identifier" && c.scope == "" {
		x.typeFact("", x.f.Text(l), x.exprType(field(n, "right")), "global", l)
	}
	x.ref(field(n, "right"), c)
}

// esGlobals are identifiers that are never references to user functions.
var esGlobals = map[string]bool{"undefined": true, "NaN": true, "Infinity": true, "arguments": true}

// ref records e as a reference when it may name a function used as a value.
func (x *esExtractor) ref(e *sitter.Node, c esCtx) {
	switch kindOf(e) {
	case "identifier":
		name := x.f.Text(e)
		if x.locals[name] || esGlobals[name] {
			return
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Kind: "reference", Args: -1, Line: lineOf(e)})
	case "member_expression":
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: fieldText(x.f, e, "property"), Receiver: exprText(x.f, field(e, "object")), Kind: "reference", Args: -1, Line: lineOf(e)})
	}
}
