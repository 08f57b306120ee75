package embed

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/models"
)

// TestReferenceEmbeddings checks the published values of
// reference_embeddings.json (fastembed, fastembed-rs, the model card)
// against the real weights. It needs the model: set GITNEXUS_MODEL_DIR to a
// directory holding onnx/model.onnx (or model.onnx) and the tokenizer.
func TestReferenceEmbeddings(t *testing.T) {
	dir := os.Getenv(models.EnvModelDir)
	if dir == "" {
		t.Skip("skipped: GITNEXUS_MODEL_DIR is not set, so the published reference embeddings were not checked against real weights (run `gitnexus model pull` on a machine with network, then set it)")
	}
	e, err := New(Options{ModelDir: dir, Device: DeviceCPU})
	if err != nil {
		t.Fatalf("load model from %s: %v", dir, err)
	}
	defer e.Close()
	data, err := os.ReadFile(filepath.Join(sharedModelDir(t), "reference_embeddings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Sources []json.RawMessage `json:"sources"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, raw := range ref.Sources {
		var src struct {
			ID     string                        `json:"id"`
			Text   string                        `json:"text"`
			First5 []float64                     `json:"first5"`
			Texts  []string                      `json:"texts"`
			FP32   []float64                     `json:"SnowflakeArcticEmbedXS_fp32_onnx/model.onnx"`
			Int8   []float64                     `json:"SnowflakeArcticEmbedXSQ_int8_onnx/model_quantized.onnx"`
			Scores map[string]map[string]float64 `json:"scores"`
		}
		if err := json.Unmarshal(raw, &src); err != nil {
			t.Fatal(err)
		}
		switch src.ID {
		case "fastembed-python":
			vs, err := e.EmbedDocuments(ctx, []string{src.Text, "flag embedding"})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range src.First5 {
				if math.Abs(float64(vs[0][i])-want) > 1e-3 {
					t.Errorf("%s: dim %d = %v, want %v ±1e-3", src.ID, i, vs[0][i], want)
				}
			}
		case "fastembed-rs":
			want := src.FP32
			if e.Paths().Quantized {
				want = src.Int8
			}
			vs, err := e.EmbedDocuments(ctx, src.Texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vs {
				var sum float64
				for _, x := range v {
					sum += float64(x)
				}
				if math.Abs(sum-want[i]) > 1e-2 {
					t.Errorf("%s: sum(%q) = %v, want %v ±1e-2", src.ID, src.Texts[i], sum, want[i])
				}
			}
		case "hf-model-card-sentence-transformers":
			for q, docs := range src.Scores {
				qv, err := e.EmbedQuery(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for d, want := range docs {
					dv, err := e.EmbedDocuments(ctx, []string{d})
					if err != nil {
						t.Fatal(err)
					}
					if got := Dot(qv, dv[0]); math.Abs(float64(got)-want) > 1e-3 {
						t.Errorf("%s: score(%q, %q) = %v, want %v ±1e-3", src.ID, q, d, got, want)
					}
				}
			}
		}
	}
}
