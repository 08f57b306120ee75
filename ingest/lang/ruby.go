package lang

// Ruby extraction.
//
// Conventions:
//   - Facts.Package is "" (Ruby has no file-level namespace).
//   - QualifiedNames join enclosing modules/classes and the method with "."
//     ("Billing.Invoice.total"); `class A::B` contributes both segments.
//   - Symbols: class → class, module → module, def inside a class/module →
//     method (initialize → constructor), `def self.x` and defs inside
//     `class << self` → method, def at top level → function.
//   - IsExported: false for instance methods after a bare `private` /
//     `protected`, for `private def x`, and for names listed in
//     `private :x, :y`; true otherwise.
//   - Heritage: `class A < B` → extends; `include M`, `prepend M` and
//     `extend M` → include.
//   - Imports: `require "x"` → Spec "x"; `require_relative "x"` → Kind
//     "relative". They are not also recorded as calls.
//   - Calls: Receiver is the receiver expression as written ("self",
//     "@lines", "Billing::Invoice"); `Foo.new(...)` is Kind "new" with Name
//     Foo (Receiver the namespace of `A::Foo.new`); `method(:name)` is a
//     Kind "reference" to name. A bare identifier inside a method body that
//     is not a parameter or a local assigned earlier is a call without
//     arguments (`helper`), as Ruby reads it.
//   - TypeFacts: `x = Foo.new` types local x as Foo; `@x = Foo.new` types
//     field "@x" of the enclosing class.

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsrb "github.com/tree-sitter/tree-sitter-ruby/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "ruby",
		Extensions: []string{".rb", ".rake", ".gemspec", ".ru"},
		FileNames:  []string{"Rakefile", "Gemfile", "Guardfile", "Capfile", "Vagrantfile"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsrb.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &rubyWalker{f: f}
			w.run(root)
		},
	})
}

type rubyScope struct {
	id, qname string
	private   bool // a bare private/protected is in force
}

type rubyWalker struct {
	f       *File
	scopes  []rubyScope
	locals  map[string]bool
	private map[string]bool // qualified names made private by `private :x`
	// privateDef is set while walking the arguments of `private` /
	// `protected`: a def there (`private def x`) is private.
	privateDef bool
	// callNames holds the start bytes of call nodes' method-name
	// identifiers, which the walk reaches after their call.
	callNames map[uint]bool
}

func (w *rubyWalker) run(root *sitter.Node) {
	w.private = map[string]bool{}
	w.callNames = map[uint]bool{}
	w.walk(root, "")
	for i := range w.f.Facts.Symbols {
		s := &w.f.Facts.Symbols[i]
		if w.private[s.QualifiedName] && s.Kind == schema.KindMethod {
			s.IsExported = false
		}
	}
}

func (w *rubyWalker) top() *rubyScope {
	if len(w.scopes) == 0 {
		return nil
	}
	return &w.scopes[len(w.scopes)-1]
}

// walk visits n and, unless its handler took care of them, its
// descendants.
func (w *rubyWalker) walk(n *sitter.Node, caller string) {
	if w.visit(n, kindOf(n), caller) {
		w.walkChildren(n, caller)
	}
}

// walkChildren visits n's named descendants in source order with the
// tree traversal done in C (walkNamedKind); a visit that returns false has
// handled its node's subtree itself.
func (w *rubyWalker) walkChildren(n *sitter.Node, caller string) {
	w.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool { return w.visit(c, kind, caller) })
}

// visit handles one node and reports whether its descendants still need
// visiting.
func (w *rubyWalker) visit(n *sitter.Node, kind, caller string) bool {
	switch kind {
	case "comment":
		return false
	case "class", "module":
		w.container(n)
		return false
	case "singleton_class": // class << self: its defs are class methods
		w.walkChildren(field(n, "body"), caller)
		return false
	case "method":
		w.method(n, false)
		return false
	case "singleton_method":
		w.method(n, true)
		return false
	case "call":
		if w.call(n, caller) {
			return false
		}
	case "identifier":
		w.bareIdentifier(n, caller)
		return false
	case "assignment", "operator_assignment":
		w.assignment(n, caller)
		return false
	case "block_parameters", "lambda_parameters", "method_parameters", "exception_variable":
		w.bind(n)
		return false
	case "for":
		w.bind(field(n, "pattern"))
	}
	return true
}

// rubyDoc is the "#" comment block above n.
func rubyDoc(f *File, n *sitter.Node) string {
	return lxTextDoc(f.Src, n.StartByte(), lxDocStyle{hash: true})
}

