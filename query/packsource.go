package query

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// This file owns the pack's source section: every node's source text as
// analyze read it (a symbol's, capped at schema.ContentCap; "" for a
// file), which include_content answers from. The database does not hold
// it (graph's rowtext.go says why).
//
//	source      the texts' bytes, in node order; then the offset of each
//	            text and of their end (uint64 LE); then the node count
//	            (uint64 LE)
//
// It is laid out to be written as it is read: a build streams it to a
// file beside the pack it writes (sourceWriter), never holding it whole
// (the Linux kernel's is hundreds of MB), and it is the pack file's last
// section. A reader takes one text in place: two offsets and its bytes,
// their blocks checked.
const secSource = "source"

// sourceWriter lays the source section out, text by text, in memory or
// into a temporary file, computing its blocks' CRCs as it goes.
type sourceWriter struct {
	f    *os.File // nil: in memory (buf is the section)
	buf  []byte   // in memory, the section so far; to f, what is not written yet
	size int64    // bytes written to f
	crcs []byte   // CRC-32C of each packBlock written to f
	offs []uint64 // where each text starts
	end  uint64   // the texts' bytes so far
	err  error
}

// sourceFlush is how many bytes a sourceWriter to a file holds before it
// writes them: whole blocks, so each block's CRC is taken once.
const sourceFlush = 64 * packBlock

// newSourceWriter is a sourceWriter into a temporary file in dir, or in
// memory when dir is "".
func newSourceWriter(dir string) (*sourceWriter, error) {
	w := &sourceWriter{}
	if dir != "" {
		f, err := os.CreateTemp(dir, ".source-*")
		if err != nil {
			return nil, fmt.Errorf("pack: source section: %w", err)
		}
		w.f = f
	}
	return w, nil
}

// add appends the next node's text. After a failed write the texts are
// only counted (finish reports the error): a full disk must not turn into
// the whole section in memory.
func (w *sourceWriter) add(text string) {
	w.offs = append(w.offs, w.end)
	w.end += uint64(len(text))
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, text...)
	if w.f != nil && len(w.buf) >= sourceFlush {
		w.flush(false)
	}
}

// flush writes buf's whole blocks to f (all of it when last).
func (w *sourceWriter) flush(last bool) {
	n := len(w.buf) / packBlock * packBlock
	if last {
		n = len(w.buf)
	}
	if w.err != nil || n == 0 {
		return
	}
	w.crcs = appendBlockCRCs(w.crcs, w.buf[:n])
	if _, err := w.f.Write(w.buf[:n]); err != nil {
		w.err = fmt.Errorf("pack: write the source section: %w", err)
		return
	}
	w.size += int64(n)
	w.buf = append(w.buf[:0], w.buf[n:]...)
}

// finish ends the section (the offsets and the count after the texts)
// and returns its length and its blocks' CRCs. nodes is the pack's node
// count, which must be the texts added.
func (w *sourceWriter) finish(nodes int) (int64, []byte, error) {
	if len(w.offs) != nodes {
		return 0, nil, fmt.Errorf("internal error: pack: %d source texts for %d nodes", len(w.offs), nodes)
	}
	for _, o := range w.offs {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, o)
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf, w.end)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(nodes))
	w.offs = nil
	if w.f == nil {
		return int64(len(w.buf)), appendBlockCRCs(nil, w.buf), nil
	}
	w.flush(true)
	return w.size, w.crcs, w.err
}

// writeTo copies the finished section to dst.
func (w *sourceWriter) writeTo(dst io.Writer) error {
	if w.f == nil {
		_, err := dst.Write(w.buf)
		return err
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("pack: read the source section back: %w", err)
	}
	if _, err := io.Copy(dst, w.f); err != nil {
		return fmt.Errorf("pack: copy the source section: %w", err)
	}
	return nil
}

// close removes the temporary file, if any.
func (w *sourceWriter) close() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
		w.f = nil
	}
}

// sourceTable reads the source section in place.
type sourceTable struct {
	sec   *section
	n     int
	table int // where the offsets start
}

func newSourceTable(s *section) (*sourceTable, error) {
	size := len(s.data)
	c, err := s.span(size-8, 8)
	if err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64([]byte(c))
	if n > uint64(size)/8 || 8*(int(n)+2) > size {
		return nil, s.damaged()
	}
	t := &sourceTable{sec: s, n: int(n), table: size - 8*(int(n)+2)}
	if end, err := t.off(t.n); err != nil || end != t.table {
		return nil, cmp.Or(err, s.damaged())
	}
	return t, nil
}

// off is the i-th offset (i == n: the texts' end).
func (t *sourceTable) off(i int) (int, error) {
	b, err := t.sec.span(t.table+8*i, 8)
	if err != nil {
		return 0, err
	}
	o := binary.LittleEndian.Uint64([]byte(b))
	if o > uint64(t.table) {
		return 0, t.sec.damaged()
	}
	return int(o), nil
}

// text is node i's text.
func (t *sourceTable) text(i int) (string, error) {
	if i < 0 || i >= t.n {
		return "", t.sec.damaged()
	}
	a, err := t.off(i)
	if err != nil {
		return "", err
	}
	b, err := t.off(i + 1)
	if err != nil {
		return "", err
	}
	if a > b {
		return "", t.sec.damaged()
	}
	return t.sec.span(a, b-a)
}

// sources is the pack's source table, its checks done once.
func (d *packData) sources() (*sourceTable, error) {
	return d.srcT.get(func() (*sourceTable, error) {
		s, err := d.sec(secSource)
		if err != nil {
			return nil, err
		}
		return newSourceTable(s)
	})
}

// Source is the source text analyze kept of the node id: a symbol's,
// capped at schema.ContentCap bytes ("" for a file); ok is false when the
// snapshot has no such node. It reads the one text in place.
func (s *Snapshot) Source(id string) (text string, ok bool, err error) {
	i, ok, err := s.position(id)
	if err != nil || !ok {
		return "", false, err
	}
	t, err := s.src.sources()
	if err != nil {
		return "", false, err
	}
	text, err = t.text(int(i))
	if err != nil {
		return "", false, err
	}
	return text, true, nil
}
