package graph

// This file owns the rows of a build: the Add* methods that validate
// records and stream them, one NDJSON file per node table and per
// (rel type, from, to) pair, into the staging directory (the lines of the
// commonest rows, symbols, files and edges, are nodeline.go's and
// edgeline.go's; every other row is encodeRow's, in ndjson.go).

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

func nodeKey(l schema.Label) string { return string(l) }

func relKey(t schema.RelType, from, to schema.Label) string {
	return string(t) + ":" + string(from) + "->" + string(to)
}

// add appends one encoded row to the file of key; for a node row (label not
// empty) it records the id's hash in the label's id set.
func (b *Build) add(key, fileName string, line []byte, label schema.Label, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addLocked(key, func() string { return fileName }, line, label, id)
}

// addLocked is add with b.mu held and the file's name made only when the
// file is created.
func (b *Build) addLocked(key string, fileName func() string, line []byte, label schema.Label, id string) error {
	if b.state != stateAdding {
		return errors.New("graph build: rows added after Load, Commit or Abort")
	}
	if label != "" {
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
	}
	return rf.write(line)
}

func (b *Build) addNode(l schema.Label, id string, v any) error {
	if id == "" {
		return fmt.Errorf("graph build: %s row with empty id", l)
	}
	line, err := encodeRow(v)
	if err != nil {
		return err
	}
	return b.add(nodeKey(l), "node-"+string(l)+".json", line, l, id)
}

// linePool holds the buffers symbol, file and edge rows are appended to
// (nodeline.go, edgeline.go): add copies a line into its row file, so a
// buffer goes back to the pool once its row is added.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// addLine adds the row append writes into a pooled buffer: a node row of
// label l and id (label "" for an edge row) to the file of key, named
// fileName() when it is created.
func (b *Build) addLine(key string, fileName func() string, l schema.Label, id string, append func([]byte) []byte) error {
	bp := linePool.Get().(*[]byte)
	line := append((*bp)[:0])
	b.mu.Lock()
	err := b.addLocked(key, fileName, line, l, id)
	b.mu.Unlock()
	if cap(line) <= 64<<10 { // one symbol's 8 KiB content escaped stays pooled; an outlier does not
		*bp = line[:0]
		linePool.Put(bp)
	}
	return err
}

// AddFolder adds a Folder node.
func (b *Build) AddFolder(f schema.Folder) error {
	return b.addNode(schema.LabelFolder, f.ID, f)
}

// AddFile adds a File node. An empty SearchText is filled with
// text.SearchText(name, "", path), so the file-name index always has words.
func (b *Build) AddFile(f schema.File) error {
	if f.SearchText == "" {
		f.SearchText = text.SearchText(f.Name, "", f.Path)
	}
	if f.ID == "" {
		return fmt.Errorf("graph build: %s row with empty id", schema.LabelFile)
	}
	return b.addLine(nodeKey(schema.LabelFile), func() string { return "node-" + string(schema.LabelFile) + ".json" },
		schema.LabelFile, f.ID, func(dst []byte) []byte { return appendFileLine(dst, &f) })
}

// AddSymbol adds a symbol node to the table of s.Label (or, when Label is
// empty, the table of s.Kind).
func (b *Build) AddSymbol(s schema.Symbol) error {
	l := s.Label
	if l == "" {
		l = schema.LabelOf(s.Kind)
	}
	if !l.IsSymbol() {
		return fmt.Errorf("graph build: symbol %s has label %q, not a symbol table", s.ID, l)
	}
	if s.ID == "" {
		return fmt.Errorf("graph build: %s row with empty id", l)
	}
	return b.addLine(nodeKey(l), func() string { return "node-" + string(l) + ".json" },
		l, s.ID, func(dst []byte) []byte { return appendSymbolLine(dst, &s) })
}

// AddCommunity adds a Community node.
func (b *Build) AddCommunity(c schema.Community) error {
	if c.Keywords == nil {
		c.Keywords = []string{}
	}
	return b.addNode(schema.LabelCommunity, c.ID, c)
}

// AddProcess adds a Process node.
func (b *Build) AddProcess(p schema.Process) error {
	if p.Communities == nil {
		p.Communities = []string{}
	}
	return b.addNode(schema.LabelProcess, p.ID, p)
}

// AddEdge adds a relationship row. Its (Type, FromLabel, ToLabel) must be a
// pair of schema.Rels. An edge whose endpoint id has no node is dropped at
// Load and counted in Meta.DroppedEdges.
func (b *Build) AddEdge(e schema.Edge) error {
	if !schema.HasPair(e.Type, schema.Pair{From: e.FromLabel, To: e.ToLabel}) {
		return fmt.Errorf("graph build: %s has no %s→%s pair (edge %s → %s); see schema.Rels", e.Type, e.FromLabel, e.ToLabel, e.From, e.To)
	}
	fileName := func() string { return fmt.Sprintf("rel-%s-%s-%s.json", e.Type, e.FromLabel, e.ToLabel) }
	if math.IsNaN(e.Confidence) || math.IsInf(e.Confidence, 0) {
		line, err := encodeRow(e) // its error names the value
		if err != nil {
			return err
		}
		return b.add(relKey(e.Type, e.FromLabel, e.ToLabel), fileName(), line, "", "")
	}
	return b.addLine(relKey(e.Type, e.FromLabel, e.ToLabel), fileName, "", "", func(dst []byte) []byte {
		line, _ := appendEdgeLine(dst, e)
		return line
	})
}
