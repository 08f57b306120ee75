package lang

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestParsePartialKeepsWhatIsOutsideErrors(t *testing.T) {
	src := []byte(`package p

func Good() { helper() }

func Broken( {
	x := 
}

func AlsoGood() int { return other() }
`)
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "p/broken.go", ByName("go"), src)
	if err != nil {
		t.Fatal(err)
	}
	if status != schema.ParsePartial {
		t.Fatalf("status = %s, want partial", status)
	}
	names := map[string]bool{}
	for _, s := range facts.Symbols {
		names[s.Name] = true
	}
	if !names["Good"] || !names["AlsoGood"] {
		t.Errorf("symbols outside the error lost: %v", names)
	}
	if !hasCall(facts, CallSite{CallerID: "p/broken.go#Good:function", Name: "helper", Args: -2}) {
		t.Errorf("call in Good lost:\n%s", callsString(facts))
	}
}

// A tree whose only problem is a MISSING node (here the closing brace) is
// partial too.
func TestParsePartialMissingNode(t *testing.T) {
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "m.go", ByName("go"), []byte("package m\nfunc A() {\n\tB()\n"))
	if err != nil || status != schema.ParsePartial {
		t.Fatalf("status %s err %v, want partial", status, err)
	}
	if len(facts.Symbols) != 1 || facts.Symbols[0].Name != "A" {
		t.Errorf("symbols = %+v", facts.Symbols)
	}
}

func TestParsePanicRecovered(t *testing.T) {
	boom := &Language{
		Name:    "boom",
		Grammar: ByName("python").Grammar,
		Extract: func(f *File, root *sitter.Node) { panic("extractor bug") },
	}
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "a/b.go", boom, []byte("package b\n"))
	if status != schema.ParseError || err == nil {
		t.Fatalf("status %s err %v, want error", status, err)
	}
	if !strings.Contains(err.Error(), "a/b.go") || !strings.Contains(err.Error(), "extractor bug") {
		t.Errorf("error does not name the file and panic: %v", err)
	}
	if facts.Path != "a/b.go" || len(facts.Symbols) != 0 {
		t.Errorf("facts after panic = %+v", facts)
	}
	// The parser is still usable.
	if _, status, err := p.Parse(context.Background(), "c.go", ByName("go"), []byte("package c\nfunc F() {}\n")); status != schema.ParseOK || err != nil {
		t.Errorf("after panic: %s %v", status, err)
	}
	// A language with a parser of its own (Go's go/parser) too.
	boomSource := &Language{Name: "boom-source", Source: func(*File) bool { panic("source bug") }}
	facts, status, err = p.Parse(context.Background(), "a/c.go", boomSource, []byte("package c\n"))
	if status != schema.ParseError || err == nil || !strings.Contains(err.Error(), "a/c.go") || !strings.Contains(err.Error(), "source bug") || len(facts.Symbols) != 0 {
		t.Errorf("source panic: status %s err %v facts %+v", status, err, facts)
	}
	// A grammar's mask (Language.Mask) too.
	boomMask := &Language{Name: "boom-mask", Grammar: ByName("python").Grammar, Extract: ByName("python").Extract,
		Mask: func(src, buf []byte) []byte { panic("mask bug") }}
	facts, status, err = p.Parse(context.Background(), "a/d.py", boomMask, []byte("x = 1\n"))
	if status != schema.ParseError || err == nil || !strings.Contains(err.Error(), "a/d.py") || !strings.Contains(err.Error(), "mask bug") || len(facts.Symbols) != 0 {
		t.Errorf("mask panic: status %s err %v facts %+v", status, err, facts)
	}
	if _, status, err := p.Parse(context.Background(), "e.py", ByName("python"), []byte("def f():\n    pass\n")); status != schema.ParseOK || err != nil {
		t.Errorf("after a mask's panic: %s %v", status, err)
	}
}

// A Go parse (go/parser, no tree-sitter) is not started once ctx is done.
func TestParseGoCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewParser()
	defer p.Close()
	_, status, err := p.Parse(ctx, "big.go", ByName("go"), bigGoSource(10))
	if status != schema.ParseError || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrParseAborted) {
		t.Fatalf("cancel: status %s err %v", status, err)
	}
}

func bigGoSource(funcs int) []byte {
	var b strings.Builder
	b.WriteString("package big\n")
	for i := range funcs {
		fmt.Fprintf(&b, "func F%d(a, b int) int { if a > b { return F%d(b, a) }; return a + b*%d }\n", i, i+1, i)
	}
	return []byte(b.String())
}

// bigPySource is funcs Python functions, one calling the next.
func bigPySource(funcs int) []byte {
	var b strings.Builder
	for i := range funcs {
		fmt.Fprintf(&b, "def f%d(a, b):\n    if a > b:\n        return f%d(b, a)\n    return a + b * %d\n", i, i+1, i)
	}
	return []byte(b.String())
}

