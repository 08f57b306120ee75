package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Quote renders s as a Cypher string literal. It is the one way this
// program puts a value into a statement: tools and loaders inline values
// as literals instead of binding string parameters, because go-kuzu
// v0.11.3 leaks the C copy of every bound string, which a long-running
// server cannot afford.
//
// Kuzu reads a backslash in a string literal as "take the next character
// as it is" (`\n` is the letter n, not a newline), so backslash and quote
// are escaped and every other character, newlines and tabs included, is
// written as it is; NUL, which Kuzu cannot store, is dropped. Any input
// stays one literal and cannot end the statement's string early
// (graph's TestQuoteRoundTrips reads literals back through Kuzu).
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

// Literal renders raw, one value of a row as its NDJSON row file holds it
// (encoding/json's output), as a Cypher literal of Kuzu type typ (a
// Column's Type), so that a statement stores what a COPY of that row
// stores: strings through Quote, integers and booleans as written, doubles
// in their shortest exact form, STRING[] as a typed list; JSON null is
// NULL. Other types and values that do not fit typ are an error.
func Literal(typ string, raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "null" {
		return "NULL", nil
	}
	switch typ {
	case "STRING":
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("literal %s: %w", typ, err)
		}
		return Quote(v), nil
	case "INT64":
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return "", fmt.Errorf("literal %s: %w", typ, err)
		}
		return s, nil
	case "DOUBLE":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", fmt.Errorf("literal %s: %w", typ, err)
		}
		r := strconv.FormatFloat(f, 'g', -1, 64)
		if strings.ContainsAny(r, "eEnN") { // exponent, NaN, Inf: through a cast
			return "CAST(" + Quote(r) + " AS DOUBLE)", nil
		}
		if !strings.Contains(r, ".") {
			r += ".0"
		}
		return r, nil
	case "BOOLEAN":
		if s != "true" && s != "false" {
			return "", fmt.Errorf("literal %s: %q", typ, s)
		}
		return s, nil
	case "STRING[]":
		var v []string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("literal %s: %w", typ, err)
		}
		return "CAST(" + QuoteList(v) + " AS STRING[])", nil
	}
	return "", fmt.Errorf("literal: no literal form for Kuzu type %s", typ)
}

// Plain renders raw (as Literal takes it) as text that CAST(text AS typ)
// reads back as the value Literal's literal stands for, for statements
// that carry many rows in one string (graph's unwindRows): integers and
// booleans as written, doubles in their shortest exact form, strings as
// they are, NUL dropped as Quote drops it. ok is false for a value with
// no such form (JSON null, a STRING[]).
func Plain(typ string, raw json.RawMessage) (text string, ok bool, err error) {
	s := strings.TrimSpace(string(raw))
	if s == "null" {
		return "", false, nil
	}
	switch typ {
	case "STRING":
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", false, fmt.Errorf("plain %s: %w", typ, err)
		}
		return strings.ReplaceAll(v, "\x00", ""), true, nil
	case "INT64":
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return "", false, fmt.Errorf("plain %s: %w", typ, err)
		}
		return s, true, nil
	case "DOUBLE":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", false, fmt.Errorf("plain %s: %w", typ, err)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true, nil
	case "BOOLEAN":
		if s != "true" && s != "false" {
			return "", false, fmt.Errorf("plain %s: %q", typ, s)
		}
		return s, true, nil
	case "STRING[]":
		return "", false, nil
	}
	return "", false, fmt.Errorf("plain: no text form for Kuzu type %s", typ)
}
