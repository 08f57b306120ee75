package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/embed"
)

// fixtureModel is the committed tiny BERT-shaped model and its tokenizer.
const fixtureModel = "../../embed/testdata/tiny"

// miniCorpus writes a one-file Python corpus named "mini" and a label file
// with one query over it; it returns the corpora directory and the labels.
func miniCorpus(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "corpora", "mini")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	code := `"""Configuration loading."""


def parse_config_file(path):
    """Parse the configuration file at path."""
    with open(path) as f:
        return f.read()


def send_request(url):
    """Send an HTTP request."""
    return url
`
	if err := os.WriteFile(filepath.Join(src, "config.py"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	labels := filepath.Join(dir, "labels.json")
	lb := `{"queries": [{"corpus": "mini", "query": "parse config file",
	  "symbols": ["config.py#parse_config_file"], "files": ["config.py"]}]}`
	if err := os.WriteFile(labels, []byte(lb), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "corpora"), labels
}

// figures returns the four metrics of the table row starting with prefix.
func figures(t *testing.T, table, prefix string) []float64 {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			t.Fatalf("short row %q", line)
		}
		var out []float64
		for _, s := range f[len(f)-5 : len(f)-1] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("row %q: %v", line, err)
			}
			out = append(out, v)
		}
		return out
	}
	t.Fatalf("no row %q in:\n%s", prefix, table)
	return nil
}

func TestKeywordOnlyWithoutModel(t *testing.T) {
	corpora, labels := miniCorpus(t)
	var out strings.Builder
	err := run(context.Background(), config{labels: labels, corpora: corpora, variants: 1, out: &out})
	if err != nil {
		t.Fatal(err)
	}
	table := out.String()
	if got := figures(t, table, "keyword, shipped"); got[0] != 1 || got[1] != 1 {
		t.Errorf("keyword symbol R@5, MRR = %v, %v; want 1, 1 (the query names the symbol)\n%s", got[0], got[1], table)
	}
	if !strings.Contains(table, "vector, hybrid: not measured — no model") {
		t.Errorf("no line saying the modes were skipped:\n%s", table)
	}
	if strings.Contains(table, "vector: cosine") {
		t.Errorf("vector row printed without a model:\n%s", table)
	}
}

func TestModesWithFixtureModel(t *testing.T) {
	if _, err := embed.FindORTLibrary(); errors.Is(err, embed.ErrORTNotFound) {
		t.Skipf("ONNX Runtime not here, the vector modes cannot run: %v", err)
	}
	corpora, labels := miniCorpus(t)
	var out strings.Builder
	err := run(context.Background(), config{labels: labels, corpora: corpora, variants: 1, out: &out,
		modelDir: fixtureModel, modelFile: filepath.Join(fixtureModel, "model.onnx")})
	if err != nil {
		t.Fatal(err)
	}
	table := out.String()
	// The corpus has one file: any vector hit puts it first, no hit
	// (vectors missing or not searched) leaves file recall at 0.
	for _, row := range []string{"vector: cosine over chunk vectors [smoke test]", "hybrid: keyword + vector, RRF k=60 [smoke test]"} {
		if got := figures(t, table, row); got[2] != 1 {
			t.Errorf("%s: file R@5 = %v, want 1 (the corpus's only file)\n%s", row, got[2], table)
		}
	}
	if !strings.Contains(table, "pipeline smoke test only") {
		t.Errorf("fixture figures not marked as a smoke test:\n%s", table)
	}
}

func TestMismatchedTokenizerIsAnError(t *testing.T) {
	if _, err := embed.FindORTLibrary(); errors.Is(err, embed.ErrORTNotFound) {
		t.Skipf("ONNX Runtime not here: %v", err)
	}
	shared := filepath.Join("..", "..", "..", "shared", "models", "snowflake-arctic-embed-xs")
	if _, err := os.Stat(filepath.Join(shared, "vocab.txt")); err != nil {
		t.Skipf("the real tokenizer is not at %s: %v", shared, err)
	}
	_, _, err := openModel(shared, filepath.Join(fixtureModel, "model.onnx"))
	if err == nil || !strings.Contains(err.Error(), "rejects token id") {
		t.Fatalf("openModel(real tokenizer, fixture model) = %v, want a vocabulary mismatch error", err)
	}
}
