package lang

// C++ extraction, and the C/C++ walker that c.go shares.
//
// Conventions (C and C++):
//   - QualifiedName joins namespaces, classes and the member with ".":
//     `namespace geo { class Shape { void area(); } }` → "geo.Shape.area".
//     An out-of-line definition `void Shape::area() {}` inside namespace geo
//     gets the same "geo.Shape.area"; its ParentID is set when Shape is
//     declared in the same file.
//   - Symbols are definitions: functions and methods with bodies, classes,
//     structs, unions and enums with bodies, typedefs and `using X = ...`
//     aliases. In-class method prototypes are not symbols (the definition
//     is), except pure virtual ones (`virtual f() = 0;`), which are the only
//     declaration an abstract method has.
//   - Constructors and destructors (`~Shape`) have kind constructor.
//   - `typedef struct {...} name_t;` is one struct named name_t;
//     `typedef struct node {...} node_t;` is struct node plus type_alias
//     node_t.
//   - IsExported: free functions and globals are exported unless `static` or
//     inside an anonymous namespace; members follow the access specifier in
//     force (class members default to private, struct/union members to
//     public); out-of-line member definitions count as exported.
//   - Facts.Package is the name of the file's first named namespace, with
//     nested names joined by "." (`namespace a::b` → "a.b"); "" for C.
//   - Imports: `#include <x.h>` → Kind "system", `#include "x.h"` → Kind
//     "quoted"; Spec is the path between the delimiters. `using namespace
//     a::b;`, `using a::B;` and `namespace x = a::b;` are Kind "using"
//     (Spec "a::b"; Spec "a" with Names [B]; Spec "a::b" with Alias x).
//   - Calls: Receiver is the object expression for `obj.f()` / `ptr->f()`
//     ("obj", "ptr", "this") and the scope for `ns::Cls::f()` ("ns::Cls").
//     `new T(...)` is Kind "new" with Name T. Identifiers passed as call
//     arguments that are not parameters, locals or file-level variables of
//     this file and not ALL_CAPS (`qsort(a, n, sz, cmp)`), and `&f` /
//     `&Cls::f` arguments, are Kind "reference".
//   - TypeFacts: fields, parameters, locals and globals with a declared
//     class-like type, and return types; primitive types and `auto` are
//     left out.
//   - Kernel-style C (c.go): `SYSCALL_DEFINEn(read, type, arg, ...) {...}`
//     is the function sys_read (COMPAT_SYSCALL_DEFINEn: compat_sys_X), its
//     macro arguments its parameters, and `BPF_CALL_n(bpf_foo, ...) {...}`
//     the BPF helper bpf_foo; `int BPF_PROG(test1, int a) {...}` (a macro
//     named in capitals whose first argument is a bare word) is the
//     function test1; file-level prototypes of C files are
//     Facts.Prototypes; Facts.Registrations records function names stored
//     in struct members (`.read = foo_read` in an initializer of a
//     declared struct type, `x->open = foo_open`, and what the kernel's
//     attribute macros store: `static DEVICE_ATTR_RO(foo);`,
//     `DEFINE_SHOW_ATTRIBUTE(regs);`, see cattr.go), handed to registration
//     calls and macros (module_init, *_initcall, request_irq, ...) and
//     defined by those macros. Inside a function a member store is also
//     a "reference" call site, as a function named as an argument is;
//     not as an argument of a call that takes it back (cTeardown:
//     `free_irq(irq, foo_irq)`), whose arguments are no references at
//     all. Naming a file-level table (`register_chrdev(0, "x",
//     &foo_fops)`) hands over the functions it stores but names none of
//     them: no call site (its functions are reached by the calls through
//     its members, and are registered callbacks).

import (
	"maps"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "cpp",
		Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tscpp.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &cppWalker{f: f}
			w.run(root)
		},
	})
}

// cppClass is a class/struct/union body being walked.
type cppClass struct {
	id, qname, name string
	access          string // access specifier in force: public, private, protected
}

