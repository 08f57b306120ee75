package gate

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	kuzu "github.com/kuzudb/go-kuzu"
)

// kuzuOracle is Kuzu's own parser and planner over an index with the
// project's schema, opened read-only as the CLI and the MCP server open
// one.
type kuzuOracle struct {
	conn *kuzu.Connection
}

func openOracle(tb testing.TB) *kuzuOracle {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "db")
	cfg := kuzu.DefaultSystemConfig()
	cfg.BufferPoolSize = 64 << 20
	cfg.MaxNumThreads = 1
	db, err := kuzu.OpenDatabase(path, cfg)
	if err != nil {
		tb.Fatalf("create kuzu database: %v", err)
	}
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	for _, ddl := range schema.DDL() {
		res, err := conn.Query(ddl)
		if err != nil {
			tb.Fatalf("%s: %v", ddl, err)
		}
		res.Close()
	}
	conn.Close()
	db.Close()
	cfg.ReadOnly = true
	db, err = kuzu.OpenDatabase(path, cfg)
	if err != nil {
		tb.Fatalf("open kuzu database read-only: %v", err)
	}
	conn, err = kuzu.OpenConnection(db)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(func() {
		conn.Close()
		db.Close()
	})
	return &kuzuOracle{conn: conn}
}

// prepare parses and binds stmt without running it.
func (o *kuzuOracle) prepare(stmt string) error {
	ps, err := o.conn.Prepare(stmt)
	if ps != nil {
		ps.Close()
	}
	return err
}

// errMultiple is Kuzu 0.11.3's answer to Prepare of more than one
// statement (found by experiment: "Connection Exception: We do not support
// prepare multiple statements.").
const errMultiple = "multiple statements"

var (
	planOp       = regexp.MustCompile(`([A-Z][A-Z_]*)\[\d+\]`)
	planFunction = regexp.MustCompile(`Function: ([A-Za-z_]+)`)
	// badOpWords are words of physical operator names (COPY_TO,
	// EXPORT_DATABASE, SET_NODE_PROPERTY, ...) that write, touch files or
	// extensions, or change the session.
	badOpWords = map[string]bool{
		"COPY": true, "EXPORT": true, "IMPORT": true, "ATTACH": true, "DETACH": true, "USE": true,
		"TRANSACTION": true, "CHECKPOINT": true, "EXTENSION": true, "STANDALONE": true,
		"CREATE": true, "INSERT": true, "MERGE": true, "SET": true, "DELETE": true, "DROP": true,
		"ALTER": true, "RENAME": true, "COMMENT": true, "MACRO": true, "PARTITIONER": true, "BATCH": true,
	}
	// readOps are operators with a bad word that only read.
	readOps = map[string]bool{"ORDER_BY_MERGE": true}
)

func badOp(op string) bool {
	if readOps[op] {
		return false
	}
	for _, w := range strings.Split(op, "_") {
		if badOpWords[w] {
			return true
		}
	}
	return false
}

// planViolation plans stmt with EXPLAIN (nothing runs) and returns what in
// the plan is not a read of the index: a writing, file, extension or
// session operator, or a table function outside allowedCalls (READ_FTABLE
// is Kuzu's internal scan of an intermediate result). This is an
// oracle independent of the gate's own token rules.
func (o *kuzuOracle) planViolation(stmt string) (string, error) {
	res, err := o.conn.Query("EXPLAIN " + stmt)
	if err != nil {
		return "", err
	}
	defer res.Close()
	plan := res.ToString()
	for _, m := range planOp.FindAllStringSubmatch(plan, -1) {
		if badOp(m[1]) {
			return "operator " + m[1], nil
		}
	}
	for _, m := range planFunction.FindAllStringSubmatch(plan, -1) {
		if f := strings.ToUpper(m[1]); !allowedCalls[f] && f != "READ_FTABLE" {
			return "table function " + m[1], nil
		}
	}
	return "", nil
}

// TestOracleSeesViolations proves the plan oracle can fail: statements the
// gate refuses are flagged by Kuzu's own plan.
func TestOracleSeesViolations(t *testing.T) {
	o := openOracle(t)
	dir := t.TempDir()
	for _, stmt := range []string{
		"LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN column0",
		"COPY (RETURN 1) TO '" + dir + "/x.csv'",
		"EXPORT DATABASE '" + dir + "/e'",
		"CHECKPOINT",
		"CALL current_setting('home_directory') RETURN *",
	} {
		if err := Check(stmt, Limits{}); err == nil {
			t.Errorf("gate admits %q", stmt)
		}
		v, err := o.planViolation(stmt)
		if err != nil {
			t.Logf("%q: EXPLAIN fails: %v", stmt, err)
			continue
		}
		if v == "" {
			t.Errorf("plan oracle sees nothing wrong in %q", stmt)
		} else {
			t.Logf("%q: %s", stmt, v)
		}
	}
	for _, stmt := range []string{
		"MATCH (a)-[c:CALLS]->(b) WHERE b.name = 'Save' RETURN a.name, a.filePath, c.reason",
		"CALL show_tables() RETURN *",
	} {
		if err := Check(stmt, Limits{}); err != nil {
			t.Errorf("gate refuses %q: %v", stmt, err)
		}
		if err := o.prepare(stmt); err != nil {
			t.Errorf("kuzu refuses %q: %v", stmt, err)
		}
		if v, err := o.planViolation(stmt); err != nil || v != "" {
			t.Errorf("plan oracle flags %q: %q %v", stmt, v, err)
		}
	}
}
