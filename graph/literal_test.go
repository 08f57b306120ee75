package graph

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// literalConn is a connection to a fresh scratch database.
func literalConn(t *testing.T) *kuzu.Connection {
	t.Helper()
	db, err := openKuzu(t.TempDir()+"/lit.kuzu", systemConfig(64<<20, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); db.Close() })
	return conn
}

func returnValue(t *testing.T, conn *kuzu.Connection, expr string) any {
	t.Helper()
	res, err := run(context.Background(), conn, "RETURN "+expr, nil)
	if err != nil {
		t.Fatalf("RETURN %s: %v", abbrev(expr, 80), err)
	}
	defer res.Close()
	tp, err := res.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	v, err := tp.GetValue(0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestQuoteRoundTrips: what schema.Quote writes, Kuzu reads back as the
// string quoted (NUL dropped, invalid UTF-8 as U+FFFD): newlines, tabs,
// backslashes before letters, quotes, control characters and random mixes.
func TestQuoteRoundTrips(t *testing.T) {
	conn := literalConn(t)
	cases := []string{"", "plain", "a\nb", "a\tb\rc", `a\nb`, `a\\b`, `it's`, `a\'b`, `\`, `\\'`, "a\x01b\x7f", `"q"`,
		"ünïcödé 世界 🚀", "nul\x00here", "\xffbad", "line1\n\tline2 // \\x41 '\"'", "'; MATCH (n) DETACH DELETE n; //"}
	rng := rand.New(rand.NewSource(1))
	alphabet := []rune("ab\\'\"\n\r\t\x01 ;{}()é世/")
	for range 200 {
		r := make([]rune, rng.Intn(40))
		for i := range r {
			r[i] = alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, string(r))
	}
	for _, s := range cases {
		want := strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
		if got := returnValue(t, conn, schema.Quote(s)); got != want {
			t.Errorf("Quote(%q) read back as %q", s, got)
		}
	}
}

// TestLiteralRoundTrips: schema.Literal's doubles, integers, booleans and
// string lists read back as the values of the JSON they were written from.
func TestLiteralRoundTrips(t *testing.T) {
	conn := literalConn(t)
	for _, f := range []float64{0, 1, -1, 0.1, 0.9, 1.0 / 3, 2.0 / 3, 1e-20, 1e21, 123456789.123456789, 5e-324, math.MaxFloat64, -0.25, 0.30000000000000004} {
		raw, _ := json.Marshal(f)
		lit, err := schema.Literal("DOUBLE", raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := returnValue(t, conn, lit); got != f {
			t.Errorf("DOUBLE %v (%s) read back as %v", f, lit, got)
		}
	}
	for _, c := range []struct {
		typ, raw string
		want     any
	}{
		{"INT64", "42", int64(42)},
		{"INT64", "-9223372036854775808", int64(math.MinInt64)},
		{"BOOLEAN", "true", true},
		{"BOOLEAN", "false", false},
		{"STRING", `"a\nb\\c"`, "a\nb\\c"},
	} {
		lit, err := schema.Literal(c.typ, json.RawMessage(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := returnValue(t, conn, lit); got != c.want {
			t.Errorf("%s %s (%s) read back as %#v", c.typ, c.raw, lit, got)
		}
	}
	for _, raw := range []string{`[]`, `["a","b'c","x\ny"]`} {
		lit, err := schema.Literal("STRING[]", json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(returnValue(t, conn, lit))
		var want []string
		json.Unmarshal([]byte(raw), &want)
		w, _ := json.Marshal(want)
		if string(got) != string(w) {
			t.Errorf("STRING[] %s (%s) read back as %s", raw, lit, got)
		}
	}
	for _, bad := range []struct{ typ, raw string }{{"INT64", "1.5"}, {"BOOLEAN", `"yes"`}, {"STRING", "3"}, {"FLOAT[384]", "[]"}} {
		if lit, err := schema.Literal(bad.typ, json.RawMessage(bad.raw)); err == nil {
			t.Errorf("Literal(%s, %s) = %s, want an error", bad.typ, bad.raw, lit)
		}
	}
}
