package lang

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "go",
		Extensions: []string{".go"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsgo.Language()) },
		Extract:    extractGo,
	})
}

// Go extraction.
//
// Symbols: every top-level func (Function) and method (Method, qualified
// "Recv.Name"), and every named type: struct → struct, interface →
// interface, anything else (defined types and aliases) → type_alias.
// Interface method elements are not symbols (Function+Method equals the
// file's func declarations); they are TypeFacts of Kind "method" on the
// interface so the resolver can compute method sets.
//
// Methods always carry a TypeFact {Scope: method, Name: "receiver", Type:
// base receiver type, Kind: "receiver"}; ParentID is set only when the
// receiver type is declared in the same file.
//
// Calls inside function literals belong to the enclosing declaration.
// Calls of predeclared builtins (len, append, make, new, ...) and
// conversions to predeclared types are not recorded.

type goExtractor struct {
	f      *File
	types  map[string]schema.Kind // type names declared in this file
	locals map[string]bool        // names declared in the current function
}

func extractGo(f *File, root *sitter.Node) {
	f.Facts.BuildConstraint = goBuildLine(f.Src)
	x := &goExtractor{f: f, types: map[string]schema.Kind{}, locals: map[string]bool{}}
	x.prescan(root)
	x.topLevel(root)
}

// goBuildLine returns the expression of the `//go:build` line in the
// header of a Go file (before the package clause), "" when there is none.
func goBuildLine(src []byte) string {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		t := bytes.TrimSpace(line)
		if rest, ok := bytes.CutPrefix(t, []byte("//go:build ")); ok {
			return string(bytes.TrimSpace(rest))
		}
		if bytes.HasPrefix(t, []byte("package ")) {
			return ""
		}
	}
	return ""
}

// prescan records the kind of every type declared in the file so that
// methods declared before their type still get a ParentID.
func (x *goExtractor) prescan(n *sitter.Node) {
	namedChildren(n, func(c *sitter.Node) {
		switch c.Kind() {
		case "type_declaration":
			namedChildren(c, func(s *sitter.Node) {
				if k := s.Kind(); k == "type_spec" || k == "type_alias" {
					x.types[fieldText(x.f, s, "name")] = goTypeKind(s)
				}
			})
		case "ERROR":
			x.prescan(c)
		}
	})
}

func (x *goExtractor) topLevel(n *sitter.Node) {
	namedChildren(n, func(c *sitter.Node) {
		switch c.Kind() {
		case "package_clause":
			namedChildren(c, func(p *sitter.Node) {
				if p.Kind() == "package_identifier" {
					x.f.Facts.Package = x.f.Text(p)
				}
			})
		case "import_declaration":
			x.imports(c)
		case "function_declaration":
			x.function(c)
		case "method_declaration":
			x.method(c)
		case "type_declaration":
			x.typeDecl(c)
		case "var_declaration", "const_declaration":
			clear(x.locals)
			x.body("", c, "global")
		case "ERROR":
			x.topLevel(c)
		}
	})
}

func (x *goExtractor) imports(n *sitter.Node) {
	walkNamed(n, func(c *sitter.Node) bool {
		if c.Kind() != "import_spec" {
			return true
		}
		x.f.Facts.Imports = append(x.f.Facts.Imports, Import{
			Spec:  unquote(fieldText(x.f, c, "path")),
			Alias: fieldText(x.f, c, "name"),
			Line:  lineOf(c),
		})
		return false
	})
}

func goExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

func goTypeKind(spec *sitter.Node) schema.Kind {
	if spec.Kind() == "type_spec" {
		switch kindOf(field(spec, "type")) {
		case "struct_type":
			return schema.KindStruct
		case "interface_type":
			return schema.KindInterface
		}
	}
	return schema.KindTypeAlias
}

func (x *goExtractor) function(n *sitter.Node) {
	name := fieldText(x.f, n, "name")
	body := field(n, "body")
	id := x.f.AddSymbol(schema.Symbol{
		Name:       name,
		Kind:       schema.KindFunction,
		Signature:  signatureOf(x.f, n, body),
		DocComment: docComment(x.f, n),
		IsExported: goExported(name),
	}, n)
	clear(x.locals)
	x.params(id, field(n, "parameters"))
	x.results(id, field(n, "result"))
	x.body(id, body, "local")
}

