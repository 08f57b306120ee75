package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/index"
	"github.com/gitnexus/gitnexus/query"
)

// analyzedRepo writes files into a new repository, analyzes it as
// `gitnexus analyze` does (index.Build) and returns its root and index.
func analyzedRepo(t *testing.T, files map[string]string) (string, Index) {
	t.Helper()
	root := t.TempDir()
	for p, src := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := index.Build(context.Background(), root, index.Options{SkipEmbeddings: true, Graph: graph.BuildOptions{BufferPoolSize: 128 << 20, MaxThreads: 2}}); err != nil {
		t.Fatal(err)
	}
	m, err := graph.ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := query.ReadPack(graph.CompanionPath(root, m, graph.PackSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return root, Index{Graph: &p.Snapshot}
}

// TestRename: the definition and every linked call become edits with
// their positions; applying them rewrites exactly those bytes; an
// occurrence the graph does not link (another symbol's field of that
// name) is listed, not edited, and makes the rename incomplete.
func TestRename(t *testing.T) {
	root, ix := analyzedRepo(t, map[string]string{
		"calc/calc.go": "package calc\n\nfunc square(x int) int { return x * x }\n\nfunc Area(s int) int {\n\treturn square(s)\n}\n\nfunc Volume(s int) int { return square(s) * s }\n",
	})
	ctx := context.Background()
	out, err := Rename(ctx, ix, root, RenameInput{Name: "square", NewName: "sq"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "found" || len(out.Edits) != 3 || !out.Complete || len(out.Unresolved) != 0 {
		t.Fatalf("rename square: %+v; want 3 edits (definition, 2 calls), complete", out)
	}
	if e := out.Edits[0]; e.Kind != "definition" || e.Line != 3 || e.Column != 6 {
		t.Errorf("first edit %+v: want the definition at 3:6", e)
	}
	if _, err := ApplyRename(root, out.Edits); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "calc", "calc.go"))
	want := "package calc\n\nfunc sq(x int) int { return x * x }\n\nfunc Area(s int) int {\n\treturn sq(s)\n}\n\nfunc Volume(s int) int { return sq(s) * s }\n"
	if string(b) != want {
		t.Errorf("after apply:\n%s\nwant:\n%s", b, want)
	}
	// Applying the same edits again finds "sq" where "square" was: refused.
	if _, err := ApplyRename(root, out.Edits); err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("stale edits applied: %v", err)
	}

	root, ix = analyzedRepo(t, map[string]string{
		"shop/shop.go": "package shop\n\nfunc total(n int) int { return n }\n\nfunc Checkout() int { return total(2) }\n",
		"shop/cart.go": "package shop\n\ntype Cart struct{ total int }\n\nfunc (c Cart) Sum() int { return c.total }\n",
	})
	out, err = Rename(ctx, ix, root, RenameInput{Name: "total", Kind: "function", NewName: "grandTotal"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Complete || len(out.Edits) != 2 || len(out.Unresolved) != 2 || out.Unresolved[0].FilePath != "shop/cart.go" {
		t.Errorf("rename total beside a field total: %+v; want 2 edits, the field's 2 occurrences unresolved, incomplete", out)
	}
	if _, err := Rename(ctx, ix, root, RenameInput{Name: "total", Kind: "function", NewName: "9lives"}); !errors.Is(err, ErrInput) {
		t.Errorf("new name 9lives: %v, want ErrInput", err)
	}
}
