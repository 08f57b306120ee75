package mcp

// End-to-end tests: build the real binary once, index a copy of the goshop
// fixture with it, then drive every tool and resource over the SDK's
// in-memory transport (this package's server) and over stdio (the spawned
// binary), and compare the CLI's --json with the tools' output.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitnexus/gitnexus/tools"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gitnexus-mcp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "gitnexus")
	build := exec.Command("go", "build", "-o", binary, "github.com/gitnexus/gitnexus")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp e2e: building the binary failed:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is one test's GITNEXUS_HOME and an indexed copy of goshop.
type world struct {
	t    *testing.T
	home string
	repo string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir(), repo: filepath.Join(t.TempDir(), "goshop")}
	if err := os.CopyFS(w.repo, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	w.git("init", "-q")
	w.git("add", "-A")
	w.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
	w.gitnexus("analyze", "--skip-embeddings", ".")
	t.Setenv("GITNEXUS_HOME", w.home)
	return w
}

func (w *world) env() []string {
	return append(os.Environ(), "GITNEXUS_HOME="+w.home, "HOME="+w.home)
}

func (w *world) git(args ...string) {
	w.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = w.repo
	if out, err := c.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (w *world) gitnexus(args ...string) string {
	w.t.Helper()
	c := exec.Command(binary, args...)
	c.Dir, c.Env = w.repo, w.env()
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		w.t.Fatalf("gitnexus %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// inMemory connects a client to a fresh in-process server.
func (w *world) inMemory(ctx context.Context) *sdk.ClientSession {
	w.t.Helper()
	return connect(ctx, w.t, New(Options{Version: "test", Cwd: w.repo}))
}

// connect connects a client to srv over in-memory transports; the test's
// cleanup closes both.
func connect(ctx context.Context, t *testing.T, srv *Server) *sdk.ClientSession {
	t.Helper()
	t.Cleanup(func() { srv.Close() })
	ct, st := sdk.NewInMemoryTransports()
	if _, err := srv.SDK.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// stdio spawns `gitnexus mcp` and connects a client to it.
func (w *world) stdio(ctx context.Context) *sdk.ClientSession {
	w.t.Helper()
	c := exec.Command(binary, "mcp")
	c.Dir, c.Env = w.repo, w.env()
	c.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: c}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool and returns its structured output as JSON-decoded
// values, failing on a tool error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, errText := callRaw(t, cs, name, args)
	if errText != "" {
		t.Fatalf("%s %v: tool error: %s", name, args, errText)
	}
	return res
}

// callRaw returns the structured output, or the error text of a tool
// error.
func callRaw(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return nil, b.String()
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return out, ""
}

func ids(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["id"]))
		}
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const (
	handleOrder = "server/server.go#Server.HandleOrder:method"
	validateFn  = "server/audit.go#validate:function"
	mainFn      = "main.go#main:function"
)

// exercise drives every tool and resource on goshop.
func exercise(t *testing.T, w *world, cs *sdk.ClientSession) {
	ctx := context.Background()
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"query": true, "context": true, "impact": true, "detect_changes": true, "trace": true, "cypher": true, "list_repos": true}
	for _, tl := range listed.Tools {
		if want[tl.Name] {
			if tl.InputSchema == nil || tl.OutputSchema == nil {
				t.Errorf("tool %s lacks an input or output schema", tl.Name)
			}
			delete(want, tl.Name)
		}
	}
	if len(want) > 0 {
		t.Fatalf("tools missing: %v", want)
	}

	repos := call(t, cs, "list_repos", nil)
	if l, _ := repos["repos"].([]any); len(l) != 1 || l[0].(map[string]any)["name"] != "goshop" {
		t.Errorf("list_repos = %v", repos)
	}

	q := call(t, cs, "query", map[string]any{"search_query": "validate order"})
	all := append(ids(q["process_symbols"]), ids(q["definitions"])...)
	if !has(all, validateFn) {
		t.Errorf("query validate order: %v lacks %s", all, validateFn)
	}
	if _, ok := q["processes"].([]any); !ok {
		t.Errorf("query: processes is not a list: %v", q["processes"])
	}
	qc := call(t, cs, "query", map[string]any{"search_query": "order", "task_context": "auditing saved orders", "goal": "the audit log", "limit": 2, "max_symbols": 3})
	if p, _ := qc["processes"].([]any); len(p) > 2 {
		t.Errorf("query limit 2 gave %d processes", len(p))
	}
	if d, _ := qc["definitions"].([]any); len(d) > 3 {
		t.Errorf("query max_symbols 3 gave %d definitions", len(d))
	}

	c := call(t, cs, "context", map[string]any{"name": "HandleOrder"})
	if c["status"] != "found" || c["symbol"].(map[string]any)["id"] != handleOrder {
		t.Fatalf("context HandleOrder = %v", c)
	}
	groups := map[string][]string{}
	for _, side := range []string{"incoming", "outgoing"} {
		for _, g := range c[side].([]any) {
			gm := g.(map[string]any)
			groups[side+" "+gm["type"].(string)] = ids(gm["refs"])
		}
	}
	if !has(groups["incoming CALLS"], mainFn) || !has(groups["outgoing CALLS"], validateFn) {
		t.Errorf("context HandleOrder edges = %v", groups)
	}
	if len(ids(c["processes"])) == 0 {
		t.Errorf("context HandleOrder: no processes")
	}
	if cov, _ := c["callers_coverage"].(map[string]any); cov == nil || cov["exact"] == nil {
		t.Errorf("context HandleOrder: no callers_coverage: %v", c)
	}
	amb := call(t, cs, "context", map[string]any{"name": "New"})
	if amb["status"] != "found" && amb["status"] != "ambiguous" {
		t.Errorf("context New = %v", amb)
	}

	im := call(t, cs, "impact", map[string]any{"target": "validate", "direction": "upstream"})
	levels, _ := im["by_depth"].([]any)
	if len(levels) < 2 || !has(ids(levels[0].(map[string]any)["symbols"]), handleOrder) || !has(ids(levels[1].(map[string]any)["symbols"]), mainFn) {
		t.Errorf("impact validate upstream by_depth = %v", levels)
	}
	if im["risk"] == "" || im["exact"] == nil || len(ids(im["affected_processes"])) == 0 {
		t.Errorf("impact validate: risk/exact/processes missing: %v", im)
	}
	down := call(t, cs, "impact", map[string]any{"target": "main", "direction": "downstream", "maxDepth": 1})
	if l, _ := down["by_depth"].([]any); len(l) != 1 || !has(ids(l[0].(map[string]any)["symbols"]), handleOrder) {
		t.Errorf("impact main downstream depth 1 = %v", down["by_depth"])
	}
	if _, e := callRaw(t, cs, "impact", map[string]any{"target": "validate", "direction": "sideways"}); !strings.Contains(e, "upstream or downstream") {
		t.Errorf("impact with a bad direction: %q", e)
	}

	tr := call(t, cs, "trace", map[string]any{"from": "main", "to": "validate"})
	if tr["status"] != "found" || fmt.Sprint(ids(tr["path"])) != fmt.Sprint([]string{mainFn, handleOrder, validateFn}) {
		t.Errorf("trace main → validate = %v", tr)
	}
	if back := call(t, cs, "trace", map[string]any{"from": "validate", "to": "main"}); back["status"] != "no_path" {
		t.Errorf("trace validate → main = %v", back)
	}

	cy := call(t, cs, "cypher", map[string]any{"statement": "MATCH (f:Function) RETURN f.name ORDER BY f.name", "limit": 2})
	if rows, _ := cy["rows"].([]any); len(rows) != 2 || cy["truncated"] != true {
		t.Errorf("cypher limit 2 = %v", cy)
	}
	if _, e := callRaw(t, cs, "cypher", map[string]any{"statement": "MATCH (f:Function) DETACH DELETE f"}); !strings.Contains(e, "read-only") {
		t.Errorf("cypher write: %q", e)
	}
	if _, e := callRaw(t, cs, "cypher", map[string]any{"statement": "MATCH (f:Nope) RETURN f"}); e == "" {
		t.Errorf("cypher on an unknown table gave no error")
	}

	// Malformed arguments and unknown repos are tool errors; the server
	// keeps serving.
	if _, e := callRaw(t, cs, "context", map[string]any{"name": 42}); e == "" {
		t.Errorf("context with a number name gave no error")
	}
	if _, e := callRaw(t, cs, "context", map[string]any{"name": "NoSuchSymbol"}); !strings.Contains(e, "not found") {
		t.Errorf("context on a missing symbol: %q", e)
	}
	if _, e := callRaw(t, cs, "query", map[string]any{"search_query": "x", "repo": "nope"}); !strings.Contains(e, "unknown repository") {
		t.Errorf("unknown repo: %q", e)
	}

	// detect_changes: edit validate, see it and its process.
	path := filepath.Join(w.repo, "server", "audit.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(orig), `"missing id"`, `"missing order id"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dc := call(t, cs, "detect_changes", map[string]any{"scope": "unstaged"})
	if got := ids(dc["changed_symbols"]); len(got) != 1 || got[0] != validateFn || len(ids(dc["affected_processes"])) == 0 {
		t.Errorf("detect_changes = %v", dc)
	}
	if st := call(t, cs, "detect_changes", map[string]any{"scope": "staged"}); len(ids(st["changed_symbols"])) != 0 {
		t.Errorf("detect_changes staged with nothing staged = %v", st)
	}
	if cmp := call(t, cs, "detect_changes", map[string]any{"scope": "compare", "base_ref": "HEAD"}); len(ids(cmp["changed_symbols"])) != 1 {
		t.Errorf("detect_changes compare HEAD = %v", cmp)
	}
	if _, e := callRaw(t, cs, "detect_changes", map[string]any{"scope": "compare", "base_ref": "--output=/tmp/x"}); !strings.Contains(e, "not a git ref") {
		t.Errorf("detect_changes with an option as base_ref: %q", e)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// Resources.
	for _, uri := range []string{"gitnexus://repos", "gitnexus://repo/goshop/context", "gitnexus://repo/goshop/processes",
		"gitnexus://repo/goshop/communities", "gitnexus://repo/goshop/schema"} {
		r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || !json.Valid([]byte(r.Contents[0].Text)) {
			t.Errorf("read %s: %v %v", uri, err, r)
		}
	}
	pr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/goshop/processes"})
	if err != nil {
		t.Fatal(err)
	}
	var procs tools.ProcessesOutput
	if err := json.Unmarshal([]byte(pr.Contents[0].Text), &procs); err != nil || len(procs.Processes) == 0 {
		t.Fatalf("processes resource: %v %s", err, pr.Contents[0].Text)
	}
	one, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/goshop/process/" + procs.Processes[0].ID})
	if err != nil || !strings.Contains(one.Contents[0].Text, `"steps"`) {
		t.Errorf("process resource: %v %v", err, one)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/nope/context"}); err == nil {
		t.Errorf("a resource of an unknown repo read without error")
	}
}

func TestInMemory(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	exercise(t, w, w.inMemory(ctx))
}

func TestStdio(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	cs := w.stdio(ctx)
	exercise(t, w, cs)

	// A re-analyze swaps the index; the running server sees the new symbol.
	extra := "package server\n\n// Refund reverses an order.\nfunc Refund(id string) error { return validateID(id) }\n\nfunc validateID(id string) error { return nil }\n"
	if err := os.WriteFile(filepath.Join(w.repo, "server", "refund.go"), []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("add", "-A")
	w.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "refund")
	w.gitnexus("analyze", "--skip-embeddings", ".")
	c := call(t, cs, "context", map[string]any{"name": "Refund"})
	if c["status"] != "found" {
		t.Fatalf("after re-analyze, context Refund = %v", c)
	}

	// A deleted index is a clear error, and the server keeps serving.
	if err := os.RemoveAll(filepath.Join(w.repo, ".gitnexus")); err != nil {
		t.Fatal(err)
	}
	if _, e := callRaw(t, cs, "context", map[string]any{"name": "Refund", "repo": w.repo}); !strings.Contains(e, "gitnexus analyze") {
		t.Errorf("deleted index: %q", e)
	}
	if r := call(t, cs, "list_repos", nil); r["repos"] == nil {
		t.Errorf("list_repos after a deleted index = %v", r)
	}
	w.gitnexus("analyze", "--skip-embeddings", ".")
	if c := call(t, cs, "context", map[string]any{"name": "Refund"}); c["status"] != "found" {
		t.Errorf("after rebuilding a deleted index, context Refund = %v", c)
	}
}

// TestCLIMatchesTools checks that the CLI prints the same JSON as the tools.
func TestCLIMatchesTools(t *testing.T) {
	w := newWorld(t)
	cs := w.inMemory(context.Background())
	cases := []struct {
		cli  []string
		tool string
		args map[string]any
	}{
		{[]string{"context", "HandleOrder", "--json"}, "context", map[string]any{"name": "HandleOrder"}},
		{[]string{"impact", "validate", "--json"}, "impact", map[string]any{"target": "validate", "direction": "upstream", "maxDepth": 3, "limit": 100}},
		{[]string{"trace", "main", "validate", "--json"}, "trace", map[string]any{"from": "main", "to": "validate"}},
		{[]string{"detect-changes", "--json"}, "detect_changes", map[string]any{"scope": "unstaged"}},
		{[]string{"list", "--json"}, "list_repos", map[string]any{"limit": 200}},
		{[]string{"cypher", "--json", "MATCH (f:Function) RETURN f.name, f.startLine ORDER BY f.name"}, "cypher",
			map[string]any{"statement": "MATCH (f:Function) RETURN f.name, f.startLine ORDER BY f.name"}},
	}
	for _, tc := range cases {
		cli := cliJSON(t, w, tc.cli...)
		tool := call(t, cs, tc.tool, tc.args)
		if !reflect.DeepEqual(cli, tool) {
			a, _ := json.Marshal(cli)
			b, _ := json.Marshal(tool)
			t.Errorf("%v differs from tool %s:\ncli:  %s\ntool: %s", tc.cli, tc.tool, a, b)
		}
	}

	// The listings the server gives as resources.
	procs := cliJSON(t, w, "processes", "--json")
	if l, _ := procs["processes"].([]any); len(l) == 0 {
		t.Fatalf("processes --json lists no process: %v", procs)
	}
	first := procs["processes"].([]any)[0].(map[string]any)["id"].(string)
	for _, rc := range []struct {
		cli []string
		uri string
	}{
		{[]string{"processes", "--json"}, "gitnexus://repo/goshop/processes"},
		{[]string{"process", first, "--json"}, "gitnexus://repo/goshop/process/" + first},
		{[]string{"communities", "--json"}, "gitnexus://repo/goshop/communities"},
	} {
		cli := cliJSON(t, w, rc.cli...)
		r, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: rc.uri})
		if err != nil {
			t.Fatalf("read %s: %v", rc.uri, err)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &res); err != nil {
			t.Fatalf("%s: %v", rc.uri, err)
		}
		if !reflect.DeepEqual(cli, res) {
			t.Errorf("%v differs from resource %s:\ncli:      %v\nresource: %v", rc.cli, rc.uri, cli, res)
		}
	}
}

