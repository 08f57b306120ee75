package lang

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "go",
		Extensions: []string{".go"},
		Source:     extractGo,
	})
}

// Go extraction.
//
// Go files are parsed by the standard library's go/parser, not
// tree-sitter: it is Go's own grammar (new syntax is never a parse
// error), and it parses several times faster (kubernetes' 45 MB of Go:
// 1.8 s of one core against tree-sitter's 14 s, whose tree was then
// walked through cgo for another 12 s).
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
// conversions to predeclared types are not recorded; conversions to
// array, slice, map, channel and func types are not calls.
//
// A file go/parser reports errors in is "partial": what it recovered
// (every declaration outside the broken ones) is extracted.

type goExtractor struct {
	f      *File
	tf     *token.File
	types  map[string]schema.Kind // type names declared in this file
	locals map[string]bool        // names declared in the current function
	// comments are the file's comments in order, for doc comments.
	comments []*ast.Comment
	// sanitized: the parse was of a copy of the source (goParsable).
	sanitized bool
	// delta and lineDelta map the parse's positions to the file's
	// (goParse).
	delta, lineDelta int
}

// extractGo parses f.Src and fills f; partial when the source has syntax
// errors, or bytes that are not UTF-8 (goParsable).
func extractGo(f *File) (partial bool) {
	f.Facts.BuildConstraint = goBuildLine(f.Src)
	p := parseGo(f.Path, f.Src)
	f.Facts.Package = p.pkg
	x := &goExtractor{f: f, types: map[string]schema.Kind{}, locals: map[string]bool{}, sanitized: p.sanitized}
	for _, d := range p.decls { // types first: methods declared before their type get a ParentID
		x.tf, x.delta = d.from.tf, d.from.delta
		if g, ok := d.decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name != nil {
					x.types[x.name(ts.Name)] = goTypeKind(ts)
				}
			}
		}
	}
	for _, d := range p.decls {
		x.tf, x.comments, x.delta, x.lineDelta = d.from.tf, d.from.comments, d.from.delta, d.from.lineDelta
		switch d := d.decl.(type) {
		case *ast.GenDecl:
			switch d.Tok {
			case token.IMPORT:
				x.imports(d)
			case token.TYPE:
				x.typeDecl(d)
			case token.VAR, token.CONST:
				clear(x.locals)
				x.body("", d, "global")
			}
		case *ast.FuncDecl:
			if d.Recv == nil {
				x.function(d)
			} else {
				x.method(d)
			}
		}
	}
	return p.partial
}

// goParsed is what parseGo makes of a file: its package name, and its
// top-level declarations in source order, each with the parse it comes
// from.
type goParsed struct {
	pkg     string
	decls   []goDecl
	partial bool // the source has syntax errors
	// sanitized: the parses are of a copy of the source (goParsable).
	sanitized bool
}

// goDecl is a top-level declaration and the parse it comes from.
type goDecl struct {
	decl ast.Decl
	from *goParse
}

// goParse is one go/parser parse of the file, or of a piece of it: then
// delta is what a position's offset in the piece is short of the
// file's, and lineDelta its line.
type goParse struct {
	file             *ast.File
	tf               *token.File
	comments         []*ast.Comment // the comments in order, for doc comments
	delta, lineDelta int
	prefix           int // the bytes before the piece (goPiecePrefix), not the file's
}

func newGoParse(path string, src []byte) (*goParse, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if file == nil {
		return nil, err
	}
	p := &goParse{file: file, tf: fset.File(file.FileStart)}
	if p.tf == nil {
		return nil, err
	}
	for _, g := range file.Comments {
		p.comments = append(p.comments, g.List...)
	}
	return p, err
}

// decls appends p's declarations, but those broken beyond use (a
// *ast.BadDecl, or one without a span in the source: the parser made it
// up where a piece's text ends) and, when imports is false, the import
// declarations.
func (p *goParse) decls(out []goDecl, imports bool) []goDecl {
	lo := p.prefix
	for _, d := range p.file.Decls {
		if _, bad := d.(*ast.BadDecl); bad {
			continue
		}
		s, e := d.Pos(), d.End()
		if !s.IsValid() || !e.IsValid() || int(s) < p.tf.Base()+lo || int(e) > p.tf.Base()+p.tf.Size() || e <= s {
			continue
		}
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && !imports {
			continue
		}
		out = append(out, goDecl{decl: d, from: p})
	}
	return out
}

