package graph

// This file owns the edge row's line: edges are most of a build's rows
// (the Linux kernel: millions of CALLS), written once (AddEdge) and read
// back twice (filterDangling, EachEdge), so their NDJSON line is written
// and read by hand instead of through encoding/json's reflection. The
// line is the one encodeRow writes for a schema.Edge, field for field; a
// line this reader does not recognize goes to encoding/json.

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// appendEdgeLine appends e's row (newline included) as encodeRow writes
// it: {"from":…,"to":…,"confidence":…,"reason":…,"step":…,"line":…}.
// Strings lose their NUL bytes and have invalid UTF-8 replaced by U+FFFD,
// as encodeRow's do. ok is false for a confidence JSON cannot hold (NaN,
// ±Inf): the caller then goes through encodeRow for its error.
func appendEdgeLine(dst []byte, e schema.Edge) (_ []byte, ok bool) {
	if math.IsNaN(e.Confidence) || math.IsInf(e.Confidence, 0) {
		return dst, false
	}
	dst = append(dst, `{"from":`...)
	dst = appendJSONString(dst, e.From)
	dst = append(dst, `,"to":`...)
	dst = appendJSONString(dst, e.To)
	dst = append(dst, `,"confidence":`...)
	dst = appendJSONFloat(dst, e.Confidence)
	dst = append(dst, `,"reason":`...)
	dst = appendJSONString(dst, e.Reason)
	dst = append(dst, `,"step":`...)
	dst = strconv.AppendInt(dst, int64(e.Step), 10)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendInt(dst, int64(e.Line), 10)
	return append(dst, "}\n"...), true
}

// appendJSONFloat formats f as encoding/json does (shortest round-trip
// form, exponent only outside [1e-6, 1e21)).
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendJSONString appends s as a JSON string: '"' and '\\' escaped,
// control characters as \n, \r, \t or \u00XX, NUL bytes dropped, invalid
// UTF-8 as \ufffd (encoding/json with HTML escaping off writes the same
// values; it also escapes U+2028 and U+2029, which any JSON reader reads
// the same either way).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case 0: // dropped, as encodeRow drops it
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// parseEdgeLine reads an edge row. Lines appendEdgeLine wrote whose
// strings hold no escape are read by hand; any other line goes to
// encoding/json.
func parseEdgeLine(line []byte) (EdgeRow, error) {
	if e, ok := scanEdgeLine(line); ok {
		return e, nil
	}
	var e EdgeRow
	err := json.Unmarshal(line, &e)
	return e, err
}

// scanEdgeLine is parseEdgeLine's hand-written reader; ok is false for a
// line it does not recognize (the caller falls back to encoding/json).
func scanEdgeLine(line []byte) (e EdgeRow, ok bool) {
	s := line
	str := func(key string) (string, bool) {
		if !bytes.HasPrefix(s, []byte(key)) {
			return "", false
		}
		s = s[len(key):]
		end := -1
		for i, c := range s {
			if c == '"' {
				end = i
				break
			}
			if c == '\\' || c < 0x20 {
				return "", false // an escape or a raw control character
			}
		}
		if end < 0 {
			return "", false
		}
		v := s[:end]
		s = s[end+1:]
		return string(v), true
	}
	num := func(key string) ([]byte, bool) {
		if !bytes.HasPrefix(s, []byte(key)) {
			return nil, false
		}
		s = s[len(key):]
		end := bytes.IndexAny(s, ",}")
		if end <= 0 || !jsonNumber(s[:end]) { // strconv also takes inf, 0x1p3, 00
			return nil, false
		}
		v := s[:end]
		s = s[end:]
		return v, true
	}
	integer := func(key string) (int, bool) {
		v, ok := num(key)
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(string(v))
		return n, err == nil
	}
	var c []byte
	if e.From, ok = str(`{"from":"`); !ok {
		return e, false
	}
	if e.To, ok = str(`,"to":"`); !ok {
		return e, false
	}
	if c, ok = num(`,"confidence":`); !ok {
		return e, false
	}
	f, err := strconv.ParseFloat(string(c), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return e, false
	}
	e.Confidence = f
	if e.Reason, ok = str(`,"reason":"`); !ok {
		return e, false
	}
	if e.Step, ok = integer(`,"step":`); !ok {
		return e, false
	}
	if e.Line, ok = integer(`,"line":`); !ok {
		return e, false
	}
	rest := bytes.TrimRight(s, "\r\n")
	if string(rest) != "}" {
		return e, false
	}
	if !utf8.ValidString(e.From) || !utf8.ValidString(e.To) || !utf8.ValidString(e.Reason) {
		return e, false
	}
	return e, true
}

// jsonNumber reports whether b is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
