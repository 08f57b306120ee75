package graph

// This file owns the row texts: the source text of each symbol
// (schema.Symbol.Content), which the database does not store. It is kept
// out of Kuzu because a node COPY spends most of its time on it (kubernetes:
// 31 MB of function and method bodies, 2-3 s of a 7 s load, and about
// 100 MiB of peak memory), and nothing but the search pack reads it: the
// pack's body index and its source section (query.Pack.Source), which
// include_content answers from. So a symbol table's rows go to two files
// in the same order: the NDJSON lines Load copies, and beside them a text
// file that Rows.EachNode hands out with each line.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// textFile is a symbol table's row texts: for each row, in the rows'
// order, uvarint(len) then the text's bytes (valid UTF-8, no NUL bytes:
// cleanText).
type textFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	buf  [binary.MaxVarintLen64]byte
}

func createTextFile(path string) (*textFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create row text file: %w", err)
	}
	return &textFile{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (t *textFile) write(text string) error {
	text = cleanText(text)
	n := binary.PutUvarint(t.buf[:], uint64(len(text)))
	if _, err := t.w.Write(t.buf[:n]); err != nil {
		return fmt.Errorf("write %s: %w", t.path, err)
	}
	if _, err := t.w.WriteString(text); err != nil {
		return fmt.Errorf("write %s: %w", t.path, err)
	}
	return nil
}

func (t *textFile) close() error {
	if t.f == nil {
		return nil
	}
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	t.f = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", t.path, err)
	}
	return nil
}

// cleanText is s as a row's JSON string would carry it once decoded: NUL
// bytes dropped, invalid UTF-8 as U+FFFD (appendJSONString), so that a
// text reads the same as when it was a property of the row.
func cleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// textReader reads a textFile back, text by text.
type textReader struct {
	path string
	r    *bufio.Reader
	buf  []byte
}

// next is the next row's text, valid until the next call.
func (t *textReader) next() ([]byte, error) {
	n, err := binary.ReadUvarint(t.r)
	if err == nil && n > uint64(maxRowText) {
		err = fmt.Errorf("a text of %d bytes", n)
	}
	if err == nil {
		if uint64(cap(t.buf)) < n {
			t.buf = make([]byte, n)
		}
		t.buf = t.buf[:n]
		_, err = io.ReadFull(t.r, t.buf)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // fewer texts than rows
		}
		return nil, fmt.Errorf("read back %s: %w", t.path, err)
	}
	return t.buf, nil
}

// maxRowText bounds one text read back: a symbol's is capped at
// schema.ContentCap bytes, and cleanText can only triple that (U+FFFD is 3
// bytes for each invalid byte).
const maxRowText = 1 << 20
