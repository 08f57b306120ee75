package lang

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Language is one parseable language.
type Language struct {
	// Name is the value of the language property: go, python, javascript,
	// typescript, tsx, java, c, cpp, csharp, rust, ruby, php.
	Name string
	// Extensions are the file name suffixes, with the dot (".go").
	Extensions []string
	// FileNames are exact base names that belong to the language (e.g.
	// "Rakefile"), matched before extensions.
	FileNames []string
	// Grammar returns the tree-sitter language. Called once per parser.
	Grammar func() *sitter.Language
	// Extract walks a parsed file and fills f. It must not retain src or
	// any node after it returns.
	Extract func(f *File, root *sitter.Node)
	// Source, for a language parsed by a parser of its own instead of
	// tree-sitter (Go: go/parser), parses f.Src and fills f; partial when
	// the source has syntax errors (what was recovered is extracted). It
	// must not retain f.Src. Grammar and Extract are then unused.
	Source func(f *File) (partial bool)
	// Inert, when set, reports that src holds nothing Extract would take
	// and nothing the grammar would reject: Parse then returns the empty
	// facts with ParseOK without running the grammar. It must be exact
	// (a test compares it with the full parse on real trees); when unsure
	// it returns false.
	Inert func(src []byte) bool
	// Mask, when set, returns the text the grammar parses instead of src:
	// src itself, or a copy (in buf's storage, which it may grow) with
	// some bytes changed, never a newline, so that every offset and line
	// is src's. Extract still reads src (cmask.go: what C's preprocessor
	// would have removed).
	Mask func(src, buf []byte) []byte
}

// File is the extractor's view of one parsed file and the Facts it builds.
type File struct {
	Path     string // repo-relative, with '/'
	Language string
	Src      []byte
	Facts    Facts

	overloads map[string]int // SymbolID without overload → count so far
	walks     []*namedWalk   // the walks in progress, innermost last (walkNamedKind)
}

// NewFile prepares a File for extraction.
func NewFile(path, language string, src []byte) *File {
	return &File{Path: path, Language: language, Src: src, Facts: Facts{Path: path, Language: language}}
}

// startFrom makes fx's lists the empty lists of scratch (a Parser's, kept
// from the file before), for an extractor to append to.
func (fx *Facts) startFrom(scratch *Facts) {
	fx.Symbols, fx.Imports, fx.Calls = scratch.Symbols[:0], scratch.Imports[:0], scratch.Calls[:0]
	fx.Heritage, fx.Types, fx.Prototypes = scratch.Heritage[:0], scratch.Types[:0], scratch.Prototypes[:0]
	fx.Macros, fx.Registrations, fx.Returned = scratch.Macros[:0], scratch.Registrations[:0], scratch.Returned[:0]
}

// takeInto is fx with each list copied into a backing array of its own
// length (nil when empty), and the lists fx was built in emptied into
// scratch for the next file. Ingest holds every file's facts until
// resolution (the kernel: millions of call sites): the lists are made at
// their size once instead of grown by doubling for every file and then
// clipped (the kernel: the C extraction's call sites alone had allocated
// 1.1 GB).
func (fx *Facts) takeInto(scratch *Facts) Facts {
	out := *fx
	out.Symbols = taken(&scratch.Symbols, fx.Symbols)
	out.Imports = taken(&scratch.Imports, fx.Imports)
	out.Calls = taken(&scratch.Calls, fx.Calls)
	out.Heritage = taken(&scratch.Heritage, fx.Heritage)
	out.Types = taken(&scratch.Types, fx.Types)
	out.Prototypes = taken(&scratch.Prototypes, fx.Prototypes)
	out.Macros = taken(&scratch.Macros, fx.Macros)
	out.Registrations = taken(&scratch.Registrations, fx.Registrations)
	out.Returned = taken(&scratch.Returned, fx.Returned)
	return out
}

// maxScratch bounds the elements a scratch list keeps room for.
const maxScratch = 1 << 16

