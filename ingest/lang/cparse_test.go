package lang

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// The binding's Parser and Tree are the one pointer parseC reads and
// writes on the platforms this is built for: were they not, every parse
// would silently take the slower path through the binding.
func TestParseCLayout(t *testing.T) {
	if !cParseOK {
		t.Fatal("sitter.Parser or sitter.Tree is not a single pointer: parseC is disabled (update cparse.go for the binding)")
	}
}

// parseC gives the tree the binding's ParseWithOptions gives, on sources
// of several languages, the empty one and one with syntax errors among them.
func TestParseCMatchesBinding(t *testing.T) {
	srcs := map[string]string{
		"c":          "static int f(int a) { return g(a) + 1; }\nint g(int b) { return b; }\n",
		"python":     "def a(x):\n    return b(x)\n\ndef b(y):\n    return y\n",
		"javascript": "function a() { return b(); }\nconst b = () => 1;\n",
		"java":       "class A { void f() { g(); } void g() {} }\n",
	}
	srcs["c "] = "int f( { return; \n" // errors
	srcs["python "] = ""
	for name, src := range srcs {
		l := ByName(strings.TrimSpace(name))
		p := NewParser()
		sp, err := p.parserFor(l)
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(src)
		viaC, timedOut := parseC(context.Background(), sp, b, time.Minute)
		if viaC == nil || timedOut {
			t.Fatalf("%s: parseC gave no tree (timed out %v)", name, timedOut)
		}
		viaGo := sp.ParseWithOptions(func(i int, _ sitter.Point) []byte {
			if i >= len(b) {
				return nil
			}
			return b[i:]
		}, nil, nil)
		if got, want := viaC.RootNode().ToSexp(), viaGo.RootNode().ToSexp(); got != want {
			t.Errorf("%s: parseC's tree\n%s\nthe binding's\n%s", name, got, want)
		}
		viaC.Close()
		viaGo.Close()
		p.Close()
	}
}

// A context cancelled while the parse runs stops it (parseC reads the flag
// its context sets from the parse's progress callback), and the parser
// serves the next file.
func TestParseCancelledMidParse(t *testing.T) {
	src := bigPySource(200000) // ~15 MB: seconds to parse
	py := ByName("python")
	p := NewParser()
	defer p.Close()
	p.FileTimeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, status, err := p.Parse(ctx, "big.py", py, src)
	if status != schema.ParseError || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrParseAborted) {
		t.Fatalf("cancelled mid-parse: status %s err %v", status, err)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("the cancelled parse ran %v", d)
	}
	facts, status, err := p.Parse(context.Background(), "small.py", py, []byte("def a():\n    pass\n"))
	if status != schema.ParseOK || err != nil || len(facts.Symbols) != 1 {
		t.Fatalf("after the cancel: %s %v %+v", status, err, facts.Symbols)
	}
}

// One Parser's files are extracted into lists it keeps from file to file
// (Facts.startFrom, takeInto): each file's facts are what a new Parser
// gives for it alone, and stay so after the Parser has gone on to other
// files (nothing of them is shared with the lists reused).
func TestParserReusesListsWithoutSharing(t *testing.T) {
	var files []string // every language's fixtures
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "fuzz" {
			return filepath.SkipDir
		}
		if !d.IsDir() && Detect(path) != nil {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("only %d fixture files found", len(files))
	}
	shared := NewParser()
	defer shared.Close()
	var kept []Facts
	for round := 0; round < 2; round++ {
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			facts, _, err := shared.Parse(context.Background(), path, Detect(path), src)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, facts)
		}
	}
	for k, facts := range kept {
		path := files[k%len(files)]
		src, _ := os.ReadFile(path)
		fresh := NewParser()
		want, _, _ := fresh.Parse(context.Background(), path, Detect(path), src)
		fresh.Close()
		if !reflect.DeepEqual(facts, want) {
			t.Errorf("%s (round %d): the shared parser's facts differ from a new parser's", path, k/len(files))
		}
	}
	symbols := 0
	for _, f := range kept {
		symbols += len(f.Symbols)
	}
	if symbols == 0 {
		t.Fatal("no symbols extracted from the fixtures")
	}
}