func (x *goExtractor) method(n *sitter.Node) {
	name := fieldText(x.f, n, "name")
	body := field(n, "body")
	var recvName, recvType string
	var recvDecl *sitter.Node
	namedChildren(field(n, "receiver"), func(p *sitter.Node) {
		if p.Kind() == "parameter_declaration" && recvDecl == nil {
			recvDecl = p
			recvName = fieldText(x.f, p, "name")
			recvType = baseType(fieldText(x.f, p, "type"))
		}
	})
	qn := schema.Qualify(recvType, name)
	parent := ""
	if k, ok := x.types[recvType]; ok {
		parent = schema.SymbolID(x.f.Path, recvType, k, 1)
	}
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: qn,
		Kind:          schema.KindMethod,
		Signature:     signatureOf(x.f, n, body),
		DocComment:    docComment(x.f, n),
		IsExported:    goExported(name),
		ParentID:      parent,
	}, n)
	clear(x.locals)
	if recvType != "" {
		x.typeFact(id, "receiver", recvType, "receiver", recvDecl)
		if recvName != "" && recvName != "_" {
			x.typeFact(id, recvName, recvType, "param", recvDecl)
			x.locals[recvName] = true
		}
	}
	x.params(id, field(n, "parameters"))
	x.results(id, field(n, "result"))
	x.body(id, body, "local")
}

func (x *goExtractor) typeFact(scope, name, typ, kind string, at *sitter.Node) {
	if typ == "" || name == "" || name == "_" {
		return
	}
	x.f.Facts.Types = append(x.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: typ, Kind: kind, Line: lineOf(at)})
}

// params records the parameters of a parameter_list as TypeFacts of scope
// and as locals of the current function.
func (x *goExtractor) params(scope string, list *sitter.Node) {
	namedChildren(list, func(p *sitter.Node) {
		k := p.Kind()
		if k != "parameter_declaration" && k != "variadic_parameter_declaration" {
			return
		}
		typ := baseType(fieldText(x.f, p, "type"))
		eachField(p, "name", func(nm *sitter.Node) {
			name := x.f.Text(nm)
			x.locals[name] = true
			x.typeFact(scope, name, typ, "param", nm)
		})
	})
}

// results records a function's result types as "return" facts, in order
// (one per result, so `(a, b T, err error)` gives T, T, error), and named
// results as locals.
func (x *goExtractor) results(scope string, res *sitter.Node) {
	if res == nil {
		return
	}
	if res.Kind() != "parameter_list" {
		x.typeFact(scope, "return", baseType(x.f.Text(res)), "return", res)
		return
	}
	namedChildren(res, func(p *sitter.Node) {
		k := p.Kind()
		if k != "parameter_declaration" && k != "variadic_parameter_declaration" {
			return
		}
		typ := baseType(fieldText(x.f, p, "type"))
		named := 0
		eachField(p, "name", func(nm *sitter.Node) {
			named++
			name := x.f.Text(nm)
			x.locals[name] = true
			x.typeFact(scope, name, typ, "local", nm)
			x.typeFact(scope, "return", typ, "return", nm)
		})
		if named == 0 {
			x.typeFact(scope, "return", typ, "return", p)
		}
	})
}

func (x *goExtractor) typeDecl(n *sitter.Node) {
	grouped := false
	children(n, func(c *sitter.Node) {
		if c.Kind() == "(" {
			grouped = true
		}
	})
	namedChildren(n, func(spec *sitter.Node) {
		k := spec.Kind()
		if k != "type_spec" && k != "type_alias" {
			return
		}
		name := fieldText(x.f, spec, "name")
		kind := goTypeKind(spec)
		typ := field(spec, "type")
		var body *sitter.Node
		switch kind {
		case schema.KindStruct:
			body = typ.NamedChild(0) // field_declaration_list
		case schema.KindInterface:
			children(typ, func(c *sitter.Node) {
				if body == nil && c.Kind() == "{" {
					body = c
				}
			})
		}
		decl, doc := n, docComment(x.f, spec)
		if grouped {
			decl = spec
		} else if doc == "" {
			doc = docComment(x.f, n)
		}
		sig := signatureOf(x.f, spec, body)
		if body == nil && len(sig) > 120 { // long func or map types: keep it short
			sig = sig[:0] + collapseSpace(x.f.Src[spec.StartByte():spec.EndByte()], 120)
		}
		id := x.f.AddSymbol(schema.Symbol{
			Name:       name,
			Kind:       kind,
			Signature:  "type " + sig,
			DocComment: doc,
			IsExported: goExported(name),
		}, decl)
		switch kind {
		case schema.KindStruct:
			x.structFields(id, body)
		case schema.KindInterface:
			x.interfaceElems(id, typ)
		}
	})
}

