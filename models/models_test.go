package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fakeModel is a manifest of generated files, with the server that serves
// them the way Hugging Face's resolve URLs do (Range → 206).
type fakeModel struct {
	m       Manifest
	content map[string][]byte // by repo path

	mu       sync.Mutex
	requests []string       // "path range"
	truncate map[string]int // path → serve only this many bytes once
	corrupt  map[string]bool
}

func newFakeModel() *fakeModel {
	fm := &fakeModel{content: map[string][]byte{}, truncate: map[string]int{}, corrupt: map[string]bool{}}
	fm.m = Manifest{Name: "fake", Repo: "org/fake", Revision: "0123abcd", Dim: 8}
	add := func(path string, size int, role Role) {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i*7 + len(path))
		}
		fm.content[path] = b
		fm.m.Files = append(fm.m.Files, File{path, int64(size), sha256Hex(b), role})
	}
	add("tokenizer.json", 1000, RoleTokenizer)
	add("vocab.txt", 300, RoleTokenizer)
	add("onnx/model.onnx", 200_000, RoleWeights)
	add("onnx/model_quantized.onnx", 50_000, RoleQuantized)
	return fm
}

func (fm *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix := "/" + fm.m.Repo + "/resolve/" + fm.m.Revision + "/"
	path, ok := strings.CutPrefix(r.URL.Path, prefix)
	body, found := fm.content[path]
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	fm.mu.Lock()
	fm.requests = append(fm.requests, path+" "+r.Header.Get("Range"))
	cut, trunc := fm.truncate[path]
	delete(fm.truncate, path)
	bad := fm.corrupt[path]
	fm.mu.Unlock()
	if bad {
		body = append([]byte{}, body...)
		body[len(body)/2] ^= 0xFF
	}
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		if err != nil || n >= len(body) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", n, len(body)-1, len(body)))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)-start))
	if start > 0 {
		w.WriteHeader(http.StatusPartialContent)
	}
	if trunc {
		// Promise the whole body, send part of it, drop the connection.
		w.Write(body[start:cut])
		if hj, ok := w.(http.Hijacker); ok {
			w.(http.Flusher).Flush()
			c, _, _ := hj.Hijack()
			c.Close()
		}
		return
	}
	w.Write(body[start:])
}

func TestPullFreshAndIdempotent(t *testing.T) {
	fm := newFakeModel()
	srv := httptest.NewServer(fm)
	defer srv.Close()
	dir := t.TempDir()
	var progress strings.Builder
	if err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	for _, f := range fm.m.Wanted(false) {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if sha256Hex(got) != f.SHA256 {
			t.Errorf("%s: wrong content", f.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "onnx/model_quantized.onnx")); err == nil {
		t.Error("fp32 pull fetched the quantized model too")
	}
	if !strings.Contains(progress.String(), "onnx/model.onnx: downloaded, sha256 verified") {
		t.Errorf("progress output lacks the verified line:\n%s", progress.String())
	}
	st := fm.m.Check(dir, true)
	if !st.Ready {
		t.Errorf("Check after pull: not ready: %+v", st)
	}
	n := len(fm.requests)
	if err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if len(fm.requests) != n {
		t.Errorf("second pull made %d requests, want none", len(fm.requests)-n)
	}
	// --quantized adds the int8 model.
	if err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL, Quantized: true}); err != nil {
		t.Fatal(err)
	}
	p, err := Find(dir, true)
	if err != nil || !p.Quantized || !strings.HasSuffix(p.ONNX, "model_quantized.onnx") {
		t.Errorf("Find(quantized) = %+v, %v", p, err)
	}
}

func TestPullResumesTruncatedDownload(t *testing.T) {
	fm := newFakeModel()
	fm.truncate["onnx/model.onnx"] = 70_000
	srv := httptest.NewServer(fm)
	defer srv.Close()
	dir := t.TempDir()
	err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("first pull: err = %v, want a truncated-download error mentioning resume", err)
	}
	part := filepath.Join(dir, "onnx/model.onnx.part")
	info, statErr := os.Stat(part)
	if statErr != nil || info.Size() != 70_000 {
		t.Fatalf("after the cut: .part = %v, %v; want 70000 bytes", info, statErr)
	}
	if _, err := os.Stat(filepath.Join(dir, "onnx/model.onnx")); err == nil {
		t.Fatal("a truncated download was installed under the final name")
	}
	if st := fm.m.Check(dir, false); st.Files[2].Partial != 70_000 || st.Ready {
		t.Errorf("Check during partial download: %+v", st.Files[2])
	}
	if err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	last := fm.requests[len(fm.requests)-1]
	if last != "onnx/model.onnx bytes=70000-" {
		t.Errorf("resume request = %q, want a Range from byte 70000", last)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "onnx/model.onnx"))
	if sha256Hex(got) != fm.m.Files[2].SHA256 {
		t.Error("resumed file has the wrong content")
	}
	if _, err := os.Stat(part); err == nil {
		t.Error(".part left behind after a complete download")
	}
}

