package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRegistryRoundTrip(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", filepath.Join(t.TempDir(), "home"))
	reg, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.List()) != 0 {
		t.Fatalf("new registry lists %v", reg.List())
	}
	a, b := t.TempDir(), t.TempDir()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := reg.Register(RepoEntry{Name: "alpha", Path: a, IndexedAt: at, Commit: "c1"}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(RepoEntry{Path: b}); err != nil {
		t.Fatal(err)
	}
	// Re-registering a path under its name keeps its entry (the file is
	// not written again: readers take the time, commit and counts from
	// meta.json); under another name it replaces it.
	if err := reg.Register(RepoEntry{Name: "alpha", Path: a, IndexedAt: at.Add(time.Hour), Commit: "c2"}); err != nil {
		t.Fatal(err)
	}
	find := func(name string) RepoEntry {
		t.Helper()
		r, err := LoadRegistry()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.List()) != 2 {
			t.Fatalf("entries %+v", r.List())
		}
		for _, e := range r.List() {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no %s in %+v", name, r.List())
		return RepoEntry{}
	}
	if alpha := find("alpha"); alpha.Commit != "c1" || !alpha.IndexedAt.Equal(at) {
		t.Errorf("alpha re-registered under its name: %+v", alpha)
	}
	if err := reg.Register(RepoEntry{Name: "alpha2", Path: a, IndexedAt: at, Commit: "c3"}); err != nil {
		t.Fatal(err)
	}
	if alpha := find("alpha2"); alpha.Commit != "c3" {
		t.Errorf("alpha renamed: %+v", alpha)
	}
	if err := reg.Register(RepoEntry{Name: "alpha", Path: a, IndexedAt: at, Commit: "c2"}); err != nil {
		t.Fatal(err)
	}
	reg2, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg2.Remove("alpha"); err != nil {
		t.Fatal(err)
	}
	if err := reg2.Remove("alpha"); err == nil || !strings.Contains(err.Error(), "known: "+filepath.Base(b)) {
		t.Errorf("removing an unknown name: %v", err)
	}
	if err := reg2.Remove(b); err != nil {
		t.Fatalf("remove by path: %v", err)
	}
	reg3, _ := LoadRegistry()
	if len(reg3.List()) != 0 {
		t.Errorf("after removes: %+v", reg3.List())
	}
}

func TestRegistryConcurrentWriters(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			reg, err := LoadRegistry()
			if err != nil {
				t.Error(err)
				return
			}
			dir := filepath.Join(os.Getenv("GITNEXUS_HOME"), "repo", string(rune('a'+i)))
			os.MkdirAll(dir, 0o755)
			if err := reg.Register(RepoEntry{Path: dir}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	reg, _ := LoadRegistry()
	if n := len(reg.List()); n != 8 {
		t.Errorf("%d entries after 8 concurrent registers", n)
	}
}

func TestResolve(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	root := newRepo(t)
	m := buildIndex(t, root, 1)
	reg, _ := LoadRegistry()
	if err := reg.Register(EntryFromMeta(m)); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "src", "deep")
	canon, _ := canonical(root)

	e, err := Resolve("", sub)
	if err != nil || e.Path != canon || e.Name != "it's repo" || e.Commit != "abc" {
		t.Errorf(`Resolve("", subdir) = %+v, %v`, e, err)
	}
	e, err = Resolve("it's repo", "/")
	if err != nil || e.Path != canon {
		t.Errorf("Resolve(name) = %+v, %v", e, err)
	}
	e, err = Resolve(sub, "/")
	if err != nil || e.Path != canon {
		t.Errorf("Resolve(abs subdir path) = %+v, %v", e, err)
	}
	e, err = Resolve(filepath.Join("..", ".."), sub)
	if err != nil || e.Path != canon {
		t.Errorf("Resolve(relative path) = %+v, %v", e, err)
	}
	if _, err := Resolve("nosuch", t.TempDir()); err == nil || !strings.Contains(err.Error(), "known: it's repo") {
		t.Errorf("unknown name: %v", err)
	}
	outside := t.TempDir()
	// Outside any indexed repo, the only registered one is the default.
	if e, err := Resolve("", outside); err != nil || e.Path != canon {
		t.Errorf("outside any repo, one registered: %+v, %v", e, err)
	}
	if _, err := Resolve(outside, "/"); err == nil || !strings.Contains(err.Error(), "not inside an indexed repo") {
		t.Errorf("unindexed path: %v", err)
	}
	// Two repos registered under one name (a registry written before
	// names had to be unique): the name is ambiguous.
	other := t.TempDir()
	writeRegistry(t, RepoEntry{Name: "it's repo", Path: canon}, RepoEntry{Name: "it's repo", Path: other})
	if _, err := Resolve("it's repo", "/"); err == nil || !strings.Contains(err.Error(), "several") {
		t.Errorf("ambiguous name: %v", err)
	}
}

