package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
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

// TestE2EMemoryCeiling: a statement the gate admits but whose result Kuzu
// cannot hold (10^8 rows, built before it checks for interrupts) fails the
// call with a clear error, on the CLI and through a running MCP server,
// which then goes on answering. Before, it grew the process to 23.9 GB
// until the kernel killed it.
func TestE2EMemoryCeiling(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)
	const huge = "UNWIND range(1, 100000000) AS x RETURN x"
	if stdout, _, code := e.run(dir, "cypher", "--json", huge); code != 1 || !strings.Contains(stdout, "too much memory") {
		t.Errorf("CLI: exit %d, stdout %.300s", code, stdout)
	}

	c := exec.Command(binary, "mcp")
	c.Dir = dir
	c.Env = append(os.Environ(), "GITNEXUS_HOME="+e.home, "HOME="+e.home)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	out := bufio.NewReader(outPipe)
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(b, '\n')); err != nil {
			t.Fatalf("write: %v", err)
		}
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read reply %d: %v (the server died?)", id, err)
		}
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("reply %d: %v: %s", id, err, line)
		}
		return r
	}
	call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	r := call(2, "tools/call", map[string]any{"name": "cypher", "arguments": map[string]any{"statement": huge}})
	if b, _ := json.Marshal(r); !strings.Contains(string(b), "too much memory") || !strings.Contains(string(b), `"isError":true`) {
		t.Errorf("MCP huge statement: %.400s", b)
	}
	r = call(3, "tools/call", map[string]any{"name": "cypher", "arguments": map[string]any{"statement": "MATCH (f:Function) RETURN count(f) AS n"}})
	if b, _ := json.Marshal(r); strings.Contains(string(b), `"isError":true`) || !strings.Contains(string(b), `"row_count":1`) {
		t.Errorf("MCP after the huge statement: %.400s", b)
	}
}

// TestE2EAnalyzeRepoFlag: `analyze -r NAME` re-analyzes that repository
// from anywhere (it was ignored, indexing the working directory), and PATH
// with -r is a usage error.
func TestE2EAnalyzeRepoFlag(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)
	parent := filepath.Dir(dir)
	if stdout, stderr, code := e.run(parent, "analyze", "-r", "goshop", "--json"); code != 0 || !strings.Contains(stdout, `"path": "`+dir) {
		t.Errorf("analyze -r goshop from the parent: exit %d\nstdout %.300s\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(parent, ".gitnexus")); err == nil {
		t.Error("analyze -r indexed the working directory")
	}
	if _, _, code := e.run(parent, "analyze", "-r", "goshop", dir); code != 2 {
		t.Errorf("analyze PATH -r NAME: exit %d, want 2", code)
	}
}