// cppWalker extracts one C or C++ file.
type cppWalker struct {
	f       *File
	ns      []string // enclosing namespace names
	anon    int      // depth inside anonymous namespaces
	cls     []cppClass
	globals map[string]bool            // file-level variable names
	locals  map[string]bool            // parameters and locals of the function being walked
	fields  map[string]map[string]bool // class qualified name → data member names
	members map[string]bool            // data members of the method being walked
	tparams map[string]bool            // template parameters in scope
	inBody  bool                       // walking a class body's members (not a function body)

	// Kernel-style C (c.go).
	sys       *cSyscall       // the SYSCALL_DEFINEn body being walked, by byte range
	sysLocals map[string]bool // the parameters of the last syscall emitted
	off       int             // depth inside branches a configuration option turns off (configBlock)
}

func (w *cppWalker) run(root *sitter.Node) {
	w.globals = map[string]bool{}
	w.fields = map[string]map[string]bool{}
	w.tparams = map[string]bool{}
	w.walk(root, "")
	w.endSyscall()
	if w.f.Language == "c" {
		w.attrMacros(root)
	}
	lxLinkParents(w.f)
}

// prefix is the qualified-name prefix at the current point: namespaces and
// enclosing classes.
func (w *cppWalker) prefix() string {
	if len(w.cls) > 0 {
		return w.cls[len(w.cls)-1].qname
	}
	return lxJoin(w.ns...)
}

// walk visits n and, unless its handler took care of them, its
// descendants.
func (w *cppWalker) walk(n *sitter.Node, caller string) {
	if w.visit(n, w.f.kind(n), caller) {
		w.walkChildren(n, caller)
	}
}

// walkChildren visits n's named descendants in source order with the
// tree traversal done in C (walkNamedKind); a visit that returns false has
// handled its node's subtree itself.
func (w *cppWalker) walkChildren(n *sitter.Node, caller string) {
	w.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool { return w.visit(c, kind, caller) })
}

// visit handles one node and reports whether its descendants still need
// visiting.
func (w *cppWalker) visit(n *sitter.Node, kind, caller string) bool {
	if sc := w.sys; sc != nil && caller == "" {
		if n.StartByte() < sc.end {
			if w.visit(n, kind, sc.id) {
				w.walkChildren(n, sc.id)
			}
			return false
		}
		w.endSyscall()
	}
	switch kind {
	case "assignment_expression":
		if caller != "" {
			w.memberStore(n, caller)
		}
	case "comment":
		return false
	case "preproc_include":
		w.include(n)
		return false
	case "preproc_ifdef", "preproc_if":
		if w.f.Language == "c" {
			w.configBlock(n, kind, caller)
			return false
		}
	case "preproc_function_def":
		if name := fieldText(w.f, n, "name"); name != "" {
			w.f.Facts.Macros = append(w.f.Facts.Macros, name)
		}
		return false
	case "namespace_definition":
		w.namespace(n, caller)
		return false
	case "using_declaration", "namespace_alias_definition":
		w.using(n)
		return false
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		w.typeSpec(n, caller, "", nil)
		return false
	case "type_definition":
		w.typedef(n, caller)
		return false
	case "alias_declaration":
		name := fieldText(w.f, n, "name")
		if name != "" {
			w.f.AddSymbol(schema.Symbol{
				Name: name, QualifiedName: lxJoin(w.prefix(), name), Kind: schema.KindTypeAlias,
				Signature: signatureOf(w.f, n, nil), DocComment: cppDoc(w.f, n, nil),
				IsExported: w.memberExported(), ParentID: "",
			}, n)
		}
		return false
	case "function_definition":
		w.function(n, caller)
		return false
	case "template_declaration":
		// Template parameters are not types the resolver can link.
		var added []string
		namedChildren(w.f.field(n, "parameters"), func(p *sitter.Node) {
			switch w.f.kind(p) {
			case "type_parameter_declaration", "optional_type_parameter_declaration", "variadic_type_parameter_declaration":
				namedChildren(p, func(c *sitter.Node) {
					if w.f.kind(c) == "type_identifier" {
						if nm := w.f.Text(c); !w.tparams[nm] {
							w.tparams[nm] = true
							added = append(added, nm)
						}
					}
				})
			}
		})
		w.walkChildren(n, caller)
		for _, nm := range added {
			delete(w.tparams, nm)
		}
		return false
	case "declaration", "field_declaration":
		w.declaration(n, caller)
		return false
	case "access_specifier":
		if len(w.cls) > 0 {
			w.cls[len(w.cls)-1].access = strings.TrimSpace(w.f.Text(n))
		}
		return false
	case "call_expression":
		if caller == "" && w.syscallCall(n) {
			return false
		}
		w.call(n, caller)
	case "new_expression":
		w.newExpr(n, caller)
	}
	return true
}

