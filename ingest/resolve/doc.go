// Package resolve links the raw references extractors record per file —
// imports, call sites, heritage clauses — to the symbols and files they
// mean, across the whole repository. It produces IMPORTS (File→File), CALLS
// (Function|Method → Function|Method), EXTENDS and IMPLEMENTS edges, each
// with a confidence and the reason it was drawn, and counts per file the
// call sites it could not link.
//
// # How a call is resolved
//
// A call site has a name, a receiver expression as written ("s.db",
// "fmt", "self", "" for a bare call) and its enclosing symbol. In order:
//
//  1. A receiver naming the enclosing object (self, this, $this, cls,
//     Self, super) looks the name up in the enclosing class and its
//     ancestors.                                                → receiver-typed
//  2. A receiver naming an import (a Go package, a Python module alias, a
//     JS namespace import, a Rust path, a class name for a static call)
//     looks the name up in what the import points at.           → import-scoped
//  3. Any other receiver gets its type inferred from declarations without
//     type checking: parameters, locals (`x := T{}`, `x := NewT()`
//     following NewT's declared result), struct and class fields, chains of
//     those (`s.db.conn`), results of resolved calls (`a.b().c()`), and
//     constructor calls (`Service(db).run()`). The method is looked up in
//     that type, its embedded structs and its ancestors.         → receiver-typed
//  4. A bare name is looked up in the enclosing class (languages with an
//     implicit this), the file, names imported into the file, then the
//     package or namespace.                 → same-file, import-scoped, same-package
//  5. Failing all that, a name defined exactly once in the repository for
//     that language is taken, with low confidence.              → global-name
//
// C replaces steps 4 and 5 with translation-unit visibility (c.go): the
// caller's file, then the headers it includes transitively (include
// paths searched under the kernel's roots include/, arch/*/include/,
// include/uapi), then prototypes visible there landing on the non-static
// definitions, then a unique non-static global; a static function is never
// linked from another translation unit. A C call through a struct member
// (`f->f_op->read()`) links to the functions stored in that member of
// that struct type anywhere in the tree (ops-table initializers,
// assignments); a struct defined in a .c file is that file's own type, not
// the same-named struct of another file.                       → field-pointer
// Code under arch/A never links to definitions under arch/B, and a
// top-level directory with an include/ of its own (the kernel's tools/) is
// a program of its own that prototypes and global guesses do not cross
// (nor, inside it, those of one Makefile's directory into another's). A
// configuration stub (`{ return 0; }` in the #else of `#ifdef CONFIG_X`)
// is left out where the call also reaches the option's definition.
//
// A call that names something outside the repository (a standard-library
// package, a third-party module, a builtin) is external: not an edge, and
// not counted as unresolved. What is left is unresolved and counted on its
// file: an answer about callers is then a lower bound, and says so.
//
// Callbacks — a function or method named without being called (passed as
// an argument, stored, a Go method value) — become CALLS edges with reason
// "reference" and a lower confidence. Only where named: a C function that
// hands over an ops table (`register_chrdev(0, "x", &foo_fops)`) does not
// become a caller of the functions the table stores; the calls through
// the table's members do.
//
// Calls on a Go interface value: IMPLEMENTS for Go is computed from method
// sets (implicit satisfaction), and when the interface has at most three
// implementations in the repository the call links to each one's method
// with reason "interface-impl" at confidence 0.5 — a call that may happen
// (class-hierarchy analysis), so flows can cross the interface; it stays
// below every static reason, and precision figures score it apart. With
// more implementations the call is a dispatch point and gets no edge.
//
// A local shadows a function of the same name only from the line after
// its declaration: in `stack := stack(3)` the call is the function's.
//
// # Confidence
//
//	same-file        1.00  callee defined in the caller's file
//	receiver-typed   0.90  method found on the inferred receiver type
//	same-package     0.95  Go package / Java package / C# namespace
//	import-scoped    0.90  through an import of the file
//	module-rule      0.90  IMPORTS resolved by the language's module rules
//	declared         1.00  EXTENDS / IMPLEMENTS from an explicit clause
//	method-set       0.85  Go implicit interface satisfaction (by method names and arity)
//	global-name      0.60  the only definition of that name in the repository (0.80 in C/C++,
//	                       whose non-static functions share one namespace)
//	import-scoped    0.70  C: one of 2-4 visible definitions (configuration alternatives:
//	                       mm/mmap.c and mm/nommu.c); more than 4 stay unresolved
//	reference        0.55  callback / method value, resolved as a call would be (at most)
//	interface-impl   0.50  a Go interface call to one of its ≤ 3 implementations
//	field-pointer    0.45  C call through a struct member of an inferred type: each function
//	                       stored in that member (0.40 when the type is guessed from a member
//	                       name only one struct type stores functions in)
//
// The order is calibrated on the x/tools oracle (bench/callgraph): on
// prometheus, edges down to global-name are right 98-100% of the time by
// CHA; callback edges are by definition not calls the caller makes, so
// they sit below a 0.6 threshold. Field-pointer edges fan out to every
// implementation of an ops member, so they sit below the 0.5 that traces
// follow (processes): a flow stops at the indirect call.
//
// Tables and imports are built one file after another (the symbol
// tables and the type-fact tables side by side, the facts already in the
// tables' order from the parse: SortFacts); call sites are then resolved
// on every core (parallel.go: workers share the tables and
// own their scratch state) and counted and turned into edges in file
// order, so the output does not depend on the number of workers
// (Input.Workers; ingest.TestSameOutputOnAnyWorkers). A re-analyze reads
// the call sites of the files whose content did not change from the last
// resolution's site cache when the tables are the same but for functions
// added, removed or changed, whose reach it bounds by name and by import
// (sites.go): resolving a site reads its own file's facts and the tables,
// never another file's call sites.
package resolve
