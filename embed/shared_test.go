package embed

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedModelDir finds ../shared/models/snowflake-arctic-embed-xs by
// walking up from the test's directory (the repo clone sits beside
// shared/ here and in CI). It skips the test plainly when absent.
func sharedModelDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "models", "snowflake-arctic-embed-xs")
		if st, err := os.Stat(filepath.Join(p, "vocab.txt")); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("skipped: shared/models/snowflake-arctic-embed-xs (real tokenizer files) not found above the test directory")
		}
		dir = parent
	}
}
