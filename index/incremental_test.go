package index

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/internal/testkit"
	"github.com/gitnexus/gitnexus/query"
)

// Flags of TestReanalyzeEqualsColdBuild for a longer hunt than CI's:
// go test ./index -run TestReanalyzeEqualsColdBuild -edits 100 -edit-seed 3.
var (
	editSteps = flag.Int("edits", 4, "random edits per fixture in TestReanalyzeEqualsColdBuild")
	editSeed  = flag.Int64("edit-seed", 0, "added to each fixture's seed of random edits")
)

// TestReanalyzeEqualsColdBuild: a re-analyze that reuses the fact cache
// builds exactly the index a cold analyze (Force) of the same tree builds —
// every node and edge with every property, the counts in meta.json and the
// search answers — after each of a random sequence of edits (functions
// added by copying a file's text into another, lines deleted, files added,
// moved and deleted) on fixture repositories in several languages. It also
// checks the cache was used (only the changed files are parsed) and that
// the database was updated in place (graph.Build.UpdateFrom) unless it had
// grown past the bound of updates in place or the update's estimated cost
// passed a full load's (files grown by many appends, in long runs: -edits),
// and that the search pack was
// built from the live one (query.BuildPackFrom) byte for byte as a cold
// build's.
func TestReanalyzeEqualsColdBuild(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	// Every stat cache entry is trusted whose file's stat has not moved
	// (the edits below come within any real slack of the builds): each
	// re-analyze reads only the files written since the last.
	defer func(s time.Duration) { ingest.StatSlack = s }(ingest.StatSlack)
	ingest.StatSlack = -time.Hour
	for _, name := range []string{"goshop", "pyapp", "tsapp", "mixed", "ckernel"} {
		t.Run(name, func(t *testing.T) {
			root := fixture(t, name)
			rng := rand.New(rand.NewSource(int64(len(name))*7919 + *editSeed))
			if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
				t.Fatal(err)
			}
			sameAsCold := func(what string) {
				t.Helper()
				cold := filepath.Join(t.TempDir(), name)
				copyTree(t, root, cold)
				if _, err := Build(ctx, cold, Options{SkipEmbeddings: true, Force: true}); err != nil {
					t.Fatalf("%s: cold: %v", what, err)
				}
				a, b := dumpIndex(t, root), dumpIndex(t, cold)
				if d := firstDiff(a, b); d != "" {
					t.Fatalf("%s: the re-analyzed index differs from a cold build: %s", what, d)
				}
			}
			// Every line of every source file moved down one: the call
			// graph is the same, so are the processes (reused).
			moveLines(t, root)
			sum, err := Build(ctx, root, Options{SkipEmbeddings: true})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Processes.Reused {
				t.Errorf("lines moved: the live index's processes were not reused")
			}
			sameAsCold("lines moved")
			// A blank line inside one file: the others keep their call
			// sites' outcomes (the site cache), the index is still a cold
			// build's.
			insertBlankLine(t, root)
			sum, err = Build(ctx, root, Options{SkipEmbeddings: true})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Resolution == nil || sum.Resolution.SitesReused == 0 {
				t.Errorf("blank line: no file's call sites came from the site cache: %+v", sum.Resolution)
			}
			sameAsCold("blank line")
			for step := 0; step < *editSteps; step++ {
				changed, what := randomEdit(t, rng, root)
				sum, err := Build(ctx, root, Options{SkipEmbeddings: true})
				if err != nil {
					t.Fatalf("step %d (%s): incremental: %v", step, what, err)
				}
				if sum.UpToDate { // an edit the parse does not see (a blank line, a comment): the live index stays
					sameAsCold(fmt.Sprintf("step %d (%s)", step, what))
					continue
				}
				if sum.Reused == 0 {
					t.Errorf("step %d (%s): no parse result reused (parsed %d)", step, what, sum.Parsed)
				}
				if !sum.Load.InPlace && !strings.Contains(sum.Load.Whole, "grew") && !strings.Contains(sum.Load.Whole, "would take about") {
					t.Errorf("step %d (%s): the database was loaded whole, not updated in place: %s", step, what, sum.Load.Whole)
				}
				if sum.Pack.Reused == 0 || sum.Pack.NoBase != "" {
					t.Errorf("step %d (%s): the live search pack was not reused: %+v", step, what, sum.Pack)
				}
				if sum.Load.InPlace && !sum.Pack.BesideLoad {
					t.Errorf("step %d (%s): the database was updated in place but the pack was not built beside it", step, what)
				}
				if sum.Parsed > changed {
					t.Errorf("step %d (%s): %d files parsed, %d changed", step, what, sum.Parsed, changed)
				}
				if runtime.GOOS == "linux" && sum.Unread < sum.Files-changed-1 {
					t.Errorf("step %d (%s): %d of %d files not read, %d changed: the stat cache was not used", step, what, sum.Unread, sum.Files, changed)
				}
				sameAsCold(fmt.Sprintf("step %d (%s)", step, what))
			}
		})
	}
}

