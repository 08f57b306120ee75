package lang

import (
	"encoding/binary"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
)

// denseTestGrammars are the grammars gitnexus parses with: every
// registered language's and C++ for the C extractor's re-parse of a .h.
func denseTestGrammars() map[string]*sitter.Language {
	gs := map[string]*sitter.Language{"cpp (re-parse)": sitter.NewLanguage(tscpp.Language())}
	for _, l := range All() {
		if l.Grammar != nil {
			gs[l.Name] = l.Grammar()
		}
	}
	return gs
}

// Every grammar's dense copy gives the runtime's lookup the same answer
// as the grammar for every state and symbol, and is made once.
func TestFastGrammarSameTables(t *testing.T) {
	for name, g := range denseTestGrammars() {
		d := fastGrammar(g)
		if d == g {
			t.Errorf("%s: no dense copy made (table %d states × %d kinds)", name, g.ParseStateCount(), g.NodeKindCount())
			continue
		}
		if again := fastGrammar(sitter.NewLanguage(unsafe.Pointer(g.Inner))); again != d {
			t.Errorf("%s: a second call made another copy", name)
		}
		if !sameTable(g, d, 1) {
			t.Errorf("%s: the dense copy's table differs from the grammar's", name)
		}
	}
	// The comparison sees a difference: C's table against C++'s copy.
	c, cpp := ByName("c").Grammar(), fastGrammar(sitter.NewLanguage(tscpp.Language()))
	if sameTable(c, cpp, 1) {
		t.Error("sameTable finds C's table equal to C++'s")
	}
}

// treeHash hashes every node of t (kind, field, byte range, error and
// missing flags) in document order.
func treeHash(t *sitter.Tree) uint64 {
	h := fnv.New64a()
	c := t.Walk()
	defer c.Close()
	var buf []byte
	for {
		n := c.Node()
		flags := uint64(0)
		if n.IsMissing() {
			flags |= 1
		}
		if n.IsError() {
			flags |= 2
		}
		buf = binary.AppendUvarint(buf[:0], uint64(n.KindId()))
		buf = binary.AppendUvarint(buf, uint64(n.GrammarId()))
		buf = binary.AppendUvarint(buf, uint64(c.FieldId()))
		buf = binary.AppendUvarint(buf, uint64(n.StartByte()))
		buf = binary.AppendUvarint(buf, uint64(n.EndByte()))
		buf = binary.AppendUvarint(buf, flags)
		h.Write(buf)
		if c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return h.Sum64()
			}
		}
	}
}

// The dense copy parses every fixture, and broken versions of each (cut
// in half, every seventh byte dropped), into the same tree as the grammar.
func TestFastGrammarSameTrees(t *testing.T) {
	type pair struct{ a, b *sitter.Parser }
	parsers := map[string]pair{}
	defer func() {
		for _, p := range parsers {
			p.a.Close()
			p.b.Close()
		}
	}()
	files := 0
	for _, root := range []string{"testdata", filepath.Join("..", "..", "testdata", "repos")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			l := Detect(path)
			if l == nil || l.Grammar == nil {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			p, ok := parsers[l.Name]
			if !ok {
				p = pair{sitter.NewParser(), sitter.NewParser()}
				parsers[l.Name] = p
				g := l.Grammar()
				if err := p.a.SetLanguage(g); err != nil {
					return err
				}
				if err := p.b.SetLanguage(fastGrammar(g)); err != nil {
					return err
				}
			}
			dropped := make([]byte, 0, len(src))
			for i, c := range src {
				if i%7 != 6 {
					dropped = append(dropped, c)
				}
			}
			for _, v := range [][]byte{src, src[:len(src)/2], dropped} {
				ta, tb := p.a.Parse(v, nil), p.b.Parse(v, nil)
				if treeHash(ta) != treeHash(tb) {
					t.Errorf("%s (%d bytes): the dense grammar's tree differs", path, len(v))
				}
				ta.Close()
				tb.Close()
			}
			files++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 20 || len(parsers) < 5 {
		t.Fatalf("only %d fixture files in %d languages compared", files, len(parsers))
	}
}
