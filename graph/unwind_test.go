package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestUnwindRowsReadBack: rows sent through unwindRows, and as
// unwindParts' constants, come back from Kuzu as the values they are, in
// unwindRows' two forms: the split string (empty
// strings, quotes, backslashes, newlines, non-ASCII, NUL dropped,
// negative and large integers, doubles in exponent form, booleans) and
// the literal maps a null, a list or a separator in a string falls back
// to.
func TestUnwindRowsReadBack(t *testing.T) {
	db, err := openKuzu(filepath.Join(t.TempDir(), "db"), systemConfig(DefaultReadBufferPool, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cols := []schema.Column{{Name: "s", Type: "STRING"}, {Name: "i", Type: "INT64"}, {Name: "d", Type: "DOUBLE"}, {Name: "b", Type: "BOOLEAN"}}
	row := func(vs ...any) []json.RawMessage {
		r, err := jsonValues(vs...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	text := [][]json.RawMessage{
		row("", -9007199254740993, 0.1, true),
		row("it's a \\ back'slash\nand tab\t", 42, 1e-7, false),
		row("été ✓ nul\x00dropped", 0, 0.30000000000000004, true),
	}
	for name, c := range map[string]struct {
		rows [][]json.RawMessage
		text bool
	}{
		"text":      {text, true},
		"null":      {append(text[:1:1], []json.RawMessage{json.RawMessage(`"x"`), nil, json.RawMessage(`2.5`), json.RawMessage(`true`)}), false},
		"separator": {append(text[:1:1], row("a\x1fb", 1, 1.5, false)), false},
	} {
		t.Run(name, func(t *testing.T) {
			u, err := unwindRows("r", cols, c.rows)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.clause[:len("UNWIND string_split")] == "UNWIND string_split"; got != c.text {
				t.Fatalf("text form %v, want %v: %.80s", got, c.text, u.clause)
			}
			// The same rows as unwindParts' constants, a statement each.
			parts, err := unwindParts("r", cols, c.rows)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != len(c.rows) {
				t.Fatalf("%d parts for %d rows", len(parts), len(c.rows))
			}
			for form, us := range map[string][]unwound{"unwind": {u}, "constants": parts} {
				var rows [][]any
				for i, u := range us {
					if form == "constants" && (u.clause != "" || u.lo != i || u.hi != i+1) {
						t.Fatalf("part %d: clause %q rows [%d:%d]", i, u.clause, u.lo, u.hi)
					}
					res, err := run(context.Background(), conn, u.then(fmt.Sprintf("RETURN %s, %s, %s, %s", u.field["s"], u.field["i"], u.field["d"], u.field["b"])), nil)
					if err != nil {
						t.Fatal(err)
					}
					got, err := collect(res, 0)
					res.Close()
					if err != nil {
						t.Fatal(err)
					}
					rows = append(rows, got.Rows...)
				}
				checkReadBack(t, form, cols, c.rows, rows)
			}
		})
	}
}

// checkReadBack fails t unless got holds the rows want, as Kuzu stores
// them.
func checkReadBack(t *testing.T, form string, cols []schema.Column, want [][]json.RawMessage, got [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows back, want %d", form, len(got), len(want))
	}
	for i, r := range got {
		for k, col := range cols {
			var lit any
			if raw := want[i][k]; raw != nil {
				lit, _ = schema.Literal(col.Type, raw)
			}
			var back any
			if r[k] != nil {
				raw, _ := json.Marshal(r[k])
				back, _ = schema.Literal(col.Type, raw)
			}
			if back != lit {
				t.Errorf("%s: row %d %s: read back %v, want %v", form, i, col.Name, back, lit)
			}
		}
	}
}
