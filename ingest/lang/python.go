package lang

import (
	"maps"
	"path"
	"slices"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "python",
		Extensions: []string{".py", ".pyi"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tspython.Language()) },
		Extract:    extractPython,
	})
}

// Python extraction.
//
// Symbols: classes (Class; a class with a Protocol base is a protocol),
// module-level and nested functions (Function, nested ones qualified
// "outer.inner"), and functions directly in a class body (Method, or
// constructor for __init__), qualified "Outer.Inner.method". DocComment is
// the docstring, else the # comment block above. Exported means no leading
// underscore; dunder names (__init__, __call__) count as exported.
//
// Calls: every call; `Service(db).do_work()` gives "do_work" with receiver
// "Service(db)" and "Service". Decorators are calls of the decorator with
// the decorated function (`@app.route("/")` is the call route on app).
// Calls of builtins (print, len, isinstance, ...) are not recorded unless
// the file defines that name at module level.
//
// Types: the first parameter of a method (self/cls) has the class as type;
// annotated parameters, returns, locals and class-level fields (annotated,
// or assigned an instance: `objects = Manager()`); `self.x =
// Foo()` and `self.x = param` in any method give field facts on the class.
// Foo(...) where Foo is CapWords gives type "Foo" (an instance), other
// calls "call:f" (the result of f).

type pyExtractor struct {
	f       *File
	topDefs map[string]bool // module-level def/class names
	locals  map[string]string
	// nested maps a function's id to the functions defined directly in
	// its body, by name; returns the names a function's return statements
	// hand back (both for Facts.Returned).
	nested  map[string]map[string]string
	returns map[string][]pyReturn
}

// pyReturn is a name a return statement hands back, and its line.
type pyReturn struct {
	name string
	line int
}

// pyCtx is where a node sits.
type pyCtx struct {
	qual      string // qualified-name prefix of names declared here ("Outer.Inner")
	classID   string // the class whose body this is directly in, if any
	className string
	scope     string // innermost function/method id; "" at module or class level
	method    bool   // scope is a method (its first parameter is self/cls)
}

func extractPython(f *File, root *sitter.Node) {
	x := &pyExtractor{f: f, topDefs: map[string]bool{}, locals: map[string]string{},
		nested: map[string]map[string]string{}, returns: map[string][]pyReturn{}}
	f.Facts.Package = pyModule(f.Path)
	namedChildren(root, func(c *sitter.Node) {
		if kindOf(c) == "decorated_definition" {
			c = field(c, "definition")
		}
		if k := kindOf(c); k == "function_definition" || k == "class_definition" {
			x.topDefs[fieldText(f, c, "name")] = true
		}
	})
	x.visit(root, pyCtx{})
}

// pyModule is the dotted module of a path: pkg/sub/mod.py → pkg.sub.mod,
// pkg/__init__.py → pkg.
func pyModule(p string) string {
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".pyi"), ".py")
	if path.Base(p) == "__init__" {
		p = path.Dir(p)
		if p == "." {
			return ""
		}
	}
	return strings.ReplaceAll(p, "/", ".")
}

