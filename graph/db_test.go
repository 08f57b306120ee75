package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestOpenWithoutIndex(t *testing.T) {
	root := newRepo(t)
	_, err := Open(context.Background(), root, OpenOptions{})
	if !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "gitnexus analyze") {
		t.Fatalf("Open without index: %v", err)
	}
	if _, err := ReadMeta(root); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("ReadMeta without index: %v", err)
	}
}

func TestOpenOtherSchemaVersion(t *testing.T) {
	root := newRepo(t)
	m := buildIndex(t, root, 1)
	m.SchemaVersion = schema.Version + 1
	if err := writeMeta(root, m); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), root, OpenOptions{}); !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("Open of another schema version: %v", err)
	}
}

func TestReadOnlyRejectsWrites(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 2)
	d := openTest(t, root)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE (:Folder {id: 'x', path: 'x', name: 'x'})",
		"MATCH (f:Function) SET f.name = 'y'",
		"MATCH (f:Function) DETACH DELETE f",
		"MERGE (:Folder {id: 'z'})",
		"CREATE NODE TABLE Evil(id STRING PRIMARY KEY)",
	} {
		_, err := d.Query(ctx, q, nil)
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", q, err)
			continue
		}
		if !strings.Contains(err.Error(), "cypher is read-only: CREATE/SET/DELETE/MERGE are rejected; re-run analyze") {
			t.Errorf("%s: message %q", q, err)
		}
	}
	if c := count(t, d, "MATCH (f:Function) RETURN count(f)"); c != 2 {
		t.Errorf("functions = %d after rejected writes", c)
	}
	// A syntax error is not a read-only error.
	if _, err := d.Query(ctx, "MATCH (n RETURN n", nil); err == nil || errors.Is(err, ErrReadOnly) {
		t.Errorf("syntax error: %v", err)
	}
}

func TestStaleAfterSwap(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 2)
	d := openTest(t, root)
	if d.Stale() {
		t.Fatal("fresh DB is stale")
	}
	m2 := buildIndex(t, root, 6)
	if !d.Stale() {
		t.Fatal("DB not stale after a new index was committed")
	}
	// The old handle keeps answering from the (now unlinked) old file.
	if c := count(t, d, "MATCH (f:Function) RETURN count(f)"); c != 2 {
		t.Errorf("old handle sees %d functions, want 2", c)
	}
	// The previous database file is gone from disk; only the new one remains.
	ents, _ := os.ReadDir(IndexDir(root))
	var dbs []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "db-") && !strings.HasSuffix(e.Name(), RowsSuffix) {
			dbs = append(dbs, e.Name())
		}
	}
	if len(dbs) != 1 || dbs[0] != m2.DBFile {
		t.Errorf("database files %v, want only %s", dbs, m2.DBFile)
	}
	d2 := openTest(t, root)
	if d2.Stale() || d2.Meta().DBFile != m2.DBFile {
		t.Error("reopened DB is stale")
	}
	if c := count(t, d2, "MATCH (f:Function) RETURN count(f)"); c != 6 {
		t.Errorf("reopened handle sees %d functions, want 6", c)
	}
}

