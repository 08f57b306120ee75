package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/bench/callgraph/oracle"
)

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	g := &oracle.Graph{
		Version: oracle.FormatVersion,
		Module:  "example.com/m",
		Files:   []string{"a.go"},
		Funcs:   []oracle.Func{{File: "a.go", Line: 3, Name: "m.A"}, {File: "a.go", Line: 7, Name: "m.B"}},
		Static:  []oracle.StaticEdge{{Caller: 0, Callee: 1, Kind: oracle.KindFunc, Site: "a.go:4", XTools: true}},
		CHA:     [][2]int{{0, 1}},
	}
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	orc := writeFile(t, dir, "o.json", buf.String())
	ours := writeFile(t, dir, "ours.json", `{"columns":["a","b","c","d","e","f"],"rows":[["a.go",3,"a.go",7,0.9,"local"],["a.go",7,"a.go",3,0.5,"guess"]]}`)
	peer := writeFile(t, dir, "peer.json", `{"markdown":"| a | b | c | d | e | f |\n| --- | --- | --- | --- | --- | --- |\n| a.go | 2 | a.go | 6 | 0.85 | local-call |","row_count":1}`)

	var out bytes.Buffer
	if err := run(context.Background(), []string{"compare", "-oracle", orc, "-tool", "ours=" + ours, "-tool", "peer:0=" + peer, "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Scores []struct {
			Tool      string  `json:"tool"`
			Recall    float64 `json:"recall"`
			Precision float64 `json:"precision"`
		} `json:"scores"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if len(res.Scores) != 2 || res.Scores[0].Tool != "ours" || res.Scores[0].Recall != 1 || res.Scores[0].Precision != 0.5 ||
		res.Scores[1].Tool != "peer" || res.Scores[1].Recall != 1 || res.Scores[1].Precision != 1 {
		t.Errorf("scores %+v, want ours recall 1 precision 0.5, peer recall 1 precision 1", res.Scores)
	}

	out.Reset()
	if err := run(context.Background(), []string{"compare", "-oracle", orc, "-tool", "ours=" + ours, "-min-confidence", "0.8", "-curve"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1.000 (1/1)") || !strings.Contains(out.String(), "min confidence") {
		t.Errorf("report at -min-confidence 0.8 lacks precision 1.000 (1/1) or the curve:\n%s", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"bogus"},
		{"oracle"},
		{"compare", "-oracle", "x.json"},
		{"compare", "-tool", "ours"},
		{"compare", "-oracle", "x.json", "-tool", "peer:2=x.json"},
	} {
		err := run(context.Background(), args, &bytes.Buffer{})
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
	if err := run(context.Background(), []string{"compare", "-oracle", "/nonexistent.json", "-tool", "ours=x"}, &bytes.Buffer{}); err == nil {
		t.Error("a missing oracle file is not an error")
	}
}