func pyExported(name string) bool {
	return !strings.HasPrefix(name, "_") || (len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__"))
}

// visit walks the named descendants of n in context c.
func (x *pyExtractor) visit(n *sitter.Node, c pyCtx) {
	x.f.walkNamedKind(n, func(ch *sitter.Node, kind string) bool { return x.handle(ch, kind, c) })
}

// node handles n and, unless that took care of its insides, walks them.
func (x *pyExtractor) node(n *sitter.Node, c pyCtx) {
	if x.handle(n, kindOf(n), c) {
		x.visit(n, c)
	}
}

// handle records what n (of the given kind) itself contributes and reports
// whether its descendants are still to be walked in the same context (false
// when it walked them itself, in a new scope, or there is nothing in them).
func (x *pyExtractor) handle(n *sitter.Node, kind string, c pyCtx) bool {
	switch kind {
	case "function_definition":
		x.function(n, n, nil, c)
		return false
	case "class_definition":
		x.class(n, n, c)
		return false
	case "decorated_definition":
		def := field(n, "definition")
		var decos []*sitter.Node
		namedChildren(n, func(d *sitter.Node) {
			if kindOf(d) == "decorator" {
				decos = append(decos, d)
				x.decorator(d, c)
			}
		})
		switch kindOf(def) {
		case "function_definition":
			x.function(def, n, decos, c)
		case "class_definition":
			x.class(def, n, c)
		}
		return false
	case "call":
		x.call(n, c)
	case "import_statement", "import_from_statement", "future_import_statement":
		x.imports(n)
		return false
	case "assignment":
		x.assign(n, c)
	case "return_statement":
		namedChildren(n, func(e *sitter.Node) { x.ref(e, c) })
		if c.scope != "" {
			x.returnedNames(n, c.scope)
		}
	case "for_statement":
		x.declare(field(n, "left"), c)
	case "as_pattern":
		x.declare(field(n, "alias"), c)
	}
	return true
}

// declare marks identifiers in a binding target as locals of the scope.
func (x *pyExtractor) declare(t *sitter.Node, c pyCtx) {
	if t == nil || c.scope == "" {
		return
	}
	if kindOf(t) == "identifier" {
		if _, ok := x.locals[x.f.Text(t)]; !ok {
			x.locals[x.f.Text(t)] = ""
		}
		return
	}
	namedChildren(t, func(e *sitter.Node) { x.declare(e, c) })
}

// pyDocstring is the docstring of a def/class body, dedented, or "".
func (x *pyExtractor) docstring(body *sitter.Node) string {
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	st := body.NamedChild(0)
	if kindOf(st) != "expression_statement" || st.NamedChildCount() != 1 || st.NamedChild(0).Kind() != "string" {
		return ""
	}
	s := x.f.Text(st.NamedChild(0))
	s = strings.TrimLeft(s, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func (x *pyExtractor) doc(def, outer *sitter.Node) string {
	if d := x.docstring(field(def, "body")); d != "" {
		return d
	}
	return docComment(x.f, outer)
}

func pySignature(f *File, def *sitter.Node) string {
	return strings.TrimSuffix(signatureOf(f, def, field(def, "body")), ":")
}

func (x *pyExtractor) function(def, outer *sitter.Node, decos []*sitter.Node, c pyCtx) {
	name := fieldText(x.f, def, "name")
	kind := schema.KindFunction
	parent := ""
	if c.classID != "" {
		kind, parent = schema.KindMethod, c.classID
		if name == "__init__" {
			kind = schema.KindConstructor
		}
	}
	static := false
	for _, d := range decos {
		if t := strings.TrimSpace(strings.TrimPrefix(x.f.Text(d), "@")); t == "staticmethod" {
			static = true
		}
	}
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          kind,
		Signature:     pySignature(x.f, def),
		DocComment:    x.doc(def, outer),
		IsExported:    pyExported(name),
		ParentID:      parent,
	}, def)
	if kind == schema.KindFunction && c.scope != "" && c.classID == "" {
		if x.nested[c.scope] == nil {
			x.nested[c.scope] = map[string]string{}
		}
		x.nested[c.scope][name] = id
	}

	saved := x.locals
	x.locals = make(map[string]string, len(saved)) // closures see the outer locals
	for k, v := range saved {
		x.locals[k] = v
	}
	inner := pyCtx{qual: schema.Qualify(c.qual, name), scope: id, method: c.classID != "" && !static, className: c.className}
	self := x.params(field(def, "parameters"), inner, c.className)
	if c.scope != "" { // a nested def sees its enclosing function's typed locals (a method's self)
		for _, k := range slices.Sorted(maps.Keys(saved)) {
			if v := saved[k]; v != "" && x.locals[k] == v {
				x.typeFact(id, k, v, "local", def)
			}
		}
	}
	if rt := field(def, "return_type"); rt != nil {
		x.typeFact(id, "return", pyType(x.f.Text(rt)), "return", rt)
	}
	selfClass := ""
	if inner.method {
		selfClass = c.classID
	}
	x.body(field(def, "body"), inner, selfClass, self)
	x.locals = saved
	for _, r := range x.returns[id] {
		if in, ok := x.nested[id][r.name]; ok {
			x.f.Facts.Returned = append(x.f.Facts.Returned, Returned{OuterID: id, InnerID: in, Line: r.line})
		}
	}
	delete(x.returns, id)
	delete(x.nested, id)
}

// returnedNames records the identifiers a return statement of scope hands
// back: the value itself (`return wrapper`), inside a tuple or
// parentheses, or as an argument of a call that wraps it (`return
// functools.wraps(f)(wrapper)`, `return update_wrapper(wrapper, f)`).
// Lambdas and comprehensions are not entered. Which of them name a
// function nested in scope is decided when scope's body is done.
func (x *pyExtractor) returnedNames(ret *sitter.Node, scope string) {
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch kindOf(n) {
		case "identifier":
			x.returns[scope] = append(x.returns[scope], pyReturn{x.f.Text(n), lineOf(n)})
		case "call": // the arguments, not the callee: `return helper(x)` returns helper's result
			walk(field(n, "arguments"))
		case "keyword_argument":
			walk(field(n, "value"))
		case "argument_list", "expression_list", "tuple", "parenthesized_expression":
			namedChildren(n, walk)
		}
	}
	namedChildren(ret, walk)
}

