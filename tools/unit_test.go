package tools

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/query"
)

func TestParseDiff(t *testing.T) {
	// The raw part (NUL-separated, as `git diff -z --raw -p` writes it),
	// then one patch per entry in the same order. The headers' own quoting
	// is never read: the names come from the raw part.
	diff := ":100644 100644 1 2 M\x00a.go\x00" +
		":100644 100644 3 4 M\x00sp ace.go\x00" +
		":100644 000000 5 0 D\x00del.go\x00" +
		":100644 100644 6 7 R072\x00old name.go\x00new\nname.go\x00" +
		"\x00" + `diff --git a/a.go b/a.go
index 1..2 100644
--- a/a.go
+++ b/a.go
@@ -3 +3 @@ func x
-old
+new
@@ -10,2 +11,0 @@
-gone
-gone
@@ -20,0 +19,3 @@
+a
+b
+c
diff --git a/sp ace.go b/sp ace.go
--- a/sp ace.go	
+++ b/sp ace.go	
@@ -1 +1,2 @@
+x
diff --git a/del.go b/del.go
--- a/del.go
+++ /dev/null
@@ -1,3 +0,0 @@
diff --git "a/old name.go" "b/new\nname.go"
similarity index 72%
rename from old name.go
rename to "new\nname.go"
--- "a/old name.go"
+++ "b/new\nname.go"
@@ -4,0 +5 @@ r
+r5
`
	got := ParseDiff([]byte(diff))
	want := map[string][]LineRange{
		"a.go":         {{3, 3}, {11, 11}, {19, 21}},
		"sp ace.go":    {{1, 2}},
		"new\nname.go": {{5, 5}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDiff = %v, want %v", got, want)
	}
	if n := overlap(want["a.go"], 10, 20); n != 3 {
		t.Errorf("overlap 10..20 = %d, want 3 (line 11, lines 19-20)", n)
	}
	if n := overlap(want["a.go"], 4, 10); n != 0 {
		t.Errorf("overlap 4..10 = %d, want 0", n)
	}
}

func TestCheckReadOnly(t *testing.T) {
	ok := []string{
		"MATCH (n:Function) RETURN n.name LIMIT 5",
		"MATCH (n) WHERE n.name = 'CREATE' RETURN n", // a write word inside a string is fine
		"MATCH (a)-[:IMPORTS]->(b) RETURN count(*);", // a trailing ';' is fine
		"// delete nothing\nMATCH (n) RETURN n",
		"CALL show_tables() RETURN *",
	}
	for _, s := range ok {
		if err := CheckReadOnly(s); err != nil {
			t.Errorf("CheckReadOnly(%q) = %v, want nil", s, err)
		}
	}
	bad := []string{
		"", "CREATE (n:Folder {id: 'x'})", "MATCH (n) SET n.name = 'x'", "match (n) detach delete n",
		"MERGE (n:Folder {id: 'x'})", "COPY Function FROM 'x.csv'", "MATCH (n) RETURN n; MATCH (m) RETURN m",
		"LOAD FROM '/etc/passwd' RETURN *", "COPY (MATCH (n) RETURN n) TO '/tmp/x.csv'", "INSTALL httpfs",
	}
	for _, s := range bad {
		if err := CheckReadOnly(s); err == nil {
			t.Errorf("CheckReadOnly(%q) = nil, want an error", s)
		}
	}
}

func TestRiskOf(t *testing.T) {
	cases := []struct {
		s    ImpactSummary
		want string
	}{
		{ImpactSummary{}, "LOW"},
		{ImpactSummary{Total: 4}, "MEDIUM"},
		{ImpactSummary{Total: 1, Processes: 1}, "MEDIUM"},
		{ImpactSummary{Direct: 10, Total: 10}, "HIGH"},
		{ImpactSummary{Total: 2, Processes: 3}, "HIGH"},
		{ImpactSummary{Total: 50}, "CRITICAL"},
		{ImpactSummary{Processes: 10}, "CRITICAL"},
	}
	for _, c := range cases {
		if got := RiskOf(c.s); got != c.want {
			t.Errorf("RiskOf(%+v) = %s, want %s", c.s, got, c.want)
		}
	}
}

func TestFuseContext(t *testing.T) {
	hit := func(id string, score float64) query.Hit { return query.Hit{ID: id, Name: id, Score: score} }
	main := &query.Result{
		Processes:      []query.Process{{ID: "p1", Summary: "a → b"}},
		ProcessSymbols: []query.ProcessSymbol{{Hit: hit("b", 0.8), ProcessID: "p1", StepIndex: 2}},
		Definitions:    []query.Hit{hit("a", 0.9), hit("c", 0.7)},
	}
	// The context names c first and adds d, which the query did not find.
	extra := &query.Result{Definitions: []query.Hit{hit("c", 1), hit("d", 0.5)}}
	out := fuseContext(main, extra, 10, 5)
	var order []string
	for _, h := range out.Definitions {
		order = append(order, h.ID)
	}
	// Main ranks: a 1, b 2, c 3; context: c 1, d 2.
	// a = 1/61, b = 1/62, c = 1/63 + 0.5/61, d = 0.5/62: c first, d last.
	if want := []string{"c", "a", "d"}; !reflect.DeepEqual(order, want) {
		t.Errorf("definitions after fusion = %v, want %v", order, want)
	}
	if len(out.ProcessSymbols) != 1 || out.ProcessSymbols[0].ID != "b" || len(out.Processes) != 1 {
		t.Errorf("process grouping lost: %+v", out)
	}
	if top := out.Definitions[0].Score; top <= 0 || top > 1 {
		t.Errorf("fused score %v outside (0, 1]", top)
	}

	// Capping: at most limit processes, max_symbols per process and definitions.
	r := &query.Result{
		Processes:      []query.Process{{ID: "p1"}, {ID: "p2"}},
		ProcessSymbols: []query.ProcessSymbol{{Hit: hit("x", 1), ProcessID: "p1"}, {Hit: hit("y", 1), ProcessID: "p1"}, {Hit: hit("z", 1), ProcessID: "p2"}},
		Definitions:    []query.Hit{hit("d1", 1), hit("d2", 1)},
	}
	capResult(r, 1, 1)
	if len(r.Processes) != 1 || len(r.ProcessSymbols) != 1 || len(r.Definitions) != 1 || len(r.Notices) != 1 {
		t.Errorf("capResult(1, 1) = %+v", r)
	}
}

// TestCypherRefusesIssueBypasses: the statements of the security report
// never reach the database, through the same gate the CLI and MCP use.
func TestCypherRefusesIssueBypasses(t *testing.T) {
	ctx := context.Background()
	for _, s := range []string{
		"UNWIND [1] AS `x\\` LOAD FROM \"/etc/passwd\" (file_format=\"csv\", header=false, delim=\":\") RETURN column1",
		"RETURN 1 AS `a\\`; COPY (RETURN 'x') TO '/tmp/x.csv'",
		"RETURN 1 AS `a\\`; EXPORT DATABASE '/tmp/d'",
		"RETURN 1 AS `a\\`; LOAD EXTENSION '/path/evil.so'",
		"RETURN 1 AS `a\\`; CHECKPOINT",
		"CHECKPOINT",
		"ATTACH '/tmp/other.kuzu' AS o (dbtype kuzu)",
		"CALL { LOAD FROM '/etc/passwd' RETURN * } RETURN 1",
		"RETURN " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"BEGIN TRANSACTION",
	} {
		db := &fakeDB{}
		if _, err := Cypher(ctx, db, CypherInput{Statement: s}); !errors.Is(err, ErrInput) {
			t.Errorf("Cypher(%.60q) = %v, want ErrInput", s, err)
		}
		if len(db.stmts) != 0 {
			t.Errorf("Cypher(%.60q) reached the database", s)
		}
	}
	db := &fakeDB{}
	for _, p := range []map[string]any{
		{"big": strings.Repeat("a", MaxParamBytes+1)},
		{"obj": map[string]any{"a": 1}},
		{"list": []any{"a"}},
	} {
		if _, err := Cypher(ctx, db, CypherInput{Statement: "RETURN $big", Params: p}); !errors.Is(err, ErrInput) {
			t.Errorf("params %v: %v, want ErrInput", p, err)
		}
	}
	if len(db.stmts) != 0 {
		t.Error("refused params reached the database")
	}
	if _, err := Cypher(ctx, db, CypherInput{Statement: "MATCH (a)-[c:CALLS]->(b) WHERE b.name = 'Save' RETURN a.name, a.filePath, c.reason", Params: map[string]any{"x": "y", "n": 1.0}}); err != nil {
		t.Errorf("the README's example: %v", err)
	}
}