func (x *goExtractor) structFields(id string, list *sitter.Node) {
	namedChildren(list, func(fd *sitter.Node) {
		if fd.Kind() != "field_declaration" {
			return
		}
		tn := field(fd, "type")
		typ := baseType(x.f.Text(tn))
		named := false
		eachField(fd, "name", func(nm *sitter.Node) {
			named = true
			x.typeFact(id, x.f.Text(nm), typ, "field", nm)
		})
		if !named && typ != "" { // embedded field: its name is the type's last component
			x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: typ, Kind: "embeds", Line: lineOf(fd)})
			x.typeFact(id, goLastComponent(typ), typ, "field", fd)
		}
	})
}

func goLastComponent(t string) string {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] == '.' {
			return t[i+1:]
		}
	}
	return t
}

func (x *goExtractor) interfaceElems(id string, it *sitter.Node) {
	namedChildren(it, func(e *sitter.Node) {
		switch e.Kind() {
		case "method_elem":
			x.typeFact(id, fieldText(x.f, e, "name"), collapseSpace(x.f.Src[e.StartByte():e.EndByte()], signatureCap), "method", e)
		case "type_elem":
			// An embedded interface is a type_elem with one plain type;
			// unions and ~T constraints are not heritage.
			if e.NamedChildCount() != 1 {
				return
			}
			t := e.NamedChild(0)
			switch t.Kind() {
			case "type_identifier", "qualified_type", "generic_type":
				x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: baseType(x.f.Text(t)), Kind: "embeds", Line: lineOf(e)})
			}
		}
	})
}

// body walks the statements of a function body (or a top-level var/const
// declaration with scope ""), recording calls, references and local types.
// varKind is the TypeFact kind of `var` declarations: "local" or "global".
func (x *goExtractor) body(scope string, n *sitter.Node, varKind string) {
	// The walk is in pre-order: the func literals that hold a call were
	// met before it and are still open (lits, innermost last), and a `go`
	// statement comes before its call. So whether a call runs later, in a
	// returned literal, is read off the open literals, each asked once
	// whether it is returned, instead of climbing from every call with
	// inReturnedFunc: tree-sitter finds a parent by descending from the
	// root, and that climb was 18% of the CPU of analyzing kubernetes.
	type lit struct {
		end      uint
		returned bool
	}
	var lits []lit
	open := func(at uint) { // drops the literals that ended before at
		for len(lits) > 0 && lits[len(lits)-1].end <= at {
			lits = lits[:len(lits)-1]
		}
	}
	var goCall uintptr
	x.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool {
		switch kind {
		case "call_expression":
			later := false
			if len(lits) > 0 {
				open(c.StartByte())
				for _, l := range lits {
					later = later || l.returned
				}
			}
			x.call(scope, c, later, goCall)
		case "go_statement":
			namedChildren(c, func(e *sitter.Node) {
				if e.Kind() != "comment" {
					goCall = e.Id()
				}
			})
		case "type_conversion_expression":
			x.genericCall(scope, c)
		case "func_literal":
			open(c.StartByte())
			lits = append(lits, lit{c.EndByte(), isReturnedFunc(c, goFuncLits)})
			x.params(scope, field(c, "parameters"))
		case "short_var_declaration":
			x.shortVar(scope, c)
		case "var_spec", "const_spec":
			x.varSpec(scope, c, varKind)
		case "assignment_statement":
			x.refList(scope, field(c, "right"))
		case "return_statement":
			namedChildren(c, func(l *sitter.Node) {
				if l.Kind() == "expression_list" {
					x.refList(scope, l)
				}
			})
		case "keyed_element":
			if v := field(c, "value"); v != nil && v.NamedChildCount() > 0 {
				x.ref(scope, v.NamedChild(0))
			}
		case "literal_value":
			namedChildren(c, func(e *sitter.Node) {
				if e.Kind() == "literal_element" && e.NamedChildCount() > 0 {
					x.ref(scope, e.NamedChild(0))
				}
			})
		case "range_clause":
			x.declareList(field(c, "left"))
			x.rangeElem(scope, c)
		case "type_switch_statement":
			namedChildren(c, func(a *sitter.Node) {
				if a.Kind() == "expression_list" {
					x.declareList(a)
				}
			})
			x.typeSwitchCases(scope, c)
		}
		return true
	})
}

func (x *goExtractor) declareList(l *sitter.Node) {
	namedChildren(l, func(e *sitter.Node) {
		if e.Kind() == "identifier" {
			x.locals[x.f.Text(e)] = true
		}
	})
}

