package query

import (
	"context"
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
			FilePath: path, StartLine: 1, EndLine: 9, Language: "python"}, text.SearchText(name, name, path), "def "+name+"()", "", name)
		b.addBody(id, body)
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

func hitIDs(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}
