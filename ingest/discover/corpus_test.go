package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestCorpusTiming logs how long discovery takes on large real trees. It
// asserts nothing about time (machines are noisy), only that the run works
// and finds a plausible number of files. The kubernetes corpus is brought
// by ../shared/bench/corpora.sh into $HOME/.cache/gitnexus-corpora (a Go
// module download, not a git repository: this times the walk);
// $GITNEXUS_DISCOVER_CORPUS names one more tree to time, a git clone say.
func TestCorpusTiming(t *testing.T) {
	home, _ := os.UserHomeDir()
	roots := []string{filepath.Join(home, ".cache", "gitnexus-corpora", "kubernetes")}
	if extra := os.Getenv("GITNEXUS_DISCOVER_CORPUS"); extra != "" {
		roots = append(roots, extra)
	}
	ran := 0
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			t.Logf("no corpus at %s (../shared/bench/corpora.sh kubernetes brings it): %v", root, err)
			continue
		}
		ran++
		for run := range 2 { // the first run may read a cold cache
			start := time.Now()
			res, err := Discover(t.Context(), root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			langs := map[string]int{}
			for _, f := range res.Files {
				langs[f.Language]++
			}
			t.Logf("%s run %d: git=%v files=%d in %v; languages %v; skipped %v",
				filepath.Base(root), run+1, res.Git, len(res.Files), elapsed, langs, res.Skipped)
			if run == 0 {
				for _, r := range sortedKeys(res.Examples) {
					t.Logf("  %s: %v", r, res.Examples[r])
				}
			}
			if len(res.Files) < 1000 {
				t.Errorf("only %d files in %s", len(res.Files), root)
			}
		}
	}
	if ran == 0 {
		t.Skip("no large corpus present: nothing to time")
	}
}

func sortedKeys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// BenchmarkDiscover times discovery of a synthetic 20,000-file tree, walked
// and through git: go test -bench Discover -run XXX ./ingest/discover/
func BenchmarkDiscover(b *testing.B) {
	root := b.TempDir()
	for i := range 20000 {
		write(b, root, fmt.Sprintf("pkg%03d/sub%d/file%d.go", i%200, i%7, i), "package p\n\nfunc F() {}\n")
	}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			res, err := Discover(b.Context(), root, Options{})
			if err != nil || len(res.Files) != 20000 {
				b.Fatalf("%v, %d files", err, len(res.Files))
			}
		}
	})
	needGit(b)
	run(b, root, "init", "-q")
	run(b, root, "add", "-A")
	b.Run("git", func(b *testing.B) {
		for b.Loop() {
			res, err := Discover(b.Context(), root, Options{})
			if err != nil || !res.Git || len(res.Files) != 20000 {
				b.Fatalf("%v, git=%v, %d files", err, res != nil && res.Git, len(res.Files))
			}
		}
	})
}
