package discover

import (
	"fmt"
	"math/rand"
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"
)

// The matcher is tested against git itself: every pattern gets its own
// directory t<i>/ holding a .gitignore with that pattern and a copy of the
// same file tree; `git check-ignore --no-index` says which files and
// directories git ignores, and the matcher must say the same for every one.

// curatedPatterns cover the gitignore syntax one feature at a time.
var curatedPatterns = []string{
	"*.log", "!keep.log\n*.log", "*.log\n!keep.log", "/root.txt", "root.txt",
	"doc/*.txt", "doc/**/*.pdf", "**/foo", "**/foo/bar", "abc/**", "a/**/b",
	"foo/", "build/", "/build/", "x/*", "/x/*/z", "*/c", "a*/b", "**/", "**",
	"*", "?", "??", "a?", "\\#hash", "#comment", "\\!bang", "!bang",
	"trailing   ", "esc\\ ", "esc\\  ", "tab\t", "[abc].c", "[!a]x", "[^a]x",
	"[a-c]y", "[[:digit:]]z", "[[:alpha:]]z", "[[:nope:]]z", "[[:digit:]", "?.md",
	"foo**/bar", "a/**b", "***/q", "[", "a[", "[]]", "[!]]", "[a-]", "[\\]]",
	"x\\*y", "x*y", "\\", "a\\", "/", "!", "a/b/", "/a/x/b", "a/x/", "doc/sub",
	"**/sub/**", "*.c\n!a.c", "abc\n!abc/d", "abc/\n!abc/d/e", "*\n!*/\n!*.c",
	"d*\n!doc/", "[a-c-e]", "[--0]", "**/b/**/f", "a/**/", "/**/x", "x/**/",
}

// tree is the file tree copied under every t<i>/; directories are implied.
var tree = []string{
	"root.txt", "sub/root.txt", "doc/a.txt", "doc/sub/b.txt", "doc/sub/c.pdf",
	"doc/c.pdf", "foo/bar/baz", "foo/x", "sub/foo/k", "sub/foo/bar", "a/b",
	"a/x/b/f", "a/bb", "a/q", "abc/d/e", "abc/f", "#hash", "!bang", "bang",
	"trailing", "trailing   ", "esc ", "esc  ", "tab\t", "tab", "a.c", "b.c",
	"d.c", "bx", "ax", "by", "dy", "1z", "az", "R.md", "foox/y/bar",
	"foo/y/bar", "x*y", "xay", "[", "a[", "]", "-", "e", "q", "keep.log", "x.log",
	"build/out.o", "src/build/x.go", "x/y/z", "x/w", "c", "xc/c", "deep/a/b/c/f",
}

func TestMatcherAgainstGitCheckIgnore(t *testing.T) {
	needGit(t)
	compareWithGit(t, curatedPatterns, tree)
}

// TestMatcherFuzzAgainstGit compares random patterns built from the pieces
// of the syntax, on random paths, with git.
func TestMatcherFuzzAgainstGit(t *testing.T) {
	needGit(t)
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "b", "ab", "*", "**", "?", "/", "[ab]", "[!a]", "[a-b]", "\\*", "*b", "a*"}
	names := []string{"a", "b", "ab", "ba", "aa", "bb", "abab", "*", "a*b"}
	var pats []string
	n := 120
	if testing.Short() {
		n = 30
	}
	for range n {
		var b strings.Builder
		if rng.Intn(5) == 0 {
			b.WriteByte('!')
		}
		for range 1 + rng.Intn(5) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		p := b.String()
		if rng.Intn(4) == 0 {
			p = "b\n" + p // a negation needs something to negate
		}
		pats = append(pats, p)
	}
	seen := map[string]bool{}
	var files []string
	for range 40 {
		var parts []string
		for range 1 + rng.Intn(4) {
			parts = append(parts, names[rng.Intn(len(names))])
		}
		f := strings.Join(parts, "/")
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	// Keep the tree consistent: no path may be both a file and a directory.
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var consistent []string
	for _, f := range files {
		if !dirs[f] {
			consistent = append(consistent, f)
		}
	}
	compareWithGit(t, pats, consistent)
}