// goPiecePrefix makes a piece of a file a Go file; it holds no newline,
// so the piece's lines are its first line's and on.
const goPiecePrefix = "package p;"

// parseGo parses src. go/parser recovers from a syntax error by skipping
// ahead, which can swallow the declarations after a broken one (an
// unclosed body runs on to the end of the file), where a file being
// edited has most of its declarations intact. So a file with errors is
// parsed again a piece at a time: its head (package clause and imports),
// then each top-level declaration (goDeclStarts) on its own, so that an
// error stays within its declaration; the pieces' positions are mapped
// back to the file's (goParse.delta). Each byte is parsed twice at most.
func parseGo(path string, src []byte) goParsed {
	src, sanitized := goParsable(src)
	first, err := newGoParse(path, src)
	if first == nil {
		return goParsed{partial: true, sanitized: sanitized}
	}
	out := goParsed{partial: err != nil || sanitized, sanitized: sanitized}
	if first.file.Name != nil {
		out.pkg = first.file.Name.Name
	}
	starts := goDeclStarts(src)
	if err == nil || len(starts) == 0 {
		out.decls = first.decls(nil, true)
		return out
	}
	// The head: the first parse's imports (the head of a file is what
	// the first parse read before any declaration could break it).
	for _, d := range first.file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && first.tf.Offset(g.End()) <= starts[0] {
			out.decls = append(out.decls, goDecl{decl: d, from: first})
		}
	}
	piece := make([]byte, 0, len(goPiecePrefix)+len(src)/len(starts)+64)
	line := 1 + bytes.Count(src[:starts[0]], []byte{'\n'})
	for i, at := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		piece = append(append(piece[:0], goPiecePrefix...), src[at:end]...)
		if p, _ := newGoParse(path, piece); p != nil {
			p.delta, p.lineDelta, p.prefix = at-len(goPiecePrefix), line-1, len(goPiecePrefix)
			out.decls = p.decls(out.decls, false)
		}
		line += bytes.Count(src[at:end], []byte{'\n'})
	}
	return out
}

// goParsable is src, or where src is not valid UTF-8 or holds NULs
// (which go/parser rejects, and, met in the package clause's lookahead,
// gives the whole file up for), a copy with each such byte replaced by
// 'X': the same length, so offsets and lines stay, and identifiers stay
// identifiers.
func goParsable(src []byte) ([]byte, bool) {
	if utf8.Valid(src) && bytes.IndexByte(src, 0) < 0 {
		return src, false
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if (r == utf8.RuneError && n == 1) || r == 0 {
			out = append(out, 'X')
			i++
			continue
		}
		out = append(out, src[i:i+n]...)
		i += n
	}
	return out, true
}

