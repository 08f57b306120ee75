// Package query answers a search over an index: it retrieves symbols by
// keyword (BM25 over Kuzu's full-text indexes) and, when the index has
// embeddings, by vector, fuses the ranked lists, spreads scores over the
// graph, and groups the hits into the execution flows they take part in.
//
// # Contract
//
// Search(ctx, db, q, opts) returns a Result whose JSON uses the reference
// tool's field names: processes, process_symbols (id, name, kind, filePath,
// startLine, endLine, score, process_id, step_index, matched) and
// definitions (hits in no process). processes is [] when the index has no
// Process nodes. Scores lie in (0, 1]. Nothing in q reaches Cypher except
// the words graph/text extracts from it ([a-z] only), so no query can break
// or inject into a statement; ids read back from the index are inlined as
// escaped literals, never bound as parameters (go-kuzu v0.11.3 leaks every
// string parameter, which a long-running MCP server cannot afford).
//
// # Ranking, step by step
//
// 1. Words. text.Tokens splits the query like an identifier
// ("getUserById" → get user by id getuserbyid), lowercases, drops English
// stop words but keeps programming words (for, if, not, is, has, can), and
// adds aliases (k8s → kubernetes, db → database). text.Phrases adds runs of
// 2–3 query words joined ("user repository" → userrepository), which match
// the whole identifiers SearchText indexes: a query that spells a name in
// words finds that name first. text.FTSQuery spells digits out (Kuzu
// drops them). No "term*" wildcard is ever sent: Kuzu 0.11.3 crashes on
// them (double free, segfault, or a hang within a few hundred queries on
// prometheus). Instead, a query that is a single identifier of at least
// Ranking.PrefixMin letters is completed by a scan of symbol names
// ("validatePass" → names starting with "validatepass"), which adds
// Ranking.PrefixWeight × the best full-text score.
//
// 2. Keyword retrieval. By default one node table, SearchTable, holds a row
// per symbol of every symbol table (BuildIndexes fills it at analyze time),
// so all symbols share one set of BM25 statistics: with one index per
// table, IDF differs per table and a lone interface matching a word can
// lose to any function mentioning it. Two full-text indexes on it are
// queried in parallel, each scoring every match by BM25 (k1 = 1.2,
// b = 0.75) and returning its top K by score, ties broken by id (Kuzu's own
// top-k cuts among ties arbitrarily, so the same search ranked differently
// from one run to the next): ident (name + searchText: the split identifier words and whole
// identifiers of name, qualified name and path; weight WeightIdent = 1) and
// doc (signature + doc comment; WeightDoc = 0.5); a symbol's score is Σ weight × BM25 (Ranking.Combine "sum";
// "rrf" fuses their ranks instead). They use text.StopWords, not Kuzu's
// list, which drops get, new, use, value, name, is, not, for, if. An index
// built without SearchTable is searched through the per-table indexes of
// schema.FTSIndexes (FallbackPlan). With Options.Files the File index
// joins. Filters (language, kind, name glob, path prefix) are applied here,
// before fusion, on a deeper list (8 × K) so that filtering does not starve
// the result.
//
// 3. Fusion. The keyword list and the vector list (when there is one) are
// fused by reciprocal rank fusion, score = Σ 1/(60 + rank) with 1-based
// ranks (Fuse; it fuses any number of lists). Raw BM25 and cosine scores
// are not comparable; ranks are. The fused score is divided by its ceiling
// (first in every list), so the best possible hit scores 1 and MinScore is
// an absolute threshold in 0..1.
//
// 4. Graph expansion (Expand). The best Ranking.ExpandSeeds hits pass
// their score to their neighbors, multiplied by an edge-specific decay:
// HAS_METHOD and DEFINES 0.95 (a class and its methods, a file and its
// definitions, are nearly the same answer), EXTENDS and IMPLEMENTS 0.85,
// CALLS 0.8 (either direction: callers and callees of a match), IMPORTS
// 0.7 outgoing only (a file's imports say what it is about; being imported
// by many files does not). Each node keeps its best score, so expansion
// only adds or raises; at most Ranking.ExpandFanout neighbors per seed,
// type and direction, so hubs cannot flood the list. Expanded hits carry
// Via (from, rel) and their seed's matched value.
//
// 5. Definitions over files, code over tests. File hits are multiplied by
// Ranking.FileFactor: the function that matches is a better answer than the
// file it sits in. Hits in test code (IsTestPath) are multiplied by
// Ranking.TestFactor.
//
// 6. Cut and group. Hits under MinScore go, the best Limit stay, and those
// that are steps of a process (STEP_IN_PROCESS) are listed under it;
// processes are ordered by the sum of their hits' scores (a flow through
// three matches before a flow through one) and the first MaxProcesses are
// kept. The other hits are definitions.
//
// Steps 4 and 6 read the graph: by default with Cypher statements (two for
// each expansion hop, two for the processes), or, with Options.Snapshot,
// from an in-memory copy of the symbols, edges and processes that a
// long-running process loads once per index (the MCP server does). Both
// give the same result; neighbor rows, process steps and memberships are
// sorted in Go because Kuzu 0.11.3 does not keep ORDER BY across the rel
// tables of one pattern.
//
// # The search pack: keyword search without opening Kuzu
//
// Opening a Kuzu database costs about 5 ms and 5 MiB per node table before
// the first statement runs (each table's primary-key index is set up; a
// full-text index brings its own tables), about 100 ms for an index of
// this schema, then 15–20 ms for the first statement: two thirds of a
// 300 ms `gitnexus query` on prometheus, for tables a keyword search never
// reads. So analyze also writes a Pack beside the database
// (db-<stamp>.kuzu.pack, about 2 MB for prometheus): the Snapshot, and
// copies of the two SearchTable full-text indexes (memIndex) built from the
// same text and scored by the same formula as Kuzu's QUERY_FTS_INDEX:
// Kuzu's normalization and splitting, the same stop words, the Snowball
// english stemmer, BM25 with log10 IDF, k 1.2, b 0.75, documents without
// terms left out of N and the average length. TestPackMatchesKuzu checks
// every score against Kuzu's on 600 real declarations, and every whole
// search, JSON byte for byte. `gitnexus query` in keyword mode (and hybrid
// on an index without vectors) reads the pack, checksummed and decoded on
// demand, and never opens Kuzu: whole-process p50 38 ms on prometheus,
// down from 304 ms (bench/run.sh, query section). Anything the pack does
// not hold opens the database as before: vectors, --files (the File
// index), --content (source text), an index written before packs, a
// damaged pack (with a warning). GITNEXUS_NO_PACK=1 forces the database
// path. The MCP server keeps searching Kuzu's indexes: it opens the
// database once.
//
// # Measured
//
// The constants were chosen with query/eval on the 61 labeled queries of
// query/testdata/labeled.json (gin, prometheus, django, flask, requests;
// `go run ./query/eval`). Keyword mode as shipped: symbol recall@5 0.735,
// symbol MRR 0.764; file recall@5 0.975 and file MRR 0.848 against 0.836
// and 0.635 for plain BM25 over whole files. One change at a time from the
// shipped configuration (symbol R@5 / MRR):
//
//	per-table indexes of schema.FTSIndexes   0.683 / 0.743
//	no phrases                               0.698 / 0.732
//	no test penalty                          0.695 / 0.749
//	no graph expansion                       0.704 / 0.764
//	doc weight 0.3 / 1 (instead of 0.5)      0.709 / 0.758, 0.693 / 0.770
//	ident weight 2                           0.709 / 0.759
//	+ body index at 0.2                      0.714 / 0.764
//	rrf instead of weighted sum              0.663 / 0.711
//	whitespace runs made one space           0.721 / 0.755
//
// Kuzu splits indexed text on spaces only, so "config\nparser" in a doc
// comment is one term that no query matches; making every whitespace run a
// space before indexing (regexp_replace in the COPY) was measured in the
// table above: three queries moved (two down, one up), so it is not done.
//
// Name-prefix completion changes nothing on this set (its queries are
// words, not partial identifiers); it is there for "validatePass". Search
// latency over the 61 queries (corpora up to prometheus and django, ~1k
// files): median 28 ms, max 83 ms, with the index queries serialized on one
// connection (graph.DB runs them in parallel).
//
// Vector and hybrid modes are measured by the same command given an
// embedding model (`go run ./query/eval -model-dir DIR`, see its package
// comment). The snowflake-arctic-embed-xs weights cannot be downloaded on
// the development machine, so those modes have only been run end to end
// with the committed fixture model (rows marked as a smoke test): no
// quality figures for them yet.
package query
