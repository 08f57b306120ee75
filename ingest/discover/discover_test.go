package discover

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const testMaxSize = 1000

// buildTree writes the working files shared by the git and walk scenarios.
func buildTree(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{
		"main.go":                 "package main\n",
		"README.md":               "# hello\n",
		".gitignore":              "*.tmp\n",
		"pkg/a.go":                "package pkg\n",
		"pkg/.gitignore":          "gen_*.go\n!gen_keep.go\n",
		"pkg/gen_x.go":            "package pkg\n",
		"pkg/gen_keep.go":         "package pkg\n",
		"scratch.tmp":             "ignored by .gitignore\n",
		"info_excluded.txt":       "ignored by info/exclude in git mode\n",
		"x.globalignored":         "ignored by core.excludesFile in git mode\n",
		"untracked.go":            "package main\n",
		"bin.dat":                 "abc\x00def",
		"big.txt":                 strings.Repeat("x", testMaxSize+1),
		"exact.txt":               strings.Repeat("x", testMaxSize),
		"empty.txt":               "",
		"node_modules/x/index.js": "module.exports = 1\n",
		"node_modules/y/index.js": "module.exports = 2\n",
		"vendor/lib/v.go":         "package lib\n",
		"web/app.min.js":          "var a=1;\n",
		"yarn.lock":               "# lock\n",
		"build/out.go":            "package out\n",
		"src/build/b.go":          "package build\n", // /build/ is anchored: kept
		"docs/gen/api.go":         "package gen\n",
		"docs/guide.go":           "package docs\n",
		"sub/notes.txt":           "notes\n",
		"sub/code.go":             "package sub\n",
		".gitnexusignore":         "# ours\n!vendor/\ndocs/gen/\n",
		"sub/.gitnexusignore":     "*.txt\n",
		".gitnexus/meta.json":     "{}",
		"secret.go":               "package secret\n",
	}
	for p, c := range files {
		write(t, root, p, c)
	}
	// A symlink loop and a symlink to a directory above: never followed.
	for _, l := range [][2]string{{"loop_a", "loop_b"}, {"loop_b", "loop_a"}, {"pkg/up", ".."}} {
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
}

// makeUnreadable chmods secret.go to 000; it reports false when the test
// runs as a user who can read it anyway (root), so the case cannot be
// checked.
func makeUnreadable(t *testing.T, root string) bool {
	t.Helper()
	p := filepath.Join(root, "secret.go")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o644) })
	f, err := os.Open(p)
	if err == nil {
		f.Close()
		t.Log("running as a user who can read a mode-000 file (root?): the unreadable case is not checked")
		return false
	}
	return true
}

