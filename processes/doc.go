// Package processes finds the structure a reader needs to follow a codebase:
// communities of symbols that work together, the entry points where control
// comes in, and the execution flows (processes) traced from them.
//
// It works on an in-memory Graph of symbols and resolved edges built from
// the ingest index, and produces Community and Process records plus the
// MEMBER_OF and STEP_IN_PROCESS edges that tie symbols to them.
//
// # Communities
//
// Louvain modularity optimisation on the undirected, weighted graph of
// CALLS, EXTENDS and IMPLEMENTS edges (weight = edge confidence), followed by
// a connectivity refinement: every community is split into its connected
// components, which is the guarantee Leiden adds over Louvain (Louvain alone
// can leave a community internally disconnected). Louvain rather than full
// Leiden because, with that refinement, it gives the same kind of partition
// with a much simpler, easily deterministic implementation: nodes are visited
// in id order, ties break towards the smaller community id, and no random
// numbers are drawn, so the same graph always gives the same communities.
// A time budget stops the optimisation between passes (never mid-pass): the
// partition reached so far is kept, so a timeout can make communities
// coarser-grained, never collapse everything into one.
//
// A community is labelled from its members: the longest common directory of
// their files, then the identifiers most particular to it by TF-IDF over the
// words of member names against all symbols. Never "Cluster_N".
//
// # Entry points
//
// Every non-test Function and Method gets a score from call-graph shape (few
// callers, many callees), export status, naming conventions (main, handle*,
// *Handler, *Controller, Run/Serve/Execute, on*) and framework knowledge (see
// entry.go for the table). C functions carry their file's registrations
// of them as decorators (SYSCALL_DEFINEn, module_init, ops-table members,
// request_irq): syscalls and registered callbacks are entry points. Symbols in test code (the isTest property ingest
// stored, Node.IsTest) are never entry points.
//
// # Traces
//
// From every entry point scoring at least MinEntryScore — all of them, none
// dropped for a count limit — a depth-first walk follows CALLS edges of at
// least MinConfidence, callees ordered by importance (their own reach in the
// call graph, then name), with bounded depth and branching. Each maximal
// path of at least MinSteps steps is a candidate process; a path contained
// in another (as a contiguous run) is dropped, and so is a path whose steps
// lie mostly (80%) inside a longer one from the same entry point
// (nearDupes): on gin that took the flows from 428 to 232 and the
// near-duplicates (flows sharing 80% of a sibling's step names) from 44% to
// 0%; flask 158 → 121 (35% → 12%), prometheus 2493 → 1548 (39% → 2%), with
// every entry point keeping at least its longest flow. A process id is a hash of its
// entry point and step ids, so unchanged code keeps its process ids across
// re-analyzes.
package processes
