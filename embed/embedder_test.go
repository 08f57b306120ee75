package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/models"
)

const fixtureDir = "testdata/tiny"

// newFixture opens the committed tiny BERT fixture on the CPU. Without the
// ONNX Runtime library the test is skipped, saying so.
func newFixture(t testing.TB, o Options) *Embedder {
	t.Helper()
	o.ModelDir = fixtureDir
	if o.Device == "" {
		o.Device = DeviceCPU
	}
	e, err := New(o)
	if errors.Is(err, ErrORTNotFound) {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestFixtureMatchesReferenceForward compares the Go pipeline (ORT + CLS
// pooling + L2) with gen_fixture.py's numpy forward pass of the same graph.
func TestFixtureMatchesReferenceForward(t *testing.T) {
	e := newFixture(t, Options{})
	data, err := os.ReadFile(filepath.Join(fixtureDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		InputIDs [][]int32   `json:"input_ids"`
		Vectors  [][]float32 `json:"vectors"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	got, err := e.EmbedTokenIDs(context.Background(), exp.InputIDs)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 32 {
		t.Errorf("Dim = %d, want 32", e.Dim())
	}
	for i := range exp.Vectors {
		if d := maxAbsDiff(got[i], exp.Vectors[i]); d > 1e-4 {
			t.Errorf("sequence %d: max |Go - numpy| = %g", i, d)
		}
		if n := Norm(got[i]); math.Abs(n-1) > 1e-5 {
			t.Errorf("sequence %d: norm %v", i, n)
		}
	}
}

// TestPaddingInvariance: a text embeds the same alone as in a batch with
// longer texts (which pads it), and results come back in input order.
func TestPaddingInvariance(t *testing.T) {
	e := newFixture(t, Options{})
	ctx := context.Background()
	short := "hello world"
	others := []string{
		"the data cloud is an example passage for searching relevant passages",
		strings.Repeat("func return error string class method ", 20),
		"what is snowflake",
	}
	alone, err := e.EmbedDocuments(ctx, []string{short})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := e.EmbedDocuments(ctx, append(others, short))
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(alone[0], batch[3]); d > 1e-5 {
		t.Errorf("padding changed the embedding: max diff %g", d)
	}
	for i, text := range others {
		one, err := e.EmbedDocuments(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(one[0], batch[i]); d > 1e-5 {
			t.Errorf("text %d: batched result differs from alone by %g (order lost?)", i, d)
		}
	}
	// Different texts must give different vectors (the fixture is not
	// degenerate, so the checks above can fail).
	if d := maxAbsDiff(batch[0], batch[3]); d < 1e-3 {
		t.Errorf("different texts embed alike (diff %g)", d)
	}
	// Batch size 1 and a tight token budget split differently, same values.
	small := newFixture(t, Options{BatchSize: 1, MaxBatchTokens: 16})
	again, err := small.EmbedDocuments(ctx, append(others, short))
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if d := maxAbsDiff(again[i], batch[i]); d > 1e-5 {
			t.Errorf("text %d: batch size 1 differs by %g", i, d)
		}
	}
	st := e.Stats()
	if st.Sequences == 0 || st.PaddedTokens < st.Tokens {
		t.Errorf("stats not counted: %+v", st)
	}
}

func TestQueryPrefix(t *testing.T) {
	e := newFixture(t, Options{})
	ctx := context.Background()
	q, err := e.EmbedQuery(ctx, "what is snowflake")
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.EmbedDocuments(ctx, []string{QueryPrefix + "what is snowflake", "what is snowflake"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := maxAbsDiff(q, d[0]); diff > 1e-6 {
		t.Errorf("query != document with the prefix (diff %g)", diff)
	}
	if diff := maxAbsDiff(q, d[1]); diff < 1e-3 {
		t.Errorf("query embedded without its prefix")
	}
}

func TestContextCancel(t *testing.T) {
	e := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedDocuments(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestDeviceFallback: CUDA provider libraries are not installed here, so
// auto must fall back to the CPU saying why, and an explicit cuda (or dml
// off Windows) must fail with ErrDeviceUnavailable.
func TestDeviceFallback(t *testing.T) {
	auto := newFixture(t, Options{Device: DeviceAuto})
	dev, why := auto.Device()
	if dev == DeviceCUDA {
		t.Skipf("skipped: the CUDA execution provider loaded on this machine (%s); the fallback cannot be observed", why)
	}
	if dev != DeviceCPU || !strings.Contains(why, "unavailable, using CPU") {
		t.Errorf("auto chose %s (%q), want cpu with the reason", dev, why)
	}
	for _, d := range []Device{DeviceCUDA, DeviceDML} {
		_, err := New(Options{ModelDir: fixtureDir, Device: d})
		if !errors.Is(err, ErrDeviceUnavailable) || !strings.Contains(err.Error(), "--device "+string(d)) {
			t.Errorf("--device %s: err = %v, want ErrDeviceUnavailable naming the flag", d, err)
		}
	}
	cpu := newFixture(t, Options{Device: DeviceCPU})
	if dev, why := cpu.Device(); dev != DeviceCPU || why != "cpu requested" {
		t.Errorf("cpu: %s %q", dev, why)
	}
	if _, err := ParseDevice("tpu"); err == nil {
		t.Error("ParseDevice(tpu) accepted")
	}
	if _, err := New(Options{ModelDir: fixtureDir, Device: "tpu"}); err == nil {
		t.Error("New accepted device tpu")
	}
}

func TestModelMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := New(Options{ModelDir: dir})
	if !errors.Is(err, models.ErrModelMissing) {
		t.Fatalf("empty dir: %v, want ErrModelMissing", err)
	}
	// Tokenizer only: still ErrModelMissing, and the tokenizer loads.
	vocab, _ := os.ReadFile(filepath.Join(fixtureDir, "vocab.txt"))
	os.WriteFile(filepath.Join(dir, "vocab.txt"), vocab, 0o644)
	if _, err := New(Options{ModelDir: dir}); !errors.Is(err, models.ErrModelMissing) {
		t.Fatalf("tokenizer only: %v, want ErrModelMissing", err)
	}
	if _, err := LoadTokenizer(dir); err != nil {
		t.Fatal(err)
	}
}

func TestORTLibraryAndVersion(t *testing.T) {
	for v, ok := range map[string]bool{"1.24.1": true, "1.24": true, "1.30.0": true, "2.0.0": true, "1.23.2": false, "1.9.0": false, "0.99": false, "garbage": false, "": false} {
		if err := checkORTVersion(v); (err == nil) != ok {
			t.Errorf("checkORTVersion(%q) = %v", v, err)
		}
	}
	t.Setenv(EnvORTLib, "/nonexistent/libonnxruntime.so.1")
	if _, err := FindORTLibrary(); err == nil || !strings.Contains(err.Error(), EnvORTLib) {
		t.Errorf("bad %s: err = %v", EnvORTLib, err)
	}
	t.Setenv(EnvORTLib, "")
	lib, err := FindORTLibrary()
	if errors.Is(err, ErrORTNotFound) {
		if !strings.Contains(err.Error(), "fetch-ort.sh") || !strings.Contains(err.Error(), EnvORTLib) {
			t.Errorf("not-found error does not say what to do: %v", err)
		}
		t.Skipf("skipped the loaded-version check: %v", err)
	}
	if err := InitORT(); err != nil {
		t.Fatalf("InitORT with %s: %v", lib, err)
	}
	if err := checkORTVersion(ORTVersion()); err != nil {
		t.Errorf("loaded ORT: %v", err)
	}
	t.Logf("ONNX Runtime %s from %s", ORTVersion(), ORTLibrary())
}
