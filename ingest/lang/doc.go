// Package lang knows the languages gitnexus parses: which file names belong
// to which language, the parser of each (a tree-sitter grammar; Go's own
// go/parser for Go), and the extractor that
// turns one parsed file into Facts — its symbols and the raw, unresolved
// references (imports, call sites, heritage clauses, type facts) that
// resolution links across files later.
//
// An extractor sees one file and nothing else. It never guesses across files:
// a call to `db.Query` is recorded as a CallSite with receiver "db" and name
// "Query", and the resolver decides what that is.
//
// # Parsing
//
// Parser (parse.go) is the driver the ingest pipeline uses, one per worker
// goroutine: it keeps one tree-sitter parser per language, bounds each file
// by a context and a per-file timeout, reports a schema.ParseStatus (ok,
// partial when the tree has ERROR/MISSING nodes, error when there is no
// tree or the extractor panicked) and closes every tree it makes.
//
// Go is the exception (Language.Source): golang.go parses it with the
// standard library's go/parser, Go's own grammar, several times faster
// than tree-sitter and its walk through cgo (kubernetes' cold analyze:
// the parse phase 15 s → 3.5 s on 2 cores). go/parser gives up on the
// rest of a file at an unclosed brace, where tree-sitter recovered
// locally, so a Go file with syntax errors is parsed again a top-level
// declaration at a time, each error kept within its declaration.
//
// # Languages
//
// Each language lives in its own file and registers itself in init (see
// registry.go): golang.go, python.go, javascript.go, typescript.go (TS and
// TSX), java.go, c.go, cpp.go, csharp.go, rust.go, ruby.go, php.go. Shared
// tree helpers are in nodes.go; helpers private to one language carry its
// prefix.
//
// # Conventions the resolver relies on
//
//   - Qualified names: "Type.Method" (Go), "Outer.Inner.method" (Python,
//     Java, JS/TS classes); functions are their bare name.
//   - CallSite.Kind: "call", "new" or "reference" (a function or method
//     value used without being called: callbacks, `s.handle`); Go also
//     "go" (`go f()`), and Go and JS/TS "closure": a call inside an
//     anonymous function the enclosing declaration returns (resolved as a
//     call; processes starts the returned function's own flow with it).
//   - TypeFact.Type is a bare type name ("*Engine" → "Engine",
//     "List<Foo>" → "List"), or "call:F" / "call:recv.F" meaning "the result
//     of calling F": the resolver follows F's "return" facts. A function with
//     several results has one "return" fact per result, in order.
//   - TypeFact.Kind "receiver" (Go: Name "receiver", the method's receiver
//     type, always present so HAS_METHOD can be linked across files of a
//     package) and "method" (Go interface method elements, Name the method,
//     Type its signature: interfaces' method sets for implicit satisfaction).
//   - The implicit receiver is a param fact: "self"/"cls" (Python, typed
//     with the class), "this" (JS/TS/Java methods).
//   - Import.Names lists imported names as written, an aliased one as
//     "name as local"; a JS default import is "default as X"; a wildcard is
//     "*". Import.Kind adds "reexport" (`export ... from`), "require"
//     (CommonJS and TS `import x = require()`), "dynamic" (`import()`).
//   - Constructor chaining (`super(...)`, Java `this(...)`) is a call Name
//     "constructor" with Receiver "super" or "this". JSX elements with a
//     capitalized or dotted name are calls of that component.
//   - Facts.Returned is Python's: a nested def its enclosing function
//     returns by name (a decorator's wrapper), with both symbols' ids.
//     The nested def sees the enclosing function's typed locals: they are
//     repeated as its own "local" facts (a method's self, so a route
//     decorator's `self.add_url_rule(...)` resolves).
//   - Facts.Prototypes, Facts.Macros, Facts.ConfigStubs and
//     Facts.Registrations are C's: declarations without bodies, names
//     defined as function-like macros, stubs defined where a
//     configuration option is off (`#else { return 0; }`), and functions
//     handed over by name (ops-table members, module_init,
//     SYSCALL_DEFINEn, BPF_CALL_n, BPF_PROG, attribute macros) — see
//     cpp.go and cattr.go.
//   - Calls of a language's builtins (Go len/append/make/new and
//     conversions to predeclared types; Python print/len/isinstance/...)
//     are not recorded.
//
// # Speed
//
// The go-tree-sitter binding makes every Node method a cgo call. walkNamed
// (nodes.go, cwalk.go) therefore traverses a subtree in C in one call and
// hands the extractor only the named nodes, and alloc.go points
// tree-sitter's allocator at libc directly instead of the binding's Go
// callbacks. Children are iterated with cursors, never by index. The
// parsers parse with a copy of each grammar whose whole parse table is
// dense (dense.go): the same trees, without the scan of a compressed
// state's entries on every lookup. A Language may hand its grammar a
// masked copy of the text (Language.Mask): in C, annotation words
// (`__init`, `__user`), tags passed to macros (`container_of(p, struct
// foo, list)`) and file-level macro invocations (`TRACE_EVENT(...);`) are
// blanked (cmask.go), which spares the grammar its slow error recovery
// and keeps the functions an error used to swallow.
package lang
