// Package mcp is gitnexus's agent interface: a Model Context Protocol
// server (github.com/modelcontextprotocol/go-sdk) over every indexed
// repository. It is transport only: the tools' logic, their input and
// output types and their error classes live in package tools, which the
// CLI drives too, so `gitnexus context|impact|... --json` prints what the
// tools here return.
//
// # Contract
//
// Tools (typed input and output schemas derived from the tools package's
// Input and Output structs): query, context, impact, detect_changes,
// trace, cypher (see package tools for each), and list_repos (limit,
// offset). Every tool but list_repos takes "repo", resolved here.
//
// Prompts (prompts.go): detect_impact (the current diff's changed symbols,
// each with its upstream impact) and generate_map (communities and main
// processes, for an architecture overview), their text built from the
// tools package's answers and bounded in size.
//
// Allow-lists (allow.go, NewServer): Options.Repos serves only the named
// registered repositories — any other is refused by name, path, default
// and resource URI with one message naming only the served ones, and is
// not listed; Options.Tools serves only the named tools (the others are
// not listed and cannot be called) and drops a prompt built on a tool
// left out. An unknown name in either is ErrAllowList, listing the valid
// names.
//
// Resources: gitnexus://repos, and gitnexus://repo/{name}/context (stats,
// staleness against git HEAD), /processes, /process/{id}, /communities
// (alias /clusters), /schema — each the JSON of the tools function of that
// name with its default input.
//
// Errors. A tool's error reaches the client as a tool error (isError) with
// its message, and the server keeps serving: bad arguments
// (tools.ErrInput), missing symbols (tools.ErrNotFound) and repository
// trouble (ErrRepo, graph.ErrNoIndex) are the caller's to fix; any other
// error is an internal failure, logged with its tool and repository.
// Schema violations are refused by the SDK before a handler runs; an
// argument given as null counts as not given, and a negative count or
// depth is refused by name (checkArguments). A call past ToolTimeout is
// interrupted and answered with an error at once. A resource's error is a
// JSON-RPC error with a code: resource not found (unknown repo, no index,
// no such item), invalid params, or internal error (logged).
//
// Schemas. Tool input and output schemas are derived from the tools
// package's structs and made plain (schema.go): no `type: ["null", T]`,
// no bare `true`, integer inputs with minimum 0; outputs are normalized to
// match (a null array is [], another null property is left out). Every
// tool is annotated read-only and idempotent.
//
// Transports. Over stdio, LineTransport frames the session: one message
// per line, validated before the SDK sees it, so no input ends the
// session: a non-JSON line is answered -32700 (id null); a batch, a
// missing or wrong "jsonrpc", an id that is not a string or an integer, a
// method that is not a string or params that are not structured -32600.
// An integer id beyond ±2^53 is echoed exactly. When stdin closes, every
// request already received is answered before the server exits. Over
// streamable HTTP (http.go) the same checks answer HTTP 400 with the
// JSON-RPC error (ids beyond ±2^53 are refused there); the bearer scheme
// is case-insensitive; a request whose Origin is not loopback (or listed
// with --allow-origin) is refused with 403 (DNS rebinding), and the SDK
// refuses a loopback listener reached under a foreign Host.
//
// Repositories. Repos resolves "repo" by the CLI's rule restricted to
// registered repositories (graph.ResolveIn with graph.RegisteredOnly: a
// registered name or exact registered path; "" = the repository containing
// the working directory, else the only registered one), checks each index
// once (graph.OpenLazy: meta.json, the database file's size, header and
// checksum) and keeps it; every answer carries "repo": {name, path} (see
// package tools). Kuzu opens the database read-only on the first statement
// that needs it — vectors, cypher without a child process —
// and keeps it open: searches and the graph tools read only the search
// pack, so after a re-analyze the first search does not wait 0.1-0.3 s
// (prometheus) for Kuzu. Before each call it stats meta.json; when that
// changed and graph.Lazy.Stale says the database was swapped, it checks
// the new one and closes the old when its last call releases it. A call
// whose database was retired by a swap before its first statement opened
// it (graph.ErrSwapped) runs once more on the new index. A deleted index gives a clear error and is dropped, so a
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
package mcp
