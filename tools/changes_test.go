package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

// noIndex answers every query with no rows: DetectChanges then reports the
// diff's files, none of them indexed.
type noIndex struct{}

func (noIndex) Query(context.Context, string, map[string]any) (*graph.Result, error) {
	return &graph.Result{}, nil
}

// emptyIndex is an index with nothing in it (a pack built from noIndex).
func emptyIndex(t *testing.T) Index {
	t.Helper()
	p, err := query.BuildPack(context.Background(), noIndex{})
	if err != nil {
		t.Fatal(err)
	}
	return Index{Graph: &p.Snapshot}
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestDetectChangesOddNames changes files whose names hold a space, a tab,
// a newline, quotes, a backslash, a leading dash, non-ASCII and non-UTF-8
// bytes, and renames one, in a real git repository: every one is reported
// under its exact name with its changed lines.
func TestDetectChangesOddNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	names := []string{"plain.go", "a b.go", "tab\there.go", "new\nline.go", `quo"te's.go`,
		`back\slash.go`, "-leading.go", "grüße.go", "bad\xffbyte.go", "dir with space/x.go"}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "old name.go"), []byte("r\nr\nr\nr\nr\nr\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "init")
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("one\nTWO\nthree\nfour\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, dir, "mv", "old name.go", "new\tname.go")
	if err := os.WriteFile(filepath.Join(dir, "new\tname.go"), []byte("r\nr\nr\nr\nr\nr\nr7\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	out, err := DetectChanges(ctx, emptyIndex(t), dir, DetectChangesInput{Scope: "all"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]LineRange{}
	for _, f := range out.Files {
		got[f.Path] = f.Ranges
	}
	want := map[string][]LineRange{"new\tname.go": {{7, 7}}}
	for _, n := range names {
		want[n] = []LineRange{{2, 2}, {4, 4}}
	}
	if !reflect.DeepEqual(got, want) {
		var g []string
		for p := range got {
			g = append(g, p)
		}
		sort.Strings(g)
		t.Errorf("files = %q\nranges %v\nwant %v", g, got, want)
	}

	// Unstaged only: the rename is staged, its later edit is not.
	out, err = DetectChanges(ctx, emptyIndex(t), dir, DetectChangesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Files) != len(names)+1 {
		t.Errorf("unstaged: %d files, want %d", len(out.Files), len(names)+1)
	}
}

// TestDetectChangesNotGit: outside git the answer is one clear line, not
// git's usage text.
func TestDetectChangesNotGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // never find a repo above
	_, err := DetectChanges(context.Background(), emptyIndex(t), dir, DetectChangesInput{})
	if err == nil {
		t.Fatal("no error outside git")
	}
	msg := err.Error()
	if !errors.Is(err, ErrInput) || !strings.Contains(msg, "is not a git repository: detect_changes compares against git") ||
		strings.Contains(msg, "\n") || len(msg) > 300 {
		t.Errorf("error = %q, want one line saying it is not a git repository", msg)
	}
}