// cliJSON runs the CLI and decodes its one JSON object.
func cliJSON(t *testing.T, w *world, args ...string) map[string]any {
	t.Helper()
	out := w.gitnexus(args...)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return v
}

// TestHugeCypher checks that a result over the size cap is cut with a
// notice rather than sent whole.
func TestHugeCypher(t *testing.T) {
	w := newWorld(t)
	cs := w.inMemory(context.Background())
	// 5000 rows of 2 KiB each: 10 MiB, over MaxCypherBytes.
	out := call(t, cs, "cypher", map[string]any{"statement": "UNWIND range(1, 5000) AS i RETURN i, repeat('x', 2048) AS pad", "limit": 5000})
	rows, _ := out["rows"].([]any)
	if out["truncated"] != true || len(rows) == 0 || len(rows) >= 5000 || out["notices"] == nil {
		t.Errorf("huge cypher: truncated=%v rows=%d notices=%v", out["truncated"], len(rows), out["notices"])
	}
	// The server still answers.
	call(t, cs, "list_repos", nil)
}

// TestToolTimeout checks that a call past ToolTimeout ends with a clear
// error and the server keeps serving.
func TestToolTimeout(t *testing.T) {
	w := newWorld(t)
	cs := w.inMemory(context.Background())
	old := ToolTimeout
	ToolTimeout = time.Nanosecond
	_, e := callRaw(t, cs, "impact", map[string]any{"target": "validate"})
	ToolTimeout = old
	if !strings.Contains(e, "deadline exceeded") {
		t.Errorf("impact past the timeout: %q", e)
	}
	if c := call(t, cs, "context", map[string]any{"name": "HandleOrder"}); c["status"] != "found" {
		t.Errorf("after a timeout, context = %v", c)
	}
}
