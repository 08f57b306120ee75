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
// adds aliases (k8s → kubernetes, db → database). text.FTSQuery spells
// digits out (Kuzu drops them) and adds a prefix term "tok*" for every
// token of at least Ranking.PrefixMin letters, so a partial identifier
// ("validatePass") still finds its symbol.
//
// 2. Keyword retrieval. Every full-text index of the plan (by default
// schema.FTSIndexes: one per symbol table over name, searchText,
// signature and docComment, plus File over name and searchText when
// Options.Files) is queried in parallel with the same string, each
// returning its top K rows by BM25 (k1 = 1.2, b = 0.75). The searchText
// column (text.SearchText) holds the split words of the name, qualified
// name and path plus each identifier whole, so identifier words weigh in
// every document. Rows of the indexes of one table are combined by
// weighted sum of BM25 (Ranking.Combine "sum"; "rrf" fuses their ranks
// instead), and all tables are merged by that score. Filters (language,
// kind, name glob, path prefix) are applied here, before fusion, on a
// deeper list (8 × K) so that filtering does not starve the result.
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
// 5. Definitions over files. File hits are multiplied by
// Ranking.FileFactor: the function that matches is a better answer than the
// file it sits in.
//
// 6. Cut and group. Hits under MinScore go, the best Limit stay, and those
// that are steps of a process (STEP_IN_PROCESS) are listed under it;
// processes are ordered by their best hit. The rest are definitions.
//
// The constants (Ranking, IndexWeights) were chosen by measurement on
// query/testdata/labeled.json with query/eval; see that package for the
// figures and for how to rerun it.
package query
