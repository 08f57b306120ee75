package schema

import "strings"

// Quote renders s as a Cypher string literal. It is the one way this
// program puts a value into a statement: tools and loaders inline values
// as literals instead of binding string parameters, because go-kuzu
// v0.11.3 leaks the C copy of every bound string, which a long-running
// server cannot afford.
//
// Backslash, quote, newline, carriage return and tab are escaped; NUL,
// which no id, name or path holds, is dropped, so any input stays one
// literal and cannot end the statement's string early.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// QuoteList renders ss as a Cypher list of string literals (see Quote).
func QuoteList(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(Quote(s))
	}
	b.WriteByte(']')
	return b.String()
}