// taken is s in a backing array of its length (nil when empty); s's own
// array, its elements zeroed (nothing of the file stays reachable through
// it), becomes *scratch, or none when it grew past maxScratch (s may have
// outgrown the scratch array it started in, which then still holds the
// file's first elements: dropped as well).
func taken[S ~[]E, E any](scratch *S, s S) S {
	var out S
	if len(s) > 0 {
		out = append(S(make([]E, 0, len(s))), s...)
	}
	clear(s)
	*scratch = nil
	if cap(s) <= maxScratch {
		*scratch = s[:0]
	}
	return out
}

// Facts is everything one file contributes before resolution.
type Facts struct {
	Path     string
	Language string
	// Package is the file's package or namespace where the language has
	// one: the Go package name, Java/Kotlin package, C# namespace, PHP
	// namespace, Python dotted module path derived from the file path.
	Package string
	// BuildConstraint is the file's `//go:build` expression (Go), "" when
	// it has none. Resolution prefers files the default build includes
	// when one name is declared in several build variants.
	BuildConstraint string
	Symbols         []schema.Symbol
	Imports         []Import
	Calls           []CallSite
	Heritage        []Heritage
	// Types carries type information the resolver uses for receiver
	// inference: struct/class fields, variable and parameter types, return
	// types. Extractors fill what their language makes cheap to see.
	Types []TypeFact
	// Prototypes are the names of functions this file declares at file
	// level without defining them (C prototypes, `extern` and forward
	// declarations). Resolution lands a call that reaches a prototype on
	// the function's definition.
	Prototypes []string
	// Macros are the names this file defines as function-like macros
	// (`#define wr32(reg, val) ...`), C and C++: a call of such a name in
	// a translation unit that sees the definition is the macro's, not a
	// function's of that name elsewhere.
	Macros []string
	// ConfigStubs are the ids of the stubs this file defines where a
	// configuration option is off (C): functions in the body of `#ifndef
	// CONFIG_X` or `#if !IS_ENABLED(CONFIG_X)`, or in the #else/#elif chain
	// of `#ifdef CONFIG_X`, whose bodies call nothing but capitals macros
	// and do not read their parameters (`{ return 0; }`, `{ return
	// ERR_PTR(-ENODEV); }`) — the kernel's `static inline int
	// of_machine_is_compatible(...) { return 0; }` for !CONFIG_OF, not
	// the !CONFIG_PREEMPT_RT spin_unlock_irqrestore that does the work.
	// Resolution leaves a stub out when the call also reaches a
	// definition that is not one.
	ConfigStubs []string
	// Registrations are functions the file hands over by name instead of
	// calling them: stored in a struct member (C ops tables), passed to a
	// registration macro or call (module_init, request_irq), or defined by
	// a macro that registers them (SYSCALL_DEFINEn). Resolution links calls
	// through a struct member to the functions stored in it; entry-point
	// scoring reads the rest.
	Registrations []Registration
	// Returned are nested functions their enclosing function returns by
	// name (Python: `def deco(f): def wrapper(*a): ...; return wrapper`,
	// also `return functools.wraps(f)(wrapper)`): code that runs when
	// whoever got the result calls it — a decorator's wrapper on every
	// call, a handler factory's handler per request — not when the
	// enclosing function runs. Processes starts the enclosing function's
	// closure flow with it, as for the Go and JS/TS func literals of call
	// sites of kind "closure".
	Returned []Returned
}

// Returned is one nested function its enclosing function returns (see
// Facts.Returned).
type Returned struct {
	OuterID, InnerID string
	Line             int // the return statement's line
}

