package writeback

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStartLeavesTheFile: starting the writeback of a file changes
// neither its bytes nor its offset.
func TestStartLeavesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := bytes.Repeat([]byte("gitnexus "), 1<<16)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	Start(f)
	if off, err := f.Seek(0, 1); err != nil || off != int64(len(data)) {
		t.Fatalf("offset after Start: %d, %v; want %d", off, err, len(data))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file changed by Start (%d bytes, %v)", len(got), err)
	}
}
