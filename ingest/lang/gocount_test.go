package lang

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// goCountCheck walks the .go files under root, counts top-level func
// declarations with go/parser (the reference) and Function+Method symbols
// with our extractor, and fails when the totals differ by more than 1%.
// Files go/parser rejects are left out of both counts.
func goCountCheck(t *testing.T, root string) {
	t.Helper()
	p := NewParser()
	defer p.Close()
	l := ByName("go")
	fset := token.NewFileSet()
	var files, want, got, partial int
	var diffs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		af, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // not valid Go: no reference count
		}
		ref := 0
		for _, d := range af.Decls {
			if _, ok := d.(*ast.FuncDecl); ok {
				ref++
			}
		}
		facts, status, err := p.Parse(context.Background(), path, l, src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if status == schema.ParsePartial {
			partial++
		}
		n := 0
		for _, s := range facts.Symbols {
			if s.Kind == schema.KindFunction || s.Kind == schema.KindMethod {
				n++
			}
		}
		files++
		want += ref
		got += n
		if n != ref && len(diffs) < 10 {
			diffs = append(diffs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no Go files under %s", root)
	}
	diff := got - want
	if diff < 0 {
		diff = -diff
	}
	t.Logf("%s: %d files (%d partial), go/parser %d funcs, extracted %d Function+Method", root, files, partial, want, got)
	if float64(diff) > 0.01*float64(want) {
		t.Errorf("Function+Method %d vs go/parser %d: off by more than 1%%; first files differing: %v", got, want, diffs)
	} else if len(diffs) > 0 {
		t.Logf("files differing (within tolerance): %v", diffs)
	}
}

func TestGoCountThisRepo(t *testing.T) {
	goCountCheck(t, filepath.Join("..", ".."))
}

func TestGoCountCorpora(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory, so no corpora")
	}
	for _, name := range []string{"gin", "prometheus", "kubernetes"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(home, ".cache", "gitnexus-corpora", name)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("corpus %s absent at %s (fetch it with /work/shared/bench/corpora.sh %s)", name, dir, name)
			}
			if name == "kubernetes" && testing.Short() {
				t.Skip("kubernetes corpus is large; skipped with -short")
			}
			goCountCheck(t, dir)
		})
	}
}
