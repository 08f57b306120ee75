package query

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// bodyPack is a pack of two functions: loadBlock, whose body raises the
// error an issue would quote, and compressionLevel, named like the topic.
func bodyPack(t *testing.T) *Pack {
	t.Helper()
	b := newPackBuilder()
	add := func(name, path, body string) {
		id := "sym:" + name
		b.addSymbol(Hit{ID: id, Label: string(schema.LabelFunction), Name: name, Kind: string(schema.KindFunction),
			FilePath: path, StartLine: 1, EndLine: 9, Language: "python"}, text.SearchText(name, name, path), "def "+name+"()", "", name, body)
	}
	add("loadBlock", "lib/blk.py", `def loadBlock(blob):
    if blob.card_length != 80:
        raise VerifyError("Card image is not 80 characters long: cannot parse the keyword")`)
	add("compressionLevel", "io/compress.py", `def compressionLevel():
    return 9`)
	p, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBodyField: a task in prose that quotes what a body says finds that
// body's symbol though its name shares no word with the task; a short
// query (a name being looked up) does not read bodies at all.
func TestBodyField(t *testing.T) {
	p := bodyPack(t)
	ctx := context.Background()
	long := "Reading a FITS file fails with VerifyError: card image is not 80 characters long, " +
		"even though the keyword parses fine in other tools; the parser should warn instead of raising"
	res, err := Search(ctx, p, long, Options{Mode: ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != "sym:loadBlock" {
		t.Errorf("issue-length query: hits %v, want loadBlock first (its body quotes the message)", hitIDs(res.Hits))
	}
	res, err = Search(ctx, p, "verifyerror", Options{Mode: ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 {
		t.Errorf("one-word query: hits %v, want none (bodies are not read for a name lookup)", hitIDs(res.Hits))
	}
	if s := bodyScale(3, 16); s <= 0 || s >= 1 {
		t.Errorf("bodyScale(3, 16) = %v, want a share between 0 and 1", s)
	}
}

// TestSourceSection: include_content reads each symbol's text back from
// the pack's source section, whether the pack is in memory or a file
// (written through the streamed section), and a damaged section is an
// error, not a wrong text.
func TestSourceSection(t *testing.T) {
	p := bodyPack(t)
	path := filepath.Join(t.TempDir(), "p.pack")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	read, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Pack{p, read} {
		res, err := Search(context.Background(), p, "compression level", Options{Mode: ModeKeyword, Content: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Definitions) != 1 || res.Definitions[0].Content != "def compressionLevel():\n    return 9" || res.Definitions[0].Signature != "def compressionLevel()" {
			t.Errorf("content: %+v", res.Definitions)
		}
		if text, ok, err := p.Source("sym:loadBlock"); err != nil || !ok || !strings.Contains(text, "VerifyError") {
			t.Errorf("Source(loadBlock) = %q, %v, %v", text, ok, err)
		}
		if _, ok, err := p.Source("sym:none"); ok || err != nil {
			t.Errorf("Source(none): ok %v, err %v", ok, err)
		}
	}

	// One byte of the first text changed: its block no longer checks.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), "def loadBlock(blob)")
	if i < 0 {
		t.Fatal("the text is not in the file")
	}
	data[i] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bad.Source("sym:loadBlock"); !errors.Is(err, ErrPackDamaged) {
		t.Errorf("damaged source: err %v, want ErrPackDamaged", err)
	}
}

func hitIDs(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}
