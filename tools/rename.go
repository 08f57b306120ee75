package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// RenameInput is the rename tool's input.
type RenameInput struct {
	Name     string `json:"name,omitempty" jsonschema:"Symbol to rename: name or qualified name (Server.HandleOrder)"`
	UID      string `json:"uid,omitempty" jsonschema:"Direct symbol UID from prior tool results (zero-ambiguity lookup)"`
	FilePath string `json:"file_path,omitempty" jsonschema:"File path to disambiguate common names"`
	Kind     string `json:"kind,omitempty" jsonschema:"Kind filter to disambiguate: Function, Class, Method, Interface, or a precise kind"`
	NewName  string `json:"new_name" jsonschema:"The new name: an identifier (letters, digits, _; not starting with a digit)"`
	Repo     string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// RenameEdit is one replacement: on line Line (1-based), the bytes from
// Column (1-based, in bytes) that read Old become New.
type RenameEdit struct {
	FilePath   string  `json:"filePath"`
	Line       int     `json:"line"`
	Column     int     `json:"column"`
	Old        string  `json:"old"`
	New        string  `json:"new"`
	Kind       string  `json:"kind"` // definition | call
	Confidence float64 `json:"confidence"`
}

// RenameSite is an occurrence of the name the graph does not link to the
// symbol: a reference the resolver missed, or another symbol of the same
// name. It is listed for a person to check, never edited.
type RenameSite struct {
	FilePath string `json:"filePath"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Text     string `json:"text"` // the line, trimmed and cut at 200 bytes
	Reason   string `json:"reason"`
}

// RenameOutput is a rename's preview: the exact edits and the unresolved
// sites. Complete says the edits cover every occurrence of the name in
// the indexed files of the symbol's language (nothing left to check).
type RenameOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status     string            `json:"status"` // found | ambiguous
	Symbol     *Symbol           `json:"symbol,omitempty"`
	Candidates []Symbol          `json:"candidates,omitempty"`
	NewName    string            `json:"new_name"`
	Edits      []RenameEdit      `json:"edits"`
	Unresolved []RenameSite      `json:"unresolved"`
	Complete   bool              `json:"complete"`
	Notices    []string          `json:"notices,omitempty"`
	Budget     *query.BudgetNote `json:"budget,omitempty"`
}

// Rename bounds and default budget.
const (
	maxRenameSites      = 500
	DefaultRenameTokens = 8000
)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Rename previews renaming a symbol: an edit for its definition and for
// each call site the graph knows (CALLS edges with their site line) where
// the name occurs exactly once on that line, each with the edge's
// confidence; every other whole-word occurrence of the name in the indexed
// files of the symbol's language is listed as unresolved (a reference the
// graph does not hold, or another symbol of that name), never guessed.
// Only files inside the repository at root that the index holds are read.
func Rename(ctx context.Context, ix Index, root string, in RenameInput) (*RenameOutput, error) {
	newName := strings.TrimSpace(in.NewName)
	if len(newName) > 256 || !identRE.MatchString(newName) {
		return nil, inputErr("new_name %.60q is not an identifier (letters, digits, _; not starting with a digit; at most 256 bytes)", in.NewName)
	}
	budget, err := in.Budget.tokens(DefaultRenameTokens)
	if err != nil {
		return nil, err
	}
	g := ix.Graph
	sym, amb, err := resolveOne(ctx, g, Lookup{Name: in.Name, UID: in.UID, FilePath: in.FilePath, Kind: in.Kind}, "symbol")
	if err != nil {
		return nil, err
	}
	out := &RenameOutput{NewName: newName, Edits: []RenameEdit{}, Unresolved: []RenameSite{}}
	if amb != nil {
		out.Status, out.Candidates = amb.Status, amb.Candidates
		out.Notices = append(out.Notices, fmt.Sprintf("%d symbols match: call again with uid (or file_path / kind) to pick one", len(amb.Candidates)))
		return out, nil
	}
	out.Status, out.Symbol = "found", sym
	old := sym.Name
	if newName == old {
		return nil, inputErr("new_name is the symbol's name already")
	}
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(old) + `\b`)
	files := map[string][]string{} // path → lines, read once
	lines := func(p string) ([]string, error) {
		if ls, ok := files[p]; ok {
			return ls, nil
		}
		b, err := readIndexed(root, p)
		if err != nil {
			return nil, err
		}
		ls := strings.Split(string(b), "\n")
		files[p] = ls
		return ls, nil
	}
	taken := map[string]bool{} // file:line:col of edits
	addEdit := func(p string, line, col int, kind string, conf float64) {
		k := fmt.Sprintf("%s:%d:%d", p, line, col)
		if taken[k] {
			return
		}
		taken[k] = true
		out.Edits = append(out.Edits, RenameEdit{FilePath: p, Line: line, Column: col, Old: old, New: newName, Kind: kind, Confidence: conf})
	}
	// The definition: the first occurrence at or after its first line.
	if ls, err := lines(sym.FilePath); err == nil {
		for l := sym.StartLine; l >= 1 && l <= len(ls) && l < sym.StartLine+5; l++ {
			if loc := word.FindStringIndex(ls[l-1]); loc != nil {
				addEdit(sym.FilePath, l, loc[0]+1, "definition", 1)
				break
			}
		}
	}
	// Call sites the graph knows.
	calls, err := g.Edges(sym.ID, false, schema.RelCalls)
	if err != nil {
		return nil, fmt.Errorf("read callers: %w", err)
	}
	for _, e := range calls {
		p := e.Other.FilePath
		ls, err := lines(p)
		if err != nil || e.Line < 1 || e.Line > len(ls) {
			continue // listed below as an occurrence, if it still is one
		}
		locs := word.FindAllStringIndex(ls[e.Line-1], -1)
		if len(locs) == 1 {
			addEdit(p, e.Line, locs[0][0]+1, "call", e.Confidence)
		}
	}
	// Every other occurrence in the indexed files of the language.
	lang := fileLanguage(g, sym.FilePath)
	indexed, err := g.FindFiles(ctx, func(h *query.Hit, _ string) bool {
		return h.Language == lang
	}, 1<<30)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	sort.Slice(indexed, func(i, j int) bool { return indexed[i].ID < indexed[j].ID })
	total := 0
	for _, f := range indexed {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ls, err := lines(f.ID)
		if err != nil {
			continue
		}
		for i, l := range ls {
			for _, loc := range word.FindAllStringIndex(l, -1) {
				if taken[fmt.Sprintf("%s:%d:%d", f.ID, i+1, loc[0]+1)] {
					continue
				}
				total++
				if len(out.Unresolved) < maxRenameSites {
					text := strings.TrimSpace(l)
					if len(text) > 200 {
						text = text[:200]
					}
					out.Unresolved = append(out.Unresolved, RenameSite{FilePath: f.ID, Line: i + 1, Column: loc[0] + 1, Text: text,
						Reason: "the name occurs here but the graph links no call of this symbol to it"})
				}
			}
		}
	}
	sort.Slice(out.Edits, func(i, j int) bool {
		a, b := out.Edits[i], out.Edits[j]
		if a.FilePath != b.FilePath {
			return a.FilePath < b.FilePath
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out.Complete = total == 0 && len(out.Edits) > 0
	if total > len(out.Unresolved) {
		out.Notices = append(out.Notices, fmt.Sprintf("%d more unresolved occurrences not listed", total-len(out.Unresolved)))
	}
	if !out.Complete {
		out.Notices = append(out.Notices, fmt.Sprintf("%d occurrences of %s are not linked to this symbol: check them before applying (they may be references the resolver missed, or other symbols of that name)", total, old))
	}
	nEdits, nSites := len(out.Edits), len(out.Unresolved)
	out.Budget = fit(out, budget, func() (string, bool) {
		if what, ok := halve(&out.Unresolved, 10, nSites, "unresolved"); ok {
			return what, true
		}
		return halve(&out.Edits, 1, nEdits, "edits")
	}, "raise max_tokens; the CLI's rename --apply uses every edit whatever the budget")
	return out, nil
}

// fileLanguage is the language of the indexed file at path ("" if none).
func fileLanguage(g *query.Snapshot, path string) string {
	n, ok, err := g.Node(path)
	if err != nil || !ok {
		return ""
	}
	return n.Language
}

// ApplyRename writes the edits into the files of the repository at root:
// each file is checked to still read Old at every edit's place (else
// nothing is written), then replaced atomically, its mode kept. It
// returns the files written.
func ApplyRename(root string, edits []RenameEdit) ([]string, error) {
	byFile := map[string][]RenameEdit{}
	for _, e := range edits {
		byFile[e.FilePath] = append(byFile[e.FilePath], e)
	}
	type change struct {
		path string
		data []byte
		mode os.FileMode
	}
	var changes []change
	var paths []string
	for p := range byFile {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := readIndexed(root, p)
		if err != nil {
			return nil, err
		}
		ls := strings.Split(string(b), "\n")
		es := byFile[p]
		// Right to left within a line, so columns stay true.
		sort.Slice(es, func(i, j int) bool {
			if es[i].Line != es[j].Line {
				return es[i].Line < es[j].Line
			}
			return es[i].Column > es[j].Column
		})
		for _, e := range es {
			if e.Line < 1 || e.Line > len(ls) {
				return nil, fmt.Errorf("%s:%d: no such line (the file changed since the preview)", p, e.Line)
			}
			l := ls[e.Line-1]
			c := e.Column - 1
			if c < 0 || c+len(e.Old) > len(l) || l[c:c+len(e.Old)] != e.Old {
				return nil, fmt.Errorf("%s:%d:%d does not read %q (the file changed since the preview): nothing written", p, e.Line, e.Column, e.Old)
			}
			ls[e.Line-1] = l[:c] + e.New + l[c+len(e.Old):]
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		changes = append(changes, change{p, []byte(strings.Join(ls, "\n")), fi.Mode().Perm()})
	}
	for _, c := range changes {
		if err := graph.WriteFileAtomic(filepath.Join(root, filepath.FromSlash(c.path)), c.mode, c.data); err != nil {
			return nil, fmt.Errorf("write %s: %w", c.path, err)
		}
	}
	return paths, nil
}