// rubyConstPath splits `A::B::C` into its segments.
func rubyConstPath(f *File, n *sitter.Node) []string {
	var segs []string
	for _, s := range strings.Split(f.Text(n), "::") {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

func (w *rubyWalker) container(n *sitter.Node) {
	segs := rubyConstPath(w.f, field(n, "name"))
	if len(segs) == 0 {
		return
	}
	kind := schema.KindClass
	if kindOf(n) == "module" {
		kind = schema.KindModule
	}
	prefix := ""
	if t := w.top(); t != nil {
		prefix = t.qname
	}
	qname := lxJoin(append([]string{prefix}, segs...)...)
	body := field(n, "body")
	id := w.f.AddSymbol(schema.Symbol{
		Name: segs[len(segs)-1], QualifiedName: qname, Kind: kind,
		Signature:  rubyFirstLine(w.f, n, body),
		DocComment: rubyDoc(w.f, n),
		IsExported: true,
	}, n)
	if sc := field(n, "superclass"); sc != nil {
		namedChildren(sc, func(c *sitter.Node) {
			if p := strings.TrimSpace(w.f.Text(c)); p != "" {
				w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: id, Parent: p, Kind: "extends", Line: lineOf(sc)})
			}
		})
	}
	savedLocals := w.locals
	w.locals = nil
	w.scopes = append(w.scopes, rubyScope{id: id, qname: qname})
	w.walkChildren(body, "")
	w.scopes = w.scopes[:len(w.scopes)-1]
	w.locals = savedLocals
}

// rubyFirstLine is a signature: the text up to the body (or the whole
// node), cut at the first line break.
func rubyFirstLine(f *File, n, body *sitter.Node) string {
	end := n.EndByte()
	if body != nil {
		end = body.StartByte()
	}
	txt := string(f.Src[n.StartByte():end])
	if i := strings.IndexByte(txt, '\n'); i >= 0 {
		txt = txt[:i]
	}
	return collapseSpace([]byte(txt), signatureCap)
}

func (w *rubyWalker) method(n *sitter.Node, singleton bool) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	privateDef := w.privateDef
	w.privateDef = false
	top := w.top()
	sym := schema.Symbol{Name: name, DocComment: rubyDoc(w.f, n), Signature: rubyFirstLine(w.f, n, field(n, "body")), IsExported: true}
	switch {
	case top != nil:
		sym.Kind = schema.KindMethod
		if name == "initialize" && !singleton {
			sym.Kind = schema.KindConstructor
		}
		sym.QualifiedName = lxJoin(top.qname, name)
		sym.ParentID = top.id
		if !singleton && (top.private || privateDef) {
			sym.IsExported = false
		}
	case singleton:
		obj := fieldText(w.f, n, "object")
		if obj != "self" && obj != "" {
			sym.Kind = schema.KindMethod
			sym.QualifiedName = lxJoin(append(rubyConstPath(w.f, field(n, "object")), name)...)
		} else {
			sym.Kind = schema.KindFunction
		}
	default:
		sym.Kind = schema.KindFunction
		sym.IsExported = !privateDef
	}
	id := w.f.AddSymbol(sym, n)
	saved := w.locals
	w.locals = map[string]bool{}
	w.bind(field(n, "parameters"))
	w.walkChildren(field(n, "body"), id)
	w.locals = saved
}

// bind records every identifier under a parameter list or binding pattern
// as a local.
func (w *rubyWalker) bind(n *sitter.Node) {
	if n == nil {
		return
	}
	if w.locals == nil {
		w.locals = map[string]bool{}
	}
	if kindOf(n) == "identifier" {
		w.locals[w.f.Text(n)] = true
		return
	}
	walkNamed(n, func(c *sitter.Node) bool {
		if kindOf(c) == "identifier" {
			w.locals[w.f.Text(c)] = true
		}
		return true
	})
}

var rubyVisibility = map[string]bool{"private": true, "protected": true, "public": true, "module_function": true, "private_class_method": true, "public_class_method": true}

func (w *rubyWalker) bareIdentifier(n *sitter.Node, caller string) {
	if start := n.StartByte(); w.callNames[start] {
		delete(w.callNames, start)
		return
	}
	name := w.f.Text(n)
	if caller == "" {
		if t := w.top(); t != nil && rubyVisibility[name] {
			t.private = name == "private" || name == "protected"
		}
		return
	}
	if w.locals[name] || rubyVisibility[name] {
		return
	}
	w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Kind: "call", Args: 0, Line: lineOf(n)})
}