// Registration is one function handed over by name (see
// Facts.Registrations).
type Registration struct {
	// CallerID is the enclosing function, "" at file level.
	CallerID string
	// Name is the function's name as written (for a macro-defined
	// function, the name of the symbol the macro defines: "sys_read").
	Name string
	// Via is the macro or call the function is handed to ("module_init",
	// "request_irq", "SYSCALL_DEFINE3"); "" for a member store.
	Via string
	// Field is the struct member the function is stored in ("open"), ""
	// when it is not a member store. The struct type is Type when the
	// store is an initializer of a declared type (`static const struct
	// file_operations x = { .open = f }` → "file_operations"), else
	// Receiver is the expression whose member is assigned (`ops->open =
	// f` → "ops") and resolution infers its type.
	Field    string
	Type     string
	Receiver string
	Line     int
}

// Import is one import statement or clause, unresolved.
type Import struct {
	// Spec is the module/path as written: "github.com/x/y", "./util",
	// "os.path", "java.util.List", "foo::bar", "stdio.h".
	Spec string
	// Names are the imported names where the syntax lists them
	// (`from a import b, c`, `import {x} from`, `use a::{b, c}`).
	Names []string
	// Alias is the local name bound to the module, if any (`import x as y`,
	// Go's named import, `import * as ns`).
	Alias string
	// Kind distinguishes forms where it matters: "relative" (Python leading
	// dots, require_relative), "system" (#include <...>), "quoted"
	// (#include "..."), "wildcard", "static", "mod" (Rust `mod x;`).
	Kind string
	Line int
}

// CallSite is one call or callable reference inside a symbol body.
type CallSite struct {
	// CallerID is the id of the innermost enclosing Function/Method; ""
	// for top-level code (module init, script body).
	CallerID string
	// Name is the called name: the last identifier (`Query` in
	// `s.db.Query(x)`).
	Name string
	// Receiver is the receiver/qualifier expression text as written,
	// without the name: "s.db" for `s.db.Query()`, "fmt" for `fmt.Println`,
	// "self" for `self.run()`, "" for a bare call.
	Receiver string
	// Kind is "call" (an invocation), "go" (an invocation started as a
	// goroutine: `go f(x)`; resolved as a call), "new" (constructor:
	// `new X()`, `X{...}` is not a call), "closure" (an invocation inside
	// an anonymous function the caller returns, so it runs when the
	// returned function is called, not when the caller runs; Go and
	// JS/TS, see inReturnedFunc; resolved as a call), or
	// "reference" (a function passed as a value or argument without being
	// called).
	Kind string
	Args int // argument count, -1 if unknown
	Line int
}

// Heritage is an extends/implements/embeds clause of a class or interface.
type Heritage struct {
	ChildID string // the Class/Interface symbol id
	Parent  string // the parent's name as written, may be qualified ("base.Model")
	Kind    string // "extends", "implements", "embeds" (Go struct/interface embedding), "include" (Ruby mixin)
	Line    int
}

// TypeFact records the declared type of a named thing in a scope.
type TypeFact struct {
	// Scope is the symbol id the name is visible in: a function for locals
	// and parameters, a class for fields, "" for file-level variables.
	Scope string
	Name  string // variable, parameter, field; "return" for a function's result type
	// Type is the type as written, stripped of pointers/references
	// ("*Engine" → "Engine"), or what the resolver must evaluate to get
	// it: "call:F" (F's result; "call:F#i" its i-th), "elem:X" (an
	// element of collection X), "expr:X" (the type of expression X).
	Type string
	Kind string // "field", "param", "local", "return", "global"
	Line int
}

// Text is the source text of n.
func (f *File) Text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(f.Src[n.StartByte():n.EndByte()])
}

// AddSymbol appends a symbol built from its declaration node and returns its
// id. It fills the id (with overload numbering), label, file path, language,
// 1-based lines, capped content and content hash. The caller sets Name,
// QualifiedName, Kind and whatever else it knows (Signature, DocComment,
// IsExported, ParentID).
func (f *File) AddSymbol(s schema.Symbol, decl *sitter.Node) string {
	return f.addSymbolSpan(s, decl, decl)
}

