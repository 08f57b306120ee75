package main

// End-to-end tests of the CLI as a daily tool: one JSON key style across
// every command's --json, and exit codes as the README states them.

import (
	"encoding/json"
	"regexp"
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
	outputs := map[string]string{"analyze --json": sum}
	for _, args := range [][]string{
		{"status"}, {"list"}, {"query", "order"}, {"query", "order", "--files"},
		{"context", "HandleOrder"}, {"context", "Server"}, {"impact", "Open"}, {"impact", "store/store.go"},
		{"trace", "main", "audit"}, {"detect-changes"}, {"cypher", "MATCH (f:Function) RETURN f LIMIT 2"},
		{"processes"}, {"process", procs.Processes[0].ID}, {"communities"}, {"model", "status"},
	} {
		outputs[strings.Join(args, " ")+" --json"] = e.ok(dir, append(args, "--json")...)
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
