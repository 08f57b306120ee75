package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// secondIndex indexes another copy of goshop under dir, registered in a
// separate home (so not in w's registry), and returns its path.
func secondIndex(t *testing.T, w *world, dir string) string {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(binary, "analyze", "--skip-embeddings", ".")
	c.Dir, c.Env = dir, append(os.Environ(), "GITNEXUS_HOME="+t.TempDir(), "HOME="+t.TempDir())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("analyze %s: %v\n%s", dir, err, out)
	}
	return dir
}

// TestReposAttack: over MCP only registered repositories are served, by
// name or by their exact (cleaned) path; nothing else opens, and the error
// does not tell whether a path exists. Every answer names its repository.
func TestReposAttack(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	secret := secondIndex(t, w, filepath.Join(t.TempDir(), "secret"))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(w.repo, link); err != nil {
		t.Fatal(err)
	}
	canon, _ := filepath.EvalSymlinks(w.repo)
	cs := w.inMemory(ctx)

	// Every repo tool's answer carries "repo": {name, path}.
	answers := map[string]map[string]any{
		"query":          {"search_query": "order"},
		"context":        {"name": "validate"},
		"impact":         {"target": "validate", "direction": "upstream"},
		"detect_changes": {"scope": "unstaged"},
		"trace":          {"from": "validate", "to": "validate"},
		"cypher":         {"statement": "MATCH (f:Function) RETURN count(f) AS n"},
	}
	named := 0
	for tool, args := range answers {
		res, e := callRaw(t, cs, tool, args)
		if e != "" && !strings.Contains(e, "not found") {
			t.Errorf("%s: %s", tool, e)
			continue
		}
		if e != "" {
			continue
		}
		r, _ := res["repo"].(map[string]any)
		if r["name"] != "goshop" || r["path"] != canon {
			t.Errorf("%s answer names repo %v, want goshop at %s", tool, res["repo"], canon)
		}
		named++
	}
	if named < len(answers)-1 {
		t.Errorf("only %d of %d tools answered", named, len(answers))
	}

	// Registered: by name, by path, by a path that cleans to it.
	for _, ok := range []string{"goshop", canon, canon + "/", canon + "/./", filepath.Join(canon, "server") + "/.."} {
		if _, e := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": ok}); e != "" {
			t.Errorf("repo %q refused: %s", ok, e)
		}
	}
	// Not registered: an indexed copy elsewhere, a symlink to the
	// registered repo, paths that exist and paths that do not.
	missing := filepath.Join(filepath.Dir(secret), "nosuch")
	for _, bad := range []string{secret, secret + "/", canon + "/../" + filepath.Base(secret), link, "/etc", "/", missing,
		"../secret", "%2Fetc", url.PathEscape(secret), strings.Repeat("x/", 3000)} {
		_, e := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": bad})
		if !strings.Contains(e, "no registered repository is named") {
			t.Errorf("repo %q: %q", bad, e)
		}
	}
	// Same answer for an existing and a missing path, the argument aside.
	_, e1 := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": secret})
	_, e2 := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": missing})
	if strings.ReplaceAll(e1, secret, "P") != strings.ReplaceAll(e2, missing, "P") {
		t.Errorf("errors differ by existence:\n%s\n%s", e1, e2)
	}

	// Resources: the name segment is decoded once and must be a
	// registered name; paths, encoded or double-encoded, name nothing.
	if r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "gitnexus://repo/goshop/processes"}); err != nil || !strings.Contains(r.Contents[0].Text, `"name": "goshop"`) {
		t.Errorf("processes resource of goshop: %v", err)
	}
	for _, seg := range []string{url.PathEscape(secret), url.PathEscape(canon), url.PathEscape(url.PathEscape(canon)),
		strings.ReplaceAll(canon, "/", "%252F"), "..", "%2E%2E", "", "goshop%00", "%zz", url.PathEscape(missing)} {
		uri := "gitnexus://repo/" + seg + "/context"
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(strings.ToLower(err.Error()), "not found") {
			t.Errorf("resource %s: %v", uri, err)
		}
	}
}

// TestReposDefaultRule: a server started inside one indexed repo answers
// from it, not from "the only registered repo" elsewhere — or, when the
// repo it runs in is not registered, refuses instead of answering from
// another.
func TestReposDefaultRule(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	secret := secondIndex(t, w, filepath.Join(t.TempDir(), "inside"))

	// Inside an unregistered index, with goshop the only registered repo.
	cs := connect(ctx, t, New(Options{Version: "test", Cwd: filepath.Join(secret, "server")}))
	res, e := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x"})
	if e == "" || !strings.Contains(e, "not registered") {
		t.Errorf("inside an unregistered repo, answered %v (%q)", res, e)
	}
	// An explicit repo still wins.
	if res, e := callRaw(t, cs, "cypher", map[string]any{"statement": "RETURN 1 AS x", "repo": "goshop"}); e != "" || res["repo"].(map[string]any)["name"] != "goshop" {
		t.Errorf("explicit goshop: %v %q", res, e)
	}
}

// TestReposCLIRule: the CLI follows the same default rule and names the
// repository in every --json answer.
func TestReposCLIRule(t *testing.T) {
	w := newWorld(t)
	inside := secondIndex(t, w, filepath.Join(t.TempDir(), "inside"))
	canonInside, _ := filepath.EvalSymlinks(inside)
	canon, _ := filepath.EvalSymlinks(w.repo)
	run := func(dir string, args ...string) (map[string]any, string) {
		t.Helper()
		c := exec.Command(binary, args...)
		c.Dir, c.Env = dir, w.env()
		var stderr strings.Builder
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			t.Fatalf("gitnexus %v in %s: %v\n%s", args, dir, err, stderr.String())
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("gitnexus %v: %v\n%s", args, err, out)
		}
		return v, stderr.String()
	}
	repoOf := func(v map[string]any) any {
		r, _ := v["repo"].(map[string]any)
		return r["path"]
	}
	// Inside an indexed repo (unregistered): that repo, though goshop is
	// the only registered one.
	if v, _ := run(filepath.Join(inside, "server"), "cypher", "--json", "RETURN 1 AS x"); repoOf(v) != canonInside {
		t.Errorf("inside: answered from %v, want %s", repoOf(v), canonInside)
	}
	// Outside any: the only registered repo, said on stderr.
	v, stderr := run(t.TempDir(), "cypher", "--json", "RETURN 1 AS x")
	if repoOf(v) != canon || !strings.Contains(stderr, "only registered") {
		t.Errorf("outside: answered from %v (%q), want %s", repoOf(v), stderr, canon)
	}
	// -r wins; query --json names the repo too.
	if v, _ := run(inside, "query", "--json", "-r", "goshop", "order"); repoOf(v) != canon || v["processes"] == nil {
		t.Errorf("query -r goshop: %v", v)
	}
	// analyze --name of a taken name is refused, naming the holder.
	c := exec.Command(binary, "analyze", "--skip-embeddings", "--name", "goshop", ".")
	c.Dir, c.Env = inside, w.env()
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), canon) || !strings.Contains(string(out), "--name") {
		t.Errorf("analyze --name goshop on a second repo: %v %s", err, out)
	}
}
