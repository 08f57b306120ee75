package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/models"
)

// model is the embedding model the vector and hybrid modes run with.
type model struct {
	emb *embed.Embedder
	// smoke is set when the weights are not the pinned
	// snowflake-arctic-embed-xs ones (a -model-file, a fixture directory):
	// the modes then only show that the pipeline runs.
	smoke bool
	// why says what smoke means, for the table's footnote.
	why string
}

// noModel is the line printed for the modes not measured when no model
// directory was given or the one given holds no model.
const noModel = "no model (set GITNEXUS_MODEL_DIR or -model-dir to a snowflake-arctic-embed-xs directory; its weights cannot be downloaded on this machine)"

// openModel loads the model of dir (with the ONNX file modelFile instead of
// the directory's own, when set). It returns nil and a one-line reason when
// there is no model to measure with (no directory, no weights in it, no
// ONNX Runtime), and an error when a model is there but unusable.
func openModel(dir, modelFile string) (*model, string, error) {
	if dir == "" {
		if modelFile != "" {
			return nil, "", fmt.Errorf("-model-file needs -model-dir (the directory of the tokenizer that matches it)")
		}
		return nil, noModel, nil
	}
	emb, err := embed.New(embed.Options{ModelDir: dir, ModelFile: modelFile, Device: embed.DeviceCPU})
	switch {
	case err == nil:
	case errors.Is(err, models.ErrModelMissing):
		return nil, fmt.Sprintf("%s: %v", noModel, err), nil
	case errors.Is(err, embed.ErrORTNotFound):
		return nil, fmt.Sprintf("no ONNX Runtime: %v", err), nil
	default:
		return nil, "", fmt.Errorf("load embedding model from %s: %w", dir, err)
	}
	// A model whose vocabulary is smaller than the tokenizer's fails (or
	// reads out of bounds) on the first rare token: try the largest id.
	tok := emb.Tokenizer()
	last := int32(tok.VocabSize() - 1)
	if _, err := emb.EmbedTokenIDs(context.Background(), [][]int32{{tok.CLS(), last, tok.SEP()}}); err != nil {
		emb.Close()
		return nil, "", fmt.Errorf("model %s rejects token id %d of the tokenizer in %s (vocabulary of %d): give -model-dir the tokenizer the model was made with (for the fixture: -model-dir embed/testdata/tiny): %w",
			emb.Paths().ONNX, last, dir, tok.VocabSize(), err)
	}
	m := &model{emb: emb}
	switch {
	case modelFile != "":
		m.smoke, m.why = true, fmt.Sprintf("-model-file %s", modelFile)
	case !pinned(dir, emb.Paths().ONNX):
		m.smoke, m.why = true, fmt.Sprintf("%s is not the pinned %s (sha256 differs or tokenizer files missing)", emb.Paths().ONNX, models.ArcticEmbedXS.Repo)
	}
	return m, "", nil
}

// pinned reports whether onnx is one of the pinned weight files of dir and
// it and the tokenizer files match their sha256 pins.
func pinned(dir, onnx string) bool {
	st := models.ArcticEmbedXS.Check(dir, true)
	if !st.Ready {
		return false
	}
	for _, f := range st.Files {
		if f.Role != models.RoleTokenizer && f.Verified && filepath.Clean(filepath.Join(dir, filepath.FromSlash(f.Path))) == filepath.Clean(onnx) {
			return true
		}
	}
	return false
}

func (m *model) close() {
	if m != nil {
		m.emb.Close()
	}
}

// embedding is the embedding stage of one eval build: the symbols ingest
// streams go to a vectors.Writer too, as in `gitnexus analyze`.
