package lang

// C extraction. C and C++ share one walker (cppWalker in cpp.go): the C++
// grammar's node kinds are a superset of C's, and the C-specific rules
// (no classes, no namespaces, no access specifiers) fall out of the C tree
// simply not containing those nodes.
//
// ".h" headers are claimed by C (Detect sees only the name), though many
// C++ projects name their headers .h. When the C grammar leaves errors in a
// file whose text shows C++ markers (namespace, template, class, access
// specifiers, "::"), the extractor re-parses it with the C++ grammar and
// keeps whichever tree has fewer ERROR nodes; the file and its symbols keep
// the language "c" that detection gave them. C++-only header suffixes (.hpp,
// .hh, .hxx, .h++) belong to cpp directly.

import (
	"bytes"
	"strings"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "c",
		Extensions: []string{".c", ".h"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsc.Language()) },
		Extract: func(f *File, root *sitter.Node) {
			if root.HasError() && cLooksLikeCpp(f.Src) {
				if tree := cReparseAsCpp(f.Src); tree != nil {
					defer tree.Close()
					if alt := tree.RootNode(); cErrorCount(alt) < cErrorCount(root) {
						w := &cppWalker{f: f}
						w.run(alt)
						return
					}
				}
			}
			w := &cppWalker{f: f}
			w.run(root)
		},
	})
}

// cCppMarkers are byte strings that occur in C++ sources and (almost) never
// in C.
var cCppMarkers = [][]byte{
	[]byte("namespace "), []byte("template<"), []byte("template <"), []byte("class "),
	[]byte("public:"), []byte("private:"), []byte("protected:"), []byte("::"),
}

// cLooksLikeCpp reports whether src shows C++ syntax.
func cLooksLikeCpp(src []byte) bool {
	for _, m := range cCppMarkers {
		if bytes.Contains(src, m) {
			return true
		}
	}
	return false
}

// cReparseTimeout bounds the C++ re-parse of a .h file.
const cReparseTimeout = 10 * time.Second

// cReparseAsCpp parses src with the C++ grammar, nil when that fails or
// takes longer than cReparseTimeout. The caller closes the tree.
func cReparseAsCpp(src []byte) *sitter.Tree {
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(sitter.NewLanguage(tscpp.Language())); err != nil {
		return nil
	}
	deadline := time.Now().Add(cReparseTimeout)
	calls := 0
	n := len(src)
	return p.ParseWithOptions(func(i int, _ sitter.Point) []byte {
		if i >= n {
			return nil
		}
		return src[i:min(n, i+64<<10)]
	}, nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
		calls++
		return calls&63 == 0 && time.Now().After(deadline)
	}})
}

// cErrorCount counts the ERROR and MISSING nodes of a tree.
func cErrorCount(root *sitter.Node) int {
	n := 0
	walkNamed(root, func(c *sitter.Node) bool {
		if c.IsError() || c.IsMissing() {
			n++
		}
		return c.HasError()
	})
	if root.IsError() {
		n++
	}
	return n
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

// lxJoin joins qualified-name segments, skipping empty ones: schema.Qualify
// folded over the non-empty parts.
func lxJoin(parts ...string) string {
	q := ""
	for _, p := range parts {
		if p != "" {
			q = schema.Qualify(q, p)
		}
	}
	return q
}

// lxArgCount counts the named, non-comment children of an argument list;
// -1 when there is no list.
func lxArgCount(args *sitter.Node) int {
	if args == nil {
		return -1
	}
	n := 0
	lxChildren(args, func(c *sitter.Node) {
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

// lxIdentLike reports whether s can be a symbol or call name: an
// identifier (letters, digits, _, $, with C++ "::"-free destructor "~" and
// Ruby "?", "!", "=" suffixes), or a C++ operator name without spaces.
// Error recovery can hand extractors whole expressions as names; this keeps
// them out.
func lxIdentLike(s string) bool {
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "operator") {
		return !strings.ContainsAny(s, " \t\n")
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
		case r >= '0' && r <= '9' && i > 0:
		case r == '~' && i == 0:
		case (r == '?' || r == '!' || r == '=') && i == len(s)-1 && i > 0:
		default:
			return false
		}
	}
	return true
}

// lxChildren calls fn for each named child of n in order, like
// namedChildren, but stays linear on wide nodes: tree-sitter's
// NamedChild(i) scans from the first child, so indexing through a
// translation unit or a 10,000-element initializer is quadratic. Narrow
// nodes use indexing (no cursor allocation), wide ones a tree cursor.
func lxChildren(n *sitter.Node, fn func(c *sitter.Node)) {
	if n == nil {
		return
	}
	cnt := n.ChildCount()
	if cnt <= 16 {
		for i := uint(0); i < cnt; i++ {
			if c := n.Child(i); c != nil && c.IsNamed() {
				fn(c)
			}
		}
		return
	}
	cur := n.Walk()
	defer cur.Close()
	if !cur.GotoFirstChild() {
		return
	}
	for {
		if c := cur.Node(); c.IsNamed() {
			fn(c)
		}
		if !cur.GotoNextSibling() {
			return
		}
	}
}

// lxDocStyle says which lines lxTextDoc reads as comments or skips.
type lxDocStyle struct {
	hash      bool // "#" starts a comment line (Ruby)
	rustAttrs bool // skip "#[...]" attribute lines between doc and item (Rust)
	templates bool // skip "template <...>" header lines (C++)
}

// lxTextDoc is the doc comment of the declaration starting at byte start,
// read from the source text above it: the block of comment lines directly
// above the declaration's line (no blank line between), stripped by
// cleanComment and joined with newlines. It matches docComment's rules
// without asking the tree, whose PrevSibling scans all earlier siblings and
// made doc lookup quadratic in long class and impl bodies.
func lxTextDoc(src []byte, start uint, st lxDocStyle) string {
	ls := int(start)
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	var parts []string // bottom-up
	end := ls          // end (exclusive, at '\n' or 0) of the region still above
	for end > 0 {
		pe := end - 1 // the '\n' ending the line above
		ps := pe
		for ps > 0 && src[ps-1] != '\n' {
			ps--
		}
		line := bytes.TrimSpace(src[ps:pe])
		switch {
		case len(line) == 0:
			end = 0
		case bytes.HasPrefix(line, []byte("//")):
			parts = append(parts, cleanComment(string(line)))
			end = ps
		case st.hash && line[0] == '#' && !bytes.HasPrefix(line, []byte("#{")):
			parts = append(parts, cleanComment(string(line)))
			end = ps
		case st.rustAttrs && bytes.HasPrefix(line, []byte("#[")) && bytes.HasSuffix(line, []byte("]")):
			end = ps
		case st.templates && bytes.HasPrefix(line, []byte("template")):
			end = ps
		case bytes.HasSuffix(line, []byte("*/")):
			// A block comment: find the line where it opens.
			open := bytes.LastIndex(src[:pe], []byte("/*"))
			if open < 0 {
				end = 0
				break
			}
			os := open
			for os > 0 && src[os-1] != '\n' {
				os--
			}
			if len(bytes.TrimSpace(src[os:open])) > 0 { // code before the comment on its line
				end = 0
				break
			}
			parts = append(parts, cleanComment(string(src[open:pe])))
			end = os
		default:
			end = 0
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(parts[i])
	}
	return b.String()
}
