package lang

// Shared tree helpers used by every extractor. Language-specific helpers
// live in their language's file and carry its prefix (goX, pyX, cppX, ...).

import (
	"strings"
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// signatureCap is the most characters kept in Symbol.Signature.
const signatureCap = 300

// field returns the child of n under the grammar field name, or nil. It is
// nil-safe so chains like field(field(n, "a"), "b") need no checks. It is
// small enough to be inlined, so that a child its caller only reads (its
// kind, its text) is not allocated on the heap (childInto).
func field(n *sitter.Node, name string) *sitter.Node {
	c := new(sitter.Node)
	if !childInto(n, name, c) {
		return nil
	}
	return c
}

// childInto sets *out to n's child under the grammar field name and
// reports whether there is one (false for a nil n).
func childInto(n *sitter.Node, name string, out *sitter.Node) bool {
	if n == nil {
		return false
	}
	id := fieldID(n, name)
	if id == 0 {
		return false
	}
	if cWalkOK {
		return childByFieldC(n, id, out)
	}
	c := n.ChildByFieldId(id)
	if c == nil {
		return false
	}
	*out = *c
	return true
}

// fieldKey names a field of one grammar.
type fieldKey struct {
	lang unsafe.Pointer
	name string
}

// fieldIDs caches field ids per grammar: Node.ChildByFieldName and
// Language.FieldIdForName copy the name into C memory on every call (the
// latter never frees it), so names are resolved once per grammar.
var fieldIDs sync.Map // fieldKey → uint16

func fieldID(n *sitter.Node, name string) uint16 {
	return fieldIDIn(nodeLanguage(n), n, name)
}

// fieldIDIn is fieldID for a node of grammar lang (nodeLanguage's).
func fieldIDIn(lang unsafe.Pointer, n *sitter.Node, name string) uint16 {
	k := fieldKey{lang, name}
	if id, ok := fieldIDs.Load(k); ok {
		return id.(uint16)
	}
	id := n.Language().FieldIdForName(name)
	fieldIDs.Store(k, id)
	return id
}

// fieldText is the source text of n's child under field name, "" if none.
func fieldText(f *File, n *sitter.Node, name string) string {
	return f.Text(f.field(n, name))
}

// lineOf is the 1-based line n starts on, 0 for nil.
func lineOf(n *sitter.Node) int {
	if n == nil {
		return 0
	}
	return int(n.StartPosition().Row) + 1
}

// namedChildren calls fn for each named child of n in order. It walks
// with a cursor (in C, namedChildrenC): indexed access (NamedChild(i))
// scans from the first child and makes a loop over a file's top-level
// declarations quadratic.
func namedChildren(n *sitter.Node, fn func(c *sitter.Node)) {
	if n != nil && cWalkOK {
		namedChildrenC(n, fn)
		return
	}
	eachChild(n, true, fn)
}

// children calls fn for every child of n (named or not) in order.
func children(n *sitter.Node, fn func(c *sitter.Node)) {
	eachChild(n, false, fn)
}

func eachChild(n *sitter.Node, namedOnly bool, fn func(c *sitter.Node)) {
	if n == nil || n.ChildCount() == 0 {
		return
	}
	cur := n.Walk()
	defer cur.Close()
	if !cur.GotoFirstChild() {
		return
	}
	for {
		c := cur.Node()
		if !namedOnly || c.IsNamed() {
			fn(c)
		}
		if !cur.GotoNextSibling() {
			return
		}
	}
}

// walkNamed visits the named descendants of n (not n itself) in source
// order, depth first. When fn returns false the node's own descendants are
// skipped (pruned); the walk goes on with its siblings. It uses one tree
// cursor for the whole walk.
func walkNamed(n *sitter.Node, fn func(c *sitter.Node) bool) {
	if n == nil {
		return
	}
	if cWalkOK {
		walkNamedC(n, fn)
		return
	}
	walkNamedCursor(n, fn)
}

// walkNamedCursor is walkNamed driven from Go with one tree cursor.
func walkNamedCursor(n *sitter.Node, fn func(c *sitter.Node) bool) {
	cur := n.Walk()
	defer cur.Close()
	if !cur.GotoFirstChild() {
		return
	}
	depth := 1
	for {
		node := cur.Node()
		descend := true
		if node.IsNamed() {
			descend = fn(node)
		}
		if descend && cur.GotoFirstChild() {
			depth++
			continue
		}
		for !cur.GotoNextSibling() {
			if depth == 1 || !cur.GotoParent() {
				return
			}
			depth--
		}
	}
}

// isCommentKind reports whether a node kind is a comment in any of our
// grammars ("comment", "line_comment", "block_comment", ...).
func isCommentKind(k string) bool {
	return k == "comment" || strings.HasSuffix(k, "_comment")
}

// docComment collects the block of comment siblings directly above decl:
// contiguous comments (no blank line between them or between the last one
// and decl), stripped of their //, #, /* */, /** and leading * decorations,
// joined with newlines. Comments that end on the line decl starts (a
// trailing comment of the previous statement) are not doc comments.
func docComment(f *File, decl *sitter.Node) string {
	if decl == nil {
		return ""
	}
	var block []*sitter.Node
	nextRow := decl.StartPosition().Row
	for p := decl.PrevSibling(); p != nil; p = p.PrevSibling() {
		if !isCommentKind(kindOf(p)) {
			break
		}
		end := p.EndPosition().Row
		if end+1 < nextRow || end >= nextRow { // blank line gap, or same line
			break
		}
		// A comment that trails code on its own line belongs to that code.
		if prev := p.PrevSibling(); prev != nil && !isCommentKind(kindOf(prev)) && prev.EndPosition().Row == p.StartPosition().Row {
			break
		}
		block = append(block, p)
		nextRow = p.StartPosition().Row
	}
	if len(block) == 0 {
		return ""
	}
	return joinDoc(len(block), func(i int) string { return f.Text(block[i]) })
}

// joinDoc is a doc block's text: its n comments, collected upwards (raw(0)
// is the last, nearest the declaration), each cleaned (cleanComment),
// empty ones dropped, joined with newlines in source order.
func joinDoc(n int, raw func(i int) string) string {
	var b strings.Builder
	for i := n - 1; i >= 0; i-- {
		txt := cleanComment(raw(i))
		if txt == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(txt)
	}
	return b.String()
}

// cleanComment strips comment decorations from one comment token: leading
// //, ///, //!, #, --, the /* */ and /** */ delimiters and the leading * of
// block comment lines. Blank lines at either end are dropped.
func cleanComment(s string) string {
	s = strings.TrimSpace(s)
	block := false
	switch {
	case strings.HasPrefix(s, "/*"):
		block = true
		s = strings.TrimPrefix(s, "/*")
		s = strings.TrimLeft(s, "*!")
		s = strings.TrimSuffix(s, "*/")
	case strings.HasPrefix(s, "=begin"): // Ruby block comment
		s = strings.TrimPrefix(s, "=begin")
		s = strings.TrimSuffix(strings.TrimSpace(s), "=end")
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, ln := range lines {
		ln = strings.TrimSpace(ln)
		if block {
			if strings.HasPrefix(ln, "*") && !strings.HasPrefix(ln, "*/") {
				ln = strings.TrimSpace(ln[1:])
			}
		} else {
			switch {
			case strings.HasPrefix(ln, "//"):
				ln = strings.TrimLeft(ln[2:], "/!")
			case strings.HasPrefix(ln, "#"):
				ln = strings.TrimLeft(ln, "#")
			}
			ln = strings.TrimSpace(ln)
		}
		out = append(out, ln)
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// signatureOf is the declaration's source text from its start up to (not
// including) body, whitespace-collapsed and capped at signatureCap
// characters. With body nil it is the whole declaration, cut at its first
// line break-free prefix of signatureCap characters.
func signatureOf(f *File, decl, body *sitter.Node) string {
	if decl == nil {
		return ""
	}
	start, end := decl.StartByte(), decl.EndByte()
	if body != nil && body.StartByte() >= start && body.StartByte() <= end {
		end = body.StartByte()
	}
	return collapseSpace(f.Src[start:end], signatureCap)
}

// collapseSpace turns every run of whitespace in b into one space, trims
// both ends and cuts the result at max bytes (never inside a UTF-8
// sequence), appending "…" when cut.
func collapseSpace(b []byte, max int) string {
	var sb strings.Builder
	sb.Grow(min(len(b), max+4))
	space := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		if sb.Len() >= max && c&0xC0 != 0x80 {
			return strings.TrimRight(sb.String(), " ") + "…"
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// baseType reduces a type as written to the bare name the resolver links:
// pointers, references, slices/arrays, nullability markers and generic
// arguments are stripped ("*Engine" → "Engine", "List<Foo>" → "List",
// "[]*pkg.T" → "pkg.T", "Optional[Foo]" → "Optional", "&'a mut T" → "T",
// "const Foo&" → "Foo"). Function and map types are returned collapsed but
// otherwise as written.
func baseType(t string) string {
	t = strings.TrimSpace(t)
	for {
		old := t
		t = strings.TrimSpace(t)
		for _, p := range []string{"*", "&", "[]", "...", "mut ", "const ", "volatile ", "?", "^"} {
			t = strings.TrimPrefix(t, p)
		}
		if strings.HasPrefix(t, "'") { // Rust lifetime
			if i := strings.IndexByte(t, ' '); i > 0 {
				t = t[i+1:]
			}
		}
		if strings.HasPrefix(t, "[") { // Go array [N]T
			if i := strings.IndexByte(t, ']'); i > 0 {
				t = t[i+1:]
			}
		}
		if t == old {
			break
		}
	}
	if strings.HasPrefix(t, "func") || strings.HasPrefix(t, "map[") || strings.HasPrefix(t, "chan") || strings.HasPrefix(t, "(") {
		return collapseSpace([]byte(t), signatureCap)
	}
	if i := strings.IndexAny(t, "<[("); i > 0 {
		t = t[:i]
	}
	t = strings.TrimRight(t, "*&?[] \t\n")
	t = strings.TrimSuffix(t, "...")
	return strings.TrimSpace(t)
}

// eachField calls fn for every child of n under the field name, in order
// (for fields that repeat, like the names of `a, b int`).
func eachField(n *sitter.Node, name string, fn func(c *sitter.Node)) {
	if n == nil || n.ChildCount() == 0 {
		return
	}
	id := fieldID(n, name)
	if id == 0 {
		return
	}
	if cWalkOK && eachFieldC(n, id, fn) {
		return
	}
	eachFieldCursor(n, id, fn)
}

// eachFieldCursor is eachField for field id with a cursor driven from Go.
func eachFieldCursor(n *sitter.Node, id uint16, fn func(c *sitter.Node)) {
	cur := n.Walk()
	defer cur.Close()
	if !cur.GotoFirstChild() {
		return
	}
	for {
		if cur.FieldId() == id {
			fn(cur.Node())
		}
		if !cur.GotoNextSibling() {
			return
		}
	}
}

// unquote strips one pair of matching double, single or back quotes from s.
func unquote(s string) string {
	if len(s) >= 2 {
		switch q := s[0]; q {
		case '"', '\'', '`':
			if s[len(s)-1] == q {
				return s[1 : len(s)-1]
			}
		}
	}
	return s
}

// exprText is n's source text whitespace-collapsed and capped, for receiver
// expressions that may span lines (method chains).
func exprText(f *File, n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return collapseSpace(f.Src[n.StartByte():n.EndByte()], signatureCap)
}
