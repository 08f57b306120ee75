package lang

// C extraction. C and C++ share one walker (cppWalker in cpp.go): the C++
// grammar's node kinds are a superset of C's, and the C-specific rules
// (no classes, no namespaces, no access specifiers) fall out of the C tree
// simply not containing those nodes.
//
// ".h" headers are claimed by C. A header may well be C++, but telling the
// two apart needs more than the file name, and parsing a C++ header with the
// C grammar still yields its functions, structs, typedefs and includes
// (class bodies and namespaces become partial trees). C++-only header
// suffixes (.hpp, .hh, .hxx, .h++) belong to cpp.

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "c",
		Extensions: []string{".c", ".h"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsc.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			w := &cppWalker{f: f, cpp: false}
			w.run(root)
		},
	})
}

// Helpers shared by the c, cpp, csharp, rust, ruby and php extractors carry
// the prefix lx so they never collide with another language's helpers.

// lxLinkParents sets ParentID on methods and constructors left without one
// (out-of-line C++ definitions, Rust impl blocks, ...) when the type their
// qualified name names ("A.B.method" → "A.B") is declared in the same file.
// QualifiedNames use "." between every level in all languages.
func lxLinkParents(f *File) {
	types := map[string]string{}
	for _, s := range f.Facts.Symbols {
		if s.Label == schema.LabelClass || s.Label == schema.LabelInterface {
			if _, dup := types[s.QualifiedName]; !dup {
				types[s.QualifiedName] = s.ID
			}
		}
	}
	for i := range f.Facts.Symbols {
		s := &f.Facts.Symbols[i]
		if s.ParentID != "" || (s.Kind != schema.KindMethod && s.Kind != schema.KindConstructor) {
			continue
		}
		if dot := strings.LastIndexByte(s.QualifiedName, '.'); dot > 0 {
			s.ParentID = types[s.QualifiedName[:dot]]
		}
	}
}

// lxJoin joins qualified-name segments with ".", skipping empty ones.
func lxJoin(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// lxArgCount counts the named, non-comment children of an argument list;
// -1 when there is no list.
func lxArgCount(args *sitter.Node) int {
	if args == nil {
		return -1
	}
	n := 0
	namedChildren(args, func(c *sitter.Node) {
		if !isCommentKind(c.Kind()) {
			n++
		}
	})
	return n
}

// lxIsConstName reports whether an identifier is written in ALL_CAPS (a
// macro or constant, never a function passed by name).
func lxIsConstName(s string) bool {
	hasLetter := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			return false
		}
		if r >= 'A' && r <= 'Z' {
			hasLetter = true
		}
	}
	return hasLetter
}
