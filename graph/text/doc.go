// Package text turns identifiers, paths and search queries into the words a
// full-text index can match.
//
// Code names glue words together (getUserById, user_repository,
// HTTPServer, src/auth/validate.ts) and Kuzu's full-text search neither
// splits camelCase nor keeps digits: its ignore pattern turns every digit and
// punctuation character (including '_') into a separator, so "http2Server"
// would index as "http" and "server", "sha256" as "sha", and
// "user_repository" could never be matched whole. This package does the
// splitting itself, on both sides:
//
//   - SearchText builds the searchText column of a symbol or file: the words
//     of its name, qualified name and path, plus each multi-word identifier
//     kept whole ("get user by id getuserbyid").
//   - Tokens turns a query into the same kind of words: split, lowercased,
//     stop words dropped, aliases (k8s → kubernetes) added.
//   - FTSQuery renders tokens as a query string for QUERY_FTS_INDEX that
//     contains only [a-z] and spaces, so it can be embedded in a Cypher
//     string literal with no way to break out of it. It never emits Kuzu's
//     "term*" wildcard, which crashes Kuzu 0.11.3 (see FTSQuery).
//
// Digits. A word with digits ("http2", "sha256", "404") is emitted twice:
// as itself, which Kuzu reduces to its letters ("http", "sha"), and in a
// digit-spelled form ("httptwo", "shatwofivesix", "numfourzerofour") that
// survives Kuzu's tokenizer. The query side applies the same encoding, so
// "sha256" ranks SHA-256 code above SHA-1 code while "sha" still finds both.
//
// Whole identifiers are joined without a separator ("userrepository", not
// "user_repository") for the same reason: '_' is a separator to Kuzu.
//
// Stop words. Kuzu's default stop-word list drops words that matter in code
// (get, new, use, value, name, first, is, not, for, if, has, can). The index
// must be created with StopWords instead (see StopWordsCSV); the query side
// drops the same words, so both agree.
//
// Everything here is pure Go with no dependencies, and every output token
// matches [a-z0-9]+ (FTSQuery output: [a-z ]).
package text