// goDeclStarts are the offsets where src's top-level declarations after
// the imports start: each line that begins (at column 0) with func, type,
// var or const, moved up over the comment lines directly above it (its
// doc comment, kept with it).
func goDeclStarts(src []byte) []int {
	var starts []int
	lineStart, commentFrom := 0, -1
	for lineStart < len(src) {
		end := bytes.IndexByte(src[lineStart:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += lineStart
		}
		line := src[lineStart:end]
		switch {
		case bytes.HasPrefix(line, []byte("//")):
			if commentFrom < 0 {
				commentFrom = lineStart
			}
		case bytes.HasPrefix(line, []byte("func")) || bytes.HasPrefix(line, []byte("type ")) ||
			bytes.HasPrefix(line, []byte("var")) || bytes.HasPrefix(line, []byte("const")):
			at := lineStart
			if commentFrom >= 0 {
				at = commentFrom
			}
			starts = append(starts, at)
			commentFrom = -1
		default:
			commentFrom = -1
		}
		lineStart = end + 1
	}
	return starts
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

// off is the byte offset of p in the source, -1 when p is not in it.
func (x *goExtractor) off(p token.Pos) int {
	if !p.IsValid() || int(p) < x.tf.Base() || int(p) > x.tf.Base()+x.tf.Size() {
		return -1
	}
	return x.tf.Offset(p) + x.delta
}

// line is the 1-based line of p in the file as it is (0 when p is not in
// the source): //line directives, which go/token would apply, are not
// read.
func (x *goExtractor) line(p token.Pos) int {
	if x.off(p) < 0 {
		return 0
	}
	return x.tf.PositionFor(p, false).Line + x.lineDelta
}

// name is id's name as the source spells it: where the source is not
// valid UTF-8, the parse is of a copy with the bytes that are not
// (and NULs) replaced (goParsable), and the names are read from the
// original, each such byte read as U+FFFD.
func (x *goExtractor) name(id *ast.Ident) string {
	if !x.sanitized {
		return id.Name
	}
	i := x.off(id.Pos())
	if i < 0 || i+len(id.Name) > len(x.f.Src) {
		return id.Name
	}
	// A name is an id's part and a row's key: invalid bytes and NULs
	// read as U+FFFD, as a UTF-8 decoder shows them.
	name := strings.ReplaceAll(string(x.f.Src[i:i+len(id.Name)]), "\x00", "\uFFFD")
	return strings.ToValidUTF8(name, "\uFFFD")
}

// src is the source from p to q, nil when either is not in it.
func (x *goExtractor) src(p, q token.Pos) []byte {
	i, j := x.off(p), x.off(q)
	if i < 0 || j < i {
		return nil
	}
	return x.f.Src[i:j]
}

// text is n's source text ("" for nil).
func (x *goExtractor) text(n ast.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src(n.Pos(), n.End()))
}

// exprText is n's source text whitespace-collapsed and capped, for
// receiver expressions that may span lines (method chains).
func (x *goExtractor) exprText(n ast.Node) string {
	if n == nil {
		return ""
	}
	return collapseSpace(x.src(n.Pos(), n.End()), signatureCap)
}

// docComment is the block of comments directly above the declaration
// starting at pos: contiguous comments (no blank line between them or
// between the last one and the declaration, nothing but space between
// them), stripped of their decorations, joined with newlines. A comment
// that ends on the line the declaration starts, or that trails code on
// its own line, is not a doc comment.
func (x *goExtractor) docComment(pos token.Pos) string {
	start := x.off(pos)
	if start < 0 {
		return ""
	}
	i := sort.Search(len(x.comments), func(i int) bool { return x.off(x.comments[i].End()) > start }) - 1
	nextRow, nextStart := x.line(pos), start
	var block []*ast.Comment
	for ; i >= 0; i-- {
		c := x.comments[i]
		cs, ce := x.off(c.Pos()), x.off(c.End())
		if cs < 0 || ce < 0 || ce > nextStart || len(bytes.TrimSpace(x.f.Src[ce:nextStart])) > 0 {
			break
		}
		if x.line(c.End()) != nextRow-1 {
			break
		}
		// A comment that trails code on its own line belongs to that code.
		ls := bytes.LastIndexByte(x.f.Src[:cs], '\n') + 1
		if before := bytes.TrimSpace(x.f.Src[ls:cs]); len(before) > 0 {
			prev := -1
			if i > 0 {
				prev = x.off(x.comments[i-1].End())
			}
			if prev < ls || len(bytes.TrimSpace(x.f.Src[prev:cs])) > 0 {
				break
			}
		}
		block = append(block, c)
		nextRow, nextStart = x.line(c.Pos()), cs
	}
	// The source's bytes, not the comments' Text: the parse may be of a
	// copy (goParsable).
	return joinDoc(len(block), func(i int) string { return string(x.src(block[i].Pos(), block[i].End())) })
}

// signature is the source from start up to (not including) body, or to
// end without one, whitespace-collapsed and capped at signatureCap.
func (x *goExtractor) signature(start, body, end token.Pos) string {
	if body.IsValid() && body >= start && body <= end {
		end = body
	}
	return collapseSpace(x.src(start, end), signatureCap)
}

// addSymbol adds s declared from start to end.
func (x *goExtractor) addSymbol(s schema.Symbol, start, end token.Pos) string {
	i, j := x.off(start), x.off(end)
	if i < 0 || j < i {
		return x.f.addSymbolBytes(s, 0, 0, 0)
	}
	return x.f.addSymbolBytes(s, uint(i), uint(j), x.line(start))
}

func (x *goExtractor) imports(d *ast.GenDecl) {
	for _, s := range d.Specs {
		is, ok := s.(*ast.ImportSpec)
		if !ok || is.Path == nil {
			continue
		}
		alias := ""
		if is.Name != nil {
			alias = x.name(is.Name)
		}
		x.f.Facts.Imports = append(x.f.Facts.Imports, Import{Spec: unquote(is.Path.Value), Alias: alias, Line: x.line(is.Pos())})
	}
}

func goExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

func goTypeKind(spec *ast.TypeSpec) schema.Kind {
	if !spec.Assign.IsValid() {
		switch spec.Type.(type) {
		case *ast.StructType:
			return schema.KindStruct
		case *ast.InterfaceType:
			return schema.KindInterface
		}
	}
	return schema.KindTypeAlias
}

func (x *goExtractor) function(d *ast.FuncDecl) {
	name := x.name(d.Name)
	var body token.Pos
	if d.Body != nil {
		body = d.Body.Lbrace
	}
	id := x.addSymbol(schema.Symbol{
		Name:       name,
		Kind:       schema.KindFunction,
		Signature:  x.signature(d.Pos(), body, d.End()),
		DocComment: x.docComment(d.Pos()),
		IsExported: goExported(name),
	}, d.Pos(), d.End())
	clear(x.locals)
	x.params(id, d.Type.Params)
	x.results(id, d.Type.Results)
	if d.Body != nil {
		x.body(id, d.Body, "local")
	}
}

func (x *goExtractor) method(d *ast.FuncDecl) {
	name := x.name(d.Name)
	var body token.Pos
	if d.Body != nil {
		body = d.Body.Lbrace
	}
	var recvName, recvType string
	var recv *ast.Field
	if len(d.Recv.List) > 0 {
		recv = d.Recv.List[0]
		if len(recv.Names) > 0 {
			recvName = x.name(recv.Names[0])
		}
		recvType = baseType(x.text(recv.Type))
	}
	qn := schema.Qualify(recvType, name)
	parent := ""
	if k, ok := x.types[recvType]; ok {
		parent = schema.SymbolID(x.f.Path, recvType, k, 1)
	}
	id := x.addSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: qn,
		Kind:          schema.KindMethod,
		Signature:     x.signature(d.Pos(), body, d.End()),
		DocComment:    x.docComment(d.Pos()),
		IsExported:    goExported(name),
		ParentID:      parent,
	}, d.Pos(), d.End())
	clear(x.locals)
	if recvType != "" {
		x.typeFact(id, "receiver", recvType, "receiver", recv.Pos())
		if recvName != "" && recvName != "_" {
			x.typeFact(id, recvName, recvType, "param", recv.Pos())
			x.locals[recvName] = true
		}
	}
	x.params(id, d.Type.Params)
	x.results(id, d.Type.Results)
	if d.Body != nil {
		x.body(id, d.Body, "local")
	}
}

