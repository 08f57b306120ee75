package graph

import (
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
	// Re-registering a path replaces its entry.
	if err := reg.Register(RepoEntry{Name: "alpha", Path: a, IndexedAt: at, Commit: "c2"}); err != nil {
		t.Fatal(err)
	}
	reg2, err := LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	list := reg2.List()
	if len(list) != 2 {
		t.Fatalf("entries %+v", list)
	}
	var alpha RepoEntry
	for _, e := range list {
		if e.Name == "alpha" {
			alpha = e
		}
	}
	if alpha.Commit != "c2" || !alpha.IndexedAt.Equal(at) {
		t.Errorf("alpha %+v", alpha)
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
	if _, err := Resolve("", outside); err == nil || !strings.Contains(err.Error(), "gitnexus analyze") || !strings.Contains(err.Error(), "it's repo") {
		t.Errorf("outside any repo: %v", err)
	}
	if _, err := Resolve(outside, "/"); err == nil || !strings.Contains(err.Error(), "not inside an indexed repo") {
		t.Errorf("unindexed path: %v", err)
	}
	// Two repos registered under one name: the name is ambiguous.
	other := t.TempDir()
	reg.Register(RepoEntry{Name: "it's repo", Path: other})
	if _, err := Resolve("it's repo", "/"); err == nil || !strings.Contains(err.Error(), "several") {
		t.Errorf("ambiguous name: %v", err)
	}
}
