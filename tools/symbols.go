package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
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

// boolean is a Result cell as a bool (beside str, num and flt).
var boolean = graph.Bool

// symbolCols are the columns symbolOf reads, of a node n.
const symbolCols = "n.id, n.name, label(n), n.kind, n.qualifiedName, n.filePath, n.startLine, n.endLine, n.isTest"

func symbolOf(r []any) Symbol {
	return Symbol{ID: str(r[0]), Name: str(r[1]), Label: str(r[2]), Kind: str(r[3]), QualifiedName: str(r[4]),
		FilePath: str(r[5]), StartLine: num(r[6]), EndLine: num(r[7]), IsTest: boolean(r[8])}
}

// findSymbols returns the symbols lk names, best first (exact name before
// qualified-name match; code before tests (the stored isTest), then
// shorter paths). An id (uid, or a name with '#') that no symbol has
// exactly matches the symbols whose ids start with it. Files match when
// lk.Files and the name looks like a path.
func findSymbols(ctx context.Context, db Querier, lk Lookup) ([]Symbol, error) {
	for _, f := range []struct{ name, v string }{{"name", lk.Name}, {"uid", lk.UID}, {"file_path", lk.FilePath}, {"kind", lk.Kind}} {
		if err := checkLen(f.name, f.v, MaxNameBytes); err != nil {
			return nil, err
		}
	}
	var where, id string
	switch {
	case lk.UID != "":
		id = lk.UID
		where = "n.id = " + schema.Quote(id)
	case strings.TrimSpace(lk.Name) != "":
		name := strings.TrimSpace(lk.Name)
		if strings.Contains(name, "#") { // an id given as a name
			id = name
			where = "n.id = " + schema.Quote(name)
		} else if i := strings.LastIndexAny(name, ".:"); i > 0 && i < len(name)-1 && !strings.Contains(name, "/") {
			where = "(n.qualifiedName = " + schema.Quote(strings.ReplaceAll(name, "::", ".")) + " OR n.qualifiedName ENDS WITH " + schema.Quote("."+strings.ReplaceAll(name, "::", ".")) + " OR (n.name = " + schema.Quote(name) + "))"
		} else {
			where = "n.name = " + schema.Quote(name)
		}
	default:
		return nil, inputErr("name or uid is required")
	}
	q := "MATCH " + symbolPattern("n") + " WHERE " + where + " RETURN " + symbolCols + " LIMIT 500"
	res, err := db.Query(ctx, q, nil)
	if err != nil {
		return nil, fmt.Errorf("look up symbol: %w", err)
	}
	if len(res.Rows) == 0 && id != "" {
		// An id nothing has exactly: a prefix of ids (path#Server.Hand),
		// found when only one id starts with it, else the candidates.
		res, err = db.Query(ctx, "MATCH "+symbolPattern("n")+" WHERE n.id STARTS WITH "+schema.Quote(id)+" RETURN "+symbolCols+fmt.Sprintf(" ORDER BY n.id LIMIT %d", maxCandidates+1), nil)
		if err != nil {
			return nil, fmt.Errorf("look up symbol by id prefix: %w", err)
		}
	}
	var out []Symbol
	for _, r := range res.Rows {
		out = append(out, symbolOf(r))
	}
	if lk.Files && lk.UID == "" && len(out) == 0 {
		p := strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(lk.Name), `\`, "/"), "./")
		res, err := db.Query(ctx, "MATCH (n:File) WHERE n.id = "+schema.Quote(p)+" OR n.id ENDS WITH "+schema.Quote("/"+p)+" RETURN n.id AS id, n.name AS name, label(n) AS label, 'file' AS kind, '' AS qualifiedName, n.id AS filePath, 1 AS startLine, n.lines AS endLine, n.isTest AS isTest LIMIT 50", nil)
		if err != nil {
			return nil, fmt.Errorf("look up file: %w", err)
		}
		for _, r := range res.Rows {
			out = append(out, symbolOf(r))
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
		return a.StartLine < b.StartLine
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
func resolveOne(ctx context.Context, db Querier, lk Lookup, what string) (*Symbol, *Resolution, error) {
	syms, err := findSymbols(ctx, db, lk)
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

// fillDetails adds signature, doc comment and (when content) source to s.
func fillDetails(ctx context.Context, db Querier, s *Symbol, content bool) error {
	if s.Label == string(schema.LabelFile) || s.Label == "" {
		return nil
	}
	cols := "n.signature, n.docComment"
	if content {
		cols += ", n.content"
	}
	res, err := db.Query(ctx, "MATCH (n:"+s.Label+") WHERE n.id = "+schema.Quote(s.ID)+" RETURN "+cols, nil)
	if err != nil {
		return fmt.Errorf("read symbol details: %w", err)
	}
	if len(res.Rows) == 1 {
		r := res.Rows[0]
		s.Signature, s.DocComment = str(r[0]), str(r[1])
		if content {
			s.Content = str(r[2])
		}
	}
	return nil
}

// safeLabel reports whether l is a node table (so it may be spliced into a
// statement).
func safeLabel(l string) bool {
	switch schema.Label(l) {
	case schema.LabelFile, schema.LabelFolder, schema.LabelCommunity, schema.LabelProcess:
		return true
	}
	return schema.Label(l).IsSymbol()
}
