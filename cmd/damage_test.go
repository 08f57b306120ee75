package cmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/internal/testkit"
)

// runCLIErr is runCLI that also returns what went to stderr.
func runCLIErr(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	stdout, code = runCLI(t, args...)
	os.Stderr = old
	w.Close()
	return stdout, <-done, code
}

// TestDamagedIndexCLI: a tool command on an index whose database is
// garbled in the middle (Kuzu segfaults mid-query on it: this process
// would die) exits 3 with "the index of X is damaged … gitnexus analyze";
// status reports it and exits 3; analyze repairs it.
func TestDamagedIndexCLI(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	repo := filepath.Join(t.TempDir(), "shop")
	if err := os.CopyFS(repo, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	defer func() { flagRepo, flagQuiet = "", false }()
	if _, errOut, code := runCLIErr(t, "analyze", "-q", "--skip-embeddings", repo); code != ExitOK {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	if out, errOut, code := runCLIErr(t, "status", repo); code != ExitOK || !strings.Contains(out, "integrity   ok") {
		t.Fatalf("status of a fresh index: exit %d\n%s%s", code, out, errOut)
	}
	testkit.GarbleIndex(t, repo)

	want := "the index of " + repo + " is damaged"
	for _, args := range [][]string{
		{"-r", repo, "context", "HandleOrder"},
		{"-r", repo, "cypher", "MATCH (n) RETURN count(n)"},
		{"-r", repo, "impact", "validate"},
	} {
		_, errOut, code := runCLIErr(t, args...)
		if code != ExitNotFound || !strings.Contains(errOut, want) || !strings.Contains(errOut, "gitnexus analyze") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	out, errOut, code := runCLIErr(t, "status", repo)
	if code != ExitNotFound || !strings.Contains(out, "integrity   DAMAGED") || !strings.Contains(errOut, want) {
		t.Errorf("status of a damaged index: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = runCLIErr(t, "status", "--json", repo)
	if code != ExitNotFound || !strings.Contains(out, `"code": 3`) || !strings.Contains(out, "is damaged") {
		t.Errorf("status --json of a damaged index: exit %d\n%s", code, out)
	}
	if _, errOut, code := runCLIErr(t, "analyze", "-q", "--skip-embeddings", repo); code != ExitOK {
		t.Fatalf("re-analyze: exit %d: %s", code, errOut)
	}
	if out, errOut, code := runCLIErr(t, "-r", repo, "context", "HandleOrder"); code != ExitOK {
		t.Errorf("after re-analyze: exit %d\n%s%s", code, out, errOut)
	}
}
