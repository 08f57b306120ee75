package lang

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// walkChildrenSame parses src both ways, named children read from the
// walk's entries and asked of C every time, and reports a difference.
func walkChildrenSame(t *testing.T, p *Parser, path string, l *Language, src []byte) bool {
	t.Helper()
	parse := func(viaC bool) Facts {
		noWalkChildren = viaC
		defer func() { noWalkChildren = false }()
		facts, _, err := p.Parse(context.Background(), path, l, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return facts
	}
	walk, viaC := parse(false), parse(true)
	if !reflect.DeepEqual(walk, viaC) {
		t.Errorf("%s: named children from the walk give other facts than asked of C: %d/%d symbols, %d/%d calls, %d/%d types",
			path, len(walk.Symbols), len(viaC.Symbols), len(walk.Calls), len(viaC.Calls), len(walk.Types), len(viaC.Types))
		return false
	}
	return true
}

// TestWalkNamedChildrenSame: File.eachNamedChild, File.field and
// File.kind, which read a walked node's named children, its child under a
// field and its kind from the walk's entries, give the facts asking C
// gives, on every test source of every language, with the children handed
// over poisoned after each callback.
func TestWalkNamedChildrenSame(t *testing.T) {
	walkPoison = true
	defer func() { walkPoison = false }()
	p := NewParser()
	defer p.Close()
	n := 0
	for _, dir := range []string{"testdata", "../../testdata/repos"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			l := Detect(path)
			if l == nil {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			walkChildrenSame(t, p, path, l, src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 30 {
		t.Fatalf("only %d test sources of the languages found", n)
	}
}

// TestWalkNamedChildrenSameKernel is TestWalkNamedChildrenSame on the
// Linux kernel's fs/ and kernel/ trees (when the corpus is present).
func TestWalkNamedChildrenSameKernel(t *testing.T) {
	root := corpusRoot(t, "linux")
	p := NewParser()
	defer p.Close()
	n, bad := 0, 0
	for _, sub := range []string{"fs", "kernel"} {
		err := filepath.WalkDir(filepath.Join(root, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".c") || strings.HasSuffix(path, ".h")) {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil || len(src) > 1<<20 {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			n++
			if !walkChildrenSame(t, p, rel, ByName("c"), src) {
				if bad++; bad > 10 {
					return filepath.SkipAll
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("kernel: %d files compared", n)
}
