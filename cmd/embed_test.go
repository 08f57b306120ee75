package cmd

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gitnexus/gitnexus/embed"
)

// runCLI runs the root command with args and returns stdout and the exit code.
func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	rootCmd.SetArgs(args)
	code := Execute()
	os.Stdout = old
	w.Close()
	out, _ := io.ReadAll(r)
	// flags persist between Execute calls: reset the ones these tests set
	flagJSON, embedFlags.query, embedFlags.modelDir, modelFlags.dir = false, false, "", ""
	flagRepo = ""
	embedFlags.device = "auto"
	return string(out), code
}

func fixtureModelDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "embed", "testdata", "tiny")
}

func TestEmbedCommandJSON(t *testing.T) {
	if _, err := embed.FindORTLibrary(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	dir := fixtureModelDir(t)
	out, code := runCLI(t, "embed", "hello world", "--json", "--model-dir", dir, "--device", "cpu")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got embedOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if len(got.InputIDs) != 4 || got.InputIDs[0] != 2 || got.InputIDs[3] != 3 {
		t.Errorf("input_ids %v", got.InputIDs)
	}
	if got.ModelMissing != "" || len(got.Vector) != 32 || got.Dim != 32 || got.Device != "cpu" || math.Abs(got.Norm-1) > 1e-5 {
		t.Errorf("vector %d dims, norm %v, device %q, missing %q", len(got.Vector), got.Norm, got.Device, got.ModelMissing)
	}
}

func TestEmbedCommandTokenizerOnly(t *testing.T) {
	dir := t.TempDir()
	vocab, err := os.ReadFile(filepath.Join(fixtureModelDir(t), "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "vocab.txt"), vocab, 0o644)
	out, code := runCLI(t, "embed", "hello", "--json", "--query", "--model-dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got embedOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Vector != nil || got.ModelMissing == "" || len(got.InputIDs) < 3 || !got.Query {
		t.Errorf("tokenizer-only output: %+v", got)
	}
	// No tokenizer at all: exit 3 (not found).
	if _, code := runCLI(t, "embed", "hello", "--model-dir", t.TempDir()); code != ExitNotFound {
		t.Errorf("empty model dir: exit %d, want %d", code, ExitNotFound)
	}
	if _, code := runCLI(t, "embed", "x", "--device", "tpu"); code != ExitUsage {
		t.Errorf("bad device: exit %d, want %d", code, ExitUsage)
	}
}

func TestModelStatusJSON(t *testing.T) {
	out, code := runCLI(t, "model", "status", "--json", "--model-dir", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var st struct {
		Ready bool `json:"ready"`
		Files []struct {
			Path    string `json:"path"`
			Present bool   `json:"present"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st.Ready || len(st.Files) != 7 || st.Files[0].Present {
		t.Errorf("status of an empty dir: %+v", st)
	}
}