func compareWithGit(t *testing.T, patterns, files []string) {
	t.Helper()
	root := t.TempDir()
	run(t, root, "init", "-q")
	// Every file and directory of the tree, as queried paths.
	queried := map[string]bool{} // path → is a directory
	for _, f := range files {
		queried[f] = false
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			queried[d] = true
		}
	}
	var query []string
	for i, pat := range patterns {
		dir := fmt.Sprintf("t%d", i)
		write(t, root, dir+"/.gitignore", pat+"\n")
		for _, f := range files {
			write(t, root, dir+"/"+f, "")
		}
		for q := range queried {
			query = append(query, dir+"/"+q)
		}
	}
	sort.Strings(query)
	cmd := exec.Command("git", "-C", root, "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Stdin = strings.NewReader(strings.Join(query, "\x00") + "\x00")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // nothing ignored at all
	}
	if err != nil {
		t.Fatalf("git check-ignore: %v", err)
	}
	gitSays := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			gitSays[p] = true
		}
	}
	rules := make([][]rule, len(patterns))
	for i, pat := range patterns {
		rules[i] = parseRules([]byte(pat+"\n"), fmt.Sprintf("t%d", i), "x", "test")
	}
	mismatches := 0
	for _, q := range query {
		i := 0
		fmt.Sscanf(q, "t%d/", &i)
		rel := q[strings.IndexByte(q, '/')+1:]
		got := ignoredTopDown(rules[i], q, queried[rel])
		if got != gitSays[q] {
			mismatches++
			if mismatches <= 30 {
				t.Errorf("pattern %q, path %q (dir=%v): matcher says ignored=%v, git says %v",
					patterns[i], rel, queried[rel], got, gitSays[q])
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d mismatches of %d paths", mismatches, len(query))
	}
	t.Logf("%d patterns × paths compared with git check-ignore, %d ignored", len(query), len(gitSays))
}

// ignoredTopDown applies one ignore file's rules the way git does: a path
// is ignored when an ancestor directory is, or when its own last matching
// rule is not a negation. p is "t<i>/..." and rules are based at t<i>.
func ignoredTopDown(rules []rule, p string, isDir bool) bool {
	parts := strings.Split(p, "/")
	for i := 2; i <= len(parts); i++ {
		sub := strings.Join(parts[:i], "/")
		dir := isDir || i < len(parts)
		if r := lastMatch(rules, sub, parts[i-1], dir); r != nil && !r.negate {
			return true
		}
	}
	return false
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		line string
		want rule
		ok   bool
	}{
		{"", rule{}, false},
		{"# c", rule{}, false},
		{"   ", rule{}, false},
		{"!", rule{}, false},
		{"/", rule{}, false},
		{"foo", rule{pattern: "foo", prefix: 3, basename: true}, true},
		{"!foo/", rule{pattern: "foo", prefix: 3, negate: true, dirOnly: true, basename: true}, true},
		{"/a/b*", rule{pattern: "a/b*", prefix: 3}, true},
		{"a\\ \\ ", rule{pattern: "a\\ \\ ", prefix: 1, basename: true}, true},
		{"a  ", rule{pattern: "a", prefix: 1, basename: true}, true},
		{"\\#x", rule{pattern: "\\#x", prefix: 0, basename: true}, true},
	} {
		got, ok := parseRule(tc.line, "", "")
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseRule(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestWalkAgainstGitLsFiles builds a tree with nested .gitignore files and
// checks that the walk (no git) lists exactly what `git ls-files --others
// --exclude-standard` lists for the same tree.
func TestWalkAgainstGitLsFiles(t *testing.T) {
	needGit(t)
	files := map[string]string{
		".gitignore":             "*.log\n!keep.log\n/build/\ntmp*/\ndocs/**/*.pdf\n\\#lit\n",
		"keep.log":               "",
		"x.log":                  "",
		"#lit":                   "",
		"main.go":                "package main\n",
		"build/out.o":            "",
		"src/build/b.go":         "package build\n",
		"src/.gitignore":         "!x.log\n*.gen.go\n/local.go\nsub/\n",
		"src/x.log":              "",
		"src/a.gen.go":           "",
		"src/local.go":           "",
		"src/deeper/local.go":    "",
		"src/sub/s.go":           "",
		"src/subx/s.go":          "",
		"tmpdir/f":               "",
		"tmpfile":                "",
		"docs/a/b/c.pdf":         "",
		"docs/c.pdf":             "",
		"docs/readme.md":         "",
		"deep/a/b/.gitignore":    "*\n!*.keep\n!*/\n",
		"deep/a/b/c/x.keep":      "",
		"deep/a/b/c/x.drop":      "",
		"neg/.gitignore":         "dir/\n!dir/inner\n",
		"neg/dir/inner":          "",
		"crlf/.gitignore":        "a.txt\r\nb.txt  \r\n",
		"crlf/a.txt":             "",
		"crlf/b.txt":             "",
		"crlf/c.txt":             "",
		"spaces/.gitignore":      "sp\\ \n",
		"spaces/sp ":             "",
		"spaces/sp":              "",
		"bom/.gitignore":         "\xef\xbb\xbfbommed\n",
		"bom/bommed":             "",
		"bom/kept":               "",
		"star/.gitignore":        "a/**/z\n**/q/\n",
		"star/a/z":               "",
		"star/a/b/c/z":           "",
		"star/b/q/f":             "",
		"star/q":                 "",
		"star/.hidden/file.txt":  "",
		"unicode/café/naïve.txt": "",
	}
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	// git's view, from a repository with the same tree.
	gitRoot := t.TempDir()
	for p, c := range files {
		write(t, gitRoot, p, c)
	}
	run(t, gitRoot, "init", "-q")
	out := run(t, gitRoot, "ls-files", "-z", "--others", "--exclude-standard")
	var want []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			want = append(want, p)
		}
	}
	sort.Strings(want)

	res, err := Discover(t.Context(), root, Options{NoDefaultExcludes: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Git {
		t.Fatalf("%s is not a git repository, but Discover used git", root)
	}
	got := paths(res.Files)
	if !equalStrings(got, want) {
		t.Errorf("walk differs from git ls-files:\n%s", diff(got, want))
	}
	if len(want) < 20 {
		t.Errorf("git lists only %d files: the fixture is broken", len(want))
	}
	// And the git mode on the git copy agrees with git, trivially but
	// through the whole pipeline.
	res2, err := Discover(t.Context(), gitRoot, Options{NoDefaultExcludes: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Git {
		t.Fatal("git mode not used in a git repository")
	}
	if got2 := paths(res2.Files); !equalStrings(got2, want) {
		t.Errorf("git mode differs from git ls-files:\n%s", diff(got2, want))
	}
}