// addSymbolSpan is AddSymbol for a declaration that spans from the start
// of first to the end of last (a macro that defines a function and the
// body the parser left beside it).
func (f *File) addSymbolSpan(s schema.Symbol, first, last *sitter.Node) string {
	if first == nil || last == nil {
		return f.addSymbolBytes(s, 0, 0, 0)
	}
	return f.addSymbolBytes(s, first.StartByte(), last.EndByte(), int(first.StartPosition().Row)+1)
}

// addSymbolBytes is AddSymbol for the source bytes [start, end), starting
// on 1-based line startLine (end 0: no span known).
func (f *File) addSymbolBytes(s schema.Symbol, start, end uint, startLine int) string {
	if f.overloads == nil {
		f.overloads = map[string]int{}
	}
	if s.QualifiedName == "" {
		s.QualifiedName = s.Name
	}
	base := schema.SymbolID(f.Path, s.QualifiedName, s.Kind, 1)
	f.overloads[base]++
	s.ID = schema.SymbolID(f.Path, s.QualifiedName, s.Kind, f.overloads[base])
	s.Label = schema.LabelOf(s.Kind)
	s.FilePath = f.Path
	s.Language = f.Language
	if end > start {
		body := f.Src[start:end]
		s.StartLine = startLine
		s.EndLine = startLine + bytes.Count(body, []byte{'\n'})
		sum := sha256.Sum256(body)
		s.ContentHash = hex.EncodeToString(sum[:16])
		s.Content = CapContent(body)
	}
	f.Facts.Symbols = append(f.Facts.Symbols, s)
	return s.ID
}

// CapContent returns at most schema.ContentCap bytes of b, cut at a line
// boundary where possible and never inside a UTF-8 sequence.
func CapContent(b []byte) string {
	if len(b) <= schema.ContentCap {
		return string(b)
	}
	cut := schema.ContentCap
	if i := strings.LastIndexByte(string(b[:cut]), '\n'); i > cut/2 {
		cut = i
	}
	for cut > 0 && b[cut]&0xC0 == 0x80 { // don't split a rune
		cut--
	}
	return string(b[:cut])
}

// inReturnedFunc reports whether n lies inside an anonymous function (a
// node of one of funcKinds) that the enclosing declaration returns —
// `return func(c *Context) {...}`, `return function (req, res, next)
// {...}`, the body of an arrow `opts => (req, res) => {...}`, also among
// several results or in parentheses: code that runs when whoever got the
// returned function calls it (a middleware, per request), not when the
// declaration runs. The walk up stops at the first of scopeKinds (the
// declaration itself). A function stored first (`h := func...; return h`)
// is not seen.
//
// Each step up is a Parent call, which tree-sitter answers by descending
// from the root: a walk that meets the functions before their insides
// (Go's body walk) asks isReturnedFunc once per function instead.
func inReturnedFunc(n *sitter.Node, funcKinds, scopeKinds map[string]bool) bool {
	for n = n.Parent(); n != nil; n = n.Parent() {
		k := kindOf(n)
		if scopeKinds[k] {
			return false
		}
		if funcKinds[k] && isReturnedFunc(n, funcKinds) {
			return true
		}
	}
	return false
}

// isReturnedFunc reports whether the anonymous function n (a node of one
// of funcKinds) is returned: a result of a return statement (also among
// several, or in parentheses), or the body of an arrow function.
func isReturnedFunc(n *sitter.Node, funcKinds map[string]bool) bool {
	p := n.Parent()
	for p != nil && (kindOf(p) == "expression_list" || kindOf(p) == "parenthesized_expression") {
		p = p.Parent()
	}
	if p == nil {
		return false
	}
	if kindOf(p) == "return_statement" {
		return true
	}
	if funcKinds[kindOf(p)] { // an arrow whose body is this function
		if b := p.ChildByFieldName("body"); b != nil && b.Id() == n.Id() {
			return true
		}
	}
	return false
}