// goBuiltins are predeclared identifiers: calls of them are not recorded
// and they are never references. min, max and clear are left out (they
// became builtins in Go 1.21 and much code declares its own: gin's tree.go
// calls the package's min), and so are print and println (x/tools' godex
// declares print; the builtins are rare in real code).
var goBuiltins = map[string]bool{
	"append": true, "cap": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "new": true,
	"panic": true, "real": true, "recover": true,
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true,
	"uint32": true, "uint64": true, "uintptr": true, "any": true, "comparable": true,
	"true": true, "false": true, "nil": true, "iota": true,
}

// call records the call expression c of scope. later says whether it
// lies in a func literal the declaration returns (a call site of kind
// "closure"); goCall is the id of the call of the last `go` statement.
func (x *goExtractor) call(scope string, c *sitter.Node, later bool, goCall uintptr) {
	fn := field(c, "function")
	if fn != nil && fn.Kind() == "index_expression" { // explicit instantiation F[T](x)
		fn = field(fn, "operand")
	}
	args := field(c, "arguments")
	nargs := 0
	namedChildren(args, func(a *sitter.Node) {
		if a.Kind() == "comment" {
			return
		}
		nargs++
		x.ref(scope, a)
	})
	var name, recv string
	switch kindOf(fn) {
	case "identifier":
		name = x.f.Text(fn)
		if goBuiltins[name] && !x.locals[name] {
			return
		}
	case "selector_expression":
		name = fieldText(x.f, fn, "field")
		recv = exprText(x.f, field(fn, "operand"))
	default:
		return // func literal, parenthesized or conversion to a composite type
	}
	kind := "call"
	if goCall != 0 && c.Id() == goCall {
		kind = "go" // `go s.runShard(...)`: the callee runs as a goroutine
	} else if later {
		kind = "closure" // runs when the returned func is called (a middleware, per request)
	}
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Receiver: recv, Kind: kind, Args: nargs, Line: lineOf(c)})
}

var goFuncLits = map[string]bool{"func_literal": true}

// genericCall records `F[T](x)` and `pkg.F[*T](x)`, which tree-sitter
// parses as a conversion to a generic type (the syntax is ambiguous): a
// call of F, as a conversion `MyType(x)` is.
func (x *goExtractor) genericCall(scope string, c *sitter.Node) {
	name, recv := x.genericCallee(c)
	if name == "" {
		return
	}
	nargs := 0
	namedChildren(c, func(a *sitter.Node) {
		if a.Kind() != "comment" && (a.StartByte() != field(c, "type").StartByte()) {
			nargs++
			x.ref(scope, a)
		}
	})
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Receiver: recv, Kind: "call", Args: nargs, Line: lineOf(c)})
}

// genericCallee is the name and package qualifier of a type conversion
// whose type is generic (F[T] or pkg.F[T]); "" otherwise.
func (x *goExtractor) genericCallee(c *sitter.Node) (name, recv string) {
	t := field(c, "type")
	if kindOf(t) != "generic_type" {
		return "", ""
	}
	switch base := field(t, "type"); kindOf(base) {
	case "type_identifier":
		return x.f.Text(base), ""
	case "qualified_type":
		return fieldText(x.f, base, "name"), fieldText(x.f, base, "package")
	}
	return "", ""
}

// rangeElem records the value variable of `for k, v := range expr` as a
// TypeFact of type "elem:expr": the element type of expr, which the
// resolver reads as expr's type (slice and pointer markers are stripped
// from types, and map types resolve to their value type).
func (x *goExtractor) rangeElem(scope string, c *sitter.Node) {
	left, right := field(c, "left"), field(c, "right")
	if left == nil || right == nil || left.NamedChildCount() != 2 {
		return
	}
	v := left.NamedChild(1)
	if v.Kind() != "identifier" {
		return
	}
	x.typeFact(scope, x.f.Text(v), "elem:"+exprText(x.f, right), "local", v)
}

// typeSwitchCases records, for `switch v := x.(type)`, the type v has in
// each single-type case, at the case's line: the resolver takes the fact
// nearest above a call, so inside a case v has that case's type.
func (x *goExtractor) typeSwitchCases(scope string, c *sitter.Node) {
	alias := field(c, "alias")
	if alias == nil || alias.NamedChildCount() != 1 {
		return
	}
	name := x.f.Text(alias.NamedChild(0))
	namedChildren(c, func(tc *sitter.Node) {
		if tc.Kind() != "type_case" {
			return
		}
		var types []*sitter.Node
		eachField(tc, "type", func(t *sitter.Node) { types = append(types, t) })
		if len(types) == 1 {
			x.typeFact(scope, name, baseType(x.f.Text(types[0])), "local", tc)
		}
	})
}