func (x *pyExtractor) typeFact(scope, name, typ, kind string, at *sitter.Node) {
	if typ == "" || name == "" {
		return
	}
	x.f.Facts.Types = append(x.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: typ, Kind: kind, Line: lineOf(at)})
}

// pyType reduces an annotation to a bare type: quotes, Optional[...] and
// "| None" are unwrapped, then baseType applies ("List[Foo]" → "List").
func pyType(t string) string {
	t = strings.TrimSpace(unquote(strings.TrimSpace(t)))
	for _, p := range []string{"Optional[", "typing.Optional["} {
		if strings.HasPrefix(t, p) && strings.HasSuffix(t, "]") {
			t = t[len(p) : len(t)-1]
		}
	}
	if strings.Contains(t, "|") {
		for _, part := range strings.Split(t, "|") {
			if part = strings.TrimSpace(part); part != "None" && part != "" {
				t = part
				break
			}
		}
	}
	return baseType(unquote(strings.TrimSpace(t)))
}

// params records parameters as locals and param facts and returns the
// first parameter's name (self/cls for methods).
func (x *pyExtractor) params(ps *sitter.Node, c pyCtx, className string) (firstName string) {
	first := true
	namedChildren(ps, func(p *sitter.Node) {
		var nameNode, typeNode *sitter.Node
		switch kindOf(p) {
		case "identifier":
			nameNode = p
		case "typed_parameter":
			typeNode = field(p, "type")
			namedChildren(p, func(e *sitter.Node) {
				if nameNode == nil && kindOf(e) == "identifier" {
					nameNode = e
				}
			})
		case "default_parameter", "typed_default_parameter":
			nameNode, typeNode = field(p, "name"), field(p, "type")
		case "list_splat_pattern", "dictionary_splat_pattern":
			namedChildren(p, func(e *sitter.Node) {
				if kindOf(e) == "identifier" {
					x.locals[x.f.Text(e)] = ""
				}
			})
			first = false
			return
		default:
			return
		}
		if kindOf(nameNode) != "identifier" {
			first = false
			return
		}
		name := x.f.Text(nameNode)
		typ := ""
		if typeNode != nil {
			typ = pyType(x.f.Text(typeNode))
		} else if first && c.method && className != "" {
			typ = className // self / cls
		}
		x.locals[name] = typ
		x.typeFact(c.scope, name, typ, "param", nameNode)
		if first {
			firstName = name
		}
		first = false
	})
	return firstName
}

// body visits a function body. When the function is a method, selfClass
// is its class id and self the name of its first parameter, so that
// `self.x = ...` assignments become field facts of the class.
func (x *pyExtractor) body(b *sitter.Node, c pyCtx, selfClass, self string) {
	if selfClass != "" && self != "" {
		walkNamed(b, func(n *sitter.Node) bool {
			switch kindOf(n) {
			case "function_definition", "class_definition", "decorated_definition", "lambda":
				return false // nested scopes have their own self
			case "assignment":
				l := field(n, "left")
				if kindOf(l) == "attribute" && fieldText(x.f, l, "object") == self {
					typ := ""
					if t := field(n, "type"); t != nil {
						typ = pyType(x.f.Text(t))
					} else if r := field(n, "right"); r != nil {
						typ = x.exprType(r)
					}
					x.typeFact(selfClass, fieldText(x.f, l, "attribute"), typ, "field", l)
				}
			}
			return true
		})
	}
	x.visit(b, c)
}

