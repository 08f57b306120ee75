package lang

// PHP extraction, with the grammar that reads `<?php` code embedded in HTML
// (tree-sitter-php's LanguagePHP, not LanguagePHPOnly).
//
// Conventions:
//   - Facts.Package is the first namespace of the file as written
//     ("App\Http\Controllers"). QualifiedNames do not repeat it: they are
//     "Class.method" (and "function" for free functions).
//   - Symbols: function → function, class → class, interface →
//     interface, trait → trait, enum → enum, methods → method (__construct
//     → constructor), abstract and interface method declarations included.
//   - IsExported: methods are exported unless private or protected (no
//     modifier means public); classes, interfaces, traits, enums and
//     functions are always exported.
//   - Heritage: `extends` → extends (an interface's `extends` list too),
//     `implements` → implements, `use TraitA, TraitB;` in a class body →
//     include. Parents are as written (leading "\" dropped).
//   - Imports: one Import per `use` clause with Spec the fully qualified
//     name ("App\Models\User"), Names its last segment, Alias the `as`
//     name; group uses `use A\{B, C as D}` are expanded; `use function` and
//     `use const` set Kind "function" / "const". require/include with a
//     literal path give Spec the path; `__DIR__ . '/x.php'` gives Kind
//     "relative" and Spec "x.php" relative to the file's directory.
//   - Calls: Receiver is the object or scope as written ("$this->mailer",
//     "User", "parent", "static"); `new X(...)` is Kind "new" with Name X.
//     Callable strings and arrays are not followed.
//   - TypeFacts: typed properties and promoted constructor parameters
//     (Kind "field", Name without "$", as `$this->name` reads them),
//     parameters (Name with "$"), `$x = new T` locals, return types;
//     scalar types are left out.

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "php",
		Extensions: []string{".php", ".phtml", ".php5", ".php7", ".phps"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsphp.LanguagePHP()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &phpWalker{f: f}
			w.walk(root, "")
		},
	})
}

type phpClass struct {
	id, qname string
}

type phpWalker struct {
	f   *File
	cls []phpClass
}

// walk visits n and, unless its handler took care of them, its
// descendants.
func (w *phpWalker) walk(n *sitter.Node, caller string) {
	if w.visit(n, kindOf(n), caller) {
		w.walkChildren(n, caller)
	}
}

// walkChildren visits n's named descendants in source order with the
// tree traversal done in C (walkNamedKind); a visit that returns false has
// handled its node's subtree itself.
func (w *phpWalker) walkChildren(n *sitter.Node, caller string) {
	w.f.walkNamedKind(n, func(c *sitter.Node, kind string) bool { return w.visit(c, kind, caller) })
}

