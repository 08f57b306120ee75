// Package tools is gitnexus's tools without a transport: the logic behind
// every MCP tool and resource and every CLI command that answers a question
// about an index (query, context, explain, impact, detect_changes, trace,
// cypher, route_map, api_impact, rename, processes, process, communities, the
// graph schema, the repository listing and a repository's overview). mcp registers them with the MCP SDK
// and cmd runs them from flags; both print the same JSON, so `gitnexus
// context|impact|trace|detect-changes|cypher|processes|process|communities
// --json` prints exactly what the MCP server returns for the same input.
//
// # Contract
//
// Each tool is a function from a typed Input struct to a typed Output
// struct, given what it reads: an Index — the graph snapshot in the
// index's search pack (query.Snapshot, the one graph read interface,
// shared with search, source text included) — for context, impact, trace,
// detect_changes (plus the repository root), processes, process,
// communities and community; a Querier (an open *graph.DB) for cypher; the
// pack for query:
//
//	func Context(ctx, ix Index, in ContextInput) (*ContextOutput, error)
//
// The JSON tags of Input are the tool's parameter names (the reference
// tool's, so agents can switch over) and their jsonschema tags its
// parameter descriptions, from which the MCP SDK derives the input schema;
// Output's JSON tags are the answer's field names. A "repo" field in an
// Input names the repository for the transport, which resolves and opens
// it; the functions here never read it.
//
// # Which repository, and naming it
//
// Transports resolve "repo" / -r by one rule, graph.ResolveIn: an explicit
// name (or path) wins; else the indexed repository containing the working
// directory; only when none contains it, the only registered one. The MCP
// server uses scope graph.RegisteredOnly: registered repositories only, by
// registered name or by a path equal to a registered path after
// filepath.Clean (no stat, no symlink resolution; the error is the same
// whether a path exists), and a resource URI's {name} must be a registered
// name. The CLI uses graph.AnyIndex: -r PATH may name any indexed
// directory (the user typed it).
//
// Every answer about one repository names it: each per-repository Output
// (and query.Result) embeds graph.Origin, whose one field is
//
//	"repo": {"name": "<registered name>", "path": "<canonical root>"}
//
// filled by the transport with NameRepo, so MCP results, resources and
// CLI --json carry the same field. RepoContext and ListRepos, which
// describe repositories, carry name and path as their own fields.
//
// Every input is hostile (the MCP server is driven by prompt-injectable
// agents): strings are bounded and inlined into Cypher only through
// schema.Quote, numbers are clamped or refused, and answers are capped
// (edges per type, symbols per depth, rows per statement, MaxRows, bytes
// of a cypher answer) with a notice saying what was cut.
//
// Errors are classified: bad arguments wrap ErrInput (the message says how
// to fix the call), a symbol, file or process that is not in the index
// wraps ErrNotFound, anything else is an internal failure. Transports map
// them (mcp: tool errors the agent sees; cmd: exit codes 2 and 3, else 1).
// Naming a symbol that matches several is not an error: the answer has
// status "ambiguous" and the candidates.
//
// # Budgets
//
// Every tool takes max_tokens (alias maxTokens, 256..100000; Budget) and
// has a default (DefaultImpactTokens 8000, context and query 6000,
// detect_changes and cypher 8000, trace 4000, list_repos 8000). An answer
// whose JSON (indented as --json prints it, CharsPerToken = 4 characters a
// token) is larger is cut by its own rule, least important part first,
// about half of one list at a time — impact: flows beyond 10, modules
// beyond 5, the deepest levels' symbols, never the direct dependents;
// context: flows beyond 5, then the longest edge list; query: definitions
// beyond 3, then the last flows; detect_changes: flows, symbols, files;
// cypher: rows — and the answer's "budget" says the budget, the size, what
// was left out ("affected_processes: 59 of 238 listed") and how to get it.
// Counts (summary, totals) always describe the whole answer.
//
// # Tools
//
//   - Query (search_query, task_context, goal, limit, max_symbols,
//     include_content): query.SearchWith grouped into processes. When
//     task_context or goal is given, a second search on their words is
//     fused with the first by weighted reciprocal rank fusion (weights 1
//     and ContextWeight = 0.5; score Σ w/(60+rank), divided by its
//     ceiling), so the hint reorders near-ties and adds context-only hits
//     below the query's own, and the result is regrouped (query.Group).
//   - Context (name | uid, file_path, kind): the symbol, its incoming and
//     outgoing edges by relationship type with confidence and reason, the
//     processes it is a step of, its community, and callers_coverage.
//   - Impact (target | target_uid, direction, maxDepth, relationTypes,
//     minConfidence): breadth-first walk, one Cypher statement per level;
//     affected symbols by depth (capped per level, counts complete),
//     processes, communities, risk (RiskOf) and exact/lower bound.
//   - DetectChanges (scope unstaged|staged|all|compare, base_ref): git diff
//     -U0 → new-side changed line ranges → symbols of those files whose
//     startLine..endLine overlap → processes.
//   - Trace (from | from_uid, to | to_uid, maxDepth): Kuzu's SHORTEST path
//     over CALLS and HAS_METHOD.
//   - Cypher (statement, params, limit): read-only; statements with write
//     or file-system clauses (CREATE, SET, DELETE, MERGE, COPY, LOAD, ...)
//     or several statements are refused before Kuzu sees them (transports
//     open the database read-only besides).
//   - Processes (limit), ProcessDetail (id), Communities (limit),
//     CommunityDetail (id, limit: members and the processes through it).
//     A process or community is named the same way everywhere (ids.go):
//     its id, a unique id prefix, its label, or a piece of its label;
//     several matches are answered as "ambiguous" with the candidates.
//     Schema (the graph's tables, properties
//     and kinds, read from graph/schema), ListRepos (limit, offset over the
//     registry) and RepoContext (stats, staleness against git HEAD).
//
// Naming a symbol: uid wins (an id no symbol has exactly matches the ids
// that start with it); else name matches Symbol.name, or, when it has
// a '.' or '::', the qualified name (Server.HandleOrder). file_path (path
// suffix) and kind (table or precise kind) narrow it.
//
// Completeness. Callers come from resolved CALLS edges. A call site the
// resolver could not link is counted on its file (File.unresolved). When
// files that may call the symbol — same directory, importers of its file,
// files of known callers — hold unresolved call sites, the callers (and an
// upstream impact) are a LOWER BOUND: callers_coverage / coverage say how
// many sites, exact is false and a notice says so. A downstream impact is
// a lower bound when the walked symbols' own files hold unresolved sites.
//
// Memory. go-kuzu v0.11.3 leaks the C copy of every bound string
// parameter. Every statement this package builds inlines values as
// literals (schema.Quote, schema.QuoteList) and binds nothing, so calls do
// not leak; only Cypher passes the caller's params through (at most 32).
package tools
