package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Key names a function: its file relative to the repository root with '/'
// separators, and the 1-based line its declaration starts on.
type Key struct {
	File string
	Line int
}

func (k Key) String() string { return k.File + ":" + strconv.Itoa(k.Line) }

// Edge is a call from one function to another.
type Edge struct{ From, To Key }

// ToolEdge is one CALLS row of a tool. Confidence is 1 when the tool gives
// none.
type ToolEdge struct {
	Edge
	Confidence float64
	Reason     string
}

// ReadCypher reads the output of a cypher query returning, in this order,
// caller file, caller line, callee file, callee line, and optionally
// confidence and reason. It accepts {"columns": [...], "rows": [[...]]}
// (this project's `cypher --json`) and {"markdown": "...", "row_count": N}
// (the reference tool's cypher command); text before the first '{' (a
// banner) is skipped. lineBase is the number the tool gives the first line
// of a file (1, or 0 for the reference tool); lines are converted to 1-based.
// A row with an empty or non-numeric line keeps line 0 (it names no
// function: a file-level caller, say).
func ReadCypher(r io.Reader, lineBase int) ([]ToolEdge, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("cypher: read: %w", err)
	}
	if i := bytes.IndexByte(data, '{'); i > 0 {
		data = data[i:]
	}
	var doc struct {
		Columns  []string        `json:"columns"`
		Rows     [][]any         `json:"rows"`
		Markdown *string         `json:"markdown"`
		RowCount *int            `json:"row_count"`
		Error    json.RawMessage `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("cypher: decode: %w", err)
	}
	if len(doc.Error) > 0 && string(doc.Error) != "null" {
		return nil, fmt.Errorf("cypher: the query failed: %s", doc.Error)
	}
	var rows [][]string
	switch {
	case doc.Markdown != nil:
		cols, rs, err := parseMarkdown(*doc.Markdown)
		if err != nil {
			return nil, err
		}
		if len(rs) > 0 && len(cols) < 4 {
			return nil, fmt.Errorf("cypher: %d columns %v, want at least 4 (caller file, caller line, callee file, callee line)", len(cols), cols)
		}
		if doc.RowCount != nil && *doc.RowCount != len(rs) {
			return nil, fmt.Errorf("cypher: row_count %d but %d table rows (truncated output? raise the tool's row limit)", *doc.RowCount, len(rs))
		}
		rows = rs
	case doc.Columns != nil || doc.Rows != nil:
		if len(doc.Rows) > 0 && len(doc.Columns) < 4 {
			return nil, fmt.Errorf("cypher: %d columns %v, want at least 4 (caller file, caller line, callee file, callee line)", len(doc.Columns), doc.Columns)
		}
		for _, r := range doc.Rows {
			s := make([]string, len(r))
			for i, v := range r {
				s[i] = cell(v)
			}
			rows = append(rows, s)
		}
	default:
		return nil, fmt.Errorf("cypher: neither {columns, rows} nor {markdown} in the output")
	}

	out := make([]ToolEdge, 0, len(rows))
	for i, r := range rows {
		if len(r) < 4 {
			return nil, fmt.Errorf("cypher: row %d has %d cells, want at least 4", i+1, len(r))
		}
		e := ToolEdge{
			Edge: Edge{
				From: Key{normPath(r[0]), line(r[1], lineBase)},
				To:   Key{normPath(r[2]), line(r[3], lineBase)},
			},
			Confidence: 1,
		}
		if len(r) > 4 && r[4] != "" {
			c, err := strconv.ParseFloat(r[4], 64)
			if err != nil || math.IsNaN(c) {
				return nil, fmt.Errorf("cypher: row %d: confidence %q is not a number", i+1, r[4])
			}
			e.Confidence = c
		}
		if len(r) > 5 {
			e.Reason = r[5]
		}
		out = append(out, e)
	}
	return out, nil
}

func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func line(s string, base int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		if f, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64); ferr == nil && f == math.Trunc(f) {
			n, err = int(f), nil
		}
	}
	if err != nil {
		return 0
	}
	return n + 1 - base
}

func normPath(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), "\\", "/")
	return strings.TrimPrefix(p, "./")
}

// parseMarkdown parses a GitHub-style table: a header row, a separator row,
// then data rows. Cells are split on '|' not preceded by a backslash.
func parseMarkdown(md string) (cols []string, rows [][]string, err error) {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		return nil, nil, nil
	}
	cols = splitRow(lines[0])
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "|") || strings.Trim(strings.TrimSpace(lines[1]), "|- :") != "" {
		return nil, nil, fmt.Errorf("cypher: markdown table has no separator row after the header")
	}
	for i, l := range lines[2:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		r := splitRow(l)
		if len(r) != len(cols) {
			return nil, nil, fmt.Errorf("cypher: markdown row %d has %d cells, header has %d: %q", i+1, len(r), len(cols), l)
		}
		rows = append(rows, r)
	}
	return cols, rows, nil
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, "\\|") {
		l = l[:len(l)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
