// Package mcp is gitnexus's agent interface: a Model Context Protocol
// server (github.com/modelcontextprotocol/go-sdk) over every indexed
// repository, and the tool functions behind it, which the CLI calls too so
// that `gitnexus context|impact|detect-changes|trace --json` print exactly
// what the MCP tools return.
//
// # Contract
//
// Tools (typed input and output schemas; names and parameters follow the
// reference tool so agents can switch over):
//
//   - query (search_query, task_context, goal, limit, max_symbols,
//     include_content, repo): query.Search grouped into processes. When
//     task_context or goal is given, a second search on their words is
//     fused with the first by weighted reciprocal rank fusion (weights 1
//     and ContextWeight = 0.5; score Σ w/(60+rank), divided by its
//     ceiling), so the hint reorders near-ties and adds context-only hits
//     below the query's own, and the result is regrouped (query.Group).
//   - context (name | uid, file_path, kind): the symbol, its incoming and
//     outgoing edges by relationship type with confidence and reason, the
//     processes it is a step of, its community, and callers_coverage.
//   - impact (target | target_uid, direction, maxDepth, relationTypes,
//     minConfidence): breadth-first walk, one Cypher statement per level;
//     affected symbols by depth (capped per level, counts complete),
//     processes, communities, risk (RiskOf) and exact/lower bound.
//   - detect_changes (scope unstaged|staged|all|compare, base_ref): git diff
//     -U0 → new-side changed line ranges → symbols of those files whose
//     startLine..endLine overlap → processes.
//   - trace (from | from_uid, to | to_uid, maxDepth): Kuzu's SHORTEST path
//     over CALLS and HAS_METHOD.
//   - cypher (statement, params, limit): read-only; statements with write
//     or file-system clauses (CREATE, SET, DELETE, MERGE, COPY, LOAD, ...)
//     or several statements are refused before Kuzu sees them, and the
//     database is opened read-only besides.
//   - list_repos (limit, offset).
//
// Resources: gitnexus://repos, and gitnexus://repo/{name}/context (stats,
// staleness against git HEAD), /processes, /process/{id}, /communities
// (alias /clusters), /schema.
//
// Naming a symbol: uid wins; else name matches Symbol.name, or, when it has
// a '.' or '::', the qualified name (Server.HandleOrder). file_path (path
// suffix) and kind (table or precise kind) narrow it. More than one match
// is not an error: the answer has status "ambiguous" and the candidates,
// and the agent calls again with a uid. No match is ErrNotFound.
//
// Completeness. Callers come from resolved CALLS edges. A call site the
// resolver could not link is counted on its file (File.unresolved). When
// files that may call the symbol — same directory, importers of its file,
// files of known callers — hold unresolved call sites, the callers (and an
// upstream impact) are a LOWER BOUND: callers_coverage / coverage say how
// many sites, exact is false and a notice says so. A downstream impact is
// a lower bound when the walked symbols' own files hold unresolved sites.
//
// Errors. Bad arguments wrap ErrInput, missing symbols ErrNotFound, repo
// trouble ErrRepo; the SDK returns them to the client as tool errors
// (isError) and the server keeps serving. Schema violations are refused by
// the SDK before a handler runs. Large answers are capped (edges per type,
// symbols per depth, cypher rows, MaxRows per statement) with a notice.
//
// Repositories. Repos resolves "repo" through the registry ("" = the only
// registered one, else the one containing the working directory), opens
// each index read-only once and keeps it open. Before each call it stats
// meta.json; when that changed and graph.DB.Stale says the database was
// swapped, it opens the new one and closes the old when its last call
// releases it. A deleted index gives a clear error and is dropped, so a
// later analyze is picked up. Each opened database also reads, in the
// background, the search pack analyze wrote beside that database file
// (query.Pack: the keyword index and the snapshot of symbols, expanded
// edges and processes), which every query call searches — the same engine
// as `gitnexus query`. An index without a pack (written by an older
// gitnexus) answers the query tool with query.ErrNoPack: run analyze. A
// reopened index gets its new pack.
//
// Caching. The query tool keeps the last 256 answers keyed by the database
// file and the exact input, so a repeated question is answered from memory
// and a re-analyze (a new file) never gets a stale answer.
//
// Memory. go-kuzu v0.11.3 leaks the C copy of every bound string
// parameter. Every statement this package builds inlines values as escaped
// literals (lit, litList) and binds nothing, so calls do not leak; only
// the cypher tool passes the caller's params through (at most 32).
package mcp