func (x *goExtractor) typeFact(scope, name, typ, kind string, at token.Pos) {
	if typ == "" || name == "" || name == "_" {
		return
	}
	x.f.Facts.Types = append(x.f.Facts.Types, TypeFact{Scope: scope, Name: name, Type: typ, Kind: kind, Line: x.line(at)})
}

// params records the parameters of a list as TypeFacts of scope and as
// locals of the current function.
func (x *goExtractor) params(scope string, list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, p := range list.List {
		typ := baseType(x.text(p.Type))
		for _, nm := range p.Names {
			x.locals[x.name(nm)] = true
			x.typeFact(scope, x.name(nm), typ, "param", nm.Pos())
		}
	}
}

// results records a function's result types as "return" facts, in order
// (one per result, so `(a, b T, err error)` gives T, T, error), and named
// results as locals.
func (x *goExtractor) results(scope string, res *ast.FieldList) {
	if res == nil || len(res.List) == 0 {
		return
	}
	if !res.Opening.IsValid() { // one unnamed result, unparenthesized
		x.typeFact(scope, "return", baseType(x.text(res.List[0].Type)), "return", res.List[0].Pos())
		return
	}
	for _, p := range res.List {
		typ := baseType(x.text(p.Type))
		for _, nm := range p.Names {
			x.locals[x.name(nm)] = true
			x.typeFact(scope, x.name(nm), typ, "local", nm.Pos())
			x.typeFact(scope, "return", typ, "return", nm.Pos())
		}
		if len(p.Names) == 0 {
			x.typeFact(scope, "return", typ, "return", p.Pos())
		}
	}
}

