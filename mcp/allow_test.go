package mcp

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// registerOther indexes a second copy of goshop, named "other", in w's
// registry and returns its path.
func registerOther(t *testing.T, w *world) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	if err := os.CopyFS(dir, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(binary, "analyze", "--skip-embeddings", ".")
	c.Dir, c.Env = dir, w.env()
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("analyze %s: %v\n%s", dir, err, out)
	}
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return canon
}

// TestRepoAllowListAttack: with --repos goshop, the other registered
// repository cannot be reached by name, path, cleaned path, default or
// resource URI, is not listed, and no refusal names it.
func TestRepoAllowListAttack(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	other := registerOther(t, w)
	canon, _ := filepath.EvalSymlinks(w.repo)

	// Started inside the other repository: the default is still goshop.
	srv, err := NewServer(Options{Version: "test", Cwd: other, Repos: []string{"goshop"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(ctx, t, srv)

	for _, ok := range []string{"", "goshop", canon, canon + "/"} {
		res, e := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": ok})
		if e != "" {
			t.Errorf("repo %q refused: %s", ok, e)
			continue
		}
		if r, _ := res["repo"].(map[string]any); r["name"] != "goshop" {
			t.Errorf("repo %q answered from %v", ok, res["repo"])
		}
	}
	for _, bad := range []string{"other", other, other + "/", canon + "/../../" + filepath.Base(filepath.Dir(other)) + "/other",
		"/", "/etc", "nosuch", strings.Repeat("o", 5000)} {
		for _, tool := range []string{"cypher", "query", "context"} {
			args := map[string]any{"repo": bad, "statement": "RETURN 1 AS x", "search_query": "order", "name": "validate"}
			switch tool {
			case "cypher":
				delete(args, "search_query")
				delete(args, "name")
			case "query":
				delete(args, "statement")
				delete(args, "name")
			case "context":
				delete(args, "statement")
				delete(args, "search_query")
			}
			_, e := callRaw(t, cs, tool, args)
			if !strings.Contains(e, "is not served here: this server serves only goshop") {
				t.Errorf("%s repo %q: %q", tool, bad, e)
			}
			if strings.Contains(e, "other") && !strings.Contains(bad, "other") {
				t.Errorf("%s repo %q: the refusal names the hidden repository: %q", tool, bad, e)
			}
		}
	}
	repos := call(t, cs, "list_repos", nil)
	if l, _ := repos["repos"].([]any); len(l) != 1 || l[0].(map[string]any)["name"] != "goshop" {
		t.Errorf("list_repos = %v", repos)
	}
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repos"})
	if err != nil || strings.Contains(r.Contents[0].Text, other) {
		t.Errorf("gitnexus://repos lists the hidden repository (%v)", err)
	}
	for _, uri := range []string{"gitnexus://repo/other/context", "gitnexus://repo/" + url.PathEscape(other) + "/processes"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(strings.ToLower(err.Error()), "not found") {
			t.Errorf("resource %s: %v", uri, err)
		}
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/goshop/context"}); err != nil {
		t.Errorf("goshop's context resource: %v", err)
	}
	// A prompt is refused the hidden repository too.
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "generate_map", Arguments: map[string]string{"repo": other}}); err == nil || !strings.Contains(err.Error(), "not served here") {
		t.Errorf("generate_map on the hidden repo: %v", err)
	}

	// With two repositories allowed and the server outside both, the
	// default is ambiguous.
	srv2, err := NewServer(Options{Version: "test", Cwd: t.TempDir(), Repos: []string{"goshop", other}})
	if err != nil {
		t.Fatal(err)
	}
	cs2 := connect(ctx, t, srv2)
	if _, e := callRaw(t, cs2, "cypher", map[string]any{"statement": "RETURN 1 AS x"}); !strings.Contains(e, "this server serves goshop, other") {
		t.Errorf("ambiguous default: %q", e)
	}
	if _, e := callRaw(t, cs2, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": "other"}); e != "" {
		t.Errorf("other allowed by path, refused by name: %s", e)
	}
}

// TestToolAllowListAttack: a tool left off --tools is neither listed nor
// callable, and prompts built on it are dropped.
func TestToolAllowListAttack(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	srv, err := NewServer(Options{Version: "test", Cwd: w.repo, Tools: []string{"query", "list_repos"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(ctx, t, srv)
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range listed.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "list_repos,query" && strings.Join(names, ",") != "query,list_repos" {
		t.Errorf("tools listed: %v", names)
	}
	for _, tool := range []string{"cypher", "context", "impact", "detect_changes", "trace", "Cypher", "cypher "} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"statement": "MATCH (n) RETURN n", "name": "validate"}})
		if err == nil && !res.IsError {
			t.Errorf("tool %q off the list answered", tool)
		}
	}
	call(t, cs, "query", map[string]any{"search_query": "order"})
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Name == "detect_impact" {
			t.Errorf("detect_impact served without detect_changes and impact")
		}
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "detect_impact"}); err == nil {
		t.Errorf("detect_impact answered without its tools")
	}
	// The context resource lists only the served tools.
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/goshop/context"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Contents[0].Text, "cypher") {
		t.Errorf("context resource names a tool off the list: %s", r.Contents[0].Text)
	}
}

