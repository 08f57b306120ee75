package processes

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
)

// decoratorLangs are the languages whose entry points are often marked by
// a decorator or annotation written above the declaration.
var decoratorLangs = map[string]bool{"python": true, "java": true, "typescript": true, "tsx": true, "javascript": true, "csharp": true, "php": true}

// FromIndex builds the symbol graph from the ingest index and the resolved
// edges (CALLS, EXTENDS, IMPLEMENTS; other types are ignored). It re-reads
// the few lines around each declaration in decorator languages to collect
// decorators and annotations for the framework rules; a file that cannot be
// read just yields none.
func FromIndex(ix *ingest.Index, edges []schema.Edge) *Graph {
	var nodes []Node
	for _, f := range ix.Files {
		var lines []string
		if decoratorLangs[f.Language] && len(f.Symbols) > 0 {
			lines = readLines(filepath.Join(ix.Root, filepath.FromSlash(f.Path)))
		}
		for i := range f.Symbols {
			s := &f.Symbols[i]
			n := Node{
				ID: s.ID, Label: s.Label, Kind: s.Kind, Name: s.Name, FilePath: s.FilePath,
				StartLine: s.StartLine, Language: s.Language, Signature: s.Signature, IsExported: s.IsExported,
				IsTest: s.IsTest,
			}
			if lines != nil && (s.Label == schema.LabelFunction || s.Label == schema.LabelMethod) {
				n.Decorators = decoratorsAt(lines, s.StartLine)
			}
			nodes = append(nodes, n)
		}
	}
	var es []Edge
	for _, e := range edges {
		switch e.Type {
		case schema.RelCalls, schema.RelExtends, schema.RelImplements:
			es = append(es, Edge{From: e.From, To: e.To, Type: e.Type, Confidence: e.Confidence})
		}
	}
	return newGraph(nodes, es)
}

// decoratorsAt returns the lines starting with '@' or '[' (C# attributes)
// in the run of such lines directly above line start (1-based), and those
// at the start of the declaration itself (when the extractor counted the
// decorators into the symbol's span).
func decoratorsAt(lines []string, start int) []string {
	var out []string
	isDeco := func(s string) bool {
		s = strings.TrimSpace(s)
		return strings.HasPrefix(s, "@") || strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]")
	}
	for i := start - 2; i >= 0 && i < len(lines) && isDeco(lines[i]); i-- {
		out = append(out, strings.TrimSpace(lines[i]))
	}
	for i := start - 1; i >= 0 && i < len(lines) && isDeco(lines[i]); i++ {
		out = append(out, strings.TrimSpace(lines[i]))
	}
	return out
}

func readLines(p string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