func (w *rubyWalker) assignment(n *sitter.Node, caller string) {
	left, right := field(n, "left"), field(n, "right")
	switch kindOf(left) {
	case "identifier":
		if w.locals == nil {
			w.locals = map[string]bool{}
		}
		w.locals[w.f.Text(left)] = true
		if t := rubyNewType(w.f, right); t != "" && caller != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: caller, Name: w.f.Text(left), Type: t, Kind: "local", Line: lineOf(n)})
		}
	case "instance_variable":
		if t := rubyNewType(w.f, right); t != "" && len(w.scopes) > 0 {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: w.top().id, Name: w.f.Text(left), Type: t, Kind: "field", Line: lineOf(n)})
		}
	case "left_assignment_list":
		w.bind(left)
	default:
		w.walk(left, caller)
	}
	if right != nil {
		w.walk(right, caller)
	}
}

// rubyNewType is T for a `T.new(...)` expression, "" otherwise.
func rubyNewType(f *File, n *sitter.Node) string {
	if kindOf(n) != "call" || fieldText(f, n, "method") != "new" {
		return ""
	}
	switch r := field(n, "receiver"); kindOf(r) {
	case "constant", "scope_resolution":
		return f.Text(r)
	}
	return ""
}

// call records one call node. It returns true when the node is fully
// handled (imports, mixins, visibility) and must not be walked further;
// false when its children still need the walk.
func (w *rubyWalker) call(n *sitter.Node, caller string) bool {
	method := fieldText(w.f, n, "method")
	recv := field(n, "receiver")
	args := field(n, "arguments")
	line := lineOf(n)
	if recv == nil {
		switch method {
		case "require", "require_relative":
			if spec := rubyStringArg(w.f, args); spec != "" {
				imp := Import{Spec: spec, Line: line}
				if method == "require_relative" {
					imp.Kind = "relative"
				}
				w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
				return true
			}
		case "include", "extend", "prepend":
			if t := w.top(); t != nil && caller == "" {
				namedChildren(args, func(a *sitter.Node) {
					if k := kindOf(a); k == "constant" || k == "scope_resolution" {
						w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: t.id, Parent: w.f.Text(a), Kind: "include", Line: line})
					}
				})
				return true
			}
		case "private", "protected", "public", "private_class_method", "module_function":
			if t := w.top(); t != nil && caller == "" {
				if args == nil {
					t.private = method == "private" || method == "protected"
					return true
				}
				namedChildren(args, func(a *sitter.Node) {
					if kindOf(a) == "simple_symbol" && (method == "private" || method == "protected") {
						w.private[lxJoin(t.qname, strings.TrimPrefix(w.f.Text(a), ":"))] = true
					}
				})
				w.privateDef = method == "private" || method == "protected"
				w.walkChildren(args, caller) // `private def x`: the def
				w.privateDef = false
				return true
			}
		case "method":
			if lxArgCount(w.f, args) == 1 {
				if a := args.NamedChild(0); kindOf(a) == "simple_symbol" {
					w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: strings.TrimPrefix(w.f.Text(a), ":"), Kind: "reference", Args: -1, Line: line})
					return true
				}
			}
		}
	}
	if method == "new" && recv != nil && (kindOf(recv) == "constant" || kindOf(recv) == "scope_resolution") {
		segs := rubyConstPath(w.f, recv)
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{
			CallerID: caller, Name: segs[len(segs)-1], Receiver: strings.Join(segs[:len(segs)-1], "::"),
			Kind: "new", Args: lxArgCount(w.f, args), Line: line,
		})
	} else if method != "" {
		argc := lxArgCount(w.f, args)
		if args == nil {
			argc = 0
		}
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: method, Receiver: exprText(w.f, recv), Kind: "call", Args: argc, Line: line})
	}
	// The walk goes on into receiver, arguments and block; the method name
	// is an identifier child that must not be read as a bare call.
	if m := field(n, "method"); m != nil {
		w.callNames[m.StartByte()] = true
	}
	return false
}

// rubyStringArg is the content of a call's single plain string argument.
func rubyStringArg(f *File, args *sitter.Node) string {
	if lxArgCount(f, args) != 1 {
		return ""
	}
	s := args.NamedChild(0)
	if kindOf(s) != "string" || s.NamedChildCount() != 1 || s.NamedChild(0).Kind() != "string_content" {
		return ""
	}
	return f.Text(s.NamedChild(0))
}
