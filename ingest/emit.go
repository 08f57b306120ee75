package ingest

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/ingest/resolve"
)

// DocSentenceMax bounds what the light index (Index) keeps of a function's
// or method's doc comment: its first sentence, at most this many bytes.
const DocSentenceMax = 160

// RootFolder is the id and path of the repository's root Folder node.
const RootFolder = "."

// emitter writes records to the sink and counts them.
type emitter struct {
	sink  Sink
	st    *Stats
	files []schema.File // File rows, held until resolution has counted unresolved calls
}

// flushFiles writes the File rows with their unresolved call counts.
func (e *emitter) flushFiles(unresolved map[string]int) error {
	for _, f := range e.files {
		if unresolved != nil {
			f.Unresolved = unresolved[f.Path]
		}
		if err := e.sink.AddFile(f); err != nil {
			return fmt.Errorf("write file %s: %w", f.Path, err)
		}
	}
	e.files = nil
	return nil
}

func (e *emitter) edge(ed schema.Edge) error {
	if ed.Confidence == 0 {
		ed.Confidence = 1
	}
	if ed.Reason == "" {
		ed.Reason = schema.ReasonStructural
	}
	if err := e.sink.AddEdge(ed); err != nil {
		return fmt.Errorf("write %s edge %s → %s: %w", ed.Type, ed.From, ed.To, err)
	}
	e.st.Edges[string(ed.Type)]++
	return nil
}

// folders emits the folder tree of files: a Folder per directory holding a
// file (and each ancestor) and the CONTAINS Folder→Folder edges. The
// Folder→File edge is written with the File row, in file(), so a file that
// turns out unreadable leaves no dangling edge.
func (e *emitter) folders(files []discover.File) error {
	dirs := map[string]bool{RootFolder: true}
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	sorted := make([]string, 0, len(dirs))
	for d := range dirs {
		sorted = append(sorted, d)
	}
	sort.Strings(sorted)
	for _, d := range sorted {
		name := path.Base(d)
		if err := e.sink.AddFolder(schema.Folder{ID: d, Path: d, Name: name}); err != nil {
			return fmt.Errorf("write folder %s: %w", d, err)
		}
		e.st.Folders++
		e.st.Labels[string(schema.LabelFolder)]++
		if d == RootFolder {
			continue
		}
		if err := e.edge(schema.Edge{Type: schema.RelContains, From: parentDir(d), FromLabel: schema.LabelFolder, To: d, ToLabel: schema.LabelFolder}); err != nil {
			return err
		}
	}
	return nil
}

func parentDir(p string) string {
	d := path.Dir(p)
	if d == "" {
		return RootFolder
	}
	return d
}

// file handles one parsed file on the consumer goroutine: it writes the
// File row, its symbols, DEFINES and same-file HAS_METHOD edges, and keeps
// the content-free facts in the index. It sets IsTest on the File and its
// symbols (schema.IsTestPath): the one place that rule is applied.
func (e *emitter) file(r parsed, ix *Index) error {
	if r.err != nil {
		e.st.Skipped[r.reason]++
		return nil
	}
	r.node.ParseStatus = r.status
	r.node.SearchText = text.SearchText(r.node.Name, "", r.node.Path)
	// "Is test" is decided here, once, for the file and every symbol in it;
	// everything downstream reads the stored property.
	r.node.IsTest = schema.IsTestPath(r.node.Path)
	e.files = append(e.files, r.node) // written after resolution, with its unresolved count
	if err := e.edge(schema.Edge{Type: schema.RelContains, From: parentDir(r.node.Path), FromLabel: schema.LabelFolder, To: r.node.ID, ToLabel: schema.LabelFile}); err != nil {
		return err
	}
	e.st.Files++
	e.st.Labels[string(schema.LabelFile)]++
	langName := r.node.Language
	if langName == "" {
		langName = "other"
	}
	e.st.Languages[langName]++
	e.st.ParseStatus[string(r.status)]++
	e.st.FileHashes[r.node.Path] = r.node.ContentHash

	facts := r.facts
	labels := make(map[string]schema.Label, len(facts.Symbols))
	for i := range facts.Symbols {
		labels[facts.Symbols[i].ID] = facts.Symbols[i].Label
	}
	for i := range facts.Symbols {
		s := &facts.Symbols[i]
		s.IsTest = r.node.IsTest
		if s.SearchText == "" {
			s.SearchText = text.SearchText(s.Name, s.QualifiedName, s.FilePath)
		}
		doc := s.DocComment
		if err := e.sink.AddSymbol(*s); err != nil {
			return fmt.Errorf("write symbol %s: %w", s.ID, err)
		}
		e.st.Symbols++
		e.st.Kinds[string(s.Kind)]++
		e.st.Labels[string(s.Label)]++
		if err := e.edge(schema.Edge{Type: schema.RelDefines, From: r.node.ID, FromLabel: schema.LabelFile, To: s.ID, ToLabel: s.Label}); err != nil {
			return err
		}
		if pl, ok := labels[s.ParentID]; ok && s.Label == schema.LabelMethod && (pl == schema.LabelClass || pl == schema.LabelInterface) {
			if err := e.edge(schema.Edge{Type: schema.RelHasMethod, From: s.ParentID, FromLabel: pl, To: s.ID, ToLabel: s.Label}); err != nil {
				return err
			}
		}
		// The light index keeps no text the later phases do not read: the
		// body, the search words, the doc comment but for its first
		// sentence (flow descriptions; kernel-doc blocks run to kilobytes)
		// and the hash.
		s.Content, s.SearchText, s.ContentHash = "", "", ""
		s.DocComment = ""
		if s.Label == schema.LabelFunction || s.Label == schema.LabelMethod {
			s.DocComment = strings.Clone(text.FirstSentence(doc, DocSentenceMax))
		}
	}
	if facts.Path == "" { // no grammar: keep the file in the index for path-level phases
		facts = lang.Facts{Path: r.node.Path, Language: r.node.Language}
	}
	f := facts
	ix.Files = append(ix.Files, &f)
	for i := range f.Symbols {
		ix.byID[f.Symbols[i].ID] = &f.Symbols[i]
	}
	return nil
}

