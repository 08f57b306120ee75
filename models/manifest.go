package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is one file of a model repository at a pinned revision.
type File struct {
	// Path inside the repository (and inside the local model directory),
	// with '/'.
	Path   string
	Size   int64
	SHA256 string
	// Role says what the file is for.
	Role Role
}

// Role is what a model file is for.
type Role string

const (
	RoleTokenizer Role = "tokenizer" // tokenizer and config files, small
	RoleWeights   Role = "weights"   // fp32 ONNX model
	RoleQuantized Role = "quantized" // int8 ONNX model
)

// Manifest pins a model: repository, revision and files.
type Manifest struct {
	Name     string // local directory name
	Repo     string // Hugging Face repository
	Revision string // commit
	Dim      int    // embedding dimension
	Files    []File
}

// ArcticEmbedXS is snowflake-arctic-embed-xs, the model gitnexus embeds
// with (Apache-2.0). Pins from shared/models/snowflake-arctic-embed-xs.
var ArcticEmbedXS = Manifest{
	Name:     "snowflake-arctic-embed-xs",
	Repo:     "Snowflake/snowflake-arctic-embed-xs",
	Revision: "d8c86521100d3556476a063fc2342036d45c106f",
	Dim:      384,
	Files: []File{
		{"config.json", 737, "d7d071046ab952af96b7abad788db7ab3fc997b465e1b9914ff39707092254ec", RoleTokenizer},
		{"special_tokens_map.json", 695, "5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a", RoleTokenizer},
		{"tokenizer.json", 711649, "91f1def9b9391fdabe028cd3f3fcc4efd34e5d1f08c3bf2de513ebb5911a1854", RoleTokenizer},
		{"tokenizer_config.json", 1433, "9ca59277519f6e3692c8685e26b94d4afca2d5438deff66483db495e48735810", RoleTokenizer},
		{"vocab.txt", 231508, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3", RoleTokenizer},
		{"onnx/model.onnx", 90387631, "cf2698d30ff05da02c70a088313bad56e5c2f401d734cb24a8390d446111936c", RoleWeights},
		{"onnx/model_quantized.onnx", 22972992, "e6aa5e656466a73d7c3111e9a3378bd13e5b93af30eaac2b3f13fd56692589a1", RoleQuantized},
	},
}

// Wanted lists the files a pull fetches: the tokenizer files plus the fp32
// weights, or the int8 weights when quantized.
func (m Manifest) Wanted(quantized bool) []File {
	var fs []File
	for _, f := range m.Files {
		switch {
		case f.Role == RoleTokenizer,
			f.Role == RoleWeights && !quantized,
			f.Role == RoleQuantized && quantized:
			fs = append(fs, f)
		}
	}
	return fs
}

// URL is where f is downloaded from, under base (the Hugging Face host
// unless a test or mirror says otherwise).
func (m Manifest) URL(base string, f File) string {
	if base == "" {
		base = DefaultBaseURL
	}
	return fmt.Sprintf("%s/%s/resolve/%s/%s", base, m.Repo, m.Revision, f.Path)
}

// DefaultBaseURL is the Hugging Face host.
const DefaultBaseURL = "https://huggingface.co"

// EnvHome overrides the gitnexus home directory (default ~/.gitnexus).
const EnvHome = "GITNEXUS_HOME"

// EnvModelDir points at a model directory, as --model-dir does.
const EnvModelDir = "GITNEXUS_MODEL_DIR"

// Home is $GITNEXUS_HOME, else ~/.gitnexus.
func Home() (string, error) {
	if h := os.Getenv(EnvHome); h != "" {
		return h, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory (set %s): %w", EnvHome, err)
	}
	return filepath.Join(u, ".gitnexus"), nil
}

// Dir is the model directory to use: explicit when not "", else
// $GITNEXUS_MODEL_DIR, else Home()/models/<m.Name>.
func (m Manifest) Dir(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if d := os.Getenv(EnvModelDir); d != "" {
		return d, nil
	}
	h, err := Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "models", m.Name), nil
}

// ErrModelMissing is wrapped by every error that means "the embedding
// model is not on this machine". Callers degrade to keyword-only search.
var ErrModelMissing = errors.New("embedding model not found")

// Paths are the files of a usable model directory.
type Paths struct {
	Dir       string // the model directory
	Tokenizer string // tokenizer.json or vocab.txt
	ONNX      string // the ONNX model file
	Quantized bool   // ONNX is the int8 model
}

// Find locates the tokenizer and the ONNX model in dir. It accepts the
// repository layout (onnx/model.onnx) and a flat one (model.onnx); fp32 is
// preferred unless quantized is set (then int8 is preferred). When dir
// lacks the tokenizer or the model, the error wraps ErrModelMissing and
// says how to get it; Paths then still carries what was found.
func Find(dir string, quantized bool) (Paths, error) {
	p := Paths{Dir: dir}
	for _, n := range []string{"tokenizer.json", "vocab.txt"} {
		if isFile(filepath.Join(dir, n)) {
			p.Tokenizer = filepath.Join(dir, n)
			break
		}
	}
	fp32 := []string{"onnx/model.onnx", "model.onnx"}
	int8 := []string{"onnx/model_quantized.onnx", "model_quantized.onnx", "onnx/model_int8.onnx"}
	order := append(append([]string{}, fp32...), int8...)
	if quantized {
		order = append(append([]string{}, int8...), fp32...)
	}
	for _, n := range order {
		if f := filepath.Join(dir, filepath.FromSlash(n)); isFile(f) {
			p.ONNX = f
			p.Quantized = n != fp32[0] && n != fp32[1]
			break
		}
	}
	switch {
	case p.Tokenizer == "" && p.ONNX == "":
		return p, fmt.Errorf("%w in %s: run `gitnexus model pull` or pass --model-dir DIR", ErrModelMissing, dir)
	case p.Tokenizer == "":
		return p, fmt.Errorf("%w: %s has no tokenizer.json or vocab.txt: run `gitnexus model pull`", ErrModelMissing, dir)
	case p.ONNX == "":
		return p, fmt.Errorf("%w: %s has the tokenizer but no onnx/model.onnx: run `gitnexus model pull`", ErrModelMissing, dir)
	}
	return p, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