func (x *goExtractor) typeDecl(d *ast.GenDecl) {
	grouped := d.Lparen.IsValid()
	for _, s := range d.Specs {
		spec, ok := s.(*ast.TypeSpec)
		if !ok || spec.Name == nil || spec.Type == nil {
			continue
		}
		name := x.name(spec.Name)
		kind := goTypeKind(spec)
		var body token.Pos // the '{' of a struct's fields or an interface's elements
		switch t := spec.Type.(type) {
		case *ast.StructType:
			if kind == schema.KindStruct && t.Fields != nil {
				body = t.Fields.Opening
			}
		case *ast.InterfaceType:
			if kind == schema.KindInterface && t.Methods != nil {
				body = t.Methods.Opening
			}
		}
		start, end := d.Pos(), d.End()
		doc := x.docComment(spec.Pos())
		if grouped {
			start, end = spec.Pos(), spec.End()
		} else if doc == "" {
			doc = x.docComment(d.Pos())
		}
		sig := x.signature(spec.Pos(), body, spec.End())
		if !body.IsValid() && len(sig) > 120 { // long func or map types: keep it short
			sig = collapseSpace(x.src(spec.Pos(), spec.End()), 120)
		}
		id := x.addSymbol(schema.Symbol{
			Name:       name,
			Kind:       kind,
			Signature:  "type " + sig,
			DocComment: doc,
			IsExported: goExported(name),
		}, start, end)
		switch kind {
		case schema.KindStruct:
			x.structFields(id, spec.Type.(*ast.StructType).Fields)
		case schema.KindInterface:
			x.interfaceElems(id, spec.Type.(*ast.InterfaceType).Methods)
		}
	}
}

func (x *goExtractor) structFields(id string, list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, fd := range list.List {
		typ := baseType(x.text(fd.Type))
		for _, nm := range fd.Names {
			x.typeFact(id, x.name(nm), typ, "field", nm.Pos())
		}
		if len(fd.Names) == 0 && typ != "" { // embedded field: its name is the type's last component
			x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: typ, Kind: "embeds", Line: x.line(fd.Pos())})
			x.typeFact(id, goLastComponent(typ), typ, "field", fd.Pos())
		}
	}
}

func goLastComponent(t string) string {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] == '.' {
			return t[i+1:]
		}
	}
	return t
}

func (x *goExtractor) interfaceElems(id string, list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, e := range list.List {
		if len(e.Names) > 0 { // a method
			x.typeFact(id, x.name(e.Names[0]), collapseSpace(x.src(e.Pos(), e.End()), signatureCap), "method", e.Pos())
			continue
		}
		// An embedded interface is one plain type; unions and ~T
		// constraints are not heritage.
		switch e.Type.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			x.f.Facts.Heritage = append(x.f.Facts.Heritage, Heritage{ChildID: id, Parent: baseType(x.text(e.Type)), Kind: "embeds", Line: x.line(e.Pos())})
		}
	}
}

