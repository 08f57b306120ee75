package ingest

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gitnexus/gitnexus/internal/testkit"
)

// TestSameOutputOnAnyWorkers: parse and call resolution on one worker and
// on several (resolve's parallel.go: workers with scratch state of their
// own, applied in file order) stream the same records in the same order
// and count the same, on the fixture repositories in several languages
// and on prometheus.
func TestSameOutputOnAnyWorkers(t *testing.T) {
	roots := map[string]string{}
	for _, name := range []string{"goshop", "pyapp", "tsapp", "mixed", "ckernel"} {
		roots[name] = filepath.Join("..", "testdata", "repos", name)
	}
	if !testing.Short() {
		roots["prometheus"] = testkit.Corpus(t, "prometheus")
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			var sinks [2]*memSink
			var results [2]*Result
			for i, w := range []int{1, 3} {
				sinks[i] = &memSink{}
				res, err := Run(context.Background(), root, sinks[i], Options{Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				results[i] = res
			}
			a, b := sinks[0], sinks[1]
			if len(a.edges) == 0 {
				t.Fatal("no edges")
			}
			if !reflect.DeepEqual(a.edges, b.edges) || !reflect.DeepEqual(a.symbols, b.symbols) || !reflect.DeepEqual(a.files, b.files) {
				t.Errorf("records differ: %d/%d edges, %d/%d symbols, %d/%d files", len(a.edges), len(b.edges), len(a.symbols), len(b.symbols), len(a.files), len(b.files))
			}
			if !reflect.DeepEqual(results[0].Resolution, results[1].Resolution) || !reflect.DeepEqual(results[0].Unresolved, results[1].Unresolved) ||
				!reflect.DeepEqual(results[0].Samples, results[1].Samples) {
				t.Errorf("resolution differs:\n one %+v\nthree %+v", results[0].Resolution, results[1].Resolution)
			}
		})
	}
}
