package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileStatus is what Check found for one manifest file.
type FileStatus struct {
	Path     string `json:"path"`
	Role     Role   `json:"role"`
	Present  bool   `json:"present"`
	Size     int64  `json:"size"`              // bytes on disk (0 when absent)
	Want     int64  `json:"want_size"`         // pinned size
	Verified bool   `json:"verified"`          // sha256 matches the pin (only when Check hashed it)
	Problem  string `json:"problem,omitempty"` // why it is unusable, if it is
	Partial  int64  `json:"partial,omitempty"` // bytes of an unfinished download (<path>.part)
}

// Status is the state of a model directory.
type Status struct {
	Model    string       `json:"model"`
	Revision string       `json:"revision"`
	Dir      string       `json:"dir"`
	Files    []FileStatus `json:"files"`
	// Ready: the tokenizer files and at least one ONNX model are present
	// with their pinned sizes (and hashes, when verified).
	Ready bool `json:"ready"`
	// Hashed says whether sha256 sums were computed.
	Hashed bool `json:"hashed"`
}

// Check reports which manifest files dir holds. With hash set it computes
// each present file's sha256 (about a second for the fp32 model).
func (m Manifest) Check(dir string, hash bool) Status {
	st := Status{Model: m.Repo, Revision: m.Revision, Dir: dir, Hashed: hash}
	tokOK, weightsOK := true, false
	for _, f := range m.Files {
		fs := FileStatus{Path: f.Path, Role: f.Role, Want: f.Size}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if info, err := os.Stat(p + ".part"); err == nil {
			fs.Partial = info.Size()
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			fs.Problem = "missing"
		case !info.Mode().IsRegular():
			fs.Problem = "not a regular file"
		default:
			fs.Present, fs.Size = true, info.Size()
			if fs.Size != f.Size {
				fs.Problem = fmt.Sprintf("size %d, want %d", fs.Size, f.Size)
			} else if hash {
				sum, err := fileSHA256(p)
				switch {
				case err != nil:
					fs.Problem = err.Error()
				case sum != f.SHA256:
					fs.Problem = fmt.Sprintf("sha256 %s, want %s", sum, f.SHA256)
				default:
					fs.Verified = true
				}
			}
		}
		usable := fs.Problem == ""
		switch f.Role {
		case RoleTokenizer:
			tokOK = tokOK && usable
		default:
			weightsOK = weightsOK || usable
		}
		st.Files = append(st.Files, fs)
	}
	st.Ready = tokOK && weightsOK
	return st
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
