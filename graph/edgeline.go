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

// edgeEnds reads the endpoint ids of an edge line in appendEdgeLine's form,
// as slices of line (nothing is allocated); ok is false for another form
// (parseEdgeLine reads every form). Only the ids are read: the rest of the
// line is not checked.
func edgeEnds(line []byte) (from, to []byte, ok bool) {
	return scanEdgeEnds(&jsonScanner{b: line})
}

// scanEdgeEnds reads an edge line's head, `{"from":"…","to":"…"`, from s:
// edgeEnds' and scanEdgeView's first part.
func scanEdgeEnds(s *jsonScanner) (from, to []byte, ok bool) {
	if !s.lit(`{"from":`) {
		return nil, nil, false
	}
	if from, ok = s.rawStr(); !ok || !s.lit(`,"to":`) {
		return nil, nil, false
	}
	if to, ok = s.rawStr(); !ok {
		return nil, nil, false
	}
	return from, to, true
}

// EdgeView is an edge row read in place (Rows.EachEdgeView): its byte
// fields are slices of the row file's line, valid only during the call
// that hands it over; the rest as in EdgeRow.
type EdgeView struct {
	From, To, Reason []byte
	Confidence       float64
	Step, Line       int
}

// parseEdgeView is parseEdgeLine read in place where the line has
// appendEdgeLine's form with no escapes, else parsed and viewed.
func parseEdgeView(line []byte) (EdgeView, error) {
	if v, ok := scanEdgeView(line); ok {
		return v, nil
	}
	e, err := parseEdgeLine(line)
	return EdgeView{From: []byte(e.From), To: []byte(e.To), Reason: []byte(e.Reason), Confidence: e.Confidence, Step: e.Step, Line: e.Line}, err
}

// Row is v with its strings copied out of the line.
func (v EdgeView) Row() EdgeRow {
	return EdgeRow{From: string(v.From), To: string(v.To), Confidence: v.Confidence, Reason: string(v.Reason), Step: v.Step, Line: v.Line}
}

// scanEdgeLine is parseEdgeLine's hand-written reader (scanEdgeView's,
// copied); ok is false for a line it does not recognize (the caller falls
// back to encoding/json).
func scanEdgeLine(line []byte) (e EdgeRow, ok bool) {
	v, ok := scanEdgeView(line)
	if !ok {
		return e, false
	}
	return v.Row(), true
}

// scanEdgeView reads a line in appendEdgeLine's form whose strings hold no
// escape, in place; ok is false for any other line.
func scanEdgeView(line []byte) (v EdgeView, ok bool) {
	s := &jsonScanner{b: bytes.TrimRight(line, "\r\n")}
	if v.From, v.To, ok = scanEdgeEnds(s); !ok || !s.lit(`,"confidence":`) {
		return v, false
	}
	if v.Confidence, ok = s.float(); !ok || !s.lit(`,"reason":`) {
		return v, false
	}
	if v.Reason, ok = s.rawStr(); !ok || !s.lit(`,"step":`) {
		return v, false
	}
	if v.Step, ok = s.integer(); !ok || !s.lit(`,"line":`) {
		return v, false
	}
	if v.Line, ok = s.integer(); !ok || !s.eat('}') {
		return v, false
	}
	return v, s.end()
}