func TestParseTimeoutAndCancel(t *testing.T) {
	src := bigPySource(40000) // ~3 MB
	py := ByName("python")
	p := NewParser()
	defer p.Close()
	p.FileTimeout = time.Nanosecond
	_, status, err := p.Parse(context.Background(), "big.py", py, src)
	if status != schema.ParseError || !errors.Is(err, ErrParseAborted) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("timeout: status %s err %v", status, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, status, err = p.Parse(ctx, "big.py", py, src)
	if status != schema.ParseError || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrParseAborted) {
		t.Fatalf("cancel: status %s err %v", status, err)
	}

	// An aborted parse must not leak into the next one.
	p.FileTimeout = 0
	facts, status, err := p.Parse(context.Background(), "small.py", py, []byte("def a():\n    pass\n"))
	if status != schema.ParseOK || err != nil || len(facts.Symbols) != 1 {
		t.Fatalf("after abort: %s %v %+v", status, err, facts.Symbols)
	}
}

func TestParseNoGrammar(t *testing.T) {
	p := NewParser()
	defer p.Close()
	_, status, err := p.Parse(context.Background(), "README", nil, []byte("hi"))
	if status != schema.ParseNoGrammar || err != nil {
		t.Fatalf("nil language: %s %v", status, err)
	}
}

func TestDetectOwnLanguages(t *testing.T) {
	cases := map[string]string{
		"a/b.go": "go", "x.py": "python", "x.pyi": "python", "x.js": "javascript", "x.mjs": "javascript",
		"x.cjs": "javascript", "x.jsx": "javascript", "x.ts": "typescript", "x.mts": "typescript",
		"x.cts": "typescript", "types/x.d.ts": "typescript", "x.tsx": "tsx", "A.java": "java",
	}
	for path, want := range cases {
		l := Detect(path)
		if l == nil || l.Name != want {
			t.Errorf("Detect(%s) = %v, want %s", path, l, want)
		}
	}
}

func BenchmarkParseGo(b *testing.B) {
	src := bigGoSource(2000)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, _, err := p.Parse(context.Background(), "big.go", ByName("go"), src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCorpusGin parses the gin corpus, with and without extraction,
// so the extractor's share of the time is visible. Skips when absent.
func BenchmarkCorpusGin(b *testing.B) {
	home, _ := os.UserHomeDir()
	root := filepath.Join(home, ".cache", "gitnexus-corpora", "gin")
	var srcs [][]byte
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			if src, err := os.ReadFile(path); err == nil {
				srcs = append(srcs, src)
			}
		}
		return nil
	})
	if len(srcs) == 0 {
		b.Skip("gin corpus absent (fetch it with /work/shared/bench/corpora.sh gin)")
	}
	var total int64
	for _, s := range srcs {
		total += int64(len(s))
	}
	goLang := ByName("go")
	parseOnly := &Language{Name: "go-parse-only", Source: func(f *File) bool {
		_, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Src, parser.ParseComments|parser.SkipObjectResolution)
		return err != nil
	}}
	for _, l := range []*Language{parseOnly, goLang} {
		b.Run(l.Name, func(b *testing.B) {
			p := NewParser()
			defer p.Close()
			b.SetBytes(total)
			for b.Loop() {
				for _, s := range srcs {
					if _, _, err := p.Parse(context.Background(), "x.go", l, s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestTruncatedSourcesNeverPanic parses every prefix-cut of each fixture
// (the shapes a half-written file has) and requires the extractor to finish
// without a recovered panic: partial trees must be walked defensively.
func TestTruncatedSourcesNeverPanic(t *testing.T) {
	fixtures := []string{
		"go/engine.go", "python/pkg/sub/service.py", "javascript/app.js",
		"typescript/service.ts", "typescript/view.tsx", "java/com/acme/OrderService.java",
	}
	p := NewParser()
	defer p.Close()
	for _, rel := range fixtures {
		src, err := os.ReadFile(filepath.Join("testdata", rel))
		if err != nil {
			t.Fatal(err)
		}
		l := Detect(rel)
		for cut := 0; cut <= len(src); cut += 11 {
			if _, status, err := p.Parse(context.Background(), rel, l, src[:cut]); err != nil {
				t.Fatalf("%s cut at %d (%s): %v", rel, cut, status, err)
			}
		}
		// and with a chunk cut out of the middle
		for cut := 0; cut+40 <= len(src); cut += 19 {
			mangled := append(append([]byte{}, src[:cut]...), src[cut+40:]...)
			if _, status, err := p.Parse(context.Background(), rel, l, mangled); err != nil {
				t.Fatalf("%s with bytes %d-%d removed (%s): %v", rel, cut, cut+40, status, err)
			}
		}
	}
}

// Parsers on several goroutines (the ingest worker pool) share nothing but
// the grammar tables and the field-id cache; run with -race.
func TestParseConcurrentWorkers(t *testing.T) {
	fixtures := []string{
		"go/engine.go", "python/pkg/sub/service.py", "javascript/app.js",
		"typescript/service.ts", "typescript/view.tsx", "java/com/acme/OrderService.java",
	}
	srcs := make([][]byte, len(fixtures))
	want := make([]int, len(fixtures))
	for i, rel := range fixtures {
		src, err := os.ReadFile(filepath.Join("testdata", rel))
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = src
		want[i] = len(parseFixture(t, rel).Calls)
	}
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			p := NewParser()
			defer p.Close()
			for round := 0; round < 20; round++ {
				for i, rel := range fixtures {
					facts, status, err := p.Parse(context.Background(), rel, Detect(rel), srcs[i])
					if err != nil || status != schema.ParseOK || len(facts.Calls) != want[i] {
						errs <- fmt.Errorf("%s: %s %v, %d calls want %d", rel, status, err, len(facts.Calls), want[i])
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
