package main

// End-to-end tests: build the real binary once, then drive it on the fixture
// repositories in testdata/repos (each copied into a fresh git repository
// per test) and check what lands in the graph through its own cypher
// command.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gitnexus-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "gitnexus")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the binary failed:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's isolated world: a GITNEXUS_HOME and a work dir.
type env struct {
	t    *testing.T
	home string
}

func newEnv(t *testing.T) *env {
	return &env{t: t, home: t.TempDir()}
}

// run executes the binary in dir and returns stdout, stderr and exit code.
func (e *env) run(dir string, args ...string) (string, string, int) {
	e.t.Helper()
	c := exec.Command(binary, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GITNEXUS_HOME="+e.home, "HOME="+e.home)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// ok runs and requires exit 0.
func (e *env) ok(dir string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.run(dir, args...)
	if code != 0 {
		e.t.Fatalf("gitnexus %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// cypher runs a statement with --json and returns its rows.
func (e *env) cypher(dir, stmt string) [][]any {
	e.t.Helper()
	out := e.ok(dir, "cypher", "--json", stmt)
	var res struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		e.t.Fatalf("cypher --json is not one JSON object: %v\n%s", err, out)
	}
	return res.Rows
}

// fixture copies testdata/repos/name into a new git repository.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "repos", name))); err != nil {
		t.Fatal(err)
	}
	git(t, dst, "init", "-q")
	git(t, dst, "add", "-A")
	git(t, dst, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture")
	return dst
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

type summary struct {
	Files       int                `json:"files"`
	Symbols     int                `json:"symbols"`
	Languages   map[string]int     `json:"languages"`
	Kinds       map[string]int     `json:"kinds"`
	Edges       map[string]int     `json:"edges"`
	ParseStatus map[string]int     `json:"parse_status"`
	Skipped     map[string]int     `json:"skipped"`
	Phases      map[string]float64 `json:"phases"`
}

func (e *env) analyze(dir string, extra ...string) summary {
	e.t.Helper()
	out := e.ok(dir, append([]string{"analyze", "--json", "--skip-embeddings"}, extra...)...)
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		e.t.Fatalf("analyze --json: %v\n%s", err, out)
	}
	return s
}

// symbols returns "Label name kind file:line" strings for every symbol.
func (e *env) symbols(dir string) map[string]bool {
	e.t.Helper()
	got := map[string]bool{}
	for _, label := range []string{"Function", "Class", "Method", "Interface"} {
		for _, r := range e.cypher(dir, "MATCH (s:"+label+") RETURN s.qualifiedName, s.kind, s.filePath, s.startLine") {
			got[fmt.Sprintf("%s %v %v %v:%v", label, r[0], r[1], r[2], r[3])] = true
		}
	}
	return got
}

func requireAll(t *testing.T, got map[string]bool, want []string) {
	t.Helper()
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing %q", w)
		}
	}
	if t.Failed() {
		t.Logf("have:\n%s", strings.Join(keys(got), "\n"))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestE2EGo(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	s := e.analyze(dir, ".")
	if s.Languages["go"] != 4 {
		t.Errorf("go files = %d, want 4 (vendor/ left out): %v", s.Languages["go"], s.Languages)
	}
	if s.Skipped["default_exclude"] < 1 {
		t.Errorf("vendor/ file not counted as default_exclude: %v", s.Skipped)
	}
	requireAll(t, e.symbols(dir), []string{
		"Function main function main.go:12",
		"Function New function server/server.go:16",
		"Method Server.HandleOrder method server/server.go:21",
		"Method Server.audit method server/audit.go:11",
		"Function validate function server/audit.go:15",
		"Class Server struct server/server.go:11",
		"Class Order struct store/store.go:5",
		"Interface Store interface store/store.go:10",
		"Method DB.SaveOrder method store/store.go:26",
		"Class OrderID type_alias store/store.go:31",
	})
	// HAS_METHOD links a method to its receiver type across files.
	rows := e.cypher(dir, "MATCH (c:Class)-[:HAS_METHOD]->(m:Method) WHERE c.name = 'Server' RETURN m.name ORDER BY m.name")
	if fmt.Sprint(rows) != "[[HandleOrder] [audit]]" {
		t.Errorf("Server's methods = %v, want HandleOrder and audit (audit is in another file)", rows)
	}
	// DEFINES and CONTAINS tie symbols to files and files to folders.
	rows = e.cypher(dir, "MATCH (d:Folder)-[:CONTAINS]->(f:File)-[:DEFINES]->(s:Function) WHERE s.name = 'validate' RETURN d.path, f.path")
	if fmt.Sprint(rows) != "[[server server/audit.go]]" {
		t.Errorf("validate's folder/file = %v", rows)
	}
	rows = e.cypher(dir, "MATCH (s:Method) WHERE s.name = 'HandleOrder' RETURN s.isExported, s.docComment, s.language, s.endLine")
	if len(rows) != 1 || rows[0][0] != true || !strings.Contains(fmt.Sprint(rows[0][1]), "validates and saves") || rows[0][2] != "go" || rows[0][3] != float64(32) {
		t.Errorf("HandleOrder properties = %v", rows)
	}
}

func TestE2EPython(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "pyapp")
	s := e.analyze(dir)
	if s.Languages["python"] != 3 {
		t.Errorf("python files = %d, want 3: %v", s.Languages["python"], s.Languages)
	}
	requireAll(t, e.symbols(dir), []string{
		"Class Base class app/service.py:4",
		"Class Service class app/service.py:11",
		"Method Service.__init__ constructor app/service.py:14",
		"Method Service.do_work method app/service.py:17",
		"Method Service._check method app/service.py:22",
		"Function make_service function app/service.py:27",
		"Function run function app/main.py:4",
	})
	rows := e.cypher(dir, "MATCH (m:Method) WHERE m.name = '_check' OR m.name = 'do_work' RETURN m.name, m.isExported, m.docComment ORDER BY m.name")
	if len(rows) != 2 || rows[0][1] != false || rows[1][1] != true || !strings.Contains(fmt.Sprint(rows[1][2]), "Validate and save") {
		t.Errorf("exported/doc = %v", rows)
	}
}

func TestE2ETypeScript(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "tsapp")
	s := e.analyze(dir)
	if s.Languages["typescript"] != 2 || s.Languages["tsx"] != 1 {
		t.Errorf("languages = %v, want typescript 2, tsx 1", s.Languages)
	}
	requireAll(t, e.symbols(dir), []string{
		"Interface IAuth interface src/auth/validate.ts:2",
		"Function validateUser function src/auth/validate.ts:7",
		"Class AuthService class src/auth/validate.ts:11",
		"Method AuthService.login method src/auth/validate.ts:12",
		"Class Role enum src/auth/validate.ts:17",
		"Class UserId type_alias src/auth/validate.ts:22",
		"Function handleLogin function src/index.ts:3",
		"Function App function src/App.tsx:3",
	})
}

func TestE2EMixedLanguagesAndDiscovery(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "mixed")
	// Untracked files: ignored by .gitignore, by .gitnexusignore, too large; and one kept.
	write(t, dir, "ignored/x.py", "def ignored(): pass\n")
	write(t, dir, "debug.log", "noise\n")
	write(t, dir, "secret/s.py", "def hidden(): pass\n")
	write(t, dir, "big.py", strings.Repeat("x = 1\n", 400_000))
	write(t, dir, "extra.py", "def untracked_but_kept():\n    pass\n")
	s := e.analyze(dir)
	for _, l := range []string{"java", "rust", "c", "cpp", "csharp", "ruby", "php", "python"} {
		if s.Languages[l] == 0 {
			t.Errorf("no %s file indexed: %v", l, s.Languages)
		}
	}
	if s.Skipped["binary"] != 1 || s.Skipped["too_large"] != 1 {
		t.Errorf("skipped = %v, want binary 1 and too_large 1", s.Skipped)
	}
	files := map[string]bool{}
	for _, r := range e.cypher(dir, "MATCH (f:File) RETURN f.path") {
		files[r[0].(string)] = true
	}
	for _, p := range []string{"ignored/x.py", "debug.log", "secret/s.py", "big.py", "lib/blob.dat"} {
		if files[p] {
			t.Errorf("%s should not be indexed", p)
		}
	}
	if !files["extra.py"] {
		t.Errorf("untracked, unignored extra.py not indexed: %v", files)
	}
	requireAll(t, e.symbols(dir), []string{
		"Class Main class src/Main.java:4",
		"Method Main.main method src/Main.java:5",
		"Interface Greet trait src/lib.rs:2",
		"Function run function src/lib.rs:14",
		"Function add function src/util.c:5",
		"Class Greeter class lib/greeter.rb:2",
		"Method Greeter.greet method lib/greeter.rb:3",
		"Class Page class lib/page.php:4",
		"Interface IRepo interface src/Program.cs:3",
	})
}

