// Package oracle computes the reference call graph that the accuracy harness
// measures code-graph tools against.
//
// It loads a Go module from source with golang.org/x/tools/go/packages
// (non-test files only, for the host GOOS/GOARCH), builds SSA with go/ssa,
// and computes two call graphs over every source function of the module
// (declared functions and methods, and the closures inside them):
//
//   - Static: calls whose callee is known at compile time
//     (ssa.CallCommon.StaticCallee, the rule of go/callgraph/static). Every
//     one of these is a real call, so it is the yardstick for recall.
//   - CHA: static calls plus, for every interface method call, every
//     concrete method of every type that implements the interface, and for
//     every call of a function value, every function of the same signature
//     (the algorithm of go/callgraph/cha). It over-approximates, so it is
//     the yardstick for precision: an edge a tool reports is counted correct
//     if CHA has it.
//
// static.CallGraph and cha.CallGraph themselves start from root sets that
// miss source code (closures passed as values; unreferenced methods of
// unexported types): see resolve. Each static edge records whether
// static.CallGraph also finds it (StaticEdge.XTools).
//
// Both graphs are projected onto the functions DECLARED in the module's own
// non-test files. A function is named by the file of its declaration
// (relative to the module root, '/' separators) and the 1-based line of its
// `func` keyword: the line where tree-sitter's function_declaration and
// method_declaration nodes start (doc comments are separate nodes), so the
// key matches what a tree-sitter extractor stores as startLine.
//
// The projection rules, the same on both graphs:
//
//   - Callers: a closure (function literal, or the yield function of a
//     range-over-func loop) is attributed to the declared function that
//     encloses it, because a tree-sitter tool attributes the calls inside a
//     closure to the enclosing function. Calls made from package-level
//     variable initialisers belong to no declared function and are dropped.
//   - Callees: a call to a closure is not a call to its enclosing function
//     and is dropped. Synthetic functions (method wrappers for promoted and
//     pointer-receiver methods, method-expression thunks, method-value
//     bound functions, generic instantiation wrappers) are seen through: an
//     edge to a wrapper becomes edges to the declared functions it calls. An
//     instance of a generic function is its generic origin.
//   - Calls to functions outside the module (standard library, dependencies,
//     nested modules) are dropped.
//   - Self-edges (recursion, and a function calling its own closure) are
//     dropped.
//   - Edges are sets: several call sites of the same pair are one edge. Each
//     static edge keeps the syntactic kind and position of its first call
//     site, so that misses can be broken down by kind.
package oracle
