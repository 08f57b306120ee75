package lang

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusRoot is the directory of the benchmark corpus name
// (~/.cache/gitnexus-corpora/NAME, which ../shared/bench/corpora.sh
// fetches). It skips t, saying why, under -short or when the corpus is
// absent.
func corpusRoot(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("corpus %s not read with -short", name)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home directory, so no corpus %s", name)
	}
	root := filepath.Join(home, ".cache", "gitnexus-corpora", name)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus %s absent at %s (fetch it with ../shared/bench/corpora.sh %s)", name, root, name)
	}
	return root
}