func TestE2ECommandsAndErrors(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "pyapp")
	nowhere := filepath.Join(t.TempDir(), "does-not-exist")
	if _, errs, code := e.run(t.TempDir(), "analyze", nowhere); code != 3 || !strings.Contains(errs, "does-not-exist") {
		t.Errorf("analyze of a missing path: exit %d, stderr %q; want 3 naming the path", code, errs)
	}
	empty := t.TempDir()
	if _, errs, code := e.run(empty, "status"); code != 3 || !strings.Contains(errs, "analyze") {
		t.Errorf("status without an index: exit %d, stderr %q; want 3 and a hint to analyze", code, errs)
	}
	e.analyze(dir)

	// Commands act on the repo containing the working directory.
	out := e.ok(filepath.Join(dir, "app"), "status", "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if st["stale"] != false {
		t.Errorf("fresh index reported stale: %v", st["stale"])
	}
	// -r by name from anywhere.
	// Outside any indexed repo, the only registered one (said on stderr):
	// the rule the MCP server follows too.
	if _, errs, code := e.run(empty, "cypher", "MATCH (f:File) RETURN count(f)"); code != 0 || !strings.Contains(errs, "only registered") {
		t.Errorf("cypher outside any indexed repo, one registered: exit %d, stderr %q; want 0 and a notice", code, errs)
	}
	out = e.ok(empty, "cypher", "-r", "pyapp", "--json", "MATCH (f:File) RETURN count(f) AS n")
	if !strings.Contains(out, `"columns"`) || !strings.Contains(out, "3") {
		t.Errorf("cypher -r pyapp = %s", out)
	}
	// Writes are rejected.
	_, errs, code := e.run(dir, "cypher", "CREATE (f:Folder {id: 'x', path: 'x', name: 'x'})")
	if code == 0 || !strings.Contains(strings.ToLower(errs), "read-only") {
		t.Errorf("cypher CREATE: exit %d, stderr %q; want failure saying read-only", code, errs)
	}
	// A new commit makes the index stale.
	write(t, dir, "app/new.py", "def new(): pass\n")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "more")
	if out := e.ok(dir, "status"); !strings.Contains(out, "STALE") {
		t.Errorf("status after a new commit does not say STALE:\n%s", out)
	}
	// list, then clean.
	if out := e.ok(empty, "list", "--json"); !strings.Contains(out, "pyapp") {
		t.Errorf("list --json = %s", out)
	}
	e.ok(dir, "clean")
	if _, err := os.Stat(filepath.Join(dir, ".gitnexus")); !os.IsNotExist(err) {
		t.Errorf(".gitnexus still there after clean: %v", err)
	}
	if _, _, code := e.run(dir, "status"); code != 3 {
		t.Errorf("status after clean: exit %d, want 3", code)
	}
	// Unknown flags are usage errors.
	if _, _, code := e.run(dir, "analyze", "--no-such-flag"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

func TestE2EReanalyzeKeepsServingAndExcludesItself(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	first := e.analyze(dir)
	second := e.analyze(dir)
	if first.Symbols != second.Symbols || first.Files != second.Files {
		t.Errorf("re-analyze of unchanged code differs: %+v vs %+v", first, second)
	}
	// .gitnexus/ went into .git/info/exclude, so git status stays clean.
	c := exec.Command("git", "status", "--porcelain")
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), ".gitnexus") {
		t.Errorf("git status shows the index:\n%s", out)
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestE2EEmbeddingsWithFixtureModel(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	model, err := filepath.Abs(filepath.Join("embed", "testdata", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	// Without a model: a keyword-only index, exit 0, said once.
	_, errs, code := e.run(dir, "analyze", dir)
	if code != 0 || strings.Count(errs, "keyword-only") != 1 {
		t.Fatalf("analyze without a model: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := e.run(dir, "query", "--mode", "vector", "order"); code != 3 || !strings.Contains(errs, "no embeddings") {
		t.Errorf("vector query on a keyword-only index: exit %d, %q", code, errs)
	}

	out := e.ok(dir, "analyze", "--json", "--model-dir", model, dir)
	if !strings.Contains(out, `17 embedded, 0 reused`) {
		t.Errorf("first embedding run: %s", out)
	}
	rows := e.cypher(dir, "MATCH (c:CodeEmbedding) WHERE c.ownerLabel <> 'File' RETURN count(*)")
	if fmt.Sprint(rows) != "[[13]]" {
		t.Errorf("symbol vectors stored = %v, want one per symbol (13)", rows)
	}
	// One file summary per file that defines a symbol (4 .go files).
	rows = e.cypher(dir, "MATCH (c:CodeEmbedding) WHERE c.ownerLabel = 'File' RETURN c.ownerId ORDER BY c.ownerId")
	if fmt.Sprint(rows) != "[[main.go] [server/audit.go] [server/server.go] [store/store.go]]" {
		t.Errorf("file summary vectors = %v, want the 4 .go files", rows)
	}
	// Re-analyze of unchanged code reuses every vector.
	out = e.ok(dir, "analyze", "--json", "--model-dir", model, dir)
	if !strings.Contains(out, `0 embedded, 17 reused`) {
		t.Errorf("second run should reuse all vectors: %s", out)
	}
	// File summaries are results with --files only.
	files := func(args ...string) []string {
		out := e.ok(dir, append([]string{"query", "--json", "--mode", "vector", "--limit", "50", "--model-dir", model}, args...)...)
		var r struct {
			Definitions []struct {
				Label, Kind, FilePath string
			} `json:"definitions"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("query --json: %v\n%s", err, out)
		}
		var got []string
		for _, h := range r.Definitions {
			if h.Label == "File" {
				if h.Kind != "file" {
					t.Errorf("file hit %s has kind %q", h.FilePath, h.Kind)
				}
				got = append(got, h.FilePath)
			}
		}
		return got
	}
	if got := files("order service"); len(got) != 0 {
		t.Errorf("vector query without --files returned files %v", got)
	}
	if got := files("--files", "order service"); len(got) != 4 {
		t.Errorf("vector query with --files returned files %v, want the 4 summarized files", got)
	}
	out = e.ok(dir, "query", "--json", "--mode", "vector", "--model-dir", model, "save the order")
	var res struct {
		Definitions []struct {
			Matched string `json:"matched"`
		} `json:"definitions"`
		ProcessSymbols []struct {
			Matched string `json:"matched"`
		} `json:"process_symbols"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("query --json: %v\n%s", err, out)
	}
	if len(res.Definitions)+len(res.ProcessSymbols) == 0 {
		t.Errorf("vector query found nothing: %s", out)
	}
	for _, d := range res.Definitions {
		if d.Matched != "vector" {
			t.Errorf("vector-mode hit matched by %q", d.Matched)
		}
	}
}

func TestE2EMultiRepoQuery(t *testing.T) {
	e := newEnv(t)
	goDir, pyDir := fixture(t, "goshop"), fixture(t, "pyapp")
	e.analyze(goDir)
	e.analyze(pyDir)
	out, errs, code := e.run(t.TempDir(), "query", "--json", "--mode", "keyword", "-r", "goshop,pyapp,no-such-repo", "order")
	if code != 0 || !strings.Contains(errs, "no-such-repo") {
		t.Errorf("one failed repo: exit %d (want 0: the others answered), stderr %q", code, errs)
	}
	var m struct {
		Repos       []string `json:"repos"`
		Definitions []struct {
			Repo string `json:"repo"`
		} `json:"definitions"`
		ProcessSymbols []struct {
			Repo string `json:"repo"`
		} `json:"process_symbols"`
		Failed []struct {
			Repo string `json:"repo"`
		} `json:"failed"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("query --json over several repos: %v\n%s", err, out)
	}
	if len(m.Repos) != 2 || len(m.Failed) != 1 || m.Failed[0].Repo != "no-such-repo" {
		t.Errorf("repos %v failed %+v", m.Repos, m.Failed)
	}
	seen := map[string]bool{}
	for _, d := range m.Definitions {
		seen[d.Repo] = true
	}
	for _, d := range m.ProcessSymbols {
		seen[d.Repo] = true
	}
	if !seen["goshop"] || !seen["pyapp"] {
		t.Errorf("hits from %v, want both repos", seen)
	}
	// --all searches every registered repo.
	out = e.ok(t.TempDir(), "query", "--json", "--mode", "keyword", "--all", "order")
	if !strings.Contains(out, `"goshop"`) || !strings.Contains(out, `"pyapp"`) {
		t.Errorf("--all: %s", out)
	}
}

// TestE2EReanalyzeRemovesTheReplacedIndex: a re-analyze that replaces the
// database leaves its removal to a process of its own (graph
// BuildOptions.Retire), which removes the retired directory soon after.
func TestE2EReanalyzeRemovesTheReplacedIndex(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	e.analyze(dir)
	idx := filepath.Join(dir, ".gitnexus")
	dbFiles := func() []string {
		m, _ := filepath.Glob(filepath.Join(idx, "db-*.kuzu"))
		return m
	}
	first := dbFiles()
	if len(first) != 1 {
		t.Fatalf("after the first analyze: database files %q", first)
	}
	write(t, dir, "retired_probe.go", "package main\n\nfunc retiredProbe() int { return 1 }\n")
	e.analyze(dir)
	if now := dbFiles(); len(now) != 1 || now[0] == first[0] {
		t.Fatalf("after the re-analyze: database files %q (first %q)", now, first)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		left, _ := filepath.Glob(filepath.Join(idx, "retired-*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replaced database was not removed: %q", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := e.symbols(dir); !got["Function retiredProbe function retired_probe.go:3"] {
		t.Errorf("the new index lacks retiredProbe")
	}
}