func (w *cppWalker) include(n *sitter.Node) {
	p := w.f.field(n, "path")
	if p == nil {
		return
	}
	imp := Import{Line: lineOf(n)}
	switch w.f.kind(p) {
	case "system_lib_string":
		imp.Kind = "system"
		imp.Spec = strings.TrimSuffix(strings.TrimPrefix(w.f.Text(p), "<"), ">")
	case "string_literal":
		imp.Kind = "quoted"
		imp.Spec = unquote(w.f.Text(p))
	default: // #include MACRO
		return
	}
	w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
}

// using records `using namespace a::b;` (Spec "a::b"), `using a::B;`
// (Spec "a", Names [B]) and `namespace x = a::b;` (Spec "a::b", Alias x),
// all with Kind "using", for the resolver's name scoping.
func (w *cppWalker) using(n *sitter.Node) {
	imp := Import{Kind: "using", Line: lineOf(n)}
	isNS := false
	children(n, func(c *sitter.Node) {
		switch w.f.kind(c) {
		case "namespace":
			isNS = true
		case "identifier", "qualified_identifier", "nested_namespace_specifier", "namespace_identifier":
			if w.f.kind(n) == "namespace_alias_definition" && w.f.kind(c) == "namespace_identifier" && imp.Alias == "" {
				imp.Alias = w.f.Text(c)
				return
			}
			path := strings.Join(strings.Fields(w.f.Text(c)), "")
			if w.f.kind(n) == "using_declaration" && !isNS {
				if i := strings.LastIndex(path, "::"); i >= 0 {
					imp.Spec, imp.Names = path[:i], []string{path[i+2:]}
					return
				}
			}
			imp.Spec = path
		}
	})
	if imp.Spec != "" {
		w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
	}
}

func (w *cppWalker) namespace(n *sitter.Node, caller string) {
	name := fieldText(w.f, n, "name")
	var segs []string
	if name == "" {
		w.anon++
	} else {
		for _, s := range strings.Split(name, "::") {
			if s = strings.TrimSpace(s); s != "" && s != "inline" {
				segs = append(segs, s)
			}
		}
		if w.f.Facts.Package == "" {
			w.f.Facts.Package = strings.Join(segs, ".")
		}
	}
	w.ns = append(w.ns, segs...)
	// Classes never enclose namespaces, so w.cls needs no save here.
	w.walkChildren(w.f.field(n, "body"), caller)
	w.ns = w.ns[:len(w.ns)-len(segs)]
	if name == "" {
		w.anon--
	}
}

// memberExported is IsExported for a declaration at the current point.
func (w *cppWalker) memberExported() bool {
	if w.anon > 0 {
		return false
	}
	if len(w.cls) > 0 {
		return w.cls[len(w.cls)-1].access == "public"
	}
	return true
}

// cppDoc is the doc comment of decl, read above anchor when that is given
// (a typedef wrapping a struct) and above decl otherwise; template headers
// between the comment and decl are skipped.
func cppDoc(f *File, decl, anchor *sitter.Node) string {
	if anchor == nil {
		anchor = decl
	}
	return lxTextDoc(f.Src, anchor.StartByte(), lxDocStyle{templates: true})
}

// cppTypeName is the bare class-like name of a type node, "" for primitive
// types, auto and anonymous specifiers.
func (w *cppWalker) typeName(t *sitter.Node) string {
	switch w.f.kind(t) {
	case "", "primitive_type", "sized_type_specifier", "placeholder_type_specifier", "auto":
		return ""
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		return w.typeName(w.f.field(t, "name"))
	case "template_type":
		return w.typeName(w.f.field(t, "name"))
	}
	name := baseType(w.f.Text(t))
	if w.tparams[name] {
		return ""
	}
	return name
}

// cppName is the plain name of a name node: template arguments dropped
// (`f<int>` → f), `template` and `typename` disambiguators skipped,
// operator names with their spaces removed ("operator new" →
// "operatornew", "operator()" stays).
func cppName(f *File, n *sitter.Node) string {
	for n != nil {
		switch f.kind(n) {
		case "template_function", "template_method", "template_type":
			n = f.field(n, "name")
			continue
		case "dependent_name", "dependent_type", "dependent_field":
			var inner *sitter.Node
			namedChildren(n, func(c *sitter.Node) {
				if inner == nil {
					inner = c
				}
			})
			n = inner
			continue
		case "operator_name", "destructor_name":
			return strings.Join(strings.Fields(f.Text(n)), "")
		}
		return f.Text(n)
	}
	return ""
}