func (x *pyExtractor) class(def, outer *sitter.Node, c pyCtx) {
	name := fieldText(x.f, def, "name")
	kind := schema.KindClass
	var bases []*sitter.Node
	namedChildren(field(def, "superclasses"), func(b *sitter.Node) {
		switch kindOf(b) {
		case "identifier", "attribute", "subscript":
			bases = append(bases, b)
			if t := baseType(x.f.Text(b)); t == "Protocol" || t == "typing.Protocol" {
				kind = schema.KindProtocol
			}
		}
	})
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          kind,
		Signature:     pySignature(x.f, def),
		DocComment:    x.doc(def, outer),
		IsExported:    pyExported(name),
	}, def)
	for _, b := range bases {
		x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: baseType(x.f.Text(b)), Kind: "extends", Line: lineOf(b)})
	}
	// Keyword arguments in the class header (metaclass=...) may call.
	x.visit(field(def, "superclasses"), c)
	inner := pyCtx{qual: schema.Qualify(c.qual, name), classID: id, className: name, scope: c.scope}
	body := field(def, "body")
	// Class-level annotated names are fields.
	namedChildren(body, func(st *sitter.Node) {
		if kindOf(st) != "expression_statement" || st.NamedChildCount() == 0 {
			return
		}
		a := st.NamedChild(0)
		if kindOf(a) == "assignment" && kindOf(field(a, "left")) == "identifier" {
			if t := field(a, "type"); t != nil {
				x.typeFact(id, fieldText(x.f, a, "left"), pyType(x.f.Text(t)), "field", a)
			} else if r := field(a, "right"); r != nil {
				x.typeFact(id, fieldText(x.f, a, "left"), x.exprType(r), "field", a) // objects = Manager()
			}
		}
	})
	x.visit(body, inner)
}

func (x *pyExtractor) decorator(d *sitter.Node, c pyCtx) {
	if d.NamedChildCount() == 0 {
		return
	}
	e := d.NamedChild(0)
	switch kindOf(e) {
	case "identifier", "attribute":
		name, recv := x.callee(e)
		if name != "" && !x.builtin(name, recv) {
			x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: "call", Args: 1, Line: lineOf(d)})
		}
	default:
		x.node(e, c) // @app.route("/x"): an ordinary call
	}
}

// callee splits a call's function expression into name and receiver.
func (x *pyExtractor) callee(fn *sitter.Node) (name, recv string) {
	switch kindOf(fn) {
	case "identifier":
		return x.f.Text(fn), ""
	case "attribute":
		return fieldText(x.f, fn, "attribute"), exprText(x.f, field(fn, "object"))
	}
	return "", ""
}

// pyBuiltins are builtin functions and types whose calls are not recorded.
var pyBuiltins = map[string]bool{
	"abs": true, "all": true, "any": true, "ascii": true, "bin": true, "bool": true, "breakpoint": true,
	"bytearray": true, "bytes": true, "callable": true, "chr": true, "classmethod": true, "compile": true,
	"complex": true, "delattr": true, "dict": true, "dir": true, "divmod": true, "enumerate": true,
	"eval": true, "exec": true, "filter": true, "float": true, "format": true, "frozenset": true,
	"getattr": true, "globals": true, "hasattr": true, "hash": true, "help": true, "hex": true, "id": true,
	"input": true, "int": true, "isinstance": true, "issubclass": true, "iter": true, "len": true,
	"list": true, "locals": true, "map": true, "max": true, "memoryview": true, "min": true, "next": true,
	"object": true, "oct": true, "open": true, "ord": true, "pow": true, "print": true, "property": true,
	"range": true, "repr": true, "reversed": true, "round": true, "set": true, "setattr": true,
	"slice": true, "sorted": true, "staticmethod": true, "str": true, "sum": true, "super": true,
	"tuple": true, "type": true, "vars": true, "zip": true, "__import__": true,
}

func (x *pyExtractor) builtin(name, recv string) bool {
	return recv == "" && pyBuiltins[name] && !x.topDefs[name]
}

