package graph

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func runGitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := osexec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCheckStale: an index is fresh until HEAD moves or an indexed file is
// modified or deleted; HEAD is read from the git files (loose ref, then
// packed-refs) and agrees with git rev-parse.
func TestCheckStale(t *testing.T) {
	dir := t.TempDir()
	runGitIn(t, dir, "init", "-q", "-b", "main")
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runGitIn(t, dir, "add", "-A")
	runGitIn(t, dir, "commit", "-q", "-m", "one")
	head := runGitIn(t, dir, "rev-parse", "HEAD")
	if got, err := gitHead(dir); err != nil || got != head {
		t.Fatalf("gitHead = %q, %v; want %s", got, err, head)
	}
	m := &Meta{Commit: head, IndexedAt: time.Now().Add(time.Minute), Files: map[string]string{"a.go": "x", "b.go": "y"}}
	if s := CheckStale(dir, m); s != nil {
		t.Fatalf("fresh index reported stale: %+v", s)
	}
	// An indexed file deleted, another touched after the index.
	if err := os.Remove(filepath.Join(dir, "b.go")); err != nil {
		t.Fatal(err)
	}
	m.IndexedAt = time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "a.go"), time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	s := CheckStale(dir, m)
	if s == nil || s.ChangedFiles != 2 || s.HeadMoved || !strings.Contains(s.Note, "2 indexed files changed") {
		t.Fatalf("after deleting b.go and touching a.go: %+v", s)
	}
	// A file added beside the indexed ones (with an indexed extension) is
	// seen; one with another extension is not.
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Files = map[string]string{"a.go": "x"}
	m.IndexedAt = time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "a.go"), m.IndexedAt.Add(-time.Minute), m.IndexedAt.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"new.go", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s = CheckStale(dir, m)
	if s == nil || s.AddedFiles != 2 || strings.Join(s.Added, ",") != "b.go,new.go" || !strings.Contains(s.Note, "2 files added since") {
		t.Fatalf("after adding b.go, new.go and notes.txt: %+v", s)
	}
	m.Files = map[string]string{"a.go": "x", "b.go": "y"}
	// HEAD moves: a new commit, then the refs packed.
	m.IndexedAt = time.Now().Add(time.Minute)
	runGitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	runGitIn(t, dir, "pack-refs", "--all")
	s = CheckStale(dir, m)
	want := runGitIn(t, dir, "rev-parse", "HEAD")
	if s == nil || !s.HeadMoved || s.Head != want {
		t.Fatalf("after a commit (refs packed): %+v; want HEAD %s", s, want)
	}
}