// cppFlatten splits a (possibly nested) qualified_identifier into its scope
// segments (template arguments dropped) and its final name node.
func cppFlatten(f *File, q *sitter.Node) (scope []string, name *sitter.Node) {
	for f.kind(q) == "qualified_identifier" {
		s := f.field(q, "scope")
		if f.kind(s) == "template_type" {
			scope = append(scope, fieldText(f, s, "name"))
		} else if s != nil {
			scope = append(scope, baseType(f.Text(s)))
		}
		q = f.field(q, "name")
	}
	return scope, q
}

// typeSpec emits a class/struct/union/enum that has a body. nameOverride
// names an anonymous specifier (typedef struct {...} name). anchor, when not
// nil, is the node whose lines and doc comment the symbol takes.
func (w *cppWalker) typeSpec(n *sitter.Node, caller, nameOverride string, anchor *sitter.Node) string {
	body := w.f.field(n, "body")
	nameNode := w.f.field(n, "name")
	if body == nil {
		return ""
	}
	name := nameOverride
	var scope []string
	switch w.f.kind(nameNode) {
	case "":
	case "template_type":
		name = fieldText(w.f, nameNode, "name")
	case "qualified_identifier":
		var last *sitter.Node
		scope, last = cppFlatten(w.f, nameNode)
		name = baseType(w.f.Text(last))
	default:
		name = w.f.Text(nameNode)
	}
	if name == "" { // anonymous struct/union member: walk the fields in place
		w.walkChildren(body, caller)
		return ""
	}
	var kind schema.Kind
	access := "public"
	switch w.f.kind(n) {
	case "class_specifier":
		kind, access = schema.KindClass, "private"
	case "struct_specifier":
		kind = schema.KindStruct
	case "union_specifier":
		kind = schema.KindUnion
	default:
		kind = schema.KindEnum
	}
	doc := cppDoc(w.f, n, anchor)
	if anchor == nil {
		anchor = n
	}
	qname := lxJoin(append(append([]string{w.prefix()}, scope...), name)...)
	id := w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: qname, Kind: kind,
		Signature:  signatureOf(w.f, n, body),
		DocComment: doc,
		IsExported: w.memberExported(),
	}, anchor)
	w.f.eachNamedChild(n, func(c *sitter.Node, ck string) {
		if ck != "base_class_clause" {
			return
		}
		w.f.eachNamedChild(c, func(b *sitter.Node, bk string) {
			parent := ""
			switch bk {
			case "access_specifier", "comment":
				return
			case "template_type":
				parent = fieldText(w.f, b, "name")
			default:
				parent = baseType(w.f.Text(b))
			}
			if parent != "" {
				w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: id, Parent: parent, Kind: "extends", Line: lineOf(b)})
			}
		})
	})
	if kind == schema.KindEnum {
		return id
	}
	// Data members are collected before the body is walked: inline methods
	// may use members declared below them.
	members := map[string]bool{}
	w.f.eachNamedChild(body, func(c *sitter.Node, ck string) {
		if ck != "field_declaration" {
			return
		}
		eachField(c, "declarator", func(d *sitter.Node) {
			if cppFuncDeclarator(d) == nil {
				if nm := cppDeclName(w.f, d); nm != "" {
					members[nm] = true
				}
			}
		})
	})
	w.fields[qname] = members
	w.cls = append(w.cls, cppClass{id: id, qname: qname, name: name, access: access})
	savedBody := w.inBody
	w.inBody = true
	w.walkChildren(body, caller)
	w.inBody = savedBody
	w.cls = w.cls[:len(w.cls)-1]
	return id
}