// TestDamagedFactCacheIsAMiss: a fact cache garbled after commit only costs
// a full parse; the index built is still right.
func TestDamagedFactCacheIsAMiss(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	root := fixture(t, "goshop")
	if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	want := dumpIndex(t, root)
	garbleCompanion(t, root, graph.FactsSuffix, 3)
	if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dumpIndex(t, root), want); d != "" {
		t.Fatalf("after a damaged fact cache: %s", d)
	}
}

// TestDamagedLivePackIsNotReused: a re-analyze over a live search pack
// garbled after commit builds its pack whole, says so, and writes the pack
// a cold build writes.
func TestDamagedLivePackIsNotReused(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	root := fixture(t, "goshop")
	if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	garbleCompanion(t, root, graph.PackSuffix, 5)
	randomEdit(t, rand.New(rand.NewSource(6)), root)
	sum, err := Build(ctx, root, Options{SkipEmbeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pack.Reused != 0 || sum.Pack.NoBase == "" {
		t.Errorf("a garbled live pack was used: %+v", sum.Pack)
	}
	cold := filepath.Join(t.TempDir(), "goshop")
	copyTree(t, root, cold)
	if _, err := Build(ctx, cold, Options{SkipEmbeddings: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(dumpIndex(t, root), dumpIndex(t, cold)); d != "" {
		t.Fatalf("after a damaged live pack: %s", d)
	}
}

// garbleCompanion flips a byte in twenty, at random (seed), of the live
// index's companion file of suffix, past its first 20 bytes.
func garbleCompanion(t *testing.T, root, suffix string, seed int64) {
	t.Helper()
	m, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	p := graph.CompanionPath(root, m, suffix)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < len(b)/20; i++ {
		b[20+rng.Intn(len(b)-40)] ^= byte(1 + rng.Intn(255))
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// randomEdit changes the tree at root and returns how many indexed files
// it changed (an upper bound on what a re-analyze must parse) and what it
// did.
// moveLines puts an empty line at the top of every source file under
// root (.go, .py, .ts, .tsx, .js, .c, .h).
func moveLines(t *testing.T, root string) {
	t.Helper()
	n := 0
	editSources(t, root, func(b []byte) ([]byte, bool) {
		n++
		return append([]byte("\n"), b...), true
	})
	if n == 0 {
		t.Fatal("moveLines: no source file")
	}
}

// insertBlankLine puts an empty line in the first source file (in walk
// order) of ten lines or more, after the first line past its middle that
// opens a block.
func insertBlankLine(t *testing.T, root string) {
	t.Helper()
	done := false
	editSources(t, root, func(b []byte) ([]byte, bool) {
		lines := strings.SplitAfter(string(b), "\n")
		if done || len(lines) < 10 {
			return nil, false
		}
		mid := len(lines) / 2
		// Inside a block, where one opens past the middle: a body's
		// content changes (an update in place replaces its symbol).
		for k := mid; k < len(lines)-1; k++ {
			if l := strings.TrimSpace(lines[k]); strings.HasSuffix(l, "{") || strings.HasSuffix(l, ":") {
				mid = k + 1
				break
			}
		}
		done = true
		return []byte(strings.Join(lines[:mid], "") + "\n" + strings.Join(lines[mid:], "")), true
	})
	if !done {
		t.Fatal("insertBlankLine: no source file of ten lines")
	}
}

// editSources calls edit with the content of every source file under
// root (.go, .py, .ts, .tsx, .js, .c, .h; not .gitnexus) in walk order,
// and writes back what it returns when it says so.
func editSources(t *testing.T, root string, edit func([]byte) ([]byte, bool)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".gitnexus" {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".py", ".ts", ".tsx", ".js", ".c", ".h":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if out, ok := edit(b); ok {
				return os.WriteFile(p, out, 0o644)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func randomEdit(t *testing.T, rng *rand.Rand, root string) (int, string) {
	t.Helper()
	var files []string
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".gitnexus" {
			return filepath.SkipDir
		}
		if !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, p)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	pick := func() string { return files[rng.Intn(len(files))] }
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	switch k := rng.Intn(5); k {
	case 0: // another file's text appended: new functions, calls, imports
		dst := pick()
		var same []string
		for _, f := range files {
			if filepath.Ext(f) == filepath.Ext(dst) && f != dst {
				same = append(same, f)
			}
		}
		if len(same) == 0 {
			same = []string{dst}
		}
		src := same[rng.Intn(len(same))]
		write(dst, read(dst)+"\n"+read(src))
		return 1, "appended " + rel(src) + " to " + rel(dst)
	case 1: // lines deleted: a function, an import or a call goes
		p := pick()
		lines := strings.Split(read(p), "\n")
		i := rng.Intn(len(lines))
		j := min(len(lines), i+1+rng.Intn(4))
		write(p, strings.Join(append(lines[:i:i], lines[j:]...), "\n"))
		return 1, fmt.Sprintf("deleted lines %d-%d of %s", i+1, j, rel(p))
	case 2: // a file copied under a new name: new symbols with clashing names
		p := pick()
		q := filepath.Join(filepath.Dir(p), fmt.Sprintf("copy%d%s", rng.Intn(1000), filepath.Ext(p)))
		write(q, read(p))
		return 1, "copied " + rel(p) + " to " + rel(q)
	case 3: // a file moved to another folder
		p := pick()
		q := filepath.Join(root, "moved", fmt.Sprintf("m%d", rng.Intn(1000)), filepath.Base(p))
		if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, q); err != nil {
			t.Fatal(err)
		}
		return 1, "moved " + rel(p) + " to " + rel(q)
	default: // a file deleted
		if len(files) < 3 {
			return 0, "nothing"
		}
		p := pick()
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		return 0, "deleted " + rel(p)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == ".gitnexus" {
			continue
		}
		if e.IsDir() {
			copyTree(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpIndex is the index of root as sorted lines: every node with its
// properties, every edge with its endpoints and properties (Kuzu's
// internal ids, which depend on load order, left out), meta.json's counts,
// and the answers of a few searches.
func dumpIndex(t *testing.T, root string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := graph.Open(ctx, root, graph.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{
		"MATCH (n) RETURN n",
		"MATCH (a)-[r]->(b) RETURN a.id, r, b.id",
		// Each edge again as its target's adjacency holds it: Kuzu keeps
		// both, and an update could leave one stale (graph.TestRemoveStmtsKeepAdjacency).
		"MATCH (b)<-[r]-(a) RETURN 'in', a.id, r, b.id",
	} {
		res, err := db.QueryAll(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Rows {
			b, err := json.Marshal(stripInternal(row))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	m := db.Meta()
	b, _ := json.Marshal([]any{m.Counts, m.Files, m.ParseStatus, m.Skipped, m.Languages, m.Kinds, m.Calls, m.Unresolved})
	out = append(out, "meta "+string(b))
	packPath := graph.CompanionPath(root, m, graph.PackSuffix)
	data, err := os.ReadFile(packPath)
	if err != nil {
		t.Fatal(err)
	}
	// The pack's bytes: two builds of one tree write the same pack.
	out = append(out, fmt.Sprintf("pack %x", sha256.Sum256(data)))
	pack, err := query.ReadPack(packPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"validate order", "save", "open file read", "greet user", "main"} {
		res, err := query.Search(ctx, pack, q, query.Options{Mode: query.ModeKeyword})
		if err != nil {
			t.Fatal(err)
		}
		res.Repo = graph.RepoRef{}
		b, _ := json.Marshal(res)
		out = append(out, "search "+q+" "+string(b))
	}
	slices.Sort(out)
	return out
}

// stripInternal drops Kuzu's internal ids (_id, _src, _dst) from a row.
func stripInternal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			if k == "_id" || k == "_src" || k == "_dst" {
				continue
			}
			m[k] = stripInternal(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = stripInternal(e)
		}
		return s
	}
	return v
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("%d lines vs %d; cold has %s", len(a), len(b), b[i])
		case i >= len(b):
			return fmt.Sprintf("%d lines vs %d; re-analyzed has %s", len(a), len(b), a[i])
		case a[i] != b[i]:
			return fmt.Sprintf("re-analyzed %s\ncold        %s", a[i], b[i])
		}
	}
	return ""
}

// TestReanalyzeEqualsColdBuildOnCorpus: the same comparison on a real
// corpus (prometheus, from ../shared/bench/corpora.sh): a function body
// changed, a function with a new call added, 50 files changed at once, a
// file deleted and one moved; the re-analyzed index equals a cold build.
func TestReanalyzeEqualsColdBuildOnCorpus(t *testing.T) {
	src := testkit.Corpus(t, "prometheus")
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "prometheus")
	copyTree(t, src, root)
	if _, err := Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	goFiles := corpusGoFiles(t, root)
	edit := func(p string, f func(string) string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A body change: a call inserted in the first function of tsdb/head.go.
	edit(filepath.Join(root, "tsdb", "head.go"), func(s string) string {
		i := strings.Index(s, "\nfunc ")
		j := i + strings.Index(s[i:], "{\n") + 2
		return s[:j] + "\tgnxTouched()\n" + s[j:]
	})
	// A new function calling an existing one, in 50 files; the first one
	// is re-analyzed with the body change above (the one-file case, updated
	// in place) and compared with a cold build, then the others.
	addFunc := func(i int, p string) {
		edit(p, func(s string) string {
			name := "init"
			if k := strings.Index(s, "\nfunc "); k >= 0 {
				rest := s[k+6:]
				if e := strings.IndexAny(rest, "([ "); e > 0 && rest[0] != '(' {
					name = rest[:e]
				}
			}
			return s + fmt.Sprintf("\nfunc gnxAdded%d() {\n\t%s()\n}\n", i, name)
		})
	}
	addFunc(0, goFiles[0])
	sameAsCold := func(what string) {
		t.Helper()
		cold := filepath.Join(t.TempDir(), "prometheus")
		copyTree(t, root, cold)
		if _, err := Build(ctx, cold, Options{SkipEmbeddings: true, Force: true}); err != nil {
			t.Fatal(err)
		}
		a, b := dumpIndex(t, root), dumpIndex(t, cold)
		if d := firstDiff(a, b); d != "" {
			t.Fatalf("%s: the re-analyzed prometheus index differs from a cold build: %s", what, d)
		}
		t.Logf("%s: %d lines of index equal", what, len(a))
	}
	sum, err := Build(ctx, root, Options{SkipEmbeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Parsed != 2 || !sum.Load.InPlace || sum.Pack.Reused < sum.Pack.Nodes-sum.Load.NodesAdded-sum.Load.NodesChanged {
		t.Errorf("one body changed, one function added: parsed %d, load %+v, pack %+v; want 2 parsed, updated in place, every pack node whose row did not change reused", sum.Parsed, sum.Load, sum.Pack)
	}
	sameAsCold("two files changed")
	for i, p := range goFiles[1:50] {
		addFunc(i+1, p)
	}
	if err := os.Remove(goFiles[60]); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(root, "moved", filepath.Base(goFiles[61]))
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(goFiles[61], moved); err != nil {
		t.Fatal(err)
	}
	if sum, err = Build(ctx, root, Options{SkipEmbeddings: true}); err != nil {
		t.Fatal(err)
	}
	if sum.Parsed > 51 || sum.Reused < 500 {
		t.Errorf("re-analyze parsed %d, reused %d (want at most 51 parsed)", sum.Parsed, sum.Reused)
	}
	if c := sum.Changes; c == nil || *c != (FileChanges{Added: 1, Changed: 49, Deleted: 2}) {
		t.Errorf("changes %+v, want 1 added (the moved file), 49 changed, 2 deleted", c)
	}
	sameAsCold(fmt.Sprintf("50 files changed, one deleted, one moved (load %+v)", sum.Load))
}

// corpusGoFiles lists the non-test .go files under root, sorted.
func corpusGoFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".gitnexus" || d.Name() == "vendor" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
