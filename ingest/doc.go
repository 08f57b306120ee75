// Package ingest turns a repository on disk into graph records.
//
// The pipeline, in order:
//
//  1. discover (ingest/discover) lists the files git would consider, minus
//     ignored, vendored, binary and oversized ones, each counted by reason;
//  2. the folder tree becomes Folder nodes and CONTAINS edges;
//  3. files are parsed in parallel, one worker per core, by ingest/lang;
//     each worker reads one file, parses it, extracts its Facts and hands
//     them to the single consumer, which streams File and symbol rows and
//     the structural edges (DEFINES, HAS_METHOD) to the Sink straight away
//     and keeps only a light Index (symbols without their source text, plus
//     the raw references) for the cross-file phases. The consumer also
//     decides, once, whether a file is test code (schema.IsTestPath) and
//     stores the answer as isTest on the File and each of its symbols;
//     nothing downstream applies the rule again;
//  4. cross-file structure: methods declared apart from their type (Go,
//     Rust) get their HAS_METHOD edge by package and type name;
//  5. resolution links imports, calls and heritage across files
//     (ingest/resolve).
//
// Memory is bounded by the size of the light Index, not by the source: a
// symbol's Content goes to the Sink and is dropped. The Sink is usually a
// graph.Build writing NDJSON for Kuzu's COPY.
//
// Run never stops for one bad file: unreadable, vanished or unparsable
// files are counted in the Stats and the run goes on. It stops on context
// cancellation and on Sink errors (the disk is full, say).
package ingest