func (w *cppWalker) typedef(n *sitter.Node, caller string) {
	t := w.f.field(n, "type")
	var names []string
	eachField(n, "declarator", func(d *sitter.Node) {
		if nm := cppDeclName(w.f, d); nm != "" {
			names = append(names, nm)
		}
	})
	switch w.f.kind(t) {
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		if w.f.field(t, "body") != nil {
			if w.f.field(t, "name") == nil && len(names) > 0 {
				w.typeSpec(t, caller, names[0], n)
				names = names[1:]
			} else {
				w.typeSpec(t, caller, "", nil)
			}
		}
	}
	for _, nm := range names {
		w.f.AddSymbol(schema.Symbol{
			Name: nm, QualifiedName: lxJoin(w.prefix(), nm), Kind: schema.KindTypeAlias,
			Signature:  signatureOf(w.f, n, nil),
			DocComment: cppDoc(w.f, n, n),
			IsExported: w.memberExported(),
		}, n)
	}
}

// cppDeclName digs the declared identifier out of a declarator
// (pointer, reference, array, init, function and parenthesized declarators).
func cppDeclName(f *File, d *sitter.Node) string {
	var at sitter.Node
	for d != nil {
		switch f.kind(d) {
		case "identifier", "field_identifier", "type_identifier":
			return f.Text(d)
		case "qualified_identifier":
			_, last := cppFlatten(f, d)
			return f.Text(last)
		case "destructor_name", "operator_name":
			return f.Text(d)
		}
		// The inner declarator is copied into at, so that the descent
		// allocates nothing (d does not escape: neither do its callers'
		// field lookups).
		var next sitter.Node
		if !childInto(d, "declarator", &next) {
			// reference_declarator and parenthesized_declarator keep the
			// inner declarator as an unnamed-field child.
			found := false
			f.eachNamedChild(d, func(c *sitter.Node, kind string) {
				if !found && !isCommentKind(kind) && kind != "type_qualifier" {
					next, found = *c, true
				}
			})
			if !found {
				return ""
			}
		}
		at = next
		d = &at
	}
	return ""
}

// cppFuncDeclarator finds the function_declarator inside a declarator, nil
// when the declarator does not declare a function.
func cppFuncDeclarator(d *sitter.Node) *sitter.Node {
	for d != nil {
		switch kindOf(d) {
		case "function_declarator":
			// `int (*fp)(int)` declares a pointer, not a function.
			if kindOf(field(d, "declarator")) == "parenthesized_declarator" {
				return nil
			}
			return d
		case "pointer_declarator", "reference_declarator", "attributed_declarator":
			next := field(d, "declarator")
			if next == nil {
				namedChildren(d, func(c *sitter.Node) {
					if next == nil && kindOf(c) != "type_qualifier" {
						next = c
					}
				})
			}
			d = next
		default:
			return nil
		}
	}
	return nil
}

func cppIsStatic(f *File, n *sitter.Node) bool {
	static := false
	f.eachNamedChild(n, func(c *sitter.Node, kind string) {
		if kind == "storage_class_specifier" && f.Text(c) == "static" {
			static = true
		}
	})
	return static
}