// visit handles one node and reports whether its descendants still need
// visiting.
func (w *phpWalker) visit(n *sitter.Node, kind, caller string) bool {
	switch kind {
	case "comment", "text", "text_interpolation":
		return false
	case "namespace_definition":
		if w.f.Facts.Package == "" {
			w.f.Facts.Package = fieldText(w.f, n, "name")
		}
		w.walkChildren(field(n, "body"), caller)
		return false
	case "namespace_use_declaration":
		w.use(n)
		return false
	case "require_expression", "require_once_expression", "include_expression", "include_once_expression":
		w.require(n)
		return false
	case "class_declaration", "interface_declaration", "trait_declaration", "enum_declaration":
		w.classLike(n)
		return false
	case "function_definition", "method_declaration":
		w.function(n)
		return false
	case "property_declaration":
		w.property(n)
		return false
	case "use_declaration": // trait use inside a class body
		if len(w.cls) > 0 {
			top := w.cls[len(w.cls)-1]
			namedChildren(n, func(c *sitter.Node) {
				if k := kindOf(c); k == "name" || k == "qualified_name" {
					w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: top.id, Parent: strings.TrimPrefix(w.f.Text(c), `\`), Kind: "include", Line: lineOf(c)})
				}
			})
		}
		return false
	case "assignment_expression":
		w.assignment(n, caller)
	case "function_call_expression", "member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression":
		w.call(n, caller)
	case "object_creation_expression":
		w.creation(n, caller)
	}
	return true
}

func (w *phpWalker) use(n *sitter.Node) {
	// `use function` / `use const`: the type field sits on the declaration
	// for groups and on the clause otherwise.
	kind := fieldText(w.f, n, "type")
	prefix := ""
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "namespace_name" {
			prefix = w.f.Text(c)
		}
	})
	add := func(clause *sitter.Node) {
		kind := kind
		if k := fieldText(w.f, clause, "type"); k != "" {
			kind = k
		}
		var fqn string
		namedChildren(clause, func(c *sitter.Node) {
			if k := kindOf(c); (k == "qualified_name" || k == "name" || k == "namespace_name") && fqn == "" {
				fqn = w.f.Text(c)
			}
		})
		fqn = strings.TrimPrefix(fqn, `\`)
		if prefix != "" {
			fqn = strings.TrimSuffix(prefix, `\`) + `\` + fqn
		}
		if fqn == "" {
			return
		}
		last := fqn
		if i := strings.LastIndexByte(fqn, '\\'); i >= 0 {
			last = fqn[i+1:]
		}
		w.f.Facts.Imports = append(w.f.Facts.Imports, Import{Spec: fqn, Names: []string{last}, Alias: fieldText(w.f, clause, "alias"), Kind: kind, Line: lineOf(clause)})
	}
	namedChildren(n, func(c *sitter.Node) {
		switch kindOf(c) {
		case "namespace_use_clause":
			add(c)
		case "namespace_use_group":
			namedChildren(c, func(g *sitter.Node) {
				if kindOf(g) == "namespace_use_clause" {
					add(g)
				}
			})
		}
	})
}

func (w *phpWalker) require(n *sitter.Node) {
	var arg *sitter.Node
	namedChildren(n, func(c *sitter.Node) {
		if arg == nil {
			arg = c
		}
	})
	if kindOf(arg) == "parenthesized_expression" {
		arg = arg.NamedChild(0)
	}
	imp := Import{Line: lineOf(n)}
	switch kindOf(arg) {
	case "string", "encapsed_string":
		imp.Spec = phpStringLit(w.f, arg)
	case "binary_expression":
		l, r := field(arg, "left"), field(arg, "right")
		if w.f.Text(l) == "__DIR__" {
			imp.Spec = strings.TrimPrefix(phpStringLit(w.f, r), "/")
			imp.Kind = "relative"
		}
	}
	if imp.Spec != "" {
		w.f.Facts.Imports = append(w.f.Facts.Imports, imp)
	}
}

// phpStringLit is the content of a string literal without interpolation,
// "" for anything else.
func phpStringLit(f *File, n *sitter.Node) string {
	switch kindOf(n) {
	case "string", "encapsed_string":
	default:
		return ""
	}
	var b strings.Builder
	ok := true
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "string_content" || kindOf(c) == "string_value" {
			b.WriteString(f.Text(c))
		} else {
			ok = false
		}
	})
	if !ok {
		return ""
	}
	return b.String()
}

func (w *phpWalker) classLike(n *sitter.Node) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	var kind schema.Kind
	switch kindOf(n) {
	case "class_declaration":
		kind = schema.KindClass
	case "interface_declaration":
		kind = schema.KindInterface
	case "trait_declaration":
		kind = schema.KindTrait
	default:
		kind = schema.KindEnum
	}
	body := field(n, "body")
	id := w.f.AddSymbol(schema.Symbol{
		Name: name, QualifiedName: name, Kind: kind,
		Signature: signatureOf(w.f, n, body), DocComment: phpDoc(w.f, n), IsExported: true,
	}, n)
	namedChildren(n, func(c *sitter.Node) {
		hk := ""
		switch kindOf(c) {
		case "base_clause":
			hk = "extends"
		case "class_interface_clause":
			hk = "implements"
		default:
			return
		}
		namedChildren(c, func(p *sitter.Node) {
			if k := kindOf(p); k == "name" || k == "qualified_name" {
				w.f.Facts.Heritage = append(w.f.Facts.Heritage, Heritage{ChildID: id, Parent: strings.TrimPrefix(w.f.Text(p), `\`), Kind: hk, Line: lineOf(p)})
			}
		})
	})
	w.cls = append(w.cls, phpClass{id: id, qname: name})
	w.walkChildren(body, "")
	w.cls = w.cls[:len(w.cls)-1]
}

// phpTypeName is the class-like name of a declared type, "" for scalar,
// union and intersection types.
func phpTypeName(f *File, t *sitter.Node) string {
	switch kindOf(t) {
	case "named_type":
		return strings.TrimPrefix(f.Text(t), `\`)
	case "optional_type":
		var inner *sitter.Node
		namedChildren(t, func(c *sitter.Node) { inner = c })
		return phpTypeName(f, inner)
	}
	return ""
}

// phpVisible reports whether a member is public: no private/protected
// visibility modifier.
func phpVisible(f *File, n *sitter.Node) bool {
	public := true
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "visibility_modifier" {
			if v := f.Text(c); v == "private" || v == "protected" {
				public = false
			}
		}
	})
	return public
}

func (w *phpWalker) function(n *sitter.Node) {
	name := fieldText(w.f, n, "name")
	if name == "" {
		return
	}
	body := field(n, "body")
	sym := schema.Symbol{Name: name, Signature: signatureOf(w.f, n, body), DocComment: phpDoc(w.f, n), IsExported: true}
	var cls *phpClass
	if kindOf(n) == "method_declaration" && len(w.cls) > 0 {
		cls = &w.cls[len(w.cls)-1]
		sym.Kind = schema.KindMethod
		if strings.EqualFold(name, "__construct") {
			sym.Kind = schema.KindConstructor
		}
		sym.QualifiedName = lxJoin(cls.qname, name)
		sym.ParentID = cls.id
		sym.IsExported = phpVisible(w.f, n)
	} else {
		sym.Kind = schema.KindFunction
		sym.QualifiedName = name
	}
	id := w.f.AddSymbol(sym, n)
	if rt := phpTypeName(w.f, field(n, "return_type")); rt != "" {
		w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "return", Type: rt, Kind: "return", Line: lineOf(n)})
	}
	namedChildren(field(n, "parameters"), func(p *sitter.Node) {
		pn := strings.TrimPrefix(fieldText(w.f, p, "name"), "$")
		t := phpTypeName(w.f, field(p, "type"))
		if pn == "" || t == "" {
			return
		}
		w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: "$" + pn, Type: t, Kind: "param", Line: lineOf(p)})
		if kindOf(p) == "property_promotion_parameter" && cls != nil {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: cls.id, Name: pn, Type: t, Kind: "field", Line: lineOf(p)})
		}
	})
	w.walkChildren(body, id)
}

func (w *phpWalker) property(n *sitter.Node) {
	if len(w.cls) == 0 {
		return
	}
	t := phpTypeName(w.f, field(n, "type"))
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) != "property_element" {
			return
		}
		name := strings.TrimPrefix(fieldText(w.f, c, "name"), "$")
		if t != "" && name != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: w.cls[len(w.cls)-1].id, Name: name, Type: t, Kind: "field", Line: lineOf(c)})
		}
		w.walkChildren(c, "")
	})
}

func (w *phpWalker) assignment(n *sitter.Node, caller string) {
	left, right := field(n, "left"), field(n, "right")
	if caller == "" || kindOf(left) != "variable_name" || kindOf(right) != "object_creation_expression" {
		return
	}
	if t := phpNewName(w.f, right); t != "" {
		w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: caller, Name: w.f.Text(left), Type: t, Kind: "local", Line: lineOf(n)})
	}
}

// phpNewName is the class a `new` expression instantiates as written
// (leading "\" dropped), "" for anonymous classes and `new $var`.
func phpNewName(f *File, n *sitter.Node) string {
	var t string
	namedChildren(n, func(c *sitter.Node) {
		if k := kindOf(c); t == "" && (k == "name" || k == "qualified_name") {
			t = strings.TrimPrefix(f.Text(c), `\`)
		}
	})
	return t
}

// phpSplitName splits a qualified name into its namespace and last
// segment.
func phpSplitName(s string) (ns, name string) {
	s = strings.TrimPrefix(s, `\`)
	if i := strings.LastIndexByte(s, '\\'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

func (w *phpWalker) call(n *sitter.Node, caller string) {
	var name, recv string
	switch kindOf(n) {
	case "function_call_expression":
		fn := field(n, "function")
		switch kindOf(fn) {
		case "name", "qualified_name":
			recv, name = phpSplitName(w.f.Text(fn))
		default: // $closure(), (expr)()
			return
		}
	case "member_call_expression", "nullsafe_member_call_expression":
		nm := field(n, "name")
		if kindOf(nm) != "name" {
			return
		}
		name = w.f.Text(nm)
		recv = exprText(w.f, field(n, "object"))
	case "scoped_call_expression":
		nm := field(n, "name")
		if kindOf(nm) != "name" {
			return
		}
		name = w.f.Text(nm)
		recv = strings.TrimPrefix(exprText(w.f, field(n, "scope")), `\`)
	}
	w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: recv, Kind: "call", Args: lxArgCount(w.f, field(n, "arguments")), Line: lineOf(n)})
}

func (w *phpWalker) creation(n *sitter.Node, caller string) {
	t := phpNewName(w.f, n)
	if t == "" {
		return
	}
	ns, name := phpSplitName(t)
	var args *sitter.Node
	namedChildren(n, func(c *sitter.Node) {
		if kindOf(c) == "arguments" {
			args = c
		}
	})
	argc := lxArgCount(w.f, args)
	if args == nil {
		argc = 0
	}
	w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: name, Receiver: ns, Kind: "new", Args: argc, Line: lineOf(n)})
}

// phpDoc is the doc comment above n (PHPDoc /** */ blocks and // lines).
func phpDoc(f *File, n *sitter.Node) string {
	return lxTextDoc(f.Src, n.StartByte(), lxDocStyle{})
}
