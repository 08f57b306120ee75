// Package index is the analyze pipeline as a library: Build(ctx, root,
// opts) turns a repository into the index every other package reads. The
// CLI's `gitnexus analyze`, query/eval, the benchmarks and the end-to-end
// tests all call it, so what they measure is what users get.
//
// # The pipeline
//
// Build drives one graph.Build (the build driver: the repository's lock, a
// staging directory beside the live index, the commit/abort swap and its
// durability) through five stages; the stages write, the driver decides
// when their output becomes the index:
//
//  1. Embedding stage (embed.go), started first when a model is present:
//     every symbol ingest emits is teed into a vectors.Writer that embeds
//     in the background, reusing the live index's vectors of unchanged
//     symbols. A missing model or ONNX Runtime is a warning and a
//     keyword-only index, not an error.
//  2. Ingest (package ingest): discover the files as git would, parse them
//     in parallel with tree-sitter, resolve imports, calls and heritage.
//     A file whose path, language and content hash the live index's fact
//     cache holds is not parsed: its parse result is read back (Force
//     skips the cache); every file's result goes into the new index's
//     cache. A parse is a pure function of those three for one build of
//     gitnexus, so the index is the one a cold analyze builds
//     (TestReanalyzeEqualsColdBuild). On prometheus (1,177 files) this
//     takes parse from 1.6 s to 0.14 s; the rest (resolution, processes,
//     the graph load and the search pack) is still redone.
//     When every file, parse outcome, skip and resolution count is what
//     the live index records, and the live index was built by this same
//     executable (Meta.Build) without vectors, as this build would be,
//     Build stops here: the live index is kept (graph.Build.KeepLive),
//     meta.json takes this analyze's commit and time, and the summary
//     says UpToDate (prometheus: about 0.5 s against 2.2 s).
//     Rows stream into the build's NDJSON files as they come; what stays
//     in memory is the compact symbol index and call edges resolution and
//     the next stage need.
//  3. Processes (package processes): communities and execution flows over
//     that call graph, written as rows too. Then the embedder drains and
//     closes, and ingest's memory is released, before Kuzu grows.
//  4. The format writers: the graph load (graph.Build.Load: COPY of every
//     NDJSON file), the search pack (query.BuildPack: nodes and edges from
//     the row files just loaded, processes and communities from the
//     loaded tables; attached to the build so it is swapped in with the
//     database), and the vectors (vectors.Writer.Load).
//  5. Commit: meta.json, written last and atomically, names the new
//     database and its pack; the old ones are removed only then.
//
// Any error, or a cancelled ctx, aborts the build: the previous index and
// its meta.json are untouched and stay queryable. Build never touches the
// repository registry: registering the index (graph.EntryFromMeta of
// Summary.Meta) is the caller's choice.
//
// Memory: the stages stream; what grows with the repository is ingest's
// facts of every file (held until resolution: the symbols, and each
// file's call sites until resolution has turned them into edges), the
// symbol index and edge list (released before the load), Kuzu's buffer
// pool during the load (see graph/doc.go), and the search pack's
// builder (the documents' postings, after the load). On the Linux
// kernel (872k symbols, 2.8M edges) the peak, about 3.3 GiB, comes at
// the end of resolution or in the processes phase, with the pack close
// behind (3.2 GiB) and the load at 1.6 GiB
// (bench/results/analyze-linux-2026-11-26.md, session 22). The Go heap
// is collected at GOGC 50 (main.go), except while an update of an index
// of at most 500k rows runs (updateGCPercent, 100): such an update holds
// ingest's facts without the COPY's memory that sets a cold run's peak,
// and collects half as often (session 33: prometheus' one-body update
// 1.17 -> 0.97 s, its peak 168 MiB against a cold run's 206).
package index
