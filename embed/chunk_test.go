package embed

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func fixtureTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestDocumentText(t *testing.T) {
	s := schema.Symbol{ID: "a.go#Engine.Run:method", Kind: schema.KindMethod, Name: "Run", QualifiedName: "Engine.Run",
		FilePath: "a.go", Signature: "func (e *Engine) Run(addr string) error", DocComment: "// Run starts the server.\n",
		Content: "func (e *Engine) Run(addr string) error {\n\treturn nil\n}\n"}
	want := "method Engine.Run\nfile: a.go\nfunc (e *Engine) Run(addr string) error\n// Run starts the server.\n\nfunc (e *Engine) Run(addr string) error {\n\treturn nil\n}"
	if got := DocumentText(s); got != want {
		t.Errorf("DocumentText:\n%s\nwant:\n%s", got, want)
	}
	bare := schema.Symbol{Kind: schema.KindFunction, Name: "f", FilePath: "x.py"}
	if got := DocumentText(bare); got != "function f\nfile: x.py" {
		t.Errorf("bare: %q", got)
	}
	f := schema.File{ID: "a.go", Path: "a.go", Language: "go"}
	if got := FileSummaryText(f, []schema.Symbol{s, bare}); got != "file a.go (go)\ndefines:\nmethod Engine.Run\nfunction f" {
		t.Errorf("FileSummaryText: %q", got)
	}
}

func TestSymbolChunksShort(t *testing.T) {
	tok := fixtureTokenizer(t)
	s := schema.Symbol{ID: "x", Kind: schema.KindFunction, Name: "hello", FilePath: "a/b.go", Content: "func hello() string { return \"world\" }"}
	cs := tok.SymbolChunks(s)
	if len(cs) != 1 {
		t.Fatalf("%d chunks, want 1", len(cs))
	}
	// Tokenizing header and body apart equals tokenizing the whole text.
	if want := tok.Encode(DocumentText(s)); !slices.Equal(cs[0].IDs, want) {
		t.Errorf("chunk ids %v, want Encode(DocumentText) %v", cs[0].IDs, want)
	}
	if cs[0].OwnerID != "x" || cs[0].Index != 0 || len(cs[0].Hash) != 32 {
		t.Errorf("chunk metadata: %+v", cs[0])
	}
	s2 := s
	s2.Content += " "
	if tok.SymbolChunks(s2)[0].Hash != cs[0].Hash {
		t.Error("whitespace-only change altered the hash (ids are equal)")
	}
	s2.Content = strings.Replace(s.Content, "world", "data", 1)
	if tok.SymbolChunks(s2)[0].Hash == cs[0].Hash {
		t.Error("changed body kept the same hash")
	}
}

// TestChunkIDsCoverage: every chunk fits, repeats the header, overlaps the
// previous by ChunkOverlap, and together the windows cover the body.
func TestChunkIDsCoverage(t *testing.T) {
	tok := fixtureTokenizer(t)
	for _, tc := range []struct{ header, body int }{{10, 0}, {10, 500}, {10, 501}, {10, 2000}, {300, 1500}, {0, 1021}, {600, 600}} {
		header := make([]int32, tc.header)
		body := make([]int32, tc.body)
		for i := range header {
			header[i] = 1000 + int32(i)
		}
		for i := range body {
			body[i] = int32(i)
		}
		name := fmt.Sprintf("h%d_b%d", tc.header, tc.body)
		chunks := tok.ChunkIDs(header, body, 512, ChunkOverlap)
		if tc.header+tc.body <= 510 {
			if len(chunks) != 1 || len(chunks[0]) != tc.header+tc.body+2 {
				t.Errorf("%s: %d chunks, want one whole", name, len(chunks))
			}
			continue
		}
		hl := min(tc.header, MaxHeaderTokens)
		next := 0 // first body id not yet covered
		for i, c := range chunks {
			if len(c) > 512 || c[0] != tok.CLS() || c[len(c)-1] != tok.SEP() {
				t.Fatalf("%s chunk %d: len %d, bad framing", name, i, len(c))
			}
			if !slices.Equal(c[1:1+hl], header[:hl]) {
				t.Fatalf("%s chunk %d: header not repeated", name, i)
			}
			win := c[1+hl : len(c)-1]
			first := int(win[0])
			if i > 0 && next-first != ChunkOverlap {
				t.Errorf("%s chunk %d: overlap %d, want %d", name, i, next-first, ChunkOverlap)
			}
			if first > next {
				t.Fatalf("%s chunk %d: gap before body id %d", name, i, first)
			}
			for k, id := range win {
				if int(id) != first+k {
					t.Fatalf("%s chunk %d: window not contiguous", name, i)
				}
			}
			next = first + len(win)
		}
		if next != tc.body {
			t.Errorf("%s: windows end at %d, body has %d", name, next, tc.body)
		}
	}
}

func TestFileChunks(t *testing.T) {
	tok := fixtureTokenizer(t)
	var syms []schema.Symbol
	for i := range 400 {
		syms = append(syms, schema.Symbol{Kind: schema.KindFunction, Name: fmt.Sprintf("function%d", i)})
	}
	cs := tok.FileChunks(schema.File{ID: "f.go", Path: "f.go", Language: "go"}, syms)
	if len(cs) != 1 || len(cs[0].IDs) != 512 || cs[0].OwnerID != "f.go" {
		t.Errorf("file summary: %d chunks, len %d", len(cs), len(cs[0].IDs))
	}
}
