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

// TestUnwindRowsReadBack: rows sent through unwindRows come back from
// Kuzu as the values they are, in both forms: the split string (empty
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
			res, err := run(context.Background(), conn, fmt.Sprintf("%s RETURN %s, %s, %s, %s", u.clause, u.field["s"], u.field["i"], u.field["d"], u.field["b"]), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			got, err := collect(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != len(c.rows) {
				t.Fatalf("%d rows back, want %d", len(got.Rows), len(c.rows))
			}
			for i, r := range got.Rows {
				for k, col := range cols {
					want := any(nil)
					if raw := c.rows[i][k]; raw != nil {
						lit, _ := schema.Literal(col.Type, raw)
						want = lit
					}
					var back any
					if r[k] != nil {
						raw, _ := json.Marshal(r[k])
						back, _ = schema.Literal(col.Type, raw)
					}
					if back != want {
						t.Errorf("row %d %s: read back %v, want %v", i, col.Name, back, want)
					}
				}
			}
		})
	}
}