// body walks the statements of a function body (or a top-level var/const
// declaration with scope ""), recording calls, references and local types.
// varKind is the TypeFact kind of `var` declarations: "local" or "global".
func (x *goExtractor) body(scope string, n ast.Node, varKind string) {
	// The func literals open around the node visited, each with whether
	// the declaration returns it: a call inside a returned literal runs
	// later (a middleware, per request).
	var lits []bool
	var stack []ast.Node
	returned := map[*ast.FuncLit]bool{}
	var goCall *ast.CallExpr
	var aliasOf *ast.AssignStmt // a type switch's `v := x.(type)`: not a declaration of v's type
	ast.Inspect(n, func(c ast.Node) bool {
		if c == nil {
			if _, ok := stack[len(stack)-1].(*ast.FuncLit); ok {
				lits = lits[:len(lits)-1]
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, c)
		switch c := c.(type) {
		case *ast.CallExpr:
			later := false
			for _, r := range lits {
				later = later || r
			}
			x.call(scope, c, later, goCall)
		case *ast.GoStmt:
			goCall = c.Call
		case *ast.FuncLit:
			lits = append(lits, returned[c])
			x.params(scope, c.Type.Params)
		case *ast.AssignStmt:
			switch {
			case c == aliasOf:
			case c.Tok == token.DEFINE:
				x.shortVar(scope, c)
			default:
				x.refList(scope, c.Rhs)
			}
		case *ast.ValueSpec:
			x.varSpec(scope, c, varKind)
		case *ast.ReturnStmt:
			for _, r := range c.Results {
				for {
					p, ok := r.(*ast.ParenExpr)
					if !ok {
						break
					}
					r = p.X
				}
				if l, ok := r.(*ast.FuncLit); ok {
					returned[l] = true
				}
			}
			x.refList(scope, c.Results)
		case *ast.CompositeLit:
			for _, e := range c.Elts {
				if _, ok := e.(*ast.KeyValueExpr); !ok {
					x.ref(scope, e)
				}
			}
		case *ast.KeyValueExpr:
			x.ref(scope, c.Value)
		case *ast.RangeStmt:
			x.rangeClause(scope, c)
		case *ast.TypeSwitchStmt:
			if a, ok := c.Assign.(*ast.AssignStmt); ok {
				aliasOf = a
			}
			x.typeSwitch(scope, c)
		}
		return true
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

// isTypeExpr reports whether e can only be a type: a conversion to it
// ([]byte(s), map[K]V(m), func()(f)) is not a call.
func isTypeExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
		return true
	case *ast.ParenExpr:
		return isTypeExpr(e.X)
	}
	return false
}

// callee is the function expression of a call with an explicit
// instantiation (F[T](x), pkg.F[A, B](x)) taken off.
func callee(fn ast.Expr) ast.Expr {
	switch f := fn.(type) {
	case *ast.IndexExpr:
		return f.X
	case *ast.IndexListExpr:
		return f.X
	}
	return fn
}

// call records the call expression c of scope. later says whether it
// lies in a func literal the declaration returns (a call site of kind
// "closure"); goCall is the call of the last `go` statement.
func (x *goExtractor) call(scope string, c *ast.CallExpr, later bool, goCall *ast.CallExpr) {
	if isTypeExpr(c.Fun) {
		return
	}
	x.args(scope, c)
	var name, recv string
	switch fn := callee(c.Fun).(type) {
	case *ast.Ident:
		name = x.name(fn)
		if goBuiltins[name] && !x.locals[name] {
			return
		}
	case *ast.SelectorExpr:
		name = fn.Sel.Name
		recv = x.exprText(fn.X)
	default:
		return // func literal, parenthesized, a call's result
	}
	kind := "call"
	if c == goCall {
		kind = "go" // `go s.runShard(...)`: the callee runs as a goroutine
	} else if later {
		kind = "closure" // runs when the returned func is called (a middleware, per request)
	}
	x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Receiver: recv, Kind: kind, Args: len(c.Args), Line: x.line(c.Pos())})
}

// args records the references among c's arguments: not a spread slice
// (f(xs...)), nor the type make and new take first.
func (x *goExtractor) args(scope string, c *ast.CallExpr) {
	args := c.Args
	if c.Ellipsis.IsValid() && len(args) > 0 {
		args = args[:len(args)-1]
	}
	if fn, ok := c.Fun.(*ast.Ident); ok && (x.name(fn) == "make" || x.name(fn) == "new") && !x.locals[x.name(fn)] && len(args) > 0 {
		args = args[1:]
	}
	x.refList(scope, args)
}

// rangeClause declares the variables of `for k, v := range expr` and
// records v as a TypeFact of type "elem:expr": the element type of expr,
// which the resolver reads as expr's type (slice and pointer markers are
// stripped from types, and map types resolve to their value type).
func (x *goExtractor) rangeClause(scope string, c *ast.RangeStmt) {
	for _, e := range []ast.Expr{c.Key, c.Value} {
		if id, ok := e.(*ast.Ident); ok {
			x.locals[x.name(id)] = true
		}
	}
	if c.Key == nil || c.Value == nil || c.X == nil {
		return
	}
	if v, ok := c.Value.(*ast.Ident); ok {
		x.typeFact(scope, x.name(v), "elem:"+x.exprText(c.X), "local", v.Pos())
	}
}

