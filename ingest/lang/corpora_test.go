package lang

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestCorporaSmoke parses every go/python/javascript/typescript/tsx/java
// file of the benchmark corpora that are present and fails on any parse
// error (no tree, panic) and on a partial rate above 2% (more than two
// files). It logs the
// per-language throughput.
func TestCorporaSmoke(t *testing.T) {
	mine := map[string]bool{"go": true, "python": true, "javascript": true, "typescript": true, "tsx": true, "java": true}
	for _, name := range []string{"gin", "prometheus", "requests", "flask", "django"} {
		t.Run(name, func(t *testing.T) {
			root := corpusRoot(t, name)
			p := NewParser()
			defer p.Close()
			type stat struct {
				files, partial, symbols, calls int
				bytes                          int64
				dur                            time.Duration
				partialFiles                   []string
			}
			stats := map[string]*stat{}
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "vendor") {
						return filepath.SkipDir
					}
					return nil
				}
				l := Detect(path)
				if l == nil || !mine[l.Name] {
					return nil
				}
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				start := time.Now()
				facts, status, err := p.Parse(context.Background(), path, l, src)
				el := time.Since(start)
				if err != nil {
					t.Errorf("%s: %v", path, err)
					return nil
				}
				s := stats[l.Name]
				if s == nil {
					s = &stat{}
					stats[l.Name] = s
				}
				s.files++
				s.bytes += int64(len(src))
				s.dur += el
				s.symbols += len(facts.Symbols)
				s.calls += len(facts.Calls)
				if status == schema.ParsePartial {
					s.partial++
					if len(s.partialFiles) < 3 {
						s.partialFiles = append(s.partialFiles, strings.TrimPrefix(path, root+"/"))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for lang, s := range stats {
				mbps := float64(s.bytes) / 1e6 / s.dur.Seconds()
				t.Logf("%s: %d files, %d partial, %d symbols, %d call sites, %.1f MB in %s (%.1f MB/s)", lang, s.files, s.partial, s.symbols, s.calls, float64(s.bytes)/1e6, s.dur.Round(time.Millisecond), mbps)
				if s.partial > 0 {
					t.Logf("%s partial: %v", lang, s.partialFiles)
				}
				// Django ships Django templates named .js: a couple of
				// partial files in a small sample is not a regression.
				if s.partial*50 > s.files && s.partial > 2 {
					t.Errorf("%s: %d of %d files partial", lang, s.partial, s.files)
				}
			}
		})
	}
}
