package query

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceWriterFileIsMemory: the source section streamed to a file
// (flushed in whole blocks as it grows) is the one laid out in memory,
// with the same block CRCs, and reads back text by text.
func TestSourceWriterFileIsMemory(t *testing.T) {
	var texts []string
	for i := range 1000 {
		texts = append(texts, strings.Repeat(string(rune('a'+i%26)), i*137%9000))
	}
	texts = append(texts, "", "π ≈ 3.14159")
	mem := &sourceWriter{}
	file, err := newSourceWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer file.close()
	for _, s := range texts {
		mem.add(s)
		file.add(s)
	}
	n1, c1, err1 := mem.finish(len(texts))
	n2, c2, err2 := file.finish(len(texts))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	var got bytes.Buffer
	if err := file.writeTo(&got); err != nil {
		t.Fatal(err)
	}
	if n1 != n2 || !bytes.Equal(c1, c2) || !bytes.Equal(got.Bytes(), mem.buf) || int64(got.Len()) != n2 {
		t.Fatalf("file: %d bytes (%d CRCs), memory: %d (%d CRCs); bytes equal: %v", n2, len(c2), n1, len(c1), bytes.Equal(got.Bytes(), mem.buf))
	}
	if n2 < 4*sourceFlush {
		t.Fatalf("only %d bytes: the test must flush several times", n2)
	}
	st, err := newSourceTable(newSection(secSource, 0, got.String(), string(c2)))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range texts {
		if s, err := st.text(i); err != nil || s != want {
			t.Fatalf("text %d: %d bytes, err %v; want %d bytes", i, len(s), err, len(want))
		}
	}
	if _, err := st.text(len(texts)); err == nil {
		t.Error("a text past the last read")
	}
	w := &sourceWriter{}
	w.add("x")
	if _, _, err := w.finish(2); err == nil {
		t.Error("finish accepted a count other than the texts added")
	}
}

// TestNodeInPlaceIsDecoded: a one-shot reader's Node, read in place
// (details/at), is the Node a reader that decodes every node's details
// gives, for every node of a pack.
func TestNodeInPlaceIsDecoded(t *testing.T) {
	p := goldenPack(t)
	path := filepath.Join(t.TempDir(), "golden.pack")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	one, err := MapPack(path)
	if err != nil {
		t.Fatal(err)
	}
	nt, err := p.nodeTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range nt.nodes {
		id := h.hit().ID
		want, ok1, err1 := p.Node(id)
		got, ok2, err2 := one.Node(id)
		if err1 != nil || err2 != nil || !ok1 || !ok2 || got != want {
			t.Fatalf("%s: in place %+v (%v, %v), decoded %+v (%v, %v)", id, got, ok2, err2, want, ok1, err1)
		}
	}
	if _, ok, err := one.Node("no such id"); ok || err != nil {
		t.Errorf("Node(no such id): ok %v, err %v", ok, err)
	}
	if one.detailsL.decoded() {
		t.Error("the one-shot reader decoded every node's details")
	}
}

// TestSourceWriterFailedWrite: once a write to its file fails, the
// writer holds no more text in memory and finish reports the error.
func TestSourceWriterFailedWrite(t *testing.T) {
	w, err := newSourceWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	w.f.Close() // every write now fails
	big := strings.Repeat("x", sourceFlush)
	for range 8 {
		w.add(big)
	}
	if len(w.buf) > sourceFlush {
		t.Errorf("%d bytes held after the write failed", len(w.buf))
	}
	if _, _, err := w.finish(8); err == nil {
		t.Error("finish reported no error after a failed write")
	}
}
