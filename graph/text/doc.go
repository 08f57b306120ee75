// Package text turns identifiers, paths, doc comments and search queries
// into the words the search engine (package query) indexes and matches.
//
// Code names glue words together (getUserById, user_repository,
// HTTPServer, İstanbulParser, src/auth/validate.ts). This package splits
// them, the same way on both sides:
//
//   - SplitIdentifier splits one identifier into lower-case words at
//     case changes and at every rune that is not a letter, mark or digit
//     (Unicode classes, Unicode lower-casing: GRÜSSE → grüsse). Letters
//     without case (路由器) stay together.
//   - Segments cuts a text into identifier-shaped pieces (letters, marks,
//     digits, '_' and '-').
//   - Words is the index-side analysis of any text: each segment's words
//     and, for a segment of several words, its whole form
//     ("user_repository" → user repository userrepository), so that a
//     query spelling the name whole or in words matches. Newlines, tabs and
//     punctuation are separators like spaces.
//   - SearchText builds the searchText column of a symbol or file: the words
//     of its name, qualified name and path, each word once.
//
// Digits stay in words ("http2", "sha256", "404"): the engine keeps them,
// so nothing is spelled out any more (Kuzu's full-text index dropped
// digits, which is why earlier versions did).
//
// Stop words. StopWords is the list both sides drop. Kuzu's default list
// drops words that matter in code (get, new, use, value, name, first, is,
// not, for, if, has, can); ours keeps them. Aliases (k8s → kubernetes) are
// a query-side expansion (query.Parse).
//
// Everything here is pure Go with no dependencies; every word is made of
// lower-case Unicode letters, marks and decimal digits.
package text