// typeSwitch records, for `switch v := x.(type)`, the type v has in each
// single-type case, at the case's line: the resolver takes the fact
// nearest above a call, so inside a case v has that case's type.
func (x *goExtractor) typeSwitch(scope string, c *ast.TypeSwitchStmt) {
	a, ok := c.Assign.(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 {
		return
	}
	v, ok := a.Lhs[0].(*ast.Ident)
	if !ok {
		return
	}
	x.locals[x.name(v)] = true
	if c.Body == nil {
		return
	}
	for _, s := range c.Body.List {
		if cc, ok := s.(*ast.CaseClause); ok && len(cc.List) == 1 {
			x.typeFact(scope, x.name(v), baseType(x.text(cc.List[0])), "local", cc.Pos())
		}
	}
}

// ref records e as a reference when it names a function or method value
// (an identifier that is not a local or builtin, or a selector).
func (x *goExtractor) ref(scope string, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Ident:
		name := x.name(e)
		if x.locals[name] || goBuiltins[name] || name == "_" {
			return
		}
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: name, Kind: "reference", Args: -1, Line: x.line(e.Pos())})
	case *ast.SelectorExpr:
		x.f.Facts.Calls = append(x.f.Facts.Calls, CallSite{CallerID: scope, Name: e.Sel.Name, Receiver: x.exprText(e.X), Kind: "reference", Args: -1, Line: x.line(e.Pos())})
	}
}

func (x *goExtractor) refList(scope string, l []ast.Expr) {
	for _, e := range l {
		x.ref(scope, e)
	}
}

func (x *goExtractor) shortVar(scope string, c *ast.AssignStmt) {
	lhs, rhs := c.Lhs, c.Rhs
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			continue
		}
		name := x.name(id)
		x.locals[name] = true
		switch {
		case i < len(rhs) && (i == 0 || len(rhs) == len(lhs)):
			x.typeFact(scope, name, x.exprType(rhs[i]), "local", id.Pos())
		case len(rhs) == 1 && i > 0:
			// v0, v1 := f(): v1 is f's second result ("call:f#1")
			if t := x.exprType(rhs[0]); strings.HasPrefix(t, "call:") {
				x.typeFact(scope, name, t+"#"+strconv.Itoa(i), "local", id.Pos())
			}
		}
	}
	x.refList(scope, rhs)
}

func (x *goExtractor) varSpec(scope string, c *ast.ValueSpec, kind string) {
	typ := ""
	if c.Type != nil {
		typ = baseType(x.text(c.Type))
	}
	for i, nm := range c.Names {
		name := x.name(nm)
		if scope != "" {
			x.locals[name] = true
		}
		t := typ
		if t == "" && i < len(c.Values) {
			t = x.exprType(c.Values[i])
		}
		x.typeFact(scope, name, t, kind, nm.Pos())
	}
	x.refList(scope, c.Values)
}

// exprType is what the type of an initializer expression can be seen to be
// without type checking: T for T{...}, &T{...}, new(T), x.(T) and T(x)
// conversions to named types; "call:F" (the result of F, which the
// resolver follows through F's return facts) for other calls; "expr:a.b"
// for a selector chain and "elem:a.b" for an index into one; "" otherwise.
func (x *goExtractor) exprType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.CompositeLit:
		switch e.Type.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			return baseType(x.text(e.Type))
		}
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			if op, ok := e.X.(*ast.CompositeLit); ok {
				return x.exprType(op)
			}
		}
	case *ast.TypeAssertExpr:
		if e.Type != nil {
			return baseType(x.text(e.Type))
		}
	case *ast.SelectorExpr:
		// x := a.b.c: whatever the chain is (fields, through indexing)
		return "expr:" + x.exprText(e)
	case *ast.IndexExpr:
		// x := a.items[i]: an element of the collection
		return "elem:" + x.exprText(e.X)
	case *ast.CallExpr:
		if isTypeExpr(e.Fun) { // []T(x): a conversion
			return baseType(x.text(e.Fun))
		}
		switch fn := callee(e.Fun).(type) {
		case *ast.Ident:
			name := x.name(fn)
			if name == "new" {
				if len(e.Args) > 0 {
					return baseType(x.text(e.Args[0]))
				}
				return ""
			}
			if goBuiltins[name] {
				return ""
			}
			return "call:" + name
		case *ast.SelectorExpr:
			return "call:" + x.exprText(fn)
		}
	}
	return ""
}