// TestCheckStaleCachedRefreshesBehind: the first call checks; a change is
// not seen before staleTTL, and after it the call that finds the answer
// old still gets it at once while a refresh runs, whose answer a later
// call gets.
func TestCheckStaleCachedRefreshesBehind(t *testing.T) {
	old := staleTTL
	staleTTL = 50 * time.Millisecond
	defer func() { staleTTL = old }()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Meta{DBFile: "db-test", IndexedAt: time.Now().Add(time.Minute), Files: map[string]string{"a.go": "x"}}
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("fresh index reported stale: %+v", s)
	}
	if err := os.Remove(filepath.Join(dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("the cached answer was not reused: %+v", s)
	}
	time.Sleep(2 * staleTTL)
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("an old answer was checked again in the call: %+v", s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s := CheckStaleCached(dir, m); s != nil && s.ChangedFiles == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background refresh never reported the deleted file")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStatIndexedIsEach: the directory-at-a-time stat finds the changed
// files and newer directories the one-path-at-a-time one finds: touched,
// deleted, a deleted directory, a file become a link, a directory that is
// a link, and entries added.
func TestStatIndexedIsEach(t *testing.T) {
	root := t.TempDir()
	at := time.Now().Add(-time.Hour)
	old := at.Add(-time.Hour)
	write := func(p string) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"top.go", "a/one.go", "a/two.go", "a/b/three.go", "gone/four.go", "real/five.go", "link/five.go", "l/six.go"}
	for _, p := range files {
		if p != "link/five.go" {
			write(p)
		}
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := os.Chtimes(filepath.Join(root, "a", "two.go"), now, now); err != nil { // touched
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "a", "b", "three.go")); err != nil { // deleted
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "gone")); err != nil { // its directory deleted
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "l", "six.go")); err != nil { // become a link
		t.Fatal(err)
	}
	if err := os.Symlink("../top.go", filepath.Join(root, "l", "six.go")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".", "a", "real"} { // directories as they were at the index
		if err := os.Chtimes(filepath.Join(root, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	c1, d1 := statIndexedEach(root, files, at)
	c2, d2 := statIndexed(root, files, at)
	sort.Strings(c1)
	sort.Strings(c2)
	sort.Strings(d1)
	sort.Strings(d2)
	if strings.Join(c1, ",") != strings.Join(c2, ",") || strings.Join(d1, ",") != strings.Join(d2, ",") {
		t.Fatalf("changed %v / %v, newer dirs %v / %v", c2, c1, d2, d1)
	}
	if want := "a/b/three.go,a/two.go,gone/four.go,l/six.go"; strings.Join(c1, ",") != want {
		t.Errorf("changed %v, want %s", c1, want)
	}
	if want := "a/b,l"; strings.Join(d1, ",") != want {
		t.Errorf("newer directories %v, want %s", d1, want)
	}
}

// TestCheckStaleShared: the answer of one check is taken by the next
// within staleTTL (a file touched in between is not seen), a fresh check
// is made after it, for another database, for a future or damaged record,
// and a read-only index directory still gets answers.
func TestCheckStaleShared(t *testing.T) {
	old := staleTTL
	staleTTL = 300 * time.Millisecond
	defer func() { staleTTL = old }()
	root := t.TempDir()
	if err := os.MkdirAll(IndexDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &Meta{SchemaVersion: schema.Version, DBFile: dbPrefix + "1" + dbSuffix, IndexedAt: time.Now().Add(time.Second), Files: map[string]string{"a.go": "x", "b.go": "y"}}
	if err := writeMeta(root, m); err != nil {
		t.Fatal(err)
	}
	head, err := ReadMetaHead(root)
	if err != nil {
		t.Fatal(err)
	}
	if s := CheckStaleShared(root, head); s != nil {
		t.Fatalf("fresh index: %+v", s)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a.go"), future, future); err != nil {
		t.Fatal(err)
	}
	if s := CheckStaleShared(root, head); s != nil {
		t.Fatalf("within the TTL the last answer is taken, got %+v", s)
	}
	other := *head
	other.DBFile = dbPrefix + "2" + dbSuffix
	if s := CheckStaleShared(root, &other); s != nil {
		t.Fatalf("another database: no answer expected (meta names db-1), got %+v", s)
	}
	time.Sleep(staleTTL)
	if s := CheckStaleShared(root, head); s == nil || s.ChangedFiles != 1 {
		t.Fatalf("after the TTL: %+v, want a.go changed", s)
	}
	path := filepath.Join(IndexDir(root), staleFile)
	for name, data := range map[string]string{
		"damaged": "{not json",
		"future":  `{"db_file":"` + head.DBFile + `","indexed_at":"` + head.IndexedAt.Format(time.RFC3339Nano) + `","checked_at":"2999-01-01T00:00:00Z","stale":null}`,
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if s := CheckStaleShared(root, head); s == nil || s.ChangedFiles != 1 {
			t.Errorf("%s record: %+v, want a fresh check", name, s)
		}
	}
	if err := os.Chmod(IndexDir(root), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(IndexDir(root), 0o755)
	time.Sleep(staleTTL)
	if s := CheckStaleShared(root, head); s == nil || s.ChangedFiles != 1 {
		t.Errorf("read-only index directory: %+v", s)
	}
}

// committedRepo is a git repository of one commit holding a.go, with
// staleTTL an hour for the test (so that only HEAD can make an answer go).
func committedRepo(t *testing.T) string {
	t.Helper()
	old := staleTTL
	staleTTL = time.Hour
	t.Cleanup(func() { staleTTL = old })
	dir := t.TempDir()
	runGitIn(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGitIn(t, dir, "add", "-A")
	runGitIn(t, dir, "commit", "-q", "-m", "one")
	return dir
}

// TestCheckStaleSharedSeesACommit: the shared answer is not taken once
// HEAD moved, even within its TTL: a command right after a commit says
// the index is stale.
func TestCheckStaleSharedSeesACommit(t *testing.T) {
	dir := committedRepo(t)
	if err := os.MkdirAll(IndexDir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Meta{SchemaVersion: schema.Version, DBFile: dbPrefix + "1" + dbSuffix, Commit: runGitIn(t, dir, "rev-parse", "HEAD"),
		IndexedAt: time.Now().Add(time.Minute), Files: map[string]string{"a.go": "x"}}
	if err := writeMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	head, err := ReadMetaHead(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := CheckStaleShared(dir, head); s != nil {
		t.Fatalf("fresh index: %+v", s)
	}
	runGitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	if s := CheckStaleShared(dir, head); s == nil || !s.HeadMoved {
		t.Fatalf("right after a commit: %+v, want HEAD moved", s)
	}
}

// TestCheckStaleCachedSeesACommit: the MCP server's cached answer is not
// taken once HEAD moved; the call right after a commit says HEAD moved,
// however young the cached answer.
func TestCheckStaleCachedSeesACommit(t *testing.T) {
	dir := committedRepo(t)
	m := &Meta{SchemaVersion: schema.Version, DBFile: dbPrefix + "cached" + dbSuffix, Commit: runGitIn(t, dir, "rev-parse", "HEAD"),
		IndexedAt: time.Now().Add(time.Minute), Files: map[string]string{"a.go": "x"}}
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("fresh index: %+v", s)
	}
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("fresh index, cached: %+v", s)
	}
	runGitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	if s := CheckStaleCached(dir, m); s == nil || !s.HeadMoved {
		t.Fatalf("right after a commit: %+v, want HEAD moved", s)
	}
	runGitIn(t, dir, "reset", "-q", "--hard", "HEAD~1")
	if s := CheckStaleCached(dir, m); s != nil {
		t.Fatalf("HEAD back at the indexed commit: %+v, want fresh", s)
	}
}
