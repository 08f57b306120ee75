package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// Symbol is a symbol (or file) as the tools report it. Field names follow
// the reference tool (filePath, startLine).
type Symbol struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Label         string `json:"label"` // node table: Function, Method, Class, Interface, File
	Kind          string `json:"kind"`  // schema.Kind, or "file"
	QualifiedName string `json:"qualified_name,omitempty"`
	FilePath      string `json:"filePath"`
	StartLine     int    `json:"startLine,omitempty"`
	EndLine       int    `json:"endLine,omitempty"`
	Signature     string `json:"signature,omitempty"`
	DocComment    string `json:"doc_comment,omitempty"`
	Content       string `json:"content,omitempty"`
	// IsTest is the node's stored isTest property (decided once by
	// ingest): findSymbols ranks test code last by it. Not printed.
	IsTest bool `json:"-"`
}

// Lookup names the symbol a request is about.
type Lookup struct {
	Name     string // name, qualified name (Server.Handle) or, for files, a path
	UID      string // exact id; wins over Name
	FilePath string // keep symbols in this file (suffix match on the repo path)
	Kind     string // keep this table (Function, Class, ...) or kind (struct, constructor, ...)
	Files    bool   // a File may match (impact on a file)
}

// maxCandidates bounds an ambiguous answer's candidate list.
const maxCandidates = 20

// symbolOfNode is a snapshot node as a tool reports it.
func symbolOfNode(n query.Node) Symbol {
	return Symbol{ID: n.ID, Name: n.Name, Label: n.Label, Kind: n.Kind, QualifiedName: n.QualifiedName,
		FilePath: n.FilePath, StartLine: n.StartLine, EndLine: n.EndLine, IsTest: n.IsTest}
}

// maxLookup bounds the symbols one name may match before filtering.
const maxLookup = 500

