package graph

// This file owns the rows of a build: the Add* methods that validate
// records and stream them, one NDJSON file per node table and per
// (rel type, from, to) pair, into the staging directory (the lines of the
// commonest rows, symbols, files and edges, are nodeline.go's and
// edgeline.go's; every other row is encodeRow's, in ndjson.go).

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

func nodeKey(l schema.Label) string { return string(l) }

func relKey(t schema.RelType, from, to schema.Label) string {
	return string(t) + ":" + string(from) + "->" + string(to)
}

// linePool holds the buffers rows are appended to: addRow copies a line
// into its row file, so a buffer goes back to the pool once its row is
// added.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// addRow appends the row appendRow writes (into a pooled buffer) to the
// file of key, created as fileName() when it is the key's first row; for a
// node row (label not empty) it records the id's hash in the label's id
// set and the row in the digest, and for a symbol table's row its text to
// the text file beside (rowtext.go).
func (b *Build) addRow(key string, fileName func() string, label schema.Label, id string, appendRow func([]byte) ([]byte, error), text string) error {
	bp := linePool.Get().(*[]byte)
	line, err := appendRow((*bp)[:0])
	if err == nil {
		err = b.writeRow(key, fileName, line, label, id, text)
	}
	if cap(line) <= 64<<10 { // one symbol's 8 KiB content escaped stays pooled; an outlier does not
		if line != nil {
			*bp = line[:0]
		}
		linePool.Put(bp)
	}
	return err
}

// writeRow is addRow's part under the lock.
func (b *Build) writeRow(key string, fileName func() string, line []byte, label schema.Label, id, text string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != stateAdding {
		return errors.New("graph build: rows added after Load, Commit or Abort")
	}
	if label != "" {
		if b.earlyRows != nil && b.earlyRows.early[label] {
			return fmt.Errorf("graph build: a %s row added after EarlyRows", label)
		}
		b.ids.add(label, id)
		b.digest.addNode(label, id, line)
	}
	rf := b.files[key]
	if rf == nil {
		var err error
		if rf, err = createRowFile(filepath.Join(b.staging, fileName())); err != nil {
			return err
		}
		b.files[key] = rf
		if label.IsSymbol() {
			if rf.text, err = createTextFile(filepath.Join(b.staging, "text-"+string(label)+".bin")); err != nil {
				return err
			}
		}
	}
	if rf.text != nil {
		if err := rf.text.write(text); err != nil {
			return err
		}
	}
	return rf.write(line)
}

// addNode adds a node row of table l: the one appendRow writes. The lines
// of the commonest nodes, symbols and files, are appended by hand
// (nodeline.go); the others are encodeRow's (addRecord).
func (b *Build) addNode(l schema.Label, id string, appendRow func([]byte) ([]byte, error), text string) error {
	if id == "" {
		return fmt.Errorf("graph build: %s row with empty id", l)
	}
	return b.addRow(nodeKey(l), func() string { return "node-" + string(l) + ".json" }, l, id, appendRow, text)
}

// addRecord adds record v (a schema struct) as a node row of table l,
// encoded by encodeRow.
func (b *Build) addRecord(l schema.Label, id string, v any) error {
	return b.addNode(l, id, func(dst []byte) ([]byte, error) {
		line, err := encodeRow(v)
		return append(dst, line...), err
	}, "")
}

// AddFolder adds a Folder node.
func (b *Build) AddFolder(f schema.Folder) error {
	return b.addRecord(schema.LabelFolder, f.ID, f)
}

// AddFile adds a File node. An empty SearchText is filled with
// text.SearchText(name, "", path), so the file-name index always has words.
func (b *Build) AddFile(f schema.File) error {
	if f.SearchText == "" {
		f.SearchText = text.SearchText(f.Name, "", f.Path)
	}
	return b.addNode(schema.LabelFile, f.ID, func(dst []byte) ([]byte, error) { return appendFileLine(dst, &f), nil }, "")
}

// AddSymbol adds a symbol node to the table of s.Label (or, when Label is
// empty, the table of s.Kind); its Content goes to the table's text file,
// not the database (rowtext.go).
func (b *Build) AddSymbol(s schema.Symbol) error {
	l := s.Label
	if l == "" {
		l = schema.LabelOf(s.Kind)
	}
	if !l.IsSymbol() {
		return fmt.Errorf("graph build: symbol %s has label %q, not a symbol table", s.ID, l)
	}
	return b.addNode(l, s.ID, func(dst []byte) ([]byte, error) { return appendSymbolLine(dst, &s), nil }, s.Content)
}

// AddCommunity adds a Community node.
func (b *Build) AddCommunity(c schema.Community) error {
	if c.Keywords == nil {
		c.Keywords = []string{}
	}
	return b.addRecord(schema.LabelCommunity, c.ID, c)
}

// AddProcess adds a Process node.
func (b *Build) AddProcess(p schema.Process) error {
	if p.Communities == nil {
		p.Communities = []string{}
	}
	return b.addRecord(schema.LabelProcess, p.ID, p)
}

// AddEdge adds a relationship row. Its (Type, FromLabel, ToLabel) must be a
// pair of schema.Rels. An edge whose endpoint id has no node is dropped at
// Load and counted in Meta.DroppedEdges.
func (b *Build) AddEdge(e schema.Edge) error {
	if !schema.HasPair(e.Type, schema.Pair{From: e.FromLabel, To: e.ToLabel}) {
		return fmt.Errorf("graph build: %s has no %s→%s pair (edge %s → %s); see schema.Rels", e.Type, e.FromLabel, e.ToLabel, e.From, e.To)
	}
	return b.addRow(relKey(e.Type, e.FromLabel, e.ToLabel),
		func() string { return fmt.Sprintf("rel-%s-%s-%s.json", e.Type, e.FromLabel, e.ToLabel) }, "", "",
		func(dst []byte) ([]byte, error) {
			if line, ok := appendEdgeLine(dst, e); ok {
				return line, nil
			}
			line, err := encodeRow(e) // a confidence JSON cannot hold: its error names the value
			return append(dst, line...), err
		}, "")
}