func TestPullChecksumMismatch(t *testing.T) {
	fm := newFakeModel()
	fm.corrupt["onnx/model.onnx"] = true
	srv := httptest.NewServer(fm)
	defer srv.Close()
	dir := t.TempDir()
	err := fm.m.Pull(context.Background(), dir, PullOptions{BaseURL: srv.URL})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("err = %v, want ErrChecksum", err)
	}
	if !strings.Contains(err.Error(), "onnx/model.onnx") || !strings.Contains(err.Error(), fm.m.Files[2].SHA256) {
		t.Errorf("error does not name the file and the pin: %v", err)
	}
	for _, p := range []string{"onnx/model.onnx", "onnx/model.onnx.part"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s exists after a checksum mismatch", p)
		}
	}
	_, ferr := Find(dir, false)
	if !errors.Is(ferr, ErrModelMissing) {
		t.Errorf("Find after failed pull: %v, want ErrModelMissing", ferr)
	}
}

func TestPullNoRoute(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	err := ArcticEmbedXS.Pull(context.Background(), t.TempDir(), PullOptions{BaseURL: url})
	if err == nil || !strings.Contains(err.Error(), "no network route?") || !strings.Contains(err.Error(), "--model-dir") {
		t.Fatalf("err = %v, want the clear no-route message", err)
	}
}

func TestFindAndDir(t *testing.T) {
	dir := t.TempDir()
	_, err := Find(dir, false)
	if !errors.Is(err, ErrModelMissing) || !strings.Contains(err.Error(), "gitnexus model pull") {
		t.Fatalf("empty dir: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte("[PAD]\n"), 0o644)
	p, err := Find(dir, false)
	if !errors.Is(err, ErrModelMissing) || p.Tokenizer == "" || !strings.Contains(err.Error(), "no onnx/model.onnx") {
		t.Fatalf("tokenizer only: %+v %v", p, err)
	}
	os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("x"), 0o644) // flat layout
	if p, err = Find(dir, false); err != nil || p.Quantized || p.ONNX != filepath.Join(dir, "model.onnx") {
		t.Fatalf("flat layout: %+v %v", p, err)
	}
	t.Setenv(EnvModelDir, "")
	t.Setenv(EnvHome, "/tmp/gnhome")
	if d, _ := ArcticEmbedXS.Dir(""); d != "/tmp/gnhome/models/snowflake-arctic-embed-xs" {
		t.Errorf("Dir = %s", d)
	}
	if d, _ := ArcticEmbedXS.Dir("/x"); d != "/x" {
		t.Errorf("explicit Dir = %s", d)
	}
	if got := ArcticEmbedXS.URL("", ArcticEmbedXS.Files[5]); got != "https://huggingface.co/Snowflake/snowflake-arctic-embed-xs/resolve/d8c86521100d3556476a063fc2342036d45c106f/onnx/model.onnx" {
		t.Errorf("URL = %s", got)
	}
}

// TestManifestMatchesSharedPins checks the tokenizer pins against the
// shared copy of the real files (skipped plainly when it is absent).
func TestManifestMatchesSharedPins(t *testing.T) {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "models", "snowflake-arctic-embed-xs")
		if _, err := os.Stat(filepath.Join(p, "SHA256SUMS")); err == nil {
			dir = p
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("skipped: shared/models/snowflake-arctic-embed-xs not found above the test directory")
		}
		dir = filepath.Dir(dir)
	}
	st := ArcticEmbedXS.Check(dir, true)
	for _, f := range st.Files {
		if f.Role == RoleTokenizer && !f.Verified {
			t.Errorf("%s: %s", f.Path, f.Problem)
		}
		if f.Role != RoleTokenizer && f.Present {
			t.Logf("%s present in shared (verified=%v)", f.Path, f.Verified)
		}
	}
}
