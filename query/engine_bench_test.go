package query

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkIndexBuilderAdd indexes this repository's Go files as
// documents, as the body index does symbols' source text: tokenizing
// and counting are most of a search pack's build.
func BenchmarkIndexBuilderAdd(b *testing.B) {
	var docs []string
	size := 0
	filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			if data, err := os.ReadFile(p); err == nil {
				docs = append(docs, string(data))
				size += len(data)
			}
		}
		return nil
	})
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		ib := newIndexBuilder()
		for i, d := range docs {
			ib.add(int32(i), d)
		}
		ib.done(len(docs))
	}
}
