// Package graph stores the code graph in Kuzu and reads it back.
//
// # Layout
//
// An index lives in <repo>/.gitnexus/:
//
//	meta.json          Meta: the commit point; DBFile names the live database,
//	                   Sums the size and CRC-32C of it and its companions
//	db-<stamp>.kuzu    the live Kuzu 0.11 database (a single file)
//	db-<stamp>.kuzu.pack  its search pack, a companion (Build.Attach) that
//	                   is swapped in and removed with it
//	db-<stamp>.kuzu.facts the fact cache, a companion too: every file's
//	                   parse result by content hash (ingest.FactCache), so
//	                   the next analyze parses only changed files
//	db-<stamp>.kuzu.procs the communities and processes, with the key of
//	                   the call graph they were found on (processes.Key)
//	db-<stamp>.kuzu.sites every file's call sites as resolution resolved
//	                   them, with the key of the tables they were
//	                   resolved against (resolve: sites.go)
//	db-<stamp>.kuzu.stat  every file's content hash and line count with
//	                   the inode, size and times it had when read
//	                   (ingest.StatCache), so the next analyze reads only
//	                   the files written since
//	db-<stamp>.kuzu.rows  the row digest an in-place update compares with
//	lock               flock'ed by the one process building a new index
//	staging-<rand>/    a build in progress: its row files, and the new database
//	                   unless that is built in a scratch directory on a
//	                   memory file system (/dev/shm, scratch.go); a copy of
//	                   the live database updated in place is in staging
//	retired-db-<stamp>.kuzu/ a replaced database and its companions, until
//	                   the process Commit handed them to removes them
//
// # Writing: Build
//
// A build's jobs sit in one file each: build.go (the Build type, options,
// Exec/Query between Load and Commit), rows.go, ndjson.go and rowtext.go
// (validating records and streaming them as NDJSON rows and texts), filter.go (dropping dangling
// edges), load.go (the bulk load), bufferpool.go (pool size, Settle,
// GrowBufferPool), commit.go (the commit/abort swap), retire.go (what becomes
// of the replaced database), scratch.go (staging and scratch
// directories), durable.go (moves that are on disk before meta.json names
// them) and memory.go (the C heap).
//
// NewBuild takes the lock (ErrLocked, naming the holder's pid, when another
// analyze runs; the kernel frees it when a process dies) and clears what
// killed runs left behind. Add* stream rows as NDJSON to one file per node
// table and per (rel type, from label, to label): nothing is held in memory.
// A symbol's source text (Symbol.Content) is not a column: it goes to a
// text file beside its table's rows, in row order (rowtext.go), which
// EachNode hands out with each row for the search pack to keep; a node
// COPY spent most of its time on it (kubernetes: 31 MB of bodies, 2-3 s of
// a 7 s load).
// Load creates the schema (schema.DDL, derived from the record types and
// schema.Rels) in a fresh database, COPYs the node files, then the rel files.
// No full-text index is built: keyword search runs on the search pack
// (package query), written beside the database and attached to the build
// (Attach) so that it is swapped in with it. Exec runs further
// statements (vector tables, more COPYs from StagingDir) before Commit;
// EachNode and EachEdge hand the loaded rows back from their files (the
// search pack reads nodes and edges so, not through the database).
// Prepare (which Load does first when the caller did not) seals the rows:
// files closed, dangling edges filtered out, the row digest complete; from
// then on Rows is a read-only view of them that needs no database and may
// be read while Load runs (rowset.go): index.Build builds the search pack
// from it beside the load, and checks after the load
// that the database holds every row of it. EarlyRows is such a view made
// before Prepare, of node tables whose rows are all added (the symbols and
// files, once ingest is done): it reads those at once and waits for
// Prepare for the rest, so that the pack of a small update starts beside
// the processes (kubernetes' one-function edit: 5.1-5.5 -> 4.4-4.6 s);
// no row of those tables may be added after it.
// Commit moves the new database beside the old one, replaces meta.json
// atomically, and only then takes the old database out of the index: it
// removes it, or, with BuildOptions.Retire (analyze's), moves it and its
// companions into a retired-<name>/ directory and hands that over to be
// removed off the command's time (retire.go: unlinking kubernetes' 300 MB
// cost 0.2-0.3 s of page-cache work; a remover that dies leaves it to the
// next build's clean-up after a minute). The companions are
// renamed into place and synced on goroutines of their own while the
// database is copied off /dev/shm (or, updated in place in staging,
// renamed), and each file's sum (meta.json's Sums) is taken as it is
// copied or synced, not by reading it again: on kubernetes, a re-analyze's
// commit went from 1.3 to 0.55 s, and an in-place one's files move in
// 0.04-0.06 s. Abort (or any failure,
// or a crash) leaves the previous index and meta.json untouched and
// queryable. Never drop and re-create a vector index in place: build a new
// database and swap.
//
// Re-analyze is this same copy-on-write build: a new database beside the
// old one, swapped in at Commit, so a reader sees the old index or the new
// one and a kill leaves the old one. What it reuses is the content hash of
// every file whose inode, size and times have not moved since it was read
// (the .stat companion, ingest.StatCache: such a file is not read at all;
// kubernetes' 7.9k files hashed in 0.03 s instead of 0.18-0.22 s), the parse of
// every file whose content is unchanged (the .facts companion, ingest.FactCache),
// and what the search pack derived from every unchanged row (the pack
// keeps the rows' hashes: NodeRowHashes, query.BuildPackFrom), and the
// communities and processes when the call graph they were found on is the
// same (the .procs companion: processes.Key digests everything the
// algorithms read, and they are deterministic), and the call sites'
// outcomes of every unchanged file when no file's facts but its call
// sites and its functions changed (the .sites companion: resolve's
// sitesKey digests what resolving a site reads but the functions, which
// it lists file by file; a body edit keeps it, and a function added,
// removed or changed resolves again only the files that name it or
// import its file; kubernetes' call resolution 1.0-1.2 s → 0.5-0.6 s);
// resolution is otherwise redone,
// which keeps the index exactly a cold build's
// (index.TestReanalyzeEqualsColdBuild, which compares the pack files byte
// for byte: rows are written in file order, so two builds of one tree
// write the same).
//
// The database itself is updated in place when it can be (inplace.go):
// the build's base (UpdateFrom: the live index, keyword-only, built by the
// same gitnexus) has a row digest (digest.go, the .rows companion: per
// node, 64-bit SHA-256 prefixes of its id and row and the sum of its
// outgoing edges' hashes). Load compares this build's rows with it, copies
// the live database into staging, on the index's own file system
// (checking its sum as it copies: the file is read once; StartInPlace
// reads the digest and makes the copy early, while index.Build parses,
// and syncs it: Kuzu's first write waits until every page of the file is
// on disk; a small copy (earlyOpenNodes: prometheus', not kubernetes')
// of an update of few files is opened there too, beside the parse, and
// runs its first statement there (Kuzu's first costs 15-45 ms, whatever
// it is: session 35), a larger one only at the load: opened beside the parse kubernetes' held
// 60-70 MiB more at its peak for no gain in the whole run's wall (session
// 17, bench/results/inplace-early-open-2026-11-26.md), where prometheus'
// one-file edits gain about 0.35 s, staying under a cold run's peak
// (session 31; bench/results/session31-2026-11-27.md); and Commit then
// renames it instead of copying it off a memory file system: kubernetes'
// 200 MB, 0.5-0.8 s) and
// applies the difference there: the edges that changed, compared edge by
// edge with
// what the copy stores (an edge whose line alone moved, the commonest
// change, gets its line SET in place; others are deleted and created; a
// node whose edges nearly all changed has them all replaced), nodes
// deleted, changed properties SET (only those that differ: a string column
// written is rewritten whole at the checkpoint; a symbol whose body
// changed is one more such row, its contentHash and lines SET: deleting
// and creating it with every edge into and out of it was cheaper only
// while the tables stored source text, whose SET could make Kuzu's
// checkpoint rewrite the whole column; prometheus one-body edits, load
// 1.30 → 0.90 s and peak 190 → 142 MiB once it went), nodes and edges created
// in batched UNWIND … CREATE statements (not COPY: a COPY into a rel table
// that has rows rewrites the table, 300 ms and more than a 160 MiB pool
// on prometheus). Up to eight rows go as a statement each with their
// values as constants (unwindParts): Kuzu looks a constant id up in the
// primary-key index (1-13 ms a statement on prometheus, against 27-75 ms
// for the same row through an UNWIND; a one-function edit's statements
// 170 → 50 ms). Every statement that matches symbols by ids from its
// UNWIND list also names their files (narrow): Kuzu 0.11 plans such a
// match as a scan of the whole table, and a constant condition on the
// file path cuts it (kubernetes: 23 → 4 ms a statement). The statements
// run in one Kuzu transaction (each alone would commit and sync its WAL):
// such a scan does not see the nodes created earlier in its transaction
// (Kuzu 0.11.3), so the edges of nodes the update creates go by constant
// ids, statements of a row each (narrowStored); a rel pair with more of
// them than that (literalRows) has them created in a second transaction,
// after the nodes commit, narrowed as the others (applyInTx). Removed nodes
// lose their edges out and in by statements of their own before they go
// (removeStmts: Kuzu 0.11.3's DETACH DELETE could leave an edge in its
// target's list). Counts are
// checked against the row files; any failure falls back to a full load.
// The copy is swapped in by Commit like a new database, so readers and
// kills see what they saw before. It is chosen over Kuzu transactions on
// the live file because the live file is never written (readers hold it
// open read-only and check its sum), and over a full load by a cost
// estimate: a Kuzu write statement costs 1-3 ms, a COPY 30-70 ms whatever
// its size (a COPY or a CREATE list of 1,000 literal rows 45 ms against
// 650 ms), and a full load has 0.7 s of fixed cost (DDL, open, close);
// rows created cost Kuzu memory, so an update creating more than 500 rows
// (or one per 200 rows of a larger build: a full run's peak grows with
// the build) loads whole. On prometheus a one-function edit loads in 0.7-0.8 s in
// place against 1.8 s whole (kubernetes: 1.2-1.7 s against 4.4 s). Rows
// rewritten leave room Kuzu does not reuse (54 MB grows 9-34 MB an
// update, and opening a larger file takes more memory), so a database
// grown to 1.5 times its size after its last full load is loaded whole
// again. The update ends with an explicit CHECKPOINT (Kuzu's own on close
// swallows a failure and leaves the WAL, which the commit refuses); the
// checkpoint rewrites whole column chunks and can want more buffer pool
// than the statements did (kubernetes, after a few one-line edits: "The
// buffer pool is full" in 256 MiB), so a failed one is retried once on a
// reopened database with a full load's pool before loading whole.
// Vectors are never updated in place: an index with embeddings is loaded
// whole.
//
// A re-analyze that finds nothing changed (the same gitnexus build,
// Meta.Build, over the same files with the same content and skips;
// index.Build compares them once every file is hashed, before any is
// parsed: ingest.Options.UpToDate, kubernetes 1.6 s → 0.4 s) does not
// build at all:
// KeepLive rewrites meta.json under the lock with the new commit, branch
// and time, still naming the live database, and discards the staging
// directory. index.Build verifies the live index first (Verify) and
// rebuilds a damaged one.
//
// Edges whose endpoint id has no node are dropped at Load, counted in
// Meta.DroppedEdges and logged: Kuzu fails the whole COPY on one such row,
// and its ignore_errors option makes rel COPYs about 3x slower, so Load
// filters edge files against 64-bit hashes of the node ids added (about 40
// bytes a node) and keeps ignore_errors only as a fallback. A node row with
// a duplicate id fails Load. The row digest a build collects holds, per
// node, three hashes, two counters and the id string, kept until Commit
// writes it: about 50 bytes a node plus its id (the Linux kernel's 1.2M
// nodes: about 150 MB), on top of the id set.
//
// Load cost, measured on the 2-core dev box under heavy load from other
// jobs (load average 15-20; TestLoadCost with GITNEXUS_LOAD_BENCH=1: 10k
// files, 200k symbols with ~1 KB content each, 500k edges, 368 MiB of
// NDJSON), range over four runs: streaming 4-19 s, node COPY 6-21 s, edge
// COPY 12-17 s (30 s with ignore_errors), Kuzu full-text indexes 36-56 s
// (no longer built), commit 0.3-0.6 s; the database is 217 MiB; peak RSS
// 620 MiB with the 512 MiB buffer pool the build defaulted to then (today's
// default is 256 MiB).
//
// Memory: Kuzu keeps, after each statement, the buffer-pool pages it
// touched and the C heap it freed (glibc arenas). The peak of a build would
// then be the sum of its steps. Load ends with the new database closed
// (Exec and Query open it again; a keyword-only build never does) and
// Settle closes and reopens it between later steps, so the peak is the
// largest step plus what opening the database costs (about 7 MiB a node
// table: its primary-key hash index). internal/cheap's Tune caps glibc at one malloc
// arena per core and a 64 KiB trim threshold; it changes the whole
// process, so the package never calls it: gitnexus's main does, once, at
// start. On prometheus the two took analyze's peak from about 345 MiB to
// about 272 MiB. A full load with nothing beside it loosens them while it
// copies (cheap.Bulk: Kuzu's large buffers stay in glibc's arenas instead
// of being mapped and faulted in again), then trims, and so does an
// update in place (small beside a full run's peak); a full load shared
// with the search pack (ShareLoad) loosens them less (cheap.BulkBeside:
// the arenas keep at most 8 MiB free at their top), its C heap adding to
// the pack's memory, and runs its COPYs on one thread fewer.
//
// Strings: "" stays "" (not NULL), and quotes, backslashes, newlines and
// any Unicode round-trip exactly. Kuzu cuts a string at a NUL byte, so NUL
// bytes are removed before loading; invalid UTF-8 becomes U+FFFD.
//
// # Reading: DB
//
// Open opens the live database read-only (ErrNoIndex when there is none,
// ErrSchemaVersion when it is from an incompatible build); writes then fail in
// the engine with an error wrapping ErrReadOnly, and a text of more than one
// statement with ErrManyStatements. A committed database is never written
// again: nothing opens it read-write. Query converts values to
// JSON-friendly Go values (JSONValue). Stale reports that a re-analyze has
// committed a newer database; a long-running reader reopens then (the old
// file stays readable while open). Queries honour context cancellation
// through Kuzu's interrupt; OpenOptions.QueryTimeout is a deadline on that
// context (ErrQueryTimeout). go-kuzu leaks the C copy of every string query
// parameter: prefer few, short string parameters in long-lived processes.
//
// Damage (integrity.go): Kuzu segfaults on a database file garbled in the
// middle or in its catalog (at open or mid-query), fails with "failed to open
// database with status 1" on a truncated one and takes an empty one for a
// new database. So Open hands Kuzu no file it has not checked: it must exist,
// be a whole number of pages with a Kuzu 0.11 header whose page ranges lie
// inside it, and match the size and CRC-32C Commit recorded in Meta.Sums
// (reading the file costs about 8 ms for django's 57 MB database, against
// about 200 ms for a whole `gitnexus cypher` call on it). Otherwise Open fails with a *DamageError (ErrDamaged):
// "the index of X is damaged (file: reason): run `gitnexus analyze X`".
// Verify checks the database and every companion (the search pack) the same
// way, for `gitnexus status`. A query on a DB whose file was written to
// since Open (same file, other size or modification time) fails as damaged
// too. A CHECKPOINT on a read-only database leaves a WAL and a shadow file
// beside it (the database file itself stays untouched: Kuzu opened it
// read-only), after which Kuzu refuses to open it: Open and Close remove
// them.
//
// Lazy (lazy.go) splits Open in two: OpenLazy reads meta.json and checks
// the database file as Open does (13 ms on prometheus), and Kuzu opens on
// the first statement (0.1-0.3 s on prometheus's 54 MB, most of it faulting
// in the pages Kuzu reads at open). Open is OpenLazy then DB. The MCP
// server's handles and the CLI's tool commands use a Lazy, since searches,
// context, impact and trace read only the search pack; NewLazy makes one
// from meta.json's head without checking the file (`gitnexus query`), the
// check then done at the open. A Lazy whose database a swap retired before
// its first statement fails with ErrSwapped, and the caller starts again.
//
// # Registry
//
// $GITNEXUS_HOME/registry.json (default ~/.gitnexus) lists indexed repos for
// -r NAME. Resolve maps "" (the repo containing cwd), a path, or a name to a
// RepoEntry. An analyze writes the file only when it adds a repository or
// renames one (Register): the time, commit and counts of the last analyze
// are its meta.json's, which readers take (tools.ListRepos).
//
// # Native library and memory
//
// Kuzu is linked through cgo (libkuzu.so). Its default buffer pool takes 80%
// of RAM; builds default to 256 MiB (BuildOptions.BufferPoolSize, grown by
// GrowBufferPool for large vector tables) and readers to 256 MiB
// (OpenOptions.BufferPoolSize). Load alone runs on a larger pool when the
// rows need it: a node COPY holds about threads+1 node groups (2^17 rows)
// of its table in the pool, so a table of large rows (the Linux kernel's
// 700k C functions with their source) fails with "The buffer pool is full"
// in 256 MiB. Row files track the NDJSON bytes of their largest node group
// and Load sizes the pool from it (copyPool, capped at 3/4 of RAM), then
// closes the database; Exec and Query open it again on the build's own
// pool. Only one process may open a database read-write (only a Build
// does, on its new database); any number may open it read-only.
package graph
