package main

// The hostile corpus: testdata/hostile plus what a test must make itself
// (huge, deep, looping, unreadable and oddly named files), under a root
// whose name holds a quote, analyzed by the real binary. Nothing may crash,
// every file must be indexed or reported as skipped, and the index must
// answer queries afterwards.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTree builds the corpus under a new directory and returns it with
// the number of non-directory entries it holds (files and symlinks: each
// must come back as indexed or skipped) and whether an unreadable file is
// really unreadable here (not when running as root).
func hostileTree(t *testing.T) (root string, entries int, unreadable bool) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "it's a \"hostile\" repo")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "hostile"))); err != nil {
		t.Fatal(err)
	}
	put := func(rel string, content []byte) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A 5 MB one-line JS file (over the 1 MiB cap) and a 900 KB one-line
	// bundle with an innocent name (under it: judged by content).
	put("big/five_mb.js", []byte("var x=["+strings.Repeat("1,", 5<<20/2)+"1];"))
	put("static/app.js", []byte("(function(){"+strings.Repeat("var a=function(b){return b+1};", 900_000/31)+"})();"))
	// 20,000-deep nesting, one level a line (so that it is not taken for
	// minified): parsers and tree walks must not blow a stack.
	put("nest/deep_parens.js", []byte("var deep = "+strings.Repeat("(\n", 20000)+"1"+strings.Repeat(")\n", 20000)+";\n"))
	put("nest/deep_lists.py", []byte("deep = "+strings.Repeat("[\n", 20000)+strings.Repeat("]\n", 20000)+"\n"))
	put("nest/deep_blocks.go", []byte("package nest\n\nfunc deepBlocks() {\n"+strings.Repeat("{\n", 20000)+strings.Repeat("}\n", 20000)+"}\n"))
	// A NUL past the sniff window in a file larger than it.
	put("nul/late_nul.py", append([]byte("def late_nul():\n    pass\n"+strings.Repeat("# pad\n", 2000)), 0, '\n'))
	// A 200-deep directory path.
	deep := strings.Repeat("d/", 200)
	put(deep+"deepest.go", []byte("package d\n\nfunc DeepestHostileFunction() int { return 200 }\n"))
	// Odd names.
	odd := []string{
		"odd/with space.go", "odd/tab\there.go", "odd/new\nline.go", `odd/quote'single.go`,
		`odd/quote"double.go`, `odd/back\slash.go`, "odd/-leading-dash.go", "odd/--double-dash.go",
		"odd/non-utf8-\xff\xfe.go", "odd/ünïcödé.go", "odd/semi;colon$(x).go", "odd/star*?[x].go",
	}
	for i, n := range odd {
		put(n, fmt.Appendf(nil, "package odd\n\nfunc OddName%d() {}\n", i))
	}
	// Symlink loops: two links pointing at each other, a link to itself,
	// and a directory link to an ancestor.
	for _, l := range [][2]string{{"loop/a", "b"}, {"loop/b", "a"}, {"loop/self", "self"}, {"loop/up", ".."}, {"loop/dangling", "nowhere"}} {
		if err := os.MkdirAll(filepath.Join(root, "loop"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	// An unreadable file.
	put("locked/secret.go", []byte("package locked\n\nfunc LockedSecret() {}\n"))
	if err := os.Chmod(filepath.Join(root, "locked/secret.go"), 0); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "locked/secret.go"))
	if err == nil {
		f.Close()
		t.Log("running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not stop reads, so locked/secret.go is expected to be indexed, not skipped as unreadable")
	}
	unreadable = err != nil
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked/secret.go"), 0o644) })

	err = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			entries++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, entries, unreadable
}

type hostileSummary struct {
	summary
	Path string `json:"path"`
}

func TestE2EHostileCorpus(t *testing.T) {
	for _, mode := range []string{"walk", "git"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			root, entries, unreadable := hostileTree(t)
			if mode == "git" {
				git(t, root, "init", "-q")
				if !unreadable {
					git(t, root, "add", "-A")
				} else {
					git(t, root, "add", "-A", "--ignore-errors")
				}
			}
			out, errs, code := e.run(root, "analyze", "--json", "--skip-embeddings")
			if code != 0 || strings.Contains(errs, "panic") || strings.Contains(errs, "SIGSEGV") || strings.Contains(errs, "dropped edges") {
				t.Fatalf("analyze: exit %d\nstderr: %s", code, errs)
			}
			var s hostileSummary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatalf("analyze --json: %v\n%s", err, out)
			}
			skipped := 0
			for _, n := range s.Skipped {
				skipped += n
			}
			// Every file and symlink is either a File node or a counted skip.
			if s.Files+skipped != entries {
				t.Errorf("%d files + %d skipped (%v) != %d entries on disk", s.Files, skipped, s.Skipped, entries)
			}
			// The five links count as symlinks in both modes (git lists
			// them as links).
			want := map[string]int{"too_large": 1, "minified": 1, "binary": 2, "symlink": 5, "bad_name": 1}
			if unreadable {
				want["unreadable"] = 1
			}
			for r, n := range want {
				if s.Skipped[r] != n {
					t.Errorf("skipped[%s] = %d, want %d (all: %v)", r, s.Skipped[r], n, s.Skipped)
				}
			}

			// The index answers: the deepest file, the odd names, the
			// late NUL file, all with their exact paths.
			rows := e.cypher(root, "MATCH (f:File) RETURN f.id")
			paths := map[string]bool{}
			for _, r := range rows {
				if p, ok := r[0].(string); ok {
					paths[p] = true
				}
			}
			if len(rows) != s.Files {
				t.Errorf("%d File nodes, the summary says %d files", len(rows), s.Files)
			}
			for _, p := range []string{strings.Repeat("d/", 200) + "deepest.go", "odd/with space.go", "odd/new\nline.go",
				`odd/quote'single.go`, `odd/back\slash.go`, "odd/-leading-dash.go", "nul_after_head.js", "nul/late_nul.py",
				"invalid_utf8.go", "garbage.rs", "nest/deep_parens.js", "nest/deep_lists.py", "nest/deep_blocks.go"} {
				if !paths[p] {
					t.Errorf("%q is not in the index", p)
				}
			}
			if !unreadable && !paths["locked/secret.go"] {
				t.Errorf("locked/secret.go is readable here but not in the index")
			}
			q := e.query(root, "DeepestHostileFunction")
			found := false
			for _, h := range q.all() {
				found = found || h.Name == "DeepestHostileFunction"
			}
			if !found {
				t.Errorf("query DeepestHostileFunction found nothing: %+v", q)
			}
			q = e.query(root, "OddName3")
			found = false
			for _, h := range q.all() {
				found = found || (h.Name == "OddName3" && h.FilePath == `odd/quote'single.go`)
			}
			if !found {
				t.Errorf("query OddName3 did not find it in odd/quote'single.go: %+v", q)
			}
		})
	}
}
