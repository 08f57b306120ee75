package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// queryResult is the part of `query --json` these tests read.
type queryResult struct {
	Tokens    []string `json:"tokens"`
	Processes []struct {
		ID        string `json:"id"`
		StepCount int    `json:"step_count"`
	} `json:"processes"`
	ProcessSymbols []queryHit `json:"process_symbols"`
	Definitions    []queryHit `json:"definitions"`
	Notices        []string   `json:"notices"`
}

type queryHit struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`
	FilePath  string  `json:"filePath"`
	StartLine int     `json:"startLine"`
	Score     float64 `json:"score"`
	ProcessID string  `json:"process_id"`
	StepIndex int     `json:"step_index"`
	Matched   string  `json:"matched"`
}

func (r queryResult) all() []queryHit {
	return append(append([]queryHit{}, r.ProcessSymbols...), r.Definitions...)
}

func (e *env) query(dir string, args ...string) queryResult {
	e.t.Helper()
	out, errs, code := e.run(dir, append([]string{"query", "--json"}, args...)...)
	var r queryResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("query --json is not one JSON object: %v\n%s%s", err, out, errs)
	}
	if r.Processes == nil || r.ProcessSymbols == nil || r.Definitions == nil {
		e.t.Fatalf("processes, process_symbols and definitions must be arrays: %s", out)
	}
	// Exit 0 with hits, 3 (nothing found) without.
	if found := len(r.ProcessSymbols)+len(r.Definitions) > 0; code != 0 && !(code == 3 && !found) || code == 3 && found {
		e.t.Fatalf("query %v: exit %d with %d hits\n%s", args, code, len(r.ProcessSymbols)+len(r.Definitions), errs)
	}
	return r
}

func TestE2EQuery(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)

	// Identifier words split: "save order" finds SaveOrder, and the best
	// hit is the definition, not a test or a file.
	r := e.query(dir, "save order", "--mode", "keyword")
	hits := r.all()
	if len(hits) == 0 {
		t.Fatalf("no hits: %+v", r)
	}
	best := hits[0]
	for _, h := range hits {
		if h.Score > best.Score {
			best = h
		}
	}
	if best.Name != "SaveOrder" || best.StartLine == 0 || best.Matched != "keyword" {
		t.Errorf("best hit %+v", best)
	}
	for _, h := range r.ProcessSymbols {
		if h.ProcessID == "" || h.StepIndex < 1 {
			t.Errorf("process symbol without process: %+v", h)
		}
	}

	// A partial identifier and the camelCase form.
	for _, q := range []string{"HandleOrd", "handleOrder", "handle order"} {
		found := false
		for _, h := range e.query(dir, q).all() {
			found = found || h.Name == "HandleOrder"
		}
		if !found {
			t.Errorf("%q does not find HandleOrder", q)
		}
	}

	// Filters.
	for _, h := range e.query(dir, "order", "--kind", "method").all() {
		if h.Kind != "method" {
			t.Errorf("--kind method let %+v through", h)
		}
	}
	for _, h := range e.query(dir, "order", "--path", "store/").all() {
		if !strings.HasPrefix(h.FilePath, "store/") {
			t.Errorf("--path store/ let %+v through", h)
		}
	}

	// Hybrid without embeddings: keyword, with a notice on stderr.
	_, errs, code := e.run(dir, "query", "save order")
	if code != 0 || !strings.Contains(errs, "keyword search only") {
		t.Errorf("hybrid fallback: exit %d, stderr %q", code, errs)
	}
	// Vector mode without embeddings: not found.
	if _, _, code := e.run(dir, "query", "save order", "--mode", "vector"); code != 3 {
		t.Errorf("--mode vector without embeddings: exit %d, want 3", code)
	}
	// Bad flags: usage.
	for _, args := range [][]string{{"query", "x", "--mode", "fuzzy"}, {"query", "x", "--limit", "0"}, {"query", "x", "--min-score", "2"}, {"query", "x", "--name", "["}, {"query", ""}} {
		if _, _, code := e.run(dir, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}

	// Hostile queries neither fail nor change the index.
	before := e.cypher(dir, "MATCH (n) RETURN count(n)")[0][0]
	for _, q := range []string{`'); MATCH (n) DETACH DELETE n;//`, `\' OR 1=1 --`, `"`, `*`, "日本語", strings.Repeat("x", 10000)} {
		e.query(dir, q, "--mode", "keyword")
	}
	if after := e.cypher(dir, "MATCH (n) RETURN count(n)")[0][0]; after != before {
		t.Errorf("node count %v → %v", before, after)
	}

	// The terminal view names file:line.
	out := e.ok(dir, "query", "save order", "--mode", "keyword")
	if !strings.Contains(out, "store/store.go:") {
		t.Errorf("terminal view:\n%s", out)
	}
}