// ref records e as a reference when it names a function or method value
// (an identifier that is not a local or builtin, or a selector).
func (x *goExtractor) ref(scope string, e *sitter.Node) {
	switch e.Kind() {
	case "identifier":
		name := x.f.Text(e)
		if x.locals[name] || goBuiltins[name] || name == "_" {
			return
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Kind: "reference", Args: -1, Line: lineOf(e)})
	case "selector_expression":
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: fieldText(x.f, e, "field"), Receiver: exprText(x.f, field(e, "operand")), Kind: "reference", Args: -1, Line: lineOf(e)})
	}
}

func (x *goExtractor) refList(scope string, l *sitter.Node) {
	namedChildren(l, func(e *sitter.Node) { x.ref(scope, e) })
}

func (x *goExtractor) shortVar(scope string, c *sitter.Node) {
	var lhs, rhs []*sitter.Node
	namedChildren(field(c, "left"), func(e *sitter.Node) { lhs = append(lhs, e) })
	namedChildren(field(c, "right"), func(e *sitter.Node) { rhs = append(rhs, e) })
	for i, l := range lhs {
		if l.Kind() != "identifier" {
			continue
		}
		name := x.f.Text(l)
		x.locals[name] = true
		switch {
		case i < len(rhs) && (i == 0 || len(rhs) == len(lhs)):
			x.typeFact(scope, name, x.exprType(rhs[i]), "local", l)
		case len(rhs) == 1 && i > 0:
			// v0, v1 := f(): v1 is f's second result ("call:f#1")
			if t := x.exprType(rhs[0]); strings.HasPrefix(t, "call:") {
				x.typeFact(scope, name, t+"#"+strconv.Itoa(i), "local", l)
			}
		}
	}
	for _, r := range rhs {
		x.ref(scope, r)
	}
}

func (x *goExtractor) varSpec(scope string, c *sitter.Node, kind string) {
	typ := baseType(fieldText(x.f, c, "type"))
	var vals []*sitter.Node
	namedChildren(field(c, "value"), func(e *sitter.Node) { vals = append(vals, e) })
	i := 0
	eachField(c, "name", func(nm *sitter.Node) {
		name := x.f.Text(nm)
		if scope != "" {
			x.locals[name] = true
		}
		t := typ
		if t == "" && i < len(vals) {
			t = x.exprType(vals[i])
		}
		x.typeFact(scope, name, t, kind, nm)
		i++
	})
	for _, v := range vals {
		x.ref(scope, v)
	}
}

// exprType is what the type of an initializer expression can be seen to be
// without type checking: T for T{...}, &T{...}, new(T), x.(T) and T(x)
// conversions to named types; "call:F" (the result of F, which the
// resolver follows through F's return facts) for other calls; "expr:a.b"
// for a selector chain and "elem:a.b" for an index into one; "" otherwise.
func (x *goExtractor) exprType(e *sitter.Node) string {
	switch e.Kind() {
	case "composite_literal":
		switch t := field(e, "type"); kindOf(t) {
		case "type_identifier", "qualified_type", "generic_type":
			return baseType(x.f.Text(t))
		}
	case "unary_expression":
		if fieldText(x.f, e, "operator") == "&" {
			if op := field(e, "operand"); kindOf(op) == "composite_literal" {
				return x.exprType(op)
			}
		}
	case "type_conversion_expression":
		if name, recv := x.genericCallee(e); name != "" {
			return "call:" + schema.Qualify(recv, name)
		}
		return baseType(fieldText(x.f, e, "type"))
	case "type_assertion_expression":
		return baseType(fieldText(x.f, e, "type"))
	case "selector_expression":
		// x := a.b.c: whatever the chain is (fields, through indexing)
		return "expr:" + exprText(x.f, e)
	case "index_expression":
		// x := a.items[i]: an element of the collection
		if op := field(e, "operand"); op != nil {
			return "elem:" + exprText(x.f, op)
		}
	case "call_expression":
		fn := field(e, "function")
		if kindOf(fn) == "index_expression" {
			fn = field(fn, "operand")
		}
		switch kindOf(fn) {
		case "identifier":
			name := x.f.Text(fn)
			if name == "new" {
				if a := field(e, "arguments"); a != nil && a.NamedChildCount() > 0 {
					return baseType(x.f.Text(a.NamedChild(0)))
				}
				return ""
			}
			if goBuiltins[name] {
				return ""
			}
			return "call:" + name
		case "selector_expression":
			return "call:" + exprText(x.f, fn)
		}
	}
	return ""
}
