package graph

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// unwound is the head of a statement over rows: an UNWIND that binds its
// alias to each row in turn, and the expression that reads each column of
// the row.
type unwound struct {
	clause string            // "" when the fields are constants (unwindParts)
	field  map[string]string // column name → expression
	lo, hi int               // the rows it binds: rows[lo:hi]
}

// then is the statement that runs rest on u's rows: rest alone when the
// fields are constants.
func (u unwound) then(rest string) string {
	if u.clause == "" {
		return rest
	}
	return u.clause + " " + rest
}

// literalRows is how many rows unwindParts gives a statement each.
// Kuzu looks a constant primary key up in its index, where a key read
// from an UNWIND joins a scan of the table: one prometheus File row set
// through UNWIND took 27 ms, as a constant 1.5 ms; an edge created
// between two constant ids 1-13 ms against 45-75 ms.
const literalRows = 8

// unwindParts renders rows for statements over them: up to literalRows
// rows as a part each whose fields are the row's values as constants (no
// clause), more as one part, unwindRows' UNWIND. Each part's lo and hi
// say which rows it binds.
func unwindParts(alias string, cols []schema.Column, rows [][]json.RawMessage) ([]unwound, error) {
	if len(rows) > literalRows {
		u, err := unwindRows(alias, cols, rows)
		u.lo, u.hi = 0, len(rows)
		return []unwound{u}, err
	}
	parts := make([]unwound, len(rows))
	for i, row := range rows {
		u := unwound{field: make(map[string]string, len(cols)), lo: i, hi: i + 1}
		for k, c := range cols {
			v, err := literalValue(c, row[k])
			if err != nil {
				return nil, err
			}
			u.field[c.Name] = v
		}
		parts[i] = u
	}
	return parts, nil
}

// literalValue is raw as a constant of c's type; nil (or JSON null) is a
// NULL of that type.
func literalValue(c schema.Column, raw json.RawMessage) (string, error) {
	// A typed NULL: Kuzu types a list of maps by its first map, and a
	// bare NULL is a STRING.
	if raw == nil || strings.TrimSpace(string(raw)) == "null" {
		return "CAST(NULL AS " + c.Type + ")", nil
	}
	v, err := schema.Literal(c.Type, raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.Name, err)
	}
	return v, nil
}

// Separators of unwindRows' text: between rows and between fields.
const (
	unwindRowSep   = "\x1e"
	unwindFieldSep = "\x1f"
)

// unwindRows renders rows (each row's values in the order of cols, raw
// JSON as the row files hold them; nil is null) as an UNWIND that binds
// alias. Kuzu 0.11 binds a list of literal maps slowly (123 maps of 7
// fields: 66-164 ms before the statement does anything), so the rows go
// as one string literal that the statement splits into rows and fields
// (string_split: 16 ms for the same statement, its work included), each
// field cast to its column's type; a string field gets a leading '.'
// (dropped again when read) because string_split drops empty parts. When
// a value has no text form (schema.Plain: null, a list) or a string holds
// a separator, the rows go as literal maps (schema.Literal), as a COPY of
// them would store. Either way the statement stores the same values.
func unwindRows(alias string, cols []schema.Column, rows [][]json.RawMessage) (unwound, error) {
	if u, ok, err := unwindText(alias, cols, rows); ok || err != nil {
		return u, err
	}
	var list strings.Builder
	for i, row := range rows {
		if i > 0 {
			list.WriteString(", ")
		}
		list.WriteString("{")
		for k, c := range cols {
			v, err := literalValue(c, row[k])
			if err != nil {
				return unwound{}, err
			}
			if k > 0 {
				list.WriteString(", ")
			}
			fmt.Fprintf(&list, "`%s`: %s", c.Name, v)
		}
		list.WriteString("}")
	}
	u := unwound{clause: fmt.Sprintf("UNWIND [%s] AS %s", list.String(), alias), field: map[string]string{}}
	for _, c := range cols {
		u.field[c.Name] = fmt.Sprintf("%s.`%s`", alias, c.Name)
	}
	return u, nil
}

// unwindText is unwindRows' string form; ok is false when a value does
// not fit it.
func unwindText(alias string, cols []schema.Column, rows [][]json.RawMessage) (u unwound, ok bool, err error) {
	var text strings.Builder
	for i, row := range rows {
		if i > 0 {
			text.WriteString(unwindRowSep)
		}
		for k, c := range cols {
			if row[k] == nil {
				return unwound{}, false, nil
			}
			v, ok, err := schema.Plain(c.Type, row[k])
			if err != nil {
				return unwound{}, false, fmt.Errorf("%s: %w", c.Name, err)
			}
			if !ok || strings.ContainsAny(v, unwindRowSep+unwindFieldSep) {
				return unwound{}, false, nil
			}
			if k > 0 {
				text.WriteString(unwindFieldSep)
			}
			if c.Type == "STRING" {
				text.WriteByte('.')
			}
			text.WriteString(v)
		}
	}
	row := "_" + alias
	u = unwound{
		clause: fmt.Sprintf("UNWIND string_split(%s, %s) AS %s WITH string_split(%s, %s) AS %s",
			schema.Quote(text.String()), schema.Quote(unwindRowSep), row, row, schema.Quote(unwindFieldSep), alias),
		field: map[string]string{},
	}
	for k, c := range cols {
		e := fmt.Sprintf("%s[%d]", alias, k+1)
		if c.Type == "STRING" {
			u.field[c.Name] = fmt.Sprintf("substring(%s, 2, size(%s) - 1)", e, e)
		} else {
			u.field[c.Name] = fmt.Sprintf("CAST(%s AS %s)", e, c.Type)
		}
	}
	return u, true, nil
}

// unwindIDs is unwindParts of ids, one STRING column "id".
func unwindIDs(alias string, ids []string) ([]unwound, error) {
	rows := make([][]json.RawMessage, len(ids))
	for i, id := range ids {
		b, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		rows[i] = []json.RawMessage{b}
	}
	return unwindParts(alias, []schema.Column{{Name: "id", Type: "STRING"}}, rows)
}
