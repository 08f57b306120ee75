// Package gate decides which user-written Cypher statements may reach the
// index: exactly one read-only query, small and shallow enough not to hurt
// Kuzu. The CLI's and the MCP server's `cypher` both call Check before
// anything else sees the statement.
//
// # Why a gate, and why this one
//
// Kuzu's read-only mode is not read-only enough: a database opened
// read-only still runs LOAD FROM (reads any file), COPY ... TO and EXPORT
// DATABASE (write files), ATTACH, LOAD EXTENSION (runs a shared library's
// code) and CHECKPOINT (left the index unopenable), and Connection.Query
// runs every ';'-separated statement. An MCP server is driven by agents
// that read untrusted text, so whatever the tool accepts an attacker can
// send (issue 12).
//
// The word filter this replaces scanned for write keywords with its own
// idea of quoting, and a backquoted name ending in a backslash (`x\`) hid
// the rest of the statement from it, because Kuzu has no escapes inside
// backquotes. A gate is only as good as its agreement with Kuzu's lexer,
// so this one:
//
//   - tokenizes exactly as Kuzu 0.11.3's ANTLR grammar (Cypher.g4) does:
//     backquoted names end at the next backquote (a doubled one continues it,
//     a backslash is an ordinary character); strings in either quote take
//     only the escapes \\ \' \" \b \f \n \r \t \uHHHH \UHHHHHHHH; a '*'
//     inside a /* */ comment takes the next character with it, so "**/"
//     does not close it; a // comment ends only at LF or end of input;
//     identifiers are ID_Start|Pc followed by ID_Continue|Sc ("a$b" is one
//     name); keywords are ASCII, so "ＬＯＡＤ" and "ſet" are names;
//   - refuses, rather than guesses, wherever Kuzu's lexer would fall back
//     to its Unknown token or read a different string: invalid UTF-8, NUL
//     (the C API stops there, so Kuzu would see only the prefix),
//     unterminated strings, names or comments, bad escapes, a // comment
//     ended by a lone CR, any character outside Kuzu's token set (a
//     full-width ';' included);
//   - admits one statement: no ';' except one at the very end;
//   - admits by allow-list: the statement must begin with MATCH, OPTIONAL,
//     UNWIND, WITH, RETURN or CALL, every CALL must name an allowed
//     read-only table function followed by '(' (show_tables, table_info,
//     query_fts_index, query_vector_index, ...), and the keywords of every
//     writing, file, extension, database or transaction statement or clause
//     (LOAD, COPY, EXPORT, ATTACH, CHECKPOINT, CREATE, SET, ...) are refused
//     anywhere in the token stream except as a property key after '.'
//     (n.set) or a parameter name after '$'. Kuzu lets such keywords double
//     as names; backquote them (`set`) to use them so;
//   - refuses inputs that segfault Kuzu 0.11.3 while it binds them
//     (so in Prepare, before any timeout applies): the internal
//     copy_json(), a bare NULL as a function argument (labels(NULL), list_sum(NULL),
//     keys(NULL), ...; found by calling every scalar function with (),
//     ('x'), (1), ([1]) and (NULL)), and NULL as an operand of IN
//     (NULL IN NULL, found by FuzzGate);
//   - bounds size (Limits.MaxBytes, 64 KiB) and bracket nesting
//     (Limits.MaxDepth, 64) while lexing, so 20,000 nested parentheses,
//     which hang Kuzu, fail after the 65th.
//
// Every refusal wraps ErrRejected and ends with the Allowed text.
//
// # How it is tested
//
// gate_test.go attacks it with every bypass of issue 12 and checks that
// real read queries pass. FuzzGate is a differential fuzz target against
// Kuzu itself, over an index with the project's schema opened read-only:
// whatever the gate admits, Kuzu must see as one statement
// (Connection.Prepare answers "We do not support prepare multiple
// statements" otherwise), must not class as a write, and must plan
// (EXPLAIN) without a writing, file, extension or session operator or a
// table function outside the allow-list; whatever the gate refuses as
// several statements, Kuzu must not parse as one. Inputs it found are kept
// under testdata/fuzz/FuzzGate and run with every `go test`.
//
//	go test -run=^$ -fuzz=FuzzGate -fuzztime=10m ./graph/gate/
//
// Set GATE_FUZZ_TRACE=/tmp/t to have each fuzz worker write its current
// input to /tmp/t.<pid>, to find the input behind a stalled worker.
//
// When Kuzu is upgraded, read the new Cypher.g4's lexer rules, update lex,
// and run the fuzzer: newer grammars differ (master accepts \xHH escapes,
// which 0.11.3 refuses).
package gate