// TestE2EQueryPack: `query` answers from the search pack analyze writes
// beside the database, in several languages and with filters, --files and
// --content; with the pack damaged or gone it fails and says to re-run
// analyze.
func TestE2EQueryPack(t *testing.T) {
	e := newEnv(t)
	searches := [][]string{
		{"save order"},
		{"order", "--mode", "keyword", "--kind", "function,method"},
		{"repository", "--lang", "python"},
		{"user service", "-n", "3"},
		{"handler", "--name", "*Handler", "--path", "src/"},
		{"validateOrd"},
		{"config loader", "--flows", "1", "--min-score", "0.2"},
		{"order", "--files"},
		{"save order", "--content", "-n", "2"},
	}
	answers := func(dir string) []string {
		var out []string
		for _, s := range searches {
			stdout, stderr, code := e.run(dir, append([]string{"query", "--json"}, s...)...)
			out = append(out, fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr))
		}
		return out
	}
	for _, name := range []string{"goshop", "pyapp", "tsapp", "mixed"} {
		t.Run(name, func(t *testing.T) {
			dir := fixture(t, name)
			e.analyze(dir)
			packs, _ := filepath.Glob(filepath.Join(dir, ".gitnexus", "db-*.kuzu.pack"))
			if len(packs) != 1 {
				t.Fatalf("analyze wrote %d search packs, want 1: %v", len(packs), packs)
			}
			var st struct {
				SearchPackBytes int64 `json:"search_pack_bytes"`
			}
			if err := json.Unmarshal([]byte(e.ok(dir, "status", "--json")), &st); err != nil || st.SearchPackBytes <= 0 {
				t.Errorf("status --json: searchPackBytes %d, %v", st.SearchPackBytes, err)
			}
			withPack := answers(dir)
			matched := 0
			for i := range searches {
				// exit 0 with hits, 3 (nothing found) without
				if !strings.HasPrefix(withPack[i], "exit 0\n") && !(strings.HasPrefix(withPack[i], "exit 3\n") && !strings.Contains(withPack[i], `"score"`)) {
					t.Errorf("%v: %s", searches[i], withPack[i])
				}
				if strings.Contains(withPack[i], `"score"`) {
					matched++
				}
			}
			if matched == 0 {
				t.Fatal("no search matched anything")
			}

			if err := os.WriteFile(packs[0], []byte("gitnexus-pack\ngarbage"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := e.run(dir, append([]string{"query", "--json"}, searches[0]...)...)
			if code == 0 || !strings.Contains(stderr, "gitnexus analyze") {
				t.Errorf("damaged pack: exit %d, stderr %q", code, stderr)
			}
			os.Remove(packs[0])
			// The pack its analyze wrote is gone: the index is damaged.
			if out, _, code := e.run(dir, "status"); code != 3 || !strings.Contains(out, "no search pack") || !strings.Contains(out, "DAMAGED") {
				t.Errorf("status without a pack does not say so: exit %d\n%s", code, out)
			}
			_, stderr, code = e.run(dir, append([]string{"query", "--json"}, searches[0]...)...)
			if code != 3 || !strings.Contains(stderr, "gitnexus analyze") {
				t.Errorf("no pack: exit %d, stderr %q", code, stderr)
			}
		})
	}
}
