// Package compare scores a code-graph tool's CALLS edges against the oracle
// call graph (package oracle).
//
// A tool's edges come from its cypher command as rows of
// (caller file, caller start line, callee file, callee start line
// [, confidence [, reason]]): ReadCypher reads both this project's
// `cypher --json` output ({"columns": [...], "rows": [[...], ...]}) and the
// reference tool's ({"markdown": "| ... |", "row_count": N}, 0-based lines).
//
// Functions are matched by (file, 1-based line of the func keyword). Edges
// are sets: duplicate rows are one edge. Self-edges are dropped on both
// sides. Only edges whose two endpoints are functions of the oracle (declared
// in the module's non-test files for the host platform) are scored; the rest
// are counted and explained (test files, file-level callers, off-by-one
// lines, other). Then
//
//	recall    = |tool ∩ static| / |static|
//	precision = |tool ∩ CHA| / |tool|
//
// where the static graph has only calls with a compile-time callee (all
// real, so every one should be found) and CHA over-approximates dynamic
// dispatch (an edge outside it is wrong).
package compare
