package graph

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/ingest"
)

// TestIsTestStoredAtIngest builds an index of a repository with a test file
// and reads the isTest property back with Cypher: ingest decides it once
// (schema.IsTestPath) and every File and symbol node carries it.
func TestIsTestStoredAtIngest(t *testing.T) {
	root := newRepo(t)
	files := map[string]string{
		"foo.go":      "package foo\n\nfunc Foo() int { return 1 }\n\ntype T struct{}\n\nfunc (T) M() {}\n",
		"foo_test.go": "package foo\n\nimport \"testing\"\n\nfunc TestFoo(t *testing.T) { Foo() }\n\nfunc helper() {}\n",
	}
	for p, src := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	b, err := NewBuild(ctx, root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if _, err := ingest.Run(ctx, root, b, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	db := openTest(t, root)
	got := map[string]bool{}
	for _, q := range []string{
		"MATCH (f:File) RETURN f.path, f.isTest",
		"MATCH (n:Function) RETURN n.name, n.isTest",
		"MATCH (n:Method) RETURN n.name, n.isTest",
		"MATCH (n:Class) RETURN n.name, n.isTest",
	} {
		r, err := db.Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, row := range r.Rows {
			v, ok := row[1].(bool)
			if !ok {
				t.Fatalf("%s: isTest is %T (%v), want a bool", q, row[1], row[1])
			}
			got[row[0].(string)] = v
		}
	}
	want := map[string]bool{"foo.go": false, "Foo": false, "T": false, "M": false,
		"foo_test.go": true, "TestFoo": true, "helper": true}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: isTest = %v (present %v), want %v", k, g, ok, w)
		}
	}
}