// TestStringRoundTrip checks that strings survive NDJSON → COPY → query
// exactly, with "" staying "" (not NULL).
func TestStringRoundTrip(t *testing.T) {
	cases := map[string]string{
		"empty":     "",
		"quotes":    `say "hi" and 'bye'`,
		"backslash": `C:\path\n\t \\ \"`,
		"newlines":  "line1\nline2\r\nline3\n",
		"tabs":      "\tindented\t",
		"unicode":   "ünïcødé 日本語 Ελληνικά",
		"emoji":     "😀 \u2028 \u2029 <&>",
		"null-word": "null",
		"number":    "123",
		"bool-word": "true",
		"date-like": "2024-01-01",
		"json-like": `{"a": [1, 2]}`,
		"spaces":    "   ",
		"long":      strings.Repeat("x := f(y) // 長い\n", 500),
	}
	root := newRepo(t)
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	for name, s := range cases {
		if err := b.AddSymbol(schema.Symbol{ID: "id-" + name, Kind: schema.KindFunction, Name: s, Signature: s, DocComment: s, Content: s, SearchText: s}); err != nil {
			t.Fatal(err)
		}
	}
	// NUL bytes are removed (Kuzu would cut the string there).
	if err := b.AddSymbol(schema.Symbol{ID: "id-nul", Kind: schema.KindFunction, Name: "a\x00b", Content: "x\x00y\x00"}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddCommunity(schema.Community{ID: "c", Label: "", Keywords: []string{"", "a\"b", "x\ny"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddCommunity(schema.Community{ID: "c-nil"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The source text is no column: it comes back beside each row.
	texts := map[string]string{}
	if err := b.EachNode(ctx, schema.LabelFunction, func(line, text []byte) error {
		var r struct{ ID string }
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		texts[r.ID] = string(text)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for name, want := range cases {
		if got := texts["id-"+name]; got != want {
			t.Errorf("%s text: got %q, want %q", name, got, want)
		}
	}
	if got := texts["id-nul"]; got != "xy" {
		t.Errorf("NUL text: got %q, want \"xy\"", got)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	d := openTest(t, root)
	for name, want := range cases {
		r, err := d.Query(ctx, "MATCH (f:Function {id: $id}) RETURN f.name, f.signature, f.docComment, f.searchText, f.name IS NULL", map[string]any{"id": "id-" + name})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 1 {
			t.Fatalf("%s: %d rows", name, len(r.Rows))
		}
		for i := 0; i < 4; i++ {
			if got, ok := r.Rows[0][i].(string); !ok || got != want {
				t.Errorf("%s column %s: got %#v, want %q", name, r.Columns[i], r.Rows[0][i], want)
			}
		}
		if r.Rows[0][4] != false {
			t.Errorf("%s: stored as NULL", name)
		}
	}
	r, err := d.Query(ctx, "MATCH (f:Function {id: 'id-nul'}) RETURN f.name", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows[0][0] != "ab" {
		t.Errorf("NUL row: %#v", r.Rows[0])
	}
	r, err = d.Query(ctx, "MATCH (c:Community) RETURN c.id, c.label, c.keywords ORDER BY c.id", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"c", "", []any{"", "a\"b", "x\ny"}}, {"c-nil", "", []any{}}}
	if !reflect.DeepEqual(r.Rows, want) {
		t.Errorf("communities %#v, want %#v", r.Rows, want)
	}
}

// TestJSONConversion checks node, rel, path, list, struct and map values.
func TestJSONConversion(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 2)
	d := openTest(t, root)
	ctx := context.Background()
	r, err := d.Query(ctx, `MATCH (a:Function {name: 'fn0'})-[r:CALLS]->(b:Function)
		RETURN a, r, [1, 2] AS l, {x: 1, y: 'z'} AS s, map(['k'], [2.5]) AS m, CAST(3 AS INT32) AS i32, a.isExported AS bool, NULL AS nothing`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "r", "l", "s", "m", "i32", "bool", "nothing"}; !reflect.DeepEqual(r.Columns, want) {
		t.Fatalf("columns %v", r.Columns)
	}
	if len(r.Rows) != 1 {
		t.Fatalf("rows %v", r.Rows)
	}
	row := r.Rows[0]
	node := row[0].(map[string]any)
	if node["_label"] != "Function" || node["name"] != "fn0" || node["startLine"] != int64(1) || node["isExported"] != true || node["_id"] == "" {
		t.Errorf("node %#v", node)
	}
	if _, ok := node["_id"].(string); !ok {
		t.Errorf("node _id %#v", node["_id"])
	}
	rel := row[1].(map[string]any)
	if rel["_label"] != "CALLS" || rel["confidence"] != 0.9 || rel["reason"] != schema.ReasonSameFile || rel["line"] != int64(1) || rel["_src"] != node["_id"] {
		t.Errorf("rel %#v", rel)
	}
	if !reflect.DeepEqual(row[2], []any{int64(1), int64(2)}) {
		t.Errorf("list %#v", row[2])
	}
	if !reflect.DeepEqual(row[3], map[string]any{"x": int64(1), "y": "z"}) {
		t.Errorf("struct %#v", row[3])
	}
	if !reflect.DeepEqual(row[4], map[string]any{"k": 2.5}) {
		t.Errorf("map %#v", row[4])
	}
	if row[5] != int64(3) || row[6] != true || row[7] != nil {
		t.Errorf("scalars %#v", row[5:])
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("result is not JSON-encodable: %v", err)
	}

	r, err = d.Query(ctx, "MATCH p = (a:Function {name: 'fn0'})-[:CALLS*1..1]->(b:Function) RETURN p", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := r.Rows[0][0].(map[string]any)
	nodes, rels := path["_nodes"].([]any), path["_rels"].([]any)
	if len(nodes) != 2 || len(rels) != 1 || nodes[1].(map[string]any)["name"] != "fn1" {
		t.Errorf("path %#v", path)
	}
	out, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(out), `"_label":"CALLS"`) {
		t.Errorf("path JSON %s %v", out, err)
	}
}

func TestQueryParamsAndLimits(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 5)
	d, err := Open(context.Background(), root, OpenOptions{MaxRows: 2, Connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r, err := d.Query(context.Background(), "MATCH (f:Function) WHERE f.startLine >= $min RETURN f.name ORDER BY f.name", map[string]any{"min": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || !r.Truncated || r.Rows[0][0] != "fn1" {
		t.Errorf("limited result %+v", r)
	}
	r, err = d.QueryAll(context.Background(), "MATCH (f:Function) WHERE f.startLine >= $min RETURN f.name ORDER BY f.name", map[string]any{"min": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 4 || r.Truncated {
		t.Errorf("QueryAll past MaxRows: %+v, want 4 rows", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Query(ctx, "MATCH (f:Function) RETURN f", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled query: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Query(context.Background(), "RETURN 1", nil); err == nil {
		t.Error("query on closed DB succeeded")
	}
}

func TestOpenDamagedIndex(t *testing.T) {
	root := newRepo(t)
	m := buildIndex(t, root, 1)
	os.Remove(filepath.Join(IndexDir(root), m.DBFile))
	if _, err := Open(context.Background(), root, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "gitnexus analyze") {
		t.Errorf("Open of a missing database file: %v", err)
	}
	os.WriteFile(filepath.Join(IndexDir(root), metaFileName), []byte("{"), 0o644)
	if _, err := ReadMeta(root); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged meta: %v", err)
	}
}

func TestConcurrentQueries(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 10)
	d, err := Open(context.Background(), root, OpenOptions{Connections: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 20; i++ {
				r, err := d.Query(context.Background(), "MATCH (f:Function) WHERE f.startLine > $n RETURN count(f)", map[string]any{"n": g})
				if err != nil {
					errs <- err
					return
				}
				if r.Rows[0][0] != int64(10-g) {
					errs <- fmt.Errorf("goroutine %d: count %v, want %d", g, r.Rows[0][0], 10-g)
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestQueryInterruptedByContext: a long query stops soon after its context
// ends (Kuzu's interrupt), and the connection is usable afterwards.
func TestQueryInterruptedByContext(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 1)
	d, err := Open(context.Background(), root, OpenOptions{Connections: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = d.Query(ctx, "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN sum((x * y) % 7)", nil)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("long query: %v after %v, want DeadlineExceeded", err, took)
	}
	t.Logf("interrupted after %v", took)
	if c := count(t, d, "MATCH (f:Function) RETURN count(f)"); c != 1 {
		t.Errorf("after interrupt: %d", c)
	}
}

func TestQueryTimeoutOption(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 1)
	d, err := Open(context.Background(), root, OpenOptions{Connections: 1, QueryTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	start := time.Now()
	_, err = d.Query(context.Background(), "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN sum((x * y) % 7)", nil)
	if !errors.Is(err, ErrQueryTimeout) || time.Since(start) > 10*time.Second {
		t.Fatalf("query past QueryTimeout: %v after %v", err, time.Since(start))
	}
	t.Logf("timed out after %v: %v", time.Since(start), err)
}
