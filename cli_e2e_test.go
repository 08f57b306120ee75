package main

// End-to-end tests of the CLI as a daily tool: one JSON key style across
// every command's --json, and exit codes as the README states them.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// snakeKey is the --json key style (README, "Output formats"): snake_case.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// fixedKeys are the location fields of the reference `query` format
// (filePath, startLine, endLine): a location is spelled the same in every
// command's output.
var fixedKeys = map[string]bool{"filePath": true, "startLine": true, "endLine": true}

// dataKeys hold maps whose keys are data (languages, labels, file paths,
// cypher values), not field names.
var dataKeys = map[string]bool{
	"stats": true, "languages": true, "kinds": true, "nodes": true, "edges": true, "counts": true,
	"parse_status": true, "skipped": true, "phases": true, "unresolved": true, "files": true,
	"dropped_edges": true, "sums": true, "by_reason": true, "rows": true,
}

// checkKeys reports every object key in v that is neither snake_case nor a
// fixed key, with its path.
func checkKeys(v any, path string, bad *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if !snakeKey.MatchString(k) && !fixedKeys[k] {
				*bad = append(*bad, path+"."+k)
			}
			if dataKeys[k] {
				continue
			}
			checkKeys(c, path+"."+k, bad)
		}
	case []any:
		for _, c := range x {
			checkKeys(c, path+"[]", bad)
		}
	}
}

func TestE2EJSONKeyStyle(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	sum, _, code := e.run(dir, "analyze", "--json", "--skip-embeddings")
	if code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, sum)
	}
	var procs struct {
		Processes []struct {
			ID string `json:"id"`
		} `json:"processes"`
	}
	if err := json.Unmarshal([]byte(e.ok(dir, "processes", "--json")), &procs); err != nil || len(procs.Processes) == 0 {
		t.Fatalf("processes --json: %v, %d processes", err, len(procs.Processes))
	}
	write(t, dir, "store/store.go", "package store\n\nfunc Changed() {}\n")
	tinyModel, err := filepath.Abs(filepath.Join("embed", "testdata", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"analyze --json": sum}
	for _, args := range [][]string{
		{"status"}, {"list"}, {"query", "order"}, {"query", "order", "--files"},
		{"context", "HandleOrder"}, {"context", "Server"}, {"impact", "Open"}, {"impact", "store/store.go"},
		{"explain", "HandleOrder"},
		{"route-map"}, {"api-impact", "/orders"}, {"rename", "Open", "Opened", "--kind", "function", "--file", "store/"},
		{"trace", "main", "audit"}, {"detect-changes"}, {"cypher", "MATCH (f:Function) RETURN f LIMIT 2"},
		{"processes"}, {"process", procs.Processes[0].ID}, {"communities"}, {"model", "status"}, {"version"},
		{"community", "s"}, {"community", "store"},
		{"embed", "--model-dir", tinyModel, "parse config"},
		{"clean"}, // last: it deletes the index
	} {
		out, errs, code := e.run(dir, append(args, "--json")...)
		if code != 0 && code != 3 {
			t.Fatalf("%v --json: exit %d\n%s%s", args, code, out, errs)
		}
		outputs[strings.Join(args, " ")+" --json"] = out
	}
	for name, out := range outputs {
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: not one JSON object: %v\n%s", name, err, out)
			continue
		}
		var bad []string
		checkKeys(v, "", &bad)
		if len(bad) > 0 {
			t.Errorf("%s: keys not in snake_case: %s", name, strings.Join(bad, ", "))
		}
	}
}

