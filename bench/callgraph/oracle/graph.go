package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// FormatVersion is the version of the Graph JSON format.
const FormatVersion = 2

// Func is a function or method declared in the module: the file of its
// declaration relative to the module root with '/' separators, the 1-based
// line of its `func` keyword, and a readable name such as
// "gin.(*Engine).ServeHTTP" (for reports only; matching uses File and Line).
type Func struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Name string `json:"name"`
}

// StaticEdge is an edge of the static call graph. Caller and Callee index
// Graph.Funcs. Kind is the syntactic kind of the first call site (see the
// Kind constants) and Site its position "file:line".
type StaticEdge struct {
	Caller int    `json:"caller"`
	Callee int    `json:"callee"`
	Kind   Kind   `json:"kind"`
	Site   string `json:"site"`
	// InClosure reports that the first call site is inside a closure of
	// the caller.
	InClosure bool `json:"inClosure,omitempty"`
	// XTools reports that go/callgraph/static's own graph has the edge (it
	// starts from package members and methods of named types, and so misses
	// the calls made inside closures that are passed as values or returned).
	// Recall over these edges only is comparable with figures measured with
	// static.CallGraph.
	XTools bool `json:"xtools,omitempty"`
}

// Graph is the oracle's output for one module. Edges refer to functions by
// their index in Funcs, which is sorted by (File, Line). CHA edges are
// [caller, callee] index pairs (there are many of them).
type Graph struct {
	Version  int    `json:"version"`
	Module   string `json:"module"`
	Tools    string `json:"tools"` // golang.org/x/tools version that computed it
	GOOS     string `json:"goos"`
	GOARCH   string `json:"goarch"`
	Packages int    `json:"packages"`
	// Files are the module-relative paths of the non-test Go files loaded:
	// those of the host platform, without build-constrained variants,
	// testdata or nested modules.
	Files  []string     `json:"files"`
	Funcs  []Func       `json:"functions"`
	Static []StaticEdge `json:"static"`
	CHA    [][2]int     `json:"cha"`
	// Collisions counts declarations that share a (file, line) key with an
	// earlier one (several functions on one line); they are merged.
	Collisions int `json:"collisions"`
	// LoadErrors are the package load and type errors met (the packages with
	// errors still contribute what could be built).
	LoadErrors []string `json:"loadErrors,omitempty"`
}

// Write writes g as one JSON document.
func (g *Graph) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(g); err != nil {
		return fmt.Errorf("oracle: encode graph: %w", err)
	}
	return nil
}

// Read reads a Graph written by Write and checks its indexes.
func Read(r io.Reader) (*Graph, error) {
	var g Graph
	if err := json.NewDecoder(r).Decode(&g); err != nil {
		return nil, fmt.Errorf("oracle: decode graph: %w", err)
	}
	if g.Version != FormatVersion {
		return nil, fmt.Errorf("oracle: graph format version %d, want %d (recompute the oracle)", g.Version, FormatVersion)
	}
	n := len(g.Funcs)
	for _, e := range g.Static {
		if e.Caller < 0 || e.Caller >= n || e.Callee < 0 || e.Callee >= n {
			return nil, fmt.Errorf("oracle: static edge %d->%d out of range (%d functions)", e.Caller, e.Callee, n)
		}
	}
	for _, e := range g.CHA {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("oracle: cha edge %d->%d out of range (%d functions)", e[0], e[1], n)
		}
	}
	return &g, nil
}

// ReadFile reads a Graph from a file.
func ReadFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	defer f.Close()
	g, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}