func TestDiscoverGit(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	buildTree(t, root)
	run(t, root, "init", "-q")
	write(t, root, ".git/info/exclude", "info_excluded.txt\n")
	write(t, root, "deleted.go", "package main\n")
	write(t, root, "forced.globalignored", "tracked despite the global ignore\n")
	run(t, root, "add", "-A")
	run(t, root, "add", "-f", "forced.globalignored")
	// A submodule entry (gitlink) without fetching anything.
	run(t, root, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",submod")
	run(t, root, "commit", "-q", "-m", "init")
	if err := os.Remove(filepath.Join(root, "deleted.go")); err != nil {
		t.Fatal(err)
	}
	// An untracked file and an untracked nested repository.
	write(t, root, "later.go", "package main\n")
	write(t, root, "nested/n.go", "package nested\n")
	run(t, filepath.Join(root, "nested"), "init", "-q")
	unreadable := makeUnreadable(t, root)

	res, err := Discover(t.Context(), root, Options{MaxFileSize: testMaxSize, Excludes: []string{"*.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Git {
		t.Fatal("Git = false in a git repository")
	}
	if head := strings.TrimSpace(run(t, root, "rev-parse", "HEAD")); res.Commit != head {
		t.Errorf("Commit = %q, want %q", res.Commit, head)
	}
	if res.Branch != "main" {
		t.Errorf("Branch = %q, want main", res.Branch)
	}
	want := []string{
		".gitignore", ".gitnexusignore", "docs/guide.go", "empty.txt", "exact.txt",
		"forced.globalignored", "later.go", "main.go", "pkg/.gitignore", "pkg/a.go",
		"pkg/gen_keep.go", "src/build/b.go", "sub/.gitnexusignore", "sub/code.go",
		"untracked.go", "vendor/lib/v.go",
	}
	if !unreadable {
		want = append(want, "secret.go")
		sort.Strings(want)
	}
	if got := paths(res.Files); !equalStrings(got, want) {
		t.Errorf("files differ:\n%s", diff(got, want))
	}
	wantSkipped := map[string]int{
		"binary":          1, // bin.dat
		"too_large":       1, // big.txt
		"vanished":        1, // deleted.go
		"symlink":         3, // loop_a, loop_b, pkg/up
		"submodule":       2, // submod (gitlink), nested/ (embedded repository)
		"default_exclude": 5, // 2 in node_modules, web/app.min.js, yarn.lock, build/out.go
		"gitnexusignore":  2, // docs/gen/api.go, sub/notes.txt
		"user_exclude":    1, // README.md
	}
	if unreadable {
		wantSkipped["unreadable"] = 1
	}
	if !reflect.DeepEqual(res.Skipped, wantSkipped) {
		t.Errorf("Skipped = %v\nwant      %v", res.Skipped, wantSkipped)
	}
	wantEx := map[string][]string{
		"default_exclude": {"build/", "node_modules/", "web/app.min.js", "yarn.lock"},
		"gitnexusignore":  {"docs/gen/", "sub/notes.txt"},
		"submodule":       {"nested/", "submod/"},
		"symlink":         {"loop_a", "loop_b", "pkg/up"},
	}
	for r, ex := range wantEx {
		if !reflect.DeepEqual(res.Examples[r], ex) {
			t.Errorf("Examples[%s] = %q, want %q", r, res.Examples[r], ex)
		}
	}
	for _, f := range res.Files {
		if f.Abs != filepath.Join(res.Root, filepath.FromSlash(f.Path)) {
			t.Errorf("%s: Abs = %s", f.Path, f.Abs)
		}
		if fi, err := os.Stat(f.Abs); err != nil || fi.Size() != f.Size {
			t.Errorf("%s: Size = %d, stat says %v %v", f.Path, f.Size, fi, err)
		}
	}

	// Root in a subdirectory: only its files, relative to it.
	sub, err := Discover(t.Context(), filepath.Join(root, "pkg"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(sub.Files), []string{".gitignore", "a.go", "gen_keep.go"}; !equalStrings(got, want) {
		t.Errorf("subdirectory root: files differ:\n%s", diff(got, want))
	}
	if !sub.Git || sub.Commit != res.Commit {
		t.Errorf("subdirectory root: Git=%v Commit=%q", sub.Git, sub.Commit)
	}

	// The user can turn the defaults off, or bring one back.
	all, err := Discover(t.Context(), root, Options{MaxFileSize: testMaxSize, NoDefaultExcludes: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := all.Skipped["default_exclude"]; n != 0 {
		t.Errorf("NoDefaultExcludes: %d default excludes", n)
	}
	if !contains(paths(all.Files), "node_modules/x/index.js") || !contains(paths(all.Files), "yarn.lock") {
		t.Errorf("NoDefaultExcludes: node_modules or yarn.lock missing: %v", paths(all.Files))
	}
	inc, err := Discover(t.Context(), root, Options{MaxFileSize: testMaxSize, Includes: []string{"node_modules/x/"}})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(inc.Files)
	if !contains(got, "node_modules/x/index.js") || contains(got, "node_modules/y/index.js") {
		t.Errorf("Includes node_modules/x/: got %v", got)
	}
}

func TestDiscoverWalk(t *testing.T) {
	root := t.TempDir()
	buildTree(t, root)
	write(t, root, "nested/n.go", "package nested\n")
	write(t, root, "nested/.git/HEAD", "ref: refs/heads/main\n") // never listed
	fifo := makeFIFO(filepath.Join(root, "pipe"))
	unreadable := makeUnreadable(t, root)

	res, err := Discover(t.Context(), root, Options{MaxFileSize: testMaxSize, Excludes: []string{"*.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Git || res.Commit != "" || res.Branch != "" {
		t.Fatalf("walk mode expected, got Git=%v Commit=%q Branch=%q", res.Git, res.Commit, res.Branch)
	}
	want := []string{
		".gitignore", ".gitnexusignore", "docs/guide.go", "empty.txt", "exact.txt",
		"info_excluded.txt", "main.go", "nested/n.go", "pkg/.gitignore", "pkg/a.go",
		"pkg/gen_keep.go", "src/build/b.go", "sub/.gitnexusignore", "sub/code.go",
		"untracked.go", "vendor/lib/v.go", "x.globalignored",
	}
	if !unreadable {
		want = append(want, "secret.go")
		sort.Strings(want)
	}
	if got := paths(res.Files); !equalStrings(got, want) {
		t.Errorf("files differ:\n%s", diff(got, want))
	}
	wantSkipped := map[string]int{
		"binary":          1,
		"too_large":       1,
		"symlink":         3,
		"default_exclude": 5,
		"gitnexusignore":  2,
		"user_exclude":    1,
	}
	if unreadable {
		wantSkipped["unreadable"] = 1
	}
	if fifo {
		wantSkipped["not_regular"] = 1
	}
	if !reflect.DeepEqual(res.Skipped, wantSkipped) {
		t.Errorf("Skipped = %v\nwant      %v", res.Skipped, wantSkipped)
	}

	// With an include the walk goes into the default-excluded directory and
	// judges its files one by one.
	inc, err := Discover(t.Context(), root, Options{MaxFileSize: testMaxSize, Includes: []string{"node_modules/x/"}})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(inc.Files)
	if !contains(got, "node_modules/x/index.js") || contains(got, "node_modules/y/index.js") {
		t.Errorf("Includes node_modules/x/: got %v", got)
	}
	if n := inc.Skipped["default_exclude"]; n != 4 {
		t.Errorf("Includes node_modules/x/: default_exclude = %d, want 4", n)
	}
}

func TestDiscoverWithoutGitBinary(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	write(t, root, "ignored.go", "package a\n")
	write(t, root, ".gitignore", "ignored.go\n")
	run(t, root, "init", "-q")
	t.Setenv("PATH", t.TempDir()) // no git on PATH
	res, err := Discover(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Git {
		t.Error("Git = true without a git binary")
	}
	if got, want := paths(res.Files), []string{".gitignore", "a.go"}; !equalStrings(got, want) {
		t.Errorf("files differ:\n%s", diff(got, want))
	}
	if HeadCommit(root) != "" {
		t.Error("HeadCommit without git should be empty")
	}
	if err := EnsureGitExclude(root, ".gitnexus/"); err != nil {
		t.Errorf("EnsureGitExclude without git: %v", err)
	}
}

// TestDiscoverGitFailsFallsBack: when git cannot list the files (a corrupt
// index) or refuses the repository (owned by someone else: git's
// safe.directory check), discovery walks the tree instead of failing.
func TestDiscoverGitFailsFallsBack(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	write(t, root, "a.go", "package a\n")
	write(t, root, "ignored.go", "package a\n")
	write(t, root, ".gitignore", "ignored.go\n")
	run(t, root, "init", "-q")
	run(t, root, "add", "-A")
	write(t, root, ".git/index", "this is not an index")
	res, err := Discover(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Git {
		t.Error("Git = true with a corrupt index")
	}
	if got, want := paths(res.Files), []string{".gitignore", "a.go"}; !equalStrings(got, want) {
		t.Errorf("corrupt index: files differ:\n%s", diff(got, want))
	}

	if os.Geteuid() != 0 {
		t.Log("not root: cannot give the repository to another owner; the safe.directory case is not checked")
		return
	}
	other := t.TempDir()
	write(t, other, "b.go", "package b\n")
	run(t, other, "init", "-q")
	if err := filepath.WalkDir(other, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	res, err = Discover(t.Context(), other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Git {
		t.Error("Git = true in a repository git refuses (dubious ownership)")
	}
	if got, want := paths(res.Files), []string{"b.go"}; !equalStrings(got, want) {
		t.Errorf("dubious ownership: files differ:\n%s", diff(got, want))
	}
}

func TestDiscoverCancelled(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		write(t, root, filepath.Join("d", string(rune('a'+i%26)), "f.go"), "package f\n")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Discover(ctx, root, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDiscoverBadRoot(t *testing.T) {
	if _, err := Discover(t.Context(), filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("no error for a missing root")
	}
	f := filepath.Join(t.TempDir(), "file")
	write(t, filepath.Dir(f), "file", "x")
	if _, err := Discover(t.Context(), f, Options{}); err == nil {
		t.Error("no error for a root that is a file")
	}
	if _, err := Discover(t.Context(), t.TempDir(), Options{Excludes: []string{"# only a comment"}}); err == nil {
		t.Error("no error for an exclude pattern that is a comment")
	}
}

// TestDiscoverRootSymlink: a root given through a symlink is resolved.
func TestDiscoverRootSymlink(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "real/a.go", "package a\n")
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	res, err := Discover(t.Context(), link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "real"))
	if res.Root != real || !equalStrings(paths(res.Files), []string{"a.go"}) {
		t.Errorf("Root = %s, files %v", res.Root, paths(res.Files))
	}
}

func TestEnsureGitExclude(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	run(t, root, "init", "-q")
	write(t, root, "a.go", "package a\n")
	run(t, root, "add", "a.go")
	run(t, root, "commit", "-q", "-m", "a")
	// No trailing newline in the existing file: the pattern still gets its
	// own line.
	write(t, root, ".git/info/exclude", "# existing\n*.swp")
	for range 2 {
		if err := EnsureGitExclude(root, ".gitnexus/"); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, ".git/info/exclude"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "# existing\n*.swp\n.gitnexus/\n"; got != want {
		t.Errorf("info/exclude = %q, want %q", got, want)
	}
	write(t, root, ".gitnexus/meta.json", "{}")
	if out := run(t, root, "status", "--porcelain"); out != "" {
		t.Errorf("git status shows %q after EnsureGitExclude", out)
	}

	// A linked worktree shares info/exclude with the main repository.
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, root, "worktree", "add", "-q", wt)
	write(t, root, ".git/info/exclude", "")
	if err := EnsureGitExclude(wt, ".gitnexus/"); err != nil {
		t.Fatal(err)
	}
	write(t, wt, ".gitnexus/meta.json", "{}")
	if out := run(t, wt, "status", "--porcelain"); out != "" {
		t.Errorf("worktree: git status shows %q after EnsureGitExclude", out)
	}

	// Outside git: nothing happens.
	plain := t.TempDir()
	if err := EnsureGitExclude(plain, ".gitnexus/"); err != nil {
		t.Errorf("outside git: %v", err)
	}
	if _, err := os.Stat(filepath.Join(plain, ".git")); !os.IsNotExist(err) {
		t.Errorf("outside git: .git created (%v)", err)
	}
}

func TestHeadCommit(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	run(t, root, "init", "-q")
	if got := HeadCommit(root); got != "" {
		t.Errorf("before the first commit: %q", got)
	}
	write(t, root, "a.go", "package a\n")
	run(t, root, "add", "a.go")
	run(t, root, "commit", "-q", "-m", "a")
	if got, want := HeadCommit(root), strings.TrimSpace(run(t, root, "rev-parse", "HEAD")); got != want || len(got) != 40 {
		t.Errorf("HeadCommit = %q, want %q", got, want)
	}
}

func TestIsBinary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", false}, {"package main\n", false}, {"héllo ✓", false},
		{"a\x00b", true}, {"\xff\xfeh\x00i\x00", true}, // UTF-16 counts as binary
	} {
		if got := IsBinary([]byte(tc.in)); got != tc.want {
			t.Errorf("IsBinary(%q) = %v", tc.in, got)
		}
	}
}

func TestTallyExamples(t *testing.T) {
	tl := newTally()
	for _, p := range []string{"g", "c", "a", "f", "c", "b", "e", "d"} {
		tl.skip("r", p, 1)
	}
	if tl.counts["r"] != 8 {
		t.Errorf("count = %d", tl.counts["r"])
	}
	if got, want := tl.examples["r"], []string{"a", "b", "c", "d", "e"}; !reflect.DeepEqual(got, want) {
		t.Errorf("examples = %q, want %q", got, want)
	}
	o := newTally()
	o.skip("r", "0", 2)
	tl.merge(o)
	if got, want := tl.examples["r"], []string{"0", "a", "b", "c", "d"}; !reflect.DeepEqual(got, want) || tl.counts["r"] != 10 {
		t.Errorf("after merge: %q, %d", got, tl.counts["r"])
	}
}

func TestInspectVanished(t *testing.T) {
	p := newPool(t.Context(), t.TempDir(), 100, nil)
	close(p.jobs)
	p.wait()
	_, reason := p.inspect(job{rel: "gone.go", abs: filepath.Join(t.TempDir(), "gone.go")}, make([]byte, SniffSize))
	if reason != ReasonVanished {
		t.Errorf("reason = %q, want %q", reason, ReasonVanished)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDiscoverOpenFailures makes opens fail the way an unreadable file (a
// permission problem, which root cannot be given) or a file deleted after
// listing would: both are counted and the run goes on.
func TestDiscoverOpenFailures(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.go", "locked.go", "gone.go", "z.go"} {
		write(t, root, p, "package x\n")
	}
	orig := openForSniff
	t.Cleanup(func() { openForSniff = orig })
	openForSniff = func(p string) (*os.File, error) {
		switch filepath.Base(p) {
		case "locked.go":
			return nil, &fs.PathError{Op: "open", Path: p, Err: syscall.EACCES}
		case "gone.go":
			if err := os.Remove(p); err != nil {
				t.Error(err)
			}
		}
		return orig(p)
	}
	res, err := Discover(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(res.Files), []string{"a.go", "z.go"}; !equalStrings(got, want) {
		t.Errorf("files differ:\n%s", diff(got, want))
	}
	if want := map[string]int{"unreadable": 1, "vanished": 1}; !reflect.DeepEqual(res.Skipped, want) {
		t.Errorf("Skipped = %v, want %v", res.Skipped, want)
	}
}

// TestDiscoverGitConflictAndOddNames: a path in a merge conflict (listed
// once per stage by git) comes out once, and names with tabs, newlines,
// quotes and non-ASCII letters survive (ls-files -z, never quoted).
func TestDiscoverGitConflictAndOddNames(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	run(t, root, "init", "-q")
	write(t, root, "c.go", "package c // base\n")
	odd := []string{"tab\tname.go", "new\nline.go", "quote\"d.go", "ünïcödé.go", "sp ace.go", "back\\slash.go"}
	for _, p := range odd {
		write(t, root, p, "package odd\n")
	}
	run(t, root, "add", "-A")
	run(t, root, "commit", "-q", "-m", "base")
	run(t, root, "checkout", "-q", "-b", "other")
	write(t, root, "c.go", "package c // other\n")
	run(t, root, "commit", "-q", "-am", "other")
	run(t, root, "checkout", "-q", "main")
	write(t, root, "c.go", "package c // main\n")
	run(t, root, "commit", "-q", "-am", "main")
	cmd := exec.Command("git", "-C", root, "merge", "-q", "other")
	if err := cmd.Run(); err == nil {
		t.Fatal("merge did not conflict")
	}
	if stages := run(t, root, "ls-files", "--stage", "c.go"); strings.Count(stages, "c.go") < 2 {
		t.Fatalf("no conflict stages: %q", stages)
	}
	res, err := Discover(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"c.go"}, odd...)
	sort.Strings(want)
	if got := paths(res.Files); !equalStrings(got, want) {
		t.Errorf("files differ:\n%s", diff(got, want))
	}
}

// TestKnownFilesAreNotOpened: a file Options.Known vouches for is kept
// without being opened, with its Lstat and whether its content was sniffed
// then; one known but never sniffed whose content must be judged now is
// opened and sniffed; others are opened as ever.
func TestKnownFilesAreNotOpened(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n")
	write("c.go", "package a\n\nfunc C() {}\n")
	// Known as sniffed: kept unread, though its content would be skipped
	// as generated if it were read (so the test sees it was not).
	write("gen.go", "// Code generated by x. DO NOT EDIT.\n\npackage a\n")
	write("notes.txt", "plain text\n")
	var mu sync.Mutex
	opened := map[string]bool{}
	defer func(f func(string) (*os.File, error)) { openForSniff = f }(openForSniff)
	openForSniff = func(p string) (*os.File, error) {
		mu.Lock()
		opened[filepath.Base(p)] = true
		mu.Unlock()
		return openNoFollow(p)
	}
	known := func(p string, fi fs.FileInfo) (sniffed, ok bool) {
		if fi == nil || !fi.Mode().IsRegular() {
			t.Errorf("Known(%s) handed %v", p, fi)
		}
		switch p {
		case "a.go", "gen.go":
			return true, true
		case "c.go": // known, but its content was never judged
			return false, true
		}
		return false, false
	}
	res, err := Discover(t.Context(), dir, Options{Known: known})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]File{}
	for _, f := range res.Files {
		got[f.Path] = f
	}
	for _, name := range []string{"a.go", "c.go", "gen.go", "notes.txt"} {
		f, ok := got[name]
		if !ok {
			t.Errorf("%s not kept: %v", name, res.Skipped)
			continue
		}
		if f.Info == nil || f.Info.Size() != f.Size {
			t.Errorf("%s: Info %v, size %d", name, f.Info, f.Size)
		}
		wantSniffed := name != "notes.txt"
		if f.Sniffed != wantSniffed {
			t.Errorf("%s: Sniffed %v, want %v", name, f.Sniffed, wantSniffed)
		}
	}
	want := map[string]bool{"c.go": true, "notes.txt": true}
	if !maps.Equal(opened, want) {
		t.Errorf("opened %v, want %v", opened, want)
	}
}