// findSymbols returns the symbols lk names, best first (exact name before
// qualified-name match; code before tests (the stored isTest), then
// shorter paths). An id (uid, or a name with '#') that no symbol has
// exactly matches the symbols whose ids start with it. Files match when
// lk.Files and the name looks like a path.
func findSymbols(ctx context.Context, g *query.Snapshot, lk Lookup) ([]Symbol, error) {
	for _, f := range []struct{ name, v string }{{"name", lk.Name}, {"uid", lk.UID}, {"file_path", lk.FilePath}, {"kind", lk.Kind}} {
		if err := checkLen(f.name, f.v, MaxNameBytes); err != nil {
			return nil, err
		}
	}
	isSymbol := func(h *query.Hit) bool { return schema.Label(h.Label).IsSymbol() }
	var match func(h *query.Hit, qn string) bool
	var id, named string // named: match requires Name == named
	switch {
	case lk.UID != "":
		id = lk.UID
	case strings.TrimSpace(lk.Name) != "":
		name := strings.TrimSpace(lk.Name)
		if strings.Contains(name, "#") { // an id given as a name
			id = name
		} else if i := strings.LastIndexAny(name, ".:"); i > 0 && i < len(name)-1 && !strings.Contains(name, "/") {
			qn := strings.ReplaceAll(name, "::", ".")
			match = func(h *query.Hit, q string) bool {
				return isSymbol(h) && (q == qn || strings.HasSuffix(q, "."+qn) || h.Name == name)
			}
		} else {
			named = name
			match = func(h *query.Hit, _ string) bool { return isSymbol(h) && h.Name == name }
		}
	default:
		return nil, inputErr("name or uid is required")
	}
	var nodes []query.Node
	if id != "" {
		n, ok, err := g.Node(id)
		if err != nil {
			return nil, fmt.Errorf("look up symbol: %w", err)
		}
		if ok && isSymbol(&n.Hit) {
			nodes = []query.Node{n}
		} else {
			// An id nothing has exactly: a prefix of ids (path#Server.Hand),
			// found when only one id starts with it, else the candidates.
			nodes, err = g.Find(ctx, func(h *query.Hit, _ string) bool { return isSymbol(h) && strings.HasPrefix(h.ID, id) }, maxLookup)
			if err != nil {
				return nil, fmt.Errorf("look up symbol by id prefix: %w", err)
			}
			sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
			nodes = nodes[:min(len(nodes), maxCandidates+1)]
		}
	} else {
		var err error
		if named != "" {
			nodes, err = g.FindNamed(ctx, named, match, maxLookup)
		} else {
			nodes, err = g.Find(ctx, match, maxLookup)
		}
		if err != nil {
			return nil, fmt.Errorf("look up symbol: %w", err)
		}
	}
	var out []Symbol
	for _, n := range nodes {
		out = append(out, symbolOfNode(n))
	}
	if lk.Files && lk.UID == "" && len(out) == 0 {
		p := strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(lk.Name), `\`, "/"), "./")
		files, err := g.FindFiles(ctx, func(h *query.Hit, _ string) bool {
			return h.ID == p || strings.HasSuffix(h.ID, "/"+p)
		}, 50)
		if err != nil {
			return nil, fmt.Errorf("look up file: %w", err)
		}
		for _, f := range files {
			s := symbolOfNode(f)
			s.FilePath, s.StartLine = f.ID, 1
			out = append(out, s)
		}
	}
	out = filterSymbols(out, lk)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Name == lk.Name) != (b.Name == lk.Name) {
			return a.Name == lk.Name
		}
		if a.IsTest != b.IsTest {
			return !a.IsTest
		}
		if len(a.FilePath) != len(b.FilePath) {
			return len(a.FilePath) < len(b.FilePath)
		}
		if a.FilePath != b.FilePath {
			return a.FilePath < b.FilePath
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.ID < b.ID
	})
	return out, nil
}

func filterSymbols(in []Symbol, lk Lookup) []Symbol {
	fp := strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(lk.FilePath), `\`, "/"), "./")
	// kind may list several, comma-separated (function,method).
	kinds := map[string]bool{}
	for _, k := range strings.Split(strings.ToLower(lk.Kind), ",") {
		if k = strings.TrimSpace(k); k != "" {
			kinds[k] = true
		}
	}
	if fp == "" && len(kinds) == 0 {
		return in
	}
	var out []Symbol
	for _, s := range in {
		if fp != "" && s.FilePath != fp && !strings.HasSuffix(s.FilePath, "/"+fp) && !strings.HasPrefix(s.FilePath, strings.TrimSuffix(fp, "/")+"/") {
			continue
		}
		if len(kinds) > 0 && !kinds[strings.ToLower(s.Label)] && !kinds[strings.ToLower(s.Kind)] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Resolution is the outcome of naming a symbol: exactly one match
// (Status "found"), several ("ambiguous": pick one by uid, file_path or
// kind), or none (an ErrNotFound error instead).
type Resolution struct {
	Status     string   `json:"status"`
	Candidates []Symbol `json:"candidates,omitempty"`
}

// resolveOne returns the one symbol lk names, or a Resolution listing the
// candidates when several match. A lone exact-name match among
// qualified-name matches wins.
func resolveOne(ctx context.Context, g *query.Snapshot, lk Lookup, what string) (*Symbol, *Resolution, error) {
	syms, err := findSymbols(ctx, g, lk)
	if err != nil {
		return nil, nil, err
	}
	switch len(syms) {
	case 0:
		name := lk.UID
		if name == "" {
			name = lk.Name
		}
		hint := ""
		if lk.FilePath != "" || lk.Kind != "" {
			hint = " with the given file_path/kind"
		}
		return nil, nil, fmt.Errorf("%w: no %s named %q%s in the index: search for it with the query tool, or check the spelling (names are case-sensitive)", ErrNotFound, what, name, hint)
	case 1:
		return &syms[0], nil, nil
	}
	if len(syms) > maxCandidates {
		syms = syms[:maxCandidates]
	}
	return nil, &Resolution{Status: "ambiguous", Candidates: syms}, nil
}

// fillDetails adds signature and doc comment and, when content, the
// source text analyze kept (capped at schema.ContentCap) to s, all from
// the snapshot.
func fillDetails(ix Index, s *Symbol, content bool) error {
	if s.Label == string(schema.LabelFile) || s.Label == "" {
		return nil
	}
	n, ok, err := ix.Graph.Node(s.ID)
	if err != nil {
		return fmt.Errorf("read symbol details: %w", err)
	}
	if !ok {
		return nil
	}
	s.Signature, s.DocComment = n.Signature, n.DocComment
	if content {
		if s.Content, _, err = ix.Graph.Source(s.ID); err != nil {
			return fmt.Errorf("read symbol source: %w", err)
		}
	}
	return nil
}