// TestAllowListUnknown: an unknown repository or tool is a usage error
// that lists the valid names, from NewServer and from the CLI (exit 2).
func TestAllowListUnknown(t *testing.T) {
	w := newWorld(t)
	for _, o := range []Options{{Repos: []string{"goshop", "nosuch"}}, {Repos: []string{"/etc"}}, {Repos: []string{" "}}, {Tools: []string{"query", "rm"}}} {
		o.Cwd = w.repo
		_, err := NewServer(o)
		if !errors.Is(err, ErrAllowList) {
			t.Errorf("%+v: %v, want ErrAllowList", o, err)
			continue
		}
		if len(o.Tools) > 0 && !strings.Contains(err.Error(), "query, context, impact") {
			t.Errorf("tools error does not list the tools: %v", err)
		}
		if len(o.Repos) > 0 && o.Repos[0] != " " && !strings.Contains(err.Error(), "goshop") {
			t.Errorf("repos error does not list the repositories: %v", err)
		}
	}
	for _, args := range [][]string{{"mcp", "--tools", "query,nosuch"}, {"mcp", "--repos", "nosuch"}} {
		c := exec.Command(binary, args...)
		c.Dir, c.Env = w.repo, w.env()
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit 2\n%s", args, err, out)
		}
		if !strings.Contains(string(out), "nosuch") {
			t.Errorf("%v: %s", args, out)
		}
	}
}

// TestPrompts: detect_impact names the changed symbol and its callers;
// generate_map lists communities and processes; bad arguments are refused.
func TestPrompts(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	cs := w.inMemory(ctx)
	audit := filepath.Join(w.repo, "server", "audit.go")
	src, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(audit, []byte(strings.Replace(string(src), `errors.New("missing id")`, `errors.New("order has no id")`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	text := promptText(t, cs, "detect_impact", nil)
	for _, want := range []string{"validate (server/audit.go:15", "called by", "## What to do"} {
		if !strings.Contains(text, want) {
			t.Errorf("detect_impact lacks %q:\n%s", want, text)
		}
	}
	m := promptText(t, cs, "generate_map", map[string]string{"repo": "goshop"})
	for _, want := range []string{"## Functional areas", "## Main execution flows", "symbols, cohesion", "steps)", "gitnexus://repo/goshop/process/"} {
		if !strings.Contains(m, want) {
			t.Errorf("generate_map lacks %q:\n%s", want, m)
		}
	}
	for _, bad := range []map[string]string{{"evil": "x"}, {"repo": strings.Repeat("x", 600)}, {"scope": "--output=/tmp/x"}, {"scope": "compare", "base_ref": "-x"}} {
		if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "detect_impact", Arguments: bad}); err == nil {
			t.Errorf("detect_impact %v: no error", bad)
		}
	}
}

func promptText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]string) string {
	t.Helper()
	r, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(r.Messages) != 1 {
		t.Fatalf("%s: %d messages", name, len(r.Messages))
	}
	tc, ok := r.Messages[0].Content.(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, r.Messages[0].Content)
	}
	return tc.Text
}

// TestInstructionsFollowTools: the server's instructions name only the
// tools it serves, and every tool it can serve has a line in the guide.
func TestInstructionsFollowTools(t *testing.T) {
	only := instructions([]string{"query", "context"})
	if !strings.Contains(only, "query to find") || strings.Contains(only, "cypher") || strings.Contains(only, "impact") {
		t.Errorf("instructions for query and context: %q", only)
	}
	s := New(Options{Cwd: t.TempDir()})
	defer s.Close()
	guided := map[string]bool{}
	for _, g := range toolGuide {
		guided[g.tool] = true
	}
	for _, name := range s.ToolNames() {
		if !guided[name] {
			t.Errorf("tool %s has no line in the instructions' guide", name)
		}
	}
}
