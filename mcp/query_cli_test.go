package mcp

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
)

// TestQueryCLIMatchesTool checks that `gitnexus query --json` prints
// exactly the query tool's answer for the same input, filters and limits
// included, and that the CLI and the tool refuse the same bad input.
func TestQueryCLIMatchesTool(t *testing.T) {
	w := newWorld(t)
	cs := w.inMemory(context.Background())
	cases := []struct {
		cli  []string
		args map[string]any
	}{
		{[]string{"order"}, map[string]any{}},
		{[]string{"handle order", "--mode", "keyword"}, map[string]any{"mode": "keyword"}},
		{[]string{"order", "--kind", "function"}, map[string]any{"kind": []string{"function"}}},
		{[]string{"order", "--kind", "method,function", "--lang", "go"}, map[string]any{"kind": []string{"method", "function"}, "lang": []string{"go"}}},
		{[]string{"order", "--path", "store/"}, map[string]any{"path": "store/"}},
		{[]string{"order", "--name", "*Order"}, map[string]any{"name": "*Order"}},
		{[]string{"order", "--min-score", "0.5"}, map[string]any{"min_score": 0.5}},
		{[]string{"order", "-n", "2", "--flows", "1"}, map[string]any{"max_symbols": 2, "limit": 1}},
		{[]string{"order", "--files"}, map[string]any{"include_files": true}},
		{[]string{"server", "--kind", "file"}, map[string]any{"kind": []string{"file"}}},
		{[]string{"save", "--content"}, map[string]any{"include_content": true}},
		{[]string{"order", "--task-context", "auditing orders", "--goal", "validation"}, map[string]any{"task_context": "auditing orders", "goal": "validation"}},
	}
	for _, tc := range cases {
		args := map[string]any{"search_query": tc.cli[0]}
		for k, v := range tc.args {
			args[k] = v
		}
		cli := cliJSON(t, w, append([]string{"query", "--json"}, tc.cli...)...)
		tool := call(t, cs, "query", args)
		if !reflect.DeepEqual(cli, tool) {
			a, _ := json.Marshal(cli)
			b, _ := json.Marshal(tool)
			t.Errorf("query %v differs from the tool (%v):\ncli:  %s\ntool: %s", tc.cli, args, a, b)
		}
		if n := len(tool["process_symbols"].([]any)) + len(tool["definitions"].([]any)); n == 0 {
			t.Errorf("query %v found nothing: the case compares two empty answers", tc.cli)
		}
	}

	// Bad input: the tool answers an error, the CLI exits 2 with the same
	// complaint in its own words (flags, not tool parameters).
	for _, tc := range []struct {
		cli     []string
		args    map[string]any
		want    string
		cliWant string
	}{
		{[]string{"--kind", "func"}, map[string]any{"kind": []string{"func"}}, `unknown kind "func"`, `--kind "func" is not a kind`},
		{[]string{"--mode", "fuzzy"}, map[string]any{"mode": "fuzzy"}, `unknown mode "fuzzy"`, `--mode must be one of hybrid, keyword, vector (got "fuzzy")`},
		{[]string{"--name", "["}, map[string]any{"name": "["}, "not a valid glob", "not a valid glob"},
		{[]string{"--min-score", "2"}, map[string]any{"min_score": 2}, "min_score must be between 0 and 1", "--min-score must be between 0 and 1"},
		{[]string{"--lang", "go;drop"}, map[string]any{"lang": []string{"go;drop"}}, "not a language name", "not a language name"},
	} {
		args := map[string]any{"search_query": "order"}
		for k, v := range tc.args {
			args[k] = v
		}
		_, errText := callRaw(t, cs, "query", args)
		if !strings.Contains(errText, tc.want) {
			t.Errorf("tool %v: error %q, want it to contain %q", args, errText, tc.want)
		}
		c := exec.Command(binary, append([]string{"query", "--json", "order"}, tc.cli...)...)
		c.Dir, c.Env = w.repo, w.env()
		out, err := c.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.cliWant) {
			t.Errorf("query %v: err %v, output %q; want exit 2 saying %q", tc.cli, err, out, tc.cliWant)
		}
	}
}

// TestQueryCLIOpensNoDatabase checks that `gitnexus query` answers from
// the search pack alone (the database is opened only for vectors): with
// the database file moved away a keyword search still answers, with the
// source text under --content.
func TestQueryCLIOpensNoDatabase(t *testing.T) {
	w := newWorld(t)
	dbs, _ := filepath.Glob(filepath.Join(w.repo, ".gitnexus", "db-*.kuzu"))
	if len(dbs) != 1 {
		t.Fatalf("want one database, got %v", dbs)
	}
	if err := os.Rename(dbs[0], dbs[0]+".away"); err != nil {
		t.Fatal(err)
	}
	r := cliJSON(t, w, "query", "--json", "save order")
	if n := len(r["process_symbols"].([]any)) + len(r["definitions"].([]any)); n == 0 {
		t.Errorf("query without the database found nothing: %v", r)
	}
	r = cliJSON(t, w, "query", "--json", "--content", "save order")
	var content []string
	for _, k := range []string{"process_symbols", "definitions"} {
		for _, h := range r[k].([]any) {
			content = append(content, fmt.Sprint(h.(map[string]any)["content"]))
		}
	}
	if !strings.Contains(strings.Join(content, "\n"), "func ") {
		t.Errorf("query --content without the database: no source text in %v", content)
	}
}
