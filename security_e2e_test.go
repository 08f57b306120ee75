package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ECypherGate attacks the CLI's cypher command with the statements of
// the security report: each is refused with exit 2 before Kuzu sees it, no
// file is read or written, and the index still opens afterwards.
func TestE2ECypherGate(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)
	out := filepath.Join(t.TempDir(), "x.csv")
	export := filepath.Join(t.TempDir(), "export")
	for _, stmt := range []string{
		"UNWIND [1] AS `x\\` LOAD FROM \"/etc/passwd\" (file_format=\"csv\", header=false, delim=\":\") RETURN column1",
		"RETURN 1 AS `a\\`; COPY (RETURN 'x') TO '" + out + "'",
		"COPY (RETURN 'x') TO '" + out + "'",
		"EXPORT DATABASE '" + export + "'",
		"RETURN 1 AS `a\\`; CHECKPOINT",
		"CHECKPOINT",
		"LOAD EXTENSION '/nonexistent/evil.so'",
		"RETURN " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
	} {
		stdout, stderr, code := e.run(dir, "cypher", stmt)
		if code != 2 {
			t.Errorf("cypher %.50q: exit %d, want 2\nstdout %s\nstderr %s", stmt, code, stdout, stderr)
		}
		if strings.Contains(stdout, "root:") {
			t.Errorf("cypher %.50q printed /etc/passwd", stmt)
		}
	}
	for _, p := range []string{out, export} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if rows := e.cypher(dir, "MATCH (n:Function) RETURN count(n)"); len(rows) != 1 {
		t.Errorf("the index no longer answers after the attacks: %v", rows)
	}
	if _, stderr, code := e.run(dir, "status"); code != 0 {
		t.Errorf("status after the attacks: exit %d: %s", code, stderr)
	}
}

// TestE2EImpactOnFilesAndUnknownNames: impact on a file path answers (it
// failed with a Kuzu binder error: the file lookup returned n.id twice), and
// an unknown name is "not found", exit 3.
func TestE2EImpactOnFilesAndUnknownNames(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)
	if stdout, stderr, code := e.run(dir, "impact", "main.go", "--json"); code != 0 || !strings.Contains(stdout, `"target"`) {
		t.Errorf("impact main.go: exit %d\nstdout %.300s\nstderr %s", code, stdout, stderr)
	}
	if _, stderr, code := e.run(dir, "impact", "nosuchthing"); code != 3 || !strings.Contains(stderr, "not found") {
		t.Errorf("impact nosuchthing: exit %d, want 3 with 'not found': %s", code, stderr)
	}
}