// writeRegistry replaces the registry file with entries as given.
func writeRegistry(t *testing.T, es ...RepoEntry) {
	t.Helper()
	data, err := json.Marshal(registryFile{Version: 1, Repos: es})
	if err != nil {
		t.Fatal(err)
	}
	home, _ := Home()
	os.MkdirAll(home, 0o755)
	if err := os.WriteFile(filepath.Join(home, "registry.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeIndex makes dir an indexed repo (a meta.json only: resolution reads
// no database) named name, and returns its canonical path.
func fakeIndex(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := canonical(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(IndexDir(c), 0o755)
	if err := writeMeta(c, &Meta{RepoName: name, RepoRoot: c, DBFile: dbPrefix + "test" + dbSuffix}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRegisterRefusesTakenName(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	reg, _ := LoadRegistry()
	a, b := t.TempDir(), t.TempDir()
	ca, _ := canonical(a)
	if err := reg.Register(RepoEntry{Name: "gin", Path: a}); err != nil {
		t.Fatal(err)
	}
	err := reg.Register(RepoEntry{Name: "gin", Path: b})
	if !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), ca) || !strings.Contains(err.Error(), "--name") {
		t.Fatalf("second repo under a taken name: %v", err)
	}
	if err := reg.CheckName("gin", b); !errors.Is(err, ErrNameTaken) {
		t.Errorf("CheckName of a taken name: %v", err)
	}
	// The default name (the base name) collides the same way.
	dup := filepath.Join(t.TempDir(), filepath.Base(a))
	os.MkdirAll(dup, 0o755)
	if err := reg.Register(RepoEntry{Path: a}); err != nil { // a re-analyze under its own default name
		t.Fatal(err)
	}
	if err := reg.Register(RepoEntry{Path: dup}); !errors.Is(err, ErrNameTaken) {
		t.Errorf("default name taken: %v", err)
	}
	// Re-registering the same path under its name, or another path under
	// a free name, is fine; nothing was lost.
	if err := reg.Register(RepoEntry{Name: "gin", Path: a}); err != nil {
		t.Errorf("re-register: %v", err)
	}
	if err := reg.CheckName("gin", a); err != nil {
		t.Errorf("CheckName of its own name: %v", err)
	}
	if err := reg.Register(RepoEntry{Name: "gin2", Path: b}); err != nil {
		t.Errorf("free name: %v", err)
	}
	reg2, _ := LoadRegistry()
	if n := len(reg2.List()); n != 2 {
		t.Errorf("entries %+v", reg2.List())
	}
}

// TestResolveRegisteredOnly attacks the MCP rule: only registry entries,
// by name or by a path equal to an entry's path after cleaning; errors the
// same whether a path exists or not.
func TestResolveRegisteredOnly(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	base := t.TempDir()
	gin := fakeIndex(t, filepath.Join(base, "gin"), "gin")
	secret := fakeIndex(t, filepath.Join(base, "secret"), "secret") // indexed, never registered
	writeRegistry(t, RepoEntry{Name: "gin", Path: gin})
	link := filepath.Join(base, "link")
	if err := os.Symlink(gin, link); err != nil {
		t.Fatal(err)
	}

	for _, ok := range []string{"gin", gin, gin + "/", gin + "/.", filepath.Join(secret, "..", "gin"), secret + "/../gin", gin + "//"} {
		if e, err := ResolveIn(RegisteredOnly, ok, "/"); err != nil || e.Path != gin {
			t.Errorf("%q: %+v, %v", ok, e, err)
		}
	}
	if e, err := ResolveIn(RegisteredOnly, "../gin", secret); err != nil || e.Path != gin {
		t.Errorf("relative path to a registered repo: %+v, %v", e, err)
	}
	missing := filepath.Join(base, "nosuch")
	attacks := []string{secret, secret + "/", filepath.Join(secret, "src"), gin + "/../secret", "../secret", "./secret",
		link, link + "/", missing, "/", "/etc", "/etc/passwd", "..", ".", "~", "~/", "secret",
		"gin%2F..%2Fsecret", "%2Fetc", "gin\x00", "gin\n", strings.Repeat("a/", 5000), filepath.Join(gin, "sub")}
	for _, a := range attacks {
		e, err := ResolveIn(RegisteredOnly, a, secret)
		if err == nil {
			t.Errorf("%q opened %+v", a, e)
			continue
		}
		if !errors.Is(err, ErrUnknownRepo) {
			t.Errorf("%q: not ErrUnknownRepo: %v", a, err)
		}
		shown := a
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		// The message is a function of the argument alone: nothing in it
		// tells whether the path exists, is a directory, or is indexed.
		want := fmt.Sprintf("%v: no registered repository is named %q or has that path (known: gin)", ErrUnknownRepo, shown)
		if err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %v", a, err, want)
		}
	}
	// The CLI's rule still takes an indexed path, a symlink to one included.
	if e, err := Resolve(secret, "/"); err != nil || e.Path != secret {
		t.Errorf("CLI, unregistered indexed path: %+v, %v", e, err)
	}
	if e, err := Resolve(link, "/"); err != nil || e.Path != gin {
		t.Errorf("CLI, symlink to an indexed repo: %+v, %v", e, err)
	}
}

// TestResolveDefaultOneRule: the repo containing the working directory
// wins over "the only registered repo", for the CLI and MCP alike.
func TestResolveDefaultOneRule(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	base := t.TempDir()
	gin := fakeIndex(t, filepath.Join(base, "gin"), "gin")
	other := fakeIndex(t, filepath.Join(base, "other"), "other")
	sub := filepath.Join(gin, "sub", "dir")
	os.MkdirAll(sub, 0o755)
	outside := t.TempDir()

	// Registry lists only the other repo; we run inside gin.
	writeRegistry(t, RepoEntry{Name: "other", Path: other})
	if e, err := ResolveIn(AnyIndex, "", sub); err != nil || e.Path != gin {
		t.Errorf("CLI inside gin, registry lists other: %+v, %v", e, err)
	}
	if e, err := ResolveIn(RegisteredOnly, "", sub); err == nil || !strings.Contains(err.Error(), gin) || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("MCP inside unregistered gin must not answer from other: %+v, %v", e, err)
	}
	// Both registered: inside gin → gin, for both.
	writeRegistry(t, RepoEntry{Name: "gin", Path: gin}, RepoEntry{Name: "other", Path: other})
	for _, sc := range []Scope{AnyIndex, RegisteredOnly} {
		if e, err := ResolveIn(sc, "", sub); err != nil || e.Path != gin || e.Name != "gin" {
			t.Errorf("scope %d inside gin: %+v, %v", sc, e, err)
		}
		// An explicit repo wins over the working directory.
		if e, err := ResolveIn(sc, "other", sub); err != nil || e.Path != other {
			t.Errorf("scope %d explicit other: %+v, %v", sc, e, err)
		}
		// Outside both with two registered: an error naming them.
		if _, err := ResolveIn(sc, "", outside); !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "gin, other") {
			t.Errorf("scope %d outside, two registered: %v", sc, err)
		}
	}
	// Outside any, one registered: that one, for both.
	writeRegistry(t, RepoEntry{Name: "other", Path: other})
	for _, sc := range []Scope{AnyIndex, RegisteredOnly} {
		if e, err := ResolveIn(sc, "", outside); err != nil || e.Path != other {
			t.Errorf("scope %d outside, one registered: %+v, %v", sc, e, err)
		}
	}
	writeRegistry(t)
	if _, err := ResolveIn(RegisteredOnly, "", outside); !errors.Is(err, ErrNoIndex) {
		t.Errorf("nothing registered: %v", err)
	}
}

// BenchmarkResolveRegistered is the per-call cost the MCP server pays to
// resolve "repo" (it re-reads the registry on every call).
func BenchmarkResolveRegistered(b *testing.B) {
	b.Setenv("GITNEXUS_HOME", b.TempDir())
	var es []RepoEntry
	for i := 0; i < 20; i++ {
		es = append(es, RepoEntry{Name: fmt.Sprintf("repo%d", i), Path: fmt.Sprintf("/src/repo%d", i)})
	}
	data, _ := json.Marshal(registryFile{Version: 1, Repos: es})
	home, _ := Home()
	os.WriteFile(filepath.Join(home, "registry.json"), data, 0o644)
	for i := 0; i < b.N; i++ {
		if _, err := ResolveIn(RegisteredOnly, "repo7", "/"); err != nil {
			b.Fatal(err)
		}
	}
}