// function emits a function or method definition and walks its body.
func (w *cppWalker) function(n *sitter.Node, caller string) {
	if caller != "" && !(w.inBody && len(w.cls) > 0) {
		// A definition inside a function's body, not in a local class's,
		// is error recovery: C has no nested functions (GCC's are rare),
		// and `else list_for_each_entry(pos, head, member) { ... }` parses
		// as a function list_for_each_entry of type "else" (the kernel:
		// about one in five of its files). Its statements are the caller's.
		w.walkChildren(n, caller)
		return
	}
	fd := cppFuncDeclarator(w.f.field(n, "declarator"))
	if fd == nil {
		if caller == "" && w.syscallDefinition(n) {
			return
		}
		w.walkChildren(n, caller)
		return
	}
	scope, nameNode := cppFlatten(w.f, w.f.field(fd, "declarator"))
	name := cppName(w.f, nameNode)
	if !lxIdentLike(name) { // error recovery can make anything a "declarator"
		w.walkChildren(n, caller)
		return
	}
	if len(scope) == 0 && caller == "" && w.syscallDeclarator(n, fd, name) {
		return
	}
	var via string // the macro that names the function by its argument
	if len(scope) == 0 && caller == "" && w.f.Language == "c" {
		if arg := w.cNamedByArgument(name, fd); arg != "" {
			via, name = name, arg
		}
	}
	sym := schema.Symbol{Name: name}
	dtor := strings.HasPrefix(name, "~")
	switch {
	case w.inBody && len(w.cls) > 0:
		top := w.cls[len(w.cls)-1]
		sym.Kind = schema.KindMethod
		if name == top.name || dtor {
			sym.Kind = schema.KindConstructor
		}
		sym.QualifiedName = lxJoin(top.qname, name)
		sym.ParentID = top.id
		sym.IsExported = w.memberExported()
	case len(scope) > 0:
		sym.Kind = schema.KindMethod
		if name == scope[len(scope)-1] || dtor {
			sym.Kind = schema.KindConstructor
		}
		sym.QualifiedName = lxJoin(append(append([]string{w.prefix()}, scope...), name)...)
		sym.IsExported = w.anon == 0
	default:
		sym.Kind = schema.KindFunction
		sym.QualifiedName = lxJoin(w.prefix(), name)
		sym.IsExported = w.anon == 0 && !cppIsStatic(w.f, n)
	}
	body := w.f.field(n, "body")
	sigEnd := body
	var inits *sitter.Node
	namedChildren(n, func(c *sitter.Node) {
		if w.f.kind(c) == "field_initializer_list" {
			inits, sigEnd = c, c
		}
	})
	sym.Signature = signatureOf(w.f, n, sigEnd)
	sym.DocComment = cppDoc(w.f, n, nil)
	id := w.f.AddSymbol(sym, n)
	if via != "" {
		// An entry point: what the macro defines is attached to a hook
		// (SEC("kprobe/...")), not called by the code around it.
		w.f.Facts.Registrations = append(w.f.Facts.Registrations, Registration{Name: name, Via: via, Line: lineOf(n)})
	}

	if sym.Kind != schema.KindConstructor {
		if rt := w.typeName(w.f.field(n, "type")); rt != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "return", Type: rt, Kind: "return", Line: lineOf(n)})
		}
	}
	savedLocals, savedMembers := w.locals, w.members
	w.locals, w.members = map[string]bool{}, nil
	if sym.Kind != schema.KindFunction {
		if dot := strings.LastIndexByte(sym.QualifiedName, '.'); dot > 0 {
			w.members = w.fields[sym.QualifiedName[:dot]]
		}
	}
	w.params(w.f.field(fd, "parameters"), id)
	var params map[string]bool // the parameters, for cStubBody (in a branch an option turns off)
	if w.off > 0 {
		params = maps.Clone(w.locals)
	}
	savedBody := w.inBody
	w.inBody = false
	calls := len(w.f.Facts.Calls)
	w.walkChildren(inits, id)
	w.walkChildren(body, id)
	w.inBody = savedBody
	w.locals, w.members = savedLocals, savedMembers
	if w.off > 0 && sym.Kind == schema.KindFunction && w.f.Language == "c" && body != nil &&
		cStubBody(w.f.Src[body.StartByte():body.EndByte()], params, w.f.Facts.Calls[calls:]) {
		w.f.Facts.ConfigStubs = append(w.f.Facts.ConfigStubs, id)
	}
}

func (w *cppWalker) params(list *sitter.Node, scope string) {
	w.f.eachNamedChild(list, func(p *sitter.Node, kind string) {
		switch kind {
		case "parameter_declaration", "optional_parameter_declaration":
		default:
			return
		}
		name := cppDeclName(w.f, w.f.field(p, "declarator"))
		if name == "" {
			return
		}
		w.locals[name] = true
		if t := w.typeName(w.f.field(p, "type")); t != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: t, Kind: "param", Line: lineOf(p)})
		}
	})
}

