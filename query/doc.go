// Package query answers a search over an index: it retrieves symbols by
// keyword (BM25 over the search pack, our own engine) and, when the index
// has embeddings, by vector, fuses the ranked lists, spreads scores over the
// graph, and groups the hits into the execution flows they take part in.
//
// # Contract
//
// Search(ctx, pack, q, opts) returns a Result whose JSON uses the reference
// tool's field names: processes, process_symbols (id, name, kind, filePath,
// startLine, endLine, score, process_id, step_index, matched) and
// definitions (hits in no process). processes is [] when the index has no
// Process nodes. Scores lie in (0, 1]. Every caller searches the same
// engine: `gitnexus query` (with --files, --content, several repositories),
// the MCP query tool and query/eval. No query text ever reaches Cypher:
// the keyword engine is Go code over the pack; the only statements a
// search may run read vectors (VectorRetriever: numbers inlined, never
// bound as parameters, since go-kuzu v0.11.3 leaks every string
// parameter).
//
// # The search pack
//
// analyze writes a Pack beside the database (db-<stamp>.kuzu.pack, about
// 2 MB for prometheus), built by BuildPack from the symbol and File tables
// it has just loaded, read a slice of rows at a time. It holds the
// Snapshot — the one graph read interface behind search and the tools:
// symbols and files as hits (with qualified name, signature, doc comment,
// a file's unresolved call sites), the edges between them (HAS_METHOD,
// DEFINES, EXTENDS, IMPLEMENTS, CALLS, IMPORTS, each with its confidence,
// reason and site line), the processes with their steps, entry, terminal
// and communities, and the communities with their members. Search expands
// over it; the tools read it through Node, Find, Edges, CommunityOf,
// CommunityMembers, Memberships, Process, Processes and Communities
// (graphread.go). What a long-lived reader keeps decoded, each on first
// use: the nodes (104 bytes each, their strings in the string table), the
// details (three string headers and two ints per node), the edges (8
// bytes per edge and direction, counted before they are allocated), the
// communities, and the process table only for Processes. It reads in
// place a node by id (the ids section), an edge's properties, a node's
// flows and a process. ReadPack maps the file and copies into memory only
// the string table and the details, whose bytes become the strings it
// hands out (packmap_unix.go); a whole-section decode of a mapped section
// gives its pages back. On the Linux kernel (a 763 MB pack) the live heap
// of a reader with every table its tools use decoded went from 1,455 MB
// to 562 MB, and the MCP server's RSS through a soak of 1,000 calls from
// 2.4–2.6 GB to 1.41–1.47 GB (bench/results/mcp-linux-2026-11-26.md). It
// also holds
// three BM25 indexes over node positions: ident (a symbol's name as
// one word and its searchText), doc (signature and doc comment) and file
// (a file's name and path, searched with Options.Files). The file starts
// with a table of contents and a CRC-32C of every 16 KiB block of every
// section (packsec.go); a block is checked the first time anything is
// read from it. The sections a query reads a few entries of are laid out
// to be read in place (packaccess.go): the string table has an offset per
// string, a node is a fixed-width record, a BM25 index finds a term by
// binary search over its term offsets, the ids and names sections order
// the nodes by id and by lower-cased name, and the members section lists
// each node's process memberships, and details/at and edges/at say where
// each node's details and edge lists start. So a one-shot query (MapPack,
// the CLI) reads the postings of its terms, the records of the nodes it
// ranks and answers with, and the flows of its hits, not whole sections;
// the CLI's graph tools read the same way a symbol found by name (the
// names section), its details, community and edges (context and impact of
// vfs_read on the kernel: 3.8 s at 806 MB when they decoded the sections,
// 0.4 s at 275-290 MB). A
// long-lived reader decodes what its tools need whole (the node table for
// lookups by id, the process table, the edges), each on first use (a
// search that expands nothing never decodes the edges, one without Files
// never the file index). It is stamped with schema.Version, the one
// version of the index: an index without a pack of this version answers
// ErrNoPack (the CLI exits 3, saying to re-run analyze); a damaged block
// answers ErrPackDamaged.
//
// A re-analyze by the same gitnexus builds its pack from the live one
// (BuildPackFrom, packreuse.go): the pack keeps the row digest's hash of
// the row each node came from, so a node whose row did not change is
// taken as it was — its hit, details and words in every index, moved to
// its new position — and only the rows that changed are read and
// tokenized; edges, processes and communities are read as before (the
// processes and communities beside the edges, and a small pack's indexes
// laid out once the edges are read: an update waits for what the pack
// does after its load, session 35). The
// file is byte for byte the one a full build writes (ingest consumes parse
// results in file order, so two builds of one tree write the same rows;
// the incremental equivalence tests compare the files). One function's
// body changed (bench/incremental.py, medians of 5): the pack took 4.11 s
// on kubernetes before, 1.47 s now (50,534 of 50,536 nodes reused);
// prometheus 0.40 → 0.31 s. What is left is reading the edges and
// processes again and encoding the file.
//
// The database is opened only for what the pack does not hold: vectors
// (hybrid and vector modes on an index with embeddings). Source text
// (Options.Content, the context tool's include_content) is the pack's last
// section (packsource.go): each symbol's source as analyze read it, capped
// at schema.ContentCap, read in place one text at a time; the database
// does not store it (graph's rowtext.go), and no file outside the index is
// read.
//
// Why not Kuzu's full-text indexes: they were a second engine that already
// disagreed with the pack (a symbol İstanbulParser was found through one
// and not the other), they split on spaces only (a doc comment's
// "config\nparser" became one term no query matched), drop digits,
// lower-case ASCII only, cut ties at top-k arbitrarily, crash on "term*"
// wildcards (Kuzu 0.11.3), and opening the database to query them costs
// about 100 ms on prometheus before the first statement. Search no longer
// reads them; analyze no longer builds the SymbolSearch table.
//
// # Ranking, step by step
//
// 1. Parse. Parse reads the query once into a Query that every retriever
// reads: text.Segments cuts it into identifier-shaped pieces and
// text.SplitIdentifier splits each piece into words (Unicode letters,
// marks and digits; camelCase, snake_case and HTTPServer split; Unicode
// lower-casing: İ → i, GRÜSSE → grüsse; a run of caseless letters such as
// 路由器 is one word). Words are the split words with English stop words
// dropped (text.StopWords keeps programming words: for, if, not, is, has,
// can, get, new) and aliases added after the word they expand (k8s →
// kubernetes, db → database); Idents are multi-word pieces kept whole
// ("getUserById" → getuserbyid, also in Words); Phrases are runs of 2–3
// words across pieces joined ("user repository" → userrepository), used
// when Ranking.Phrases ≥ 2 (off by default, see Measured); Prefix is the
// query as one identifier being typed ("validatePass" → validatepass).
//
// 2. Keyword retrieval. Each term is looked up in the ident and doc
// indexes (and file with Options.Files). A document was indexed by
// text.Words — each piece's words and, for a piece of several words, its
// whole form; newlines, tabs and punctuation separate like spaces — with
// stop words dropped and words of a–z only stemmed by the Snowball english
// stemmer, then an agent noun's "-er" dropped from stems of six letters or
// more (hasher meets hash, parser parse, handler handle; user and order
// stay): labeled set file R@5 0.967 → 0.984, file MRR 0.880 → 0.896,
// symbol R@5 0.735 → 0.727; dev set file R@5 0.686 → 0.675, function R@10
// 0.361 → 0.377 (other scripts are kept as written); query terms get the
// same treatment. Each distinct term adds its BM25 score
//
//	log10((N − df + 0.5) / (df + 0.5) + 1) × tf·(k+1) / (tf + k·(1 − b + b·len/avglen))
//
// with k = 1.2, b = 0.75 (N, df and the average length per index; a
// document without words counts toward neither). One index holds every
// symbol, whatever its table, so all symbols share one set of statistics
// (with an index per table, a lone interface matching a word lost to any
// function mentioning it). Each index returns its top K by score, ties
// broken by id; a symbol's score is Σ weight × BM25 with Ranking.WeightIdent
// = 1, WeightDoc = 0.5, WeightFile = 1 (Ranking.Combine "rrf" fuses ranks
// instead) and the body field (index/body: every word of the symbol's
// stored source, identifiers split, string literals and comments
// included) weighted WeightBody = 0.45 × a share that grows with the
// query's length: nothing for one or two words (a name is being looked
// up), all of it from Ranking.BodyWords = 16 words on (a task in prose,
// quoting error messages and option names that live in bodies).
// Measured on ../shared/eval-dev (66 real issues, keyword mode, `bash
// bench/evaldev.sh`): file R@5 0.626 → 0.686, R@10 0.734 → 0.789, MRR
// 0.515 → 0.551, function R@10 0.324 → 0.377 (body weights 0.15, 0.3,
// 0.6, 1 gave file R@5 0.668, 0.686, 0.625 (with a file boost), 0.648);
// on the labeled short queries a flat 0.45 cost symbol MRR 0.777 → 0.739,
// the length share keeps it at 0.785 (symbol R@5 0.740 → 0.735, file R@5
// 0.967, file MRR 0.872 → 0.880). Tried and dropped: adding to each hit
// 0.2–1 × its file's score (best three hits, weighted 1, 1/2, 1/4;
// Ranking.FileBoost, kept at 0): file R@5 0.686 → 0.655–0.678; weighting
// the query's code-shaped terms (Query.Idents) × 2 or × 3
// (Ranking.IdentTermWeight, kept at 1): file R@10 0.789 → 0.804 / 0.812
// but R@5 0.686 → 0.678 / 0.670; keeping 64 query words instead of 32:
// R@10 0.779, function R@10 0.369 (no gain). `go run ./query/eval` lists
// these as variants on the labeled set. A query that is one identifier of at least Ranking.PrefixMin
// letters also completes names: symbols whose lower-cased name starts with
// Prefix gain Ranking.PrefixWeight × the best keyword score (shortest
// names first, at most 50). Filters (language, kind, name glob, path
// prefix) are applied here, before fusion, on a deeper list (8 × K) so
// that filtering does not starve the result.
//
// 2b. Mentions. What the query names outright (Query.Mentions, parsed once
// by Parse): file paths and links to them (".../blob/<sha>/xarray/core/
// nanops.py", "fitsrec.py", a traceback's `File "a/b.py"`), qualified
// names (`Header.fromstring`; `units.quantity_input` — a function in a
// units module; `xr.where` — a package alias, so a module-level where)
// and identifiers written as code (in backticks, or called: `pairplot(`).
// Each mention that names at most four nodes lifts them — a named file
// and its symbols that matched — by Ranking.MentionWeight (0.5) × the
// best keyword score. Measured on the dev set (keyword mode, `bash
// bench/evaldev.sh`): file R@5 0.691 → 0.736, R@10 0.792 → 0.822, MRR
// 0.552 → 0.643, function R@10 0.390 → 0.443. Files and qualified names
// alone gave MRR 0.572 and function R@10 0.413; without the package-alias
// fallback MRR 0.616; weights 0.25 / 0.35 / 0.75 / 1 gave MRR 0.557 /
// 0.609 / 0.645 / 0.569; also taking every snake_case or camelCase word as
// a name changed nothing, and so did a traceback frame's function (`line
// 3, in fromstring`) as a name, even on the issues' whole text. The
// labeled short queries are unchanged (symbol R@5 0.728, MRR 0.795, file
// R@5 0.984, MRR 0.896).
//
// 2c. The lead. When the query has more than one line, the words of its
// first line (Query.Lead: an issue's title) count Ranking.LeadTermWeight
// = 2 times in BM25: the title says what the task is about, the body adds
// details and noise. Dev set, with mentions: file R@5 0.736 → 0.760, R@10
// 0.822 → 0.822, MRR 0.643 → 0.687, function R@10 0.443 → 0.461 (× 1.5:
// 0.760 / 0.818 / 0.670 / 0.456; × 3: 0.780 / 0.795 / 0.679 / 0.444).
// One-line queries (the labeled set) are unchanged.
//
// 2d. Doc comments weigh less in prose. The doc field's weight slides from
// WeightDoc = 0.5 to WeightDocLong = 0.3 with the square of the body's
// share (so a few words barely move it, a task in prose gets all of it):
// doc comments are prose, and a long query's common words match them
// everywhere. Dev set, with the lead: file R@5 0.760 → 0.798, R@10 0.822
// → 0.845, MRR 0.687 → 0.680, function R@10 0.461 → 0.456. A linear
// slide cost the labeled set symbol MRR 0.795 → 0.792 and file MRR 0.896
// → 0.893; the square keeps them. (Also tried on the dev set: body weight
// 0.3 / 0.6: MRR 0.665 / 0.696 but R@5 0.780 / 0.775; doc 0.8: R@5
// 0.760; FileBoost 0.2 / 0.5: R@10 0.794 / 0.766; at most 3 or 5 hits per
// file: function R@10 0.392–0.431; mentions narrowed to the files the
// keyword search ranks high when they name more than four symbols: no
// change.)
//
// 2e. Methods over their classes, for tasks. A Class or Interface hit is
// multiplied by Ranking.TypeFactor = 0.6 for a query in prose (sliding by
// the square of the body share, so a short query naming a class is
// untouched): a class matches a task's words through all its members, the
// method that does the work is the answer. Files are ranked before this
// (Result.Files, each by its best hit): a strongly matching class still
// says which file to open. Dev set: function R@10 0.456 → 0.504, R@5
// 0.410 → 0.437, file R@5 0.798, MRR 0.680 → 0.681, R@10 0.845 → 0.833;
// × 0.8: function R@10 0.488. Applied flat it cost the labeled set symbol
// R@5 0.728 → 0.650; by the share's square nothing.
//
// 2f. Environment listings are not the task. Parse drops from the query
// every run of five or more `key: value` (or `name==version`) lines at
// least three and a third of whose values are versions, numbers or None
// (dropEnvListings): the interpreter, OS and dependency versions an issue
// template asks for (`python: 3.6.8`, `libhdf5: 1.10.2`, pip freeze). They
// name nothing in the repository, and their words took the query's
// MaxTerms budget before the words after them were read. A run of
// configuration keys with words for values stays. Dev set: file R@5 0.798
// → 0.806, R@10 0.833, MRR 0.681, function R@10 0.504 unchanged (one
// issue quotes a listing in its `query` field; on the issues' whole text,
// where 14 do, the figures are unchanged: 0.806 / 0.847 / 0.686 / 0.514).
// Also tried here: tests weighing 0.4 or 0.2 (instead of TestFactor 0.7)
// for a query in prose: file R@10 0.833 → 0.837, nothing else moved.
//
// 3. Fusion. The keyword list and the vector list (when there is one; the
// vector retriever returns ids, turned into hits through the Snapshot) are
// fused by reciprocal rank fusion, score = Σ 1/(60 + rank) with 1-based
// ranks (Fuse). Raw BM25 and cosine scores are not comparable; ranks are.
// The fused score is divided by its ceiling (first in every list), so the
// best possible hit scores 1 and MinScore is an absolute threshold in 0..1.
//
// 4. Graph expansion (Expand, over the Snapshot), off by default
// (Ranking.ExpandSeeds = 0) since the body field came: with it from the
// best 10 hits, the dev set's real issues lost (file R@5 0.691 → 0.675,
// MRR 0.552 → 0.545, function R@10 0.390 → 0.377) and so did the labeled
// set (symbol MRR 0.795 → 0.787). When on, the best
// Ranking.ExpandSeeds hits pass their score to their neighbors, multiplied
// by an edge-specific decay: HAS_METHOD and DEFINES 0.95 (a class and its
// methods, a file and its definitions, are nearly the same answer),
// EXTENDS and IMPLEMENTS 0.85, CALLS 0.8 (either direction), IMPORTS 0.7
// outgoing only (a file's imports say what it is about; being imported by
// many files does not). Each node keeps its best score, so expansion only
// adds or raises; at most Ranking.ExpandFanout neighbors per seed, type and
// direction (in order of relationship, then id), so hubs cannot flood the
// list. Expanded hits carry Via (from, rel) and their seed's matched value.
//
// 5. Definitions over files, code over tests. File hits are multiplied by
// Ranking.FileFactor: the function that matches is a better answer than the
// file it sits in. Hits in test code (Hit.IsTest: the isTest property
// ingest decided once, schema.IsTestPath, and the pack carries; search
// never looks at the path for it) are multiplied by Ranking.TestFactor.
//
// 6. Cut and group. Result.Files lists the files of all hits (not only
// those kept), ranked by their best hit before the type factor, at most
// Limit: the answer to "which files".
// Hits under MinScore go, the best Limit stay, and those
// that are steps of a process (from the Snapshot) are listed under it;
// processes are ordered by the sum of their hits' scores (a flow through
// three matches before a flow through one) and the first MaxProcesses are
// kept. The other hits are definitions.
//
// A File becomes a hit in one place (fileHit): kind "file", its path,
// lines 1 to its line count, whether it was found by keyword, by vector or
// by expansion.
//
// # Measured
//
// The constants were chosen with query/eval on the 61 labeled queries of
// query/testdata/labeled.json (gin, prometheus, django, flask, requests;
// `go run ./query/eval`), which builds each corpus's pack, writes it, reads
// it back and searches it with Search: the shipped engine. Keyword mode as
// shipped: symbol recall@5 0.740, symbol MRR 0.775, file recall@5 0.967,
// file MRR 0.872 (plain BM25 over whole files: 0.836 / 0.635). The engine
// on Kuzu's full-text indexes that this one replaced measured 0.735 /
// 0.764 / 0.975 / 0.848; the file recall@5 difference is half of one
// query's labels (one of two labeled files falling from fifth to sixth
// distinct file). One change at a time from the shipped configuration
// (symbol R@5 / MRR):
//
//	phrases of 2 or 3 words                  0.736 / 0.744
//	no test penalty                          0.698 / 0.729
//	no graph expansion                       0.723 / 0.778
//	doc weight 0.3 / 1 (instead of 0.5)      0.710 / 0.776, 0.723 / 0.742
//	ident weight 2                           0.705 / 0.773
//	rrf instead of weighted sum              0.701 / 0.722
//
// Phrases helped on Kuzu's index (0.698 → 0.735 R@5) and hurt on this one:
// every field now holds both the words and the whole form of each
// identifier it mentions, so a joined phrase counts again what its words
// already matched. Indexing a symbol's name split into words in the ident
// field (besides searchText, which already has them) measured 0.743 /
// 0.738: each name word then counts twice and "from" in FileFromFS
// outranks a doc comment about recovering from panics.
//
// Name-prefix completion changes nothing on this set (its queries are
// words, not partial identifiers); it is there for "validatePass". Search
// latency over the 61 queries, in process with the pack read: median
// 0.4 ms, max 6 ms. `gitnexus query` on prometheus, whole process: see the
// benchmark report.
//
// Vector and hybrid modes are measured by the same command given an
// embedding model (`go run ./query/eval -model-dir DIR`, see its package
// comment). The snowflake-arctic-embed-xs weights cannot be downloaded on
// the development machine, so those modes have only been run end to end
// with the committed fixture model: no quality figures for them yet.
package query