// crossFileMethods links methods whose type is declared in another file of
// the same package (Go's methods may sit in any file of the package; Rust's
// impl blocks in any module of the crate). The extractor records the
// receiver type as a TypeFact of kind "receiver" when it could not set
// ParentID itself.
//
// Lookup: a Class or Interface of that name in the same directory first
// (Go's package = directory); failing that, the one such type in the whole
// repository if the name is unique there (Rust impls in another module).
// Ambiguous names get no edge: a wrong HAS_METHOD is worse than none.
func (e *emitter) crossFileMethods(ix *Index) error {
	type key struct{ dir, name string }
	byDir := map[key][]*schema.Symbol{}
	byName := map[string][]*schema.Symbol{}
	for _, f := range ix.Files {
		for i := range f.Symbols {
			s := &f.Symbols[i]
			if s.Label != schema.LabelClass && s.Label != schema.LabelInterface {
				continue
			}
			k := key{path.Dir(f.Path), s.Name}
			byDir[k] = append(byDir[k], s)
			byName[s.Name] = append(byName[s.Name], s)
		}
	}
	inactive := map[string]bool{}
	for _, f := range ix.Files {
		if !resolve.Active(f) {
			inactive[f.Path] = true
		}
	}
	byQName := map[string][]*schema.Symbol{}
	for _, ss := range byName {
		for _, s := range ss {
			k := resolve.Family(s.Language) + "\x00" + s.QualifiedName
			byQName[k] = append(byQName[k], s)
		}
	}
	link := func(m, p *schema.Symbol) error {
		m.ParentID = p.ID
		return e.edge(schema.Edge{Type: schema.RelHasMethod, From: p.ID, FromLabel: p.Label, To: m.ID, ToLabel: m.Label})
	}
	for _, f := range ix.Files {
		for _, tf := range f.Types {
			if tf.Kind != "receiver" || tf.Scope == "" {
				continue
			}
			m := ix.byID[tf.Scope]
			if m == nil || m.ParentID != "" {
				continue
			}
			typ := strings.TrimPrefix(tf.Type, "*")
			cands := byDir[key{path.Dir(f.Path), typ}]
			if len(cands) == 0 && f.Language != "go" {
				cands = byName[typ]
			}
			if len(cands) > 1 { // build variants (labels.go, labels_stringlabels.go): the default build's
				var act []*schema.Symbol
				for _, c := range cands {
					if !inactive[c.FilePath] {
						act = append(act, c)
					}
				}
				cands = act
			}
			if len(cands) != 1 {
				continue
			}
			if err := link(m, cands[0]); err != nil {
				return err
			}
		}
	}
	// Out-of-line C++ definitions (Shape::area in shape.cpp, the class in
	// shape.h) name their class in the qualified name: link them to the
	// one class with that qualified name.
	for _, f := range ix.Files {
		for i := range f.Symbols {
			m := &f.Symbols[i]
			if m.Label != schema.LabelMethod || m.ParentID != "" {
				continue
			}
			j := strings.LastIndexByte(m.QualifiedName, '.')
			if j <= 0 {
				continue
			}
			if cands := byQName[resolve.Family(m.Language)+"\x00"+m.QualifiedName[:j]]; len(cands) == 1 && cands[0].FilePath != m.FilePath {
				if err := link(m, cands[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
