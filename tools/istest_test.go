package tools

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// isTestGraph loads a small index into a graph.Build whose stored isTest
// disagrees with the paths where it matters, as if the rule had changed
// since ingest: app/app.go's Caller and a/parse.go's Parse are stored as
// test code, store/store_test.go's TestSave and b/deeper/parse_test.go's
// Parse as not. The tools must go by the stored flag.
func isTestGraph(t *testing.T) *graph.Build {
	t.Helper()
	ctx := context.Background()
	b := testBuild(t)
	files := map[string]bool{"store/store.go": false, "app/app.go": true, "store/store_test.go": false,
		"a/parse.go": true, "b/deeper/parse_test.go": false}
	for path, test := range files {
		if err := b.AddFile(schema.File{ID: path, Path: path, Name: path, Language: "go", Lines: 10, IsTest: test}); err != nil {
			t.Fatal(err)
		}
	}
	sym := func(name, path string) string {
		id := schema.SymbolID(path, name, schema.KindFunction, 1)
		if err := b.AddSymbol(schema.Symbol{ID: id, Kind: schema.KindFunction, Name: name, QualifiedName: name, FilePath: path,
			StartLine: 1, EndLine: 5, Language: "go", IsTest: files[path]}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	save := sym("Save", "store/store.go")
	for _, caller := range []string{sym("Caller", "app/app.go"), sym("TestSave", "store/store_test.go")} {
		if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: caller, To: save, FromLabel: schema.LabelFunction,
			ToLabel: schema.LabelFunction, Confidence: 1, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	sym("Parse", "a/parse.go")
	sym("Parse", "b/deeper/parse_test.go")
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestToolsReadStoredIsTest: impact leaves out callers stored as test code
// (unless includeTests) and symbol lookup ranks them last, by the isTest
// property ingest stored, never by the path.
func TestToolsReadStoredIsTest(t *testing.T) {
	db := packIndex(t, isTestGraph(t))
	ctx := context.Background()
	names := func(out *ImpactOutput) []string {
		var ns []string
		for _, l := range out.ByDepth {
			for _, s := range l.Symbols {
				ns = append(ns, s.Name)
			}
		}
		return ns
	}
	out, err := Impact(ctx, db, ImpactInput{Target: "Save"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(out); len(got) != 1 || got[0] != "TestSave" {
		t.Errorf("impact Save upstream without tests: %v, want [TestSave] (Caller is stored as test code, TestSave is not)", got)
	}
	out, err = Impact(ctx, db, ImpactInput{Target: "Save", IncludeTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(out); len(got) != 2 {
		t.Errorf("impact Save upstream with tests: %v, want Caller and TestSave", got)
	}

	syms, err := findSymbols(ctx, db.Graph, Lookup{Name: "Parse"})
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != 2 || syms[0].FilePath != "b/deeper/parse_test.go" || syms[0].IsTest || !syms[1].IsTest {
		t.Errorf("Parse candidates %+v: want b/deeper/parse_test.go (stored not test) before a/parse.go (stored test)", syms)
	}
}

// packIndex is the Index the tools read for the database q: the search
// pack built from it (as analyze builds it).
func packIndex(t *testing.T, q Querier) Index {
	t.Helper()
	p, err := query.BuildPack(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return Index{Graph: &p.Snapshot}
}

// testBuild is a new graph build in a temporary folder, small and quiet,
// aborted when the test ends.
func testBuild(t *testing.T) *graph.Build {
	t.Helper()
	b, err := graph.NewBuild(context.Background(), t.TempDir(), graph.BuildOptions{BufferPoolSize: 128 << 20, MaxThreads: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Abort)
	return b
}