func (x *pyExtractor) call(n *sitter.Node, c pyCtx) {
	name, recv := x.callee(field(n, "function"))
	args := field(n, "arguments")
	nargs := -1
	if kindOf(args) == "argument_list" {
		nargs = 0
		namedChildren(args, func(a *sitter.Node) {
			switch kindOf(a) {
			case "comment":
				return
			case "keyword_argument":
				x.ref(field(a, "value"), c)
			default:
				x.ref(a, c)
			}
			nargs++
		})
	}
	if name == "" || x.builtin(name, recv) {
		return
	}
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Receiver: recv, Kind: "call", Args: nargs, Line: lineOf(n)})
}

// ref records e as a reference when it may name a function or method used
// as a value: an attribute, or an identifier that is not a local.
func (x *pyExtractor) ref(e *sitter.Node, c pyCtx) {
	switch kindOf(e) {
	case "identifier":
		name := x.f.Text(e)
		if _, local := x.locals[name]; local || pyBuiltins[name] {
			return
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: name, Kind: "reference", Args: -1, Line: lineOf(e)})
	case "attribute":
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: c.scope, Name: fieldText(x.f, e, "attribute"), Receiver: exprText(x.f, field(e, "object")), Kind: "reference", Args: -1, Line: lineOf(e)})
	}
}

func (x *pyExtractor) assign(n *sitter.Node, c pyCtx) {
	l, r := field(n, "left"), field(n, "right")
	kind := "local"
	if c.scope == "" {
		if c.classID != "" {
			return // class-level fields are handled by class
		}
		kind = "global"
	}
	if kindOf(l) == "identifier" {
		name := x.f.Text(l)
		typ := ""
		if t := field(n, "type"); t != nil {
			typ = pyType(x.f.Text(t))
		} else if r != nil {
			typ = x.exprType(r)
		}
		if c.scope != "" {
			x.locals[name] = typ
		}
		x.typeFact(c.scope, name, typ, kind, l)
	} else {
		x.declare(l, c)
	}
	if r != nil {
		x.ref(r, c)
	}
}

// exprType is the type an initializer shows: Foo(...) with a CapWords
// callee is an instance of Foo; another call f(...) is "call:f"; a local
// with a known type has that type.
func (x *pyExtractor) exprType(e *sitter.Node) string {
	switch kindOf(e) {
	case "call":
		fn := field(e, "function")
		switch kindOf(fn) {
		case "identifier", "attribute":
			t := x.f.Text(fn)
			name, _ := x.callee(fn)
			if name != "" && name[0] >= 'A' && name[0] <= 'Z' {
				return t
			}
			if x.builtin(name, "") {
				return ""
			}
			return "call:" + exprText(x.f, fn)
		}
	case "identifier":
		return x.locals[x.f.Text(e)]
	}
	return ""
}

func (x *pyExtractor) imports(n *sitter.Node) {
	line := lineOf(n)
	switch kindOf(n) {
	case "import_statement":
		eachField(n, "name", func(m *sitter.Node) {
			imp := Import{Line: line}
			if kindOf(m) == "aliased_import" {
				imp.Spec, imp.Alias = fieldText(x.f, m, "name"), fieldText(x.f, m, "alias")
			} else {
				imp.Spec = x.f.Text(m)
			}
			x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
		})
	case "import_from_statement", "future_import_statement":
		imp := Import{Line: line}
		if kindOf(n) == "future_import_statement" {
			imp.Spec = "__future__"
		}
		if m := field(n, "module_name"); m != nil {
			imp.Spec = x.f.Text(m)
			if kindOf(m) == "relative_import" {
				imp.Kind = "relative"
			}
		}
		eachField(n, "name", func(m *sitter.Node) {
			if kindOf(m) == "aliased_import" {
				imp.Names = append(imp.Names, fieldText(x.f, m, "name")+" as "+fieldText(x.f, m, "alias"))
			} else {
				imp.Names = append(imp.Names, x.f.Text(m))
			}
		})
		namedChildren(n, func(w *sitter.Node) {
			if kindOf(w) == "wildcard_import" {
				imp.Names = append(imp.Names, "*")
				if imp.Kind == "" {
					imp.Kind = "wildcard"
				}
			}
		})
		x.f.Facts.Imports = append(x.f.Facts.Imports, imp)
	}
}