// declaration handles declarations at every level: globals, fields, locals,
// prototypes, and specifiers with bodies declared inline.
func (w *cppWalker) declaration(n *sitter.Node, caller string) {
	t := w.f.field(n, "type")
	switch w.f.kind(t) {
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		w.typeSpec(t, caller, "", nil)
	}
	typ := w.typeName(t)
	isField := w.f.kind(n) == "field_declaration" && len(w.cls) > 0
	eachField(n, "declarator", func(d *sitter.Node) {
		if fd := cppFuncDeclarator(d); fd != nil {
			if caller == "" && !isField && w.f.Language == "c" {
				_, nameNode := cppFlatten(w.f, w.f.field(fd, "declarator"))
				if name := cppName(w.f, nameNode); lxIdentLike(name) {
					w.f.Facts.Prototypes = append(w.f.Facts.Prototypes, name)
				}
			}
			// A prototype. Pure virtual members are the only declaration an
			// abstract method has: emit those.
			if isField && strings.TrimSpace(fieldText(w.f, n, "default_value")) == "0" {
				_, nameNode := cppFlatten(w.f, w.f.field(fd, "declarator"))
				name := cppName(w.f, nameNode)
				if !lxIdentLike(name) {
					return
				}
				top := w.cls[len(w.cls)-1]
				id := w.f.AddSymbol(schema.Symbol{
					Name: name, QualifiedName: lxJoin(top.qname, name), Kind: schema.KindMethod,
					Signature:  signatureOf(w.f, n, nil),
					DocComment: cppDoc(w.f, n, nil),
					IsExported: w.memberExported(), ParentID: top.id,
				}, n)
				if rt := w.typeName(t); rt != "" {
					w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "return", Type: rt, Kind: "return", Line: lineOf(n)})
				}
			}
			return
		}
		name := cppDeclName(w.f, d)
		if name != "" {
			tf := TypeFact{Name: name, Type: typ, Line: lineOf(d)}
			switch {
			case isField:
				tf.Scope, tf.Kind = w.cls[len(w.cls)-1].id, "field"
			case caller != "":
				tf.Scope, tf.Kind = caller, "local"
				w.locals[name] = true
			default:
				tf.Kind = "global"
				w.globals[name] = true
			}
			if typ != "" {
				w.f.Facts.Types = append(w.f.Facts.Types, tf)
			}
		}
		if w.f.kind(d) == "init_declarator" {
			if v := w.f.field(d, "value"); v != nil {
				switch {
				case w.f.kind(v) == "initializer_list":
					w.initStores(v, typ, caller)
				case w.f.Language == "c":
					w.attrInit(v, typ, caller) // a sysfs attribute's initializer macro (cattr.go)
				}
				w.walk(v, caller)
			}
		}
	})
	if dv := w.f.field(n, "default_value"); dv != nil {
		w.walk(dv, caller)
	}
}

func (w *cppWalker) call(n *sitter.Node, caller string) {
	fn := w.f.field(n, "function")
	args := w.f.field(n, "arguments")
	var name, recv string
	switch w.f.kind(fn) {
	case "identifier":
		name = w.f.Text(fn)
	case "field_expression":
		name = cppName(w.f, w.f.field(fn, "field"))
		recv = exprText(w.f, w.f.field(fn, "argument"))
	case "qualified_identifier":
		scope, last := cppFlatten(w.f, fn)
		recv = strings.Join(scope, "::")
		name = cppName(w.f, last)
	case "template_function":
		name = cppName(w.f, fn)
	}
	if lxIdentLike(name) {
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "call", Args: lxArgCount(w.f, args), Line: lineOf(n)})
		if recv == "" {
			w.registrar(name, args, caller)
		}
	}
	if w.f.Language == "c" && cTeardown(name) {
		return // what it is handed is taken back, not handed over
	}
	w.f.eachNamedChild(args, func(a *sitter.Node, kind string) {
		ref := a
		addr := false
		if kind == "pointer_expression" && strings.HasPrefix(w.f.Text(a), "&") {
			ref, addr = w.f.field(a, "argument"), true
		}
		switch w.f.kind(ref) {
		case "identifier":
			nm := w.f.Text(ref)
			if nm == "" || w.locals[nm] || w.globals[nm] || w.members[nm] || lxIsConstName(nm) {
				return
			}
			w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: nm, Kind: "reference", Args: -1, Line: lineOf(ref)})
		case "qualified_identifier":
			if !addr {
				return
			}
			scope, last := cppFlatten(w.f, ref)
			nm := cppName(w.f, last)
			if !lxIdentLike(nm) {
				return
			}
			w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: nm, Receiver: strings.Join(scope, "::"), Kind: "reference", Args: -1, Line: lineOf(ref)})
		}
	})
}

func (w *cppWalker) newExpr(n *sitter.Node, caller string) {
	t := w.f.field(n, "type")
	var name, recv string
	switch w.f.kind(t) {
	case "qualified_identifier":
		scope, last := cppFlatten(w.f, t)
		recv = strings.Join(scope, "::")
		name = w.typeName(last)
	default:
		name = w.typeName(t)
	}
	if !lxIdentLike(name) {
		return
	}
	w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "new", Args: lxArgCount(w.f, w.f.field(n, "arguments")), Line: lineOf(n)})
}