// TestE2EExitCodes runs every command through the outcomes the README
// gives exit codes for: found (0), nothing found (3), ambiguous (3, the
// candidates listed), bad input (2) and no index (3). Every message a
// case prints on stderr names only flags the command has, and no MCP
// parameter or Go parser error.
func TestE2EExitCodes(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	// A second Open (store.Open is the first) makes the name ambiguous.
	write(t, dir, "server/open.go", "package server\n\n// Open opens nothing.\nfunc Open() {}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "open")
	e.analyze(dir)
	var procs struct {
		Processes []struct {
			ID string `json:"id"`
		} `json:"processes"`
	}
	var comms struct {
		Communities []struct {
			ID string `json:"id"`
		} `json:"communities"`
	}
	if json.Unmarshal([]byte(e.ok(dir, "processes", "--json")), &procs) != nil || len(procs.Processes) == 0 ||
		json.Unmarshal([]byte(e.ok(dir, "communities", "--json")), &comms) != nil || len(comms.Communities) == 0 {
		t.Fatal("the fixture has no processes or communities")
	}
	procPrefix := procs.Processes[0].ID[:len(procs.Processes[0].ID)-4]
	commPrefix := comms.Communities[0].ID[:len(comms.Communities[0].ID)-4]
	write(t, dir, "store/store.go", "package store\n\nfunc Changed() {}\n") // a diff for detect-changes

	type tc struct {
		name string
		args []string
		code int
		out  string // stdout must contain it
	}
	cases := []tc{
		{"query found", []string{"query", "order"}, 0, "Order"},
		{"query nothing", []string{"query", "zzzqqqxxx"}, 3, "no matches"},
		{"query bad mode", []string{"query", "x", "--mode", "fast"}, 2, ""},
		{"query bad kind", []string{"query", "x", "--kind", "func"}, 2, ""},
		{"query bad limit", []string{"query", "x", "--limit", "abc"}, 2, ""},
		{"query bad device", []string{"query", "x", "--device", "gpu"}, 2, ""},
		{"query no text", []string{"query"}, 2, ""},
		{"context found", []string{"context", "Server.HandleOrder"}, 0, "server/server.go:"},
		{"context nothing", []string{"context", "nosuchthing"}, 3, ""},
		{"context ambiguous", []string{"context", "Open"}, 3, "store/store.go#Open:function"},
		{"context ambiguous json", []string{"context", "Open", "--json"}, 3, `"ambiguous"`},
		{"context by uid", []string{"context", "--uid", "store/store.go#Open:function"}, 0, "Open"},
		{"context uid prefix", []string{"context", "--uid", "store/store.go#Op"}, 0, "store/store.go#Open:function"},
		{"context ambiguous uid prefix", []string{"context", "--uid", "store/store.go#"}, 3, "store/store.go#Open:function"},
		{"context name and uid", []string{"context", "x", "--uid", "y"}, 2, ""},
		{"context bad kind", []string{"context", "Open", "--kind", "func"}, 2, ""},
		{"context kind list", []string{"context", "Open", "--kind", "function,method", "--file", "store/"}, 0, "store/store.go"},
		{"explain found", []string{"explain", "Server.HandleOrder"}, 0, "Server.HandleOrder is a method"},
		{"route-map found", []string{"route-map"}, 0, "server/server.go#Server.HandleOrder:method"},
		{"rename preview", []string{"rename", "--uid", "server/audit.go#validate:function", "checkOrder"}, 0, "complete"},
		{"rename bad name", []string{"rename", "--uid", "server/audit.go#validate:function", "9x"}, 2, ""},
		{"rename no new name", []string{"rename", "validate"}, 2, ""},
		{"rename nothing", []string{"rename", "nosuchthing", "x"}, 3, ""},
		{"route-map nothing", []string{"route-map", "--path", "/nowhere"}, 3, ""},
		{"route-map bad framework", []string{"route-map", "--framework", "rails"}, 2, ""},
		{"api-impact found", []string{"api-impact", "/orders"}, 0, "server/server.go#Server.HandleOrder:method"},
		{"api-impact nothing", []string{"api-impact", "/nowhere"}, 3, ""},
		{"explain nothing", []string{"explain", "nosuchthing"}, 3, ""},
		{"explain ambiguous", []string{"explain", "Open"}, 3, "store/store.go#Open:function"},
		{"explain bad budget", []string{"explain", "Open", "--max-tokens", "5"}, 2, ""},
		{"impact budget", []string{"impact", "Open", "--file", "store/", "--max-tokens", "300", "--json"}, 0, `"max_tokens"`},
		{"impact found", []string{"impact", "SaveOrder"}, 0, "risk"},
		{"impact nothing", []string{"impact", "nosuchthing"}, 3, ""},
		{"impact ambiguous", []string{"impact", "Open"}, 3, "server/open.go#Open:function"},
		{"impact bad depth", []string{"impact", "SaveOrder", "--depth", "99"}, 2, ""},
		{"impact bad direction", []string{"impact", "SaveOrder", "--direction", "up"}, 2, ""},
		{"impact bad relation", []string{"impact", "SaveOrder", "--relations", "CALL"}, 2, ""},
		{"trace found", []string{"trace", "main", "audit"}, 0, "audit"},
		{"trace no path", []string{"trace", "audit", "main"}, 3, "no path"},
		{"trace nothing", []string{"trace", "main", "nosuchthing"}, 3, ""},
		{"trace ambiguous", []string{"trace", "main", "Open"}, 3, "--to-uid"},
		{"trace by uid", []string{"trace", "main", "--to-uid", "server/audit.go#Server.audit:method"}, 0, "audit"},
		{"trace bad depth", []string{"trace", "main", "audit", "--depth", "0"}, 2, ""},
		{"trace one arg", []string{"trace", "main"}, 2, ""},
		{"process by prefix", []string{"process", procPrefix}, 0, procs.Processes[0].ID},
		{"process nothing", []string{"process", "nosuchflow"}, 3, ""},
		{"process ambiguous", []string{"process", "HandleOrder"}, 3, "proc_"},
		{"process no id", []string{"process"}, 2, ""},
		{"community by prefix", []string{"community", commPrefix}, 0, comms.Communities[0].ID},
		{"community nothing", []string{"community", "nosuchcommunity"}, 3, ""},
		{"community no id", []string{"community"}, 2, ""},
		{"processes", []string{"processes"}, 0, "ID"},
		{"processes bad limit", []string{"processes", "-n", "0"}, 2, ""},
		{"communities", []string{"communities"}, 0, "ID"},
		{"cypher found", []string{"cypher", "MATCH (f:Function) RETURN f LIMIT 1"}, 0, "(:Function {id: "},
		{"cypher params not an object", []string{"cypher", "RETURN $a", "--params", "[1]"}, 2, ""},
		{"cypher write", []string{"cypher", "CREATE (f:Folder {id: 'x'})"}, 2, ""},
		{"detect-changes", []string{"detect-changes"}, 0, "1 files"},
		{"detect-changes bad scope", []string{"detect-changes", "--scope", "everything"}, 2, ""},
		{"detect-changes base and scope", []string{"detect-changes", "--base", "HEAD", "--scope", "staged"}, 2, ""},
		{"detect-changes base alone", []string{"detect-changes", "--base", "HEAD"}, 0, ""},
		{"status", []string{"status"}, 0, "integrity"},
		{"list", []string{"list"}, 0, "goshop"},
		{"version", []string{"version"}, 0, "gitnexus"},
		{"clean --all without a terminal", []string{"clean", "--all"}, 2, ""},
		{"analyze bad size", []string{"analyze", "--max-file-size", "0"}, 2, ""},
		{"mcp empty address", []string{"mcp", "--http", ""}, 2, ""},
		{"unknown command", []string{"communitee"}, 2, ""},
	}
	for _, c := range cases {
		out, errs, code := e.run(dir, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("%s: gitnexus %s: exit %d, want %d; stdout must contain %q\nstdout: %s\nstderr: %s", c.name, strings.Join(c.args, " "), code, c.code, c.out, out, errs)
		}
		if slices.Contains(c.args, "--json") {
			out = "" // the MCP tool's own answer, notices included
		}
		checkMessages(t, e, dir, c.args, out+errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitnexus")); err != nil {
		t.Errorf("clean --all without --yes and without a terminal deleted the index: %v", err)
	}

	// Completion: repo names, process and community ids, enum values.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "-r", ""}, "goshop"},
		{[]string{"__complete", "process", ""}, procs.Processes[0].ID},
		{[]string{"__complete", "community", ""}, comms.Communities[0].ID},
		{[]string{"__complete", "impact", "x", "--direction", ""}, "downstream"},
		{[]string{"__complete", "detect-changes", "--scope", ""}, "compare"},
		{[]string{"__complete", "query", "x", "--kind", "function,"}, "function,method"},
	} {
		if out := e.ok(dir, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("completion %v does not offer %q:\n%s", c.args[1:], c.want, out)
		}
	}

	// No index: a fresh home with nothing registered, outside any repo.
	none := newEnv(t)
	empty := t.TempDir()
	for _, args := range [][]string{
		{"query", "x"}, {"context", "x"}, {"impact", "x"}, {"trace", "a", "b"}, {"process", "x"},
		{"community", "x"}, {"processes"}, {"communities"}, {"cypher", "MATCH (n) RETURN n"},
		{"detect-changes"}, {"status"},
	} {
		if out, errs, code := none.run(empty, args...); code != 3 {
			t.Errorf("no index: gitnexus %s: exit %d, want 3\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
}

// mcpWords are tool-parameter names and phrases a CLI message must not use.
var mcpWords = regexp.MustCompile(`\b(target_uid|from_uid|to_uid|file_path|from_file|to_file|base_ref|search_query|max_symbols|task_context|maxDepth|minConfidence|relationTypes|includeTests|include_content)\b|the query tool|strconv\.|Go value|interface \{\}`)

// flagWord finds flags a message names.
var flagWord = regexp.MustCompile(`(?:^|[\s(/'"` + "`" + `])(--[a-z][a-z-]+)`)

// checkMessages: what a command printed names only flags it has, and no
// MCP parameter or Go error.
func checkMessages(t *testing.T, e *env, dir string, args []string, text string) {
	t.Helper()
	if m := mcpWords.FindString(text); m != "" {
		t.Errorf("gitnexus %s: output names %q (an MCP parameter or a Go error):\n%s", strings.Join(args, " "), m, text)
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return
	}
	help, _, code := e.run(dir, args[0], "--help")
	if code != 0 {
		return // not a command
	}
	for _, m := range flagWord.FindAllStringSubmatch(text, -1) {
		if !strings.Contains(help, m[1]+" ") && !strings.Contains(help, m[1]+"\n") && !strings.Contains(help, m[1]+",") {
			t.Errorf("gitnexus %s: output names %s, which `%s` does not have:\n%s", strings.Join(args, " "), m[1], args[0], text)
		}
	}
}

// TestE2EStatusStaleOutsideGit: an index built before the directory was a
// git repository is stale once it has a HEAD, and text status says so as
// --json does.
func TestE2EStatusStaleOutsideGit(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "shop")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "repos", "goshop"))); err != nil {
		t.Fatal(err)
	}
	e.analyze(dir)
	if out := e.ok(dir, "status"); strings.Contains(out, "STALE") || !strings.Contains(out, "not a git repository") {
		t.Errorf("status outside git:\n%s", out)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "now in git")
	var st struct {
		Stale bool `json:"stale"`
	}
	if err := json.Unmarshal([]byte(e.ok(dir, "status", "--json")), &st); err != nil || !st.Stale {
		t.Errorf("status --json after git init: stale %v, %v", st.Stale, err)
	}
	if out := e.ok(dir, "status"); !strings.Contains(out, "STALE") {
		t.Errorf("text status hides what --json says (stale):\n%s", out)
	}
}
