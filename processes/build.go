package processes

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// decoratorLangs are the languages whose entry points are often marked by
// a decorator or annotation written above the declaration.
var decoratorLangs = map[string]bool{"python": true, "java": true, "typescript": true, "tsx": true, "javascript": true, "csharp": true, "php": true}

// ReasonReturned is the reason of a flow edge from a function to a nested
// function it returns (lang.Returned): not a call the function makes but
// one its result makes later. It exists in the flow graph only, never in
// the index's CALLS table.
const ReasonReturned = "returned"

// FromIndex builds the symbol graph from the ingest index and the resolved
// edges (CALLS, EXTENDS, IMPLEMENTS; other types are ignored). A symbol a
// call site of kind "go" resolves to is marked Goroutine; a CALLS edge
// from a call site of kind "closure" is marked Later, and so is the edge
// from a function to a nested function it returns (ReasonReturned). It re-reads
// the few lines around each declaration in decorator languages to collect
// decorators and annotations for the framework rules; a file that cannot be
// read just yields none. C has no decorators; its analog is a registration
// (lang.Registration) of a function of the same file — module_init(f), an
// ops-table member `.read = f`, request_irq(..., f, ...), the
// SYSCALL_DEFINEn that defines it — which becomes the function's decorator
// line (cRegistrationLine).
func FromIndex(ix *ingest.Index, edges []schema.Edge) *Graph {
	// nodes and es are made at their size (at most it, for es): grown by
	// appending, the Linux kernel's 958k nodes and 3.3M edges were copied
	// about four times their size (growslice: 17 of FromIndex's 19 s of
	// CPU in a profiled run).
	nSyms, nReturned := 0, 0
	for _, f := range ix.Files {
		nSyms += len(f.Symbols)
		nReturned += len(f.Returned)
	}
	nodes := make([]Node, 0, nSyms)
	for _, f := range ix.Files {
		var lines []string
		if decoratorLangs[f.Language] && len(f.Symbols) > 0 {
			lines = readLines(filepath.Join(ix.Root, filepath.FromSlash(f.Path)))
		}
		var regs map[string][]string
		if f.Language == "c" && len(f.Registrations) > 0 {
			regs = map[string][]string{}
			for _, r := range f.Registrations {
				if l := cRegistrationLine(r); !contains(regs[r.Name], l) {
					regs[r.Name] = append(regs[r.Name], l)
				}
			}
		}
		for i := range f.Symbols {
			s := &f.Symbols[i]
			n := Node{
				ID: s.ID, Label: s.Label, Kind: s.Kind, Name: s.Name, QualifiedName: s.QualifiedName, FilePath: s.FilePath,
				StartLine: s.StartLine, Language: s.Language, Signature: s.Signature, IsExported: s.IsExported,
				IsTest: s.IsTest,
			}
			if s.Label == schema.LabelFunction || s.Label == schema.LabelMethod {
				n.Doc = s.DocComment // its first sentence (ingest keeps no more)
			}
			if lines != nil && (s.Label == schema.LabelFunction || s.Label == schema.LabelMethod) {
				n.Decorators = decoratorsAt(lines, s.StartLine)
			}
			if regs != nil && s.Label == schema.LabelFunction {
				n.Decorators = regs[s.Name]
			}
			nodes = append(nodes, n)
		}
	}
	// goroutine call sites: caller, line and name of `go f(...)`
	type site struct {
		caller string
		line   int
	}
	goSites := map[site][]string{}
	laterSites := map[site][]string{} // calls inside returned func literals
	for _, f := range ix.Files {
		for _, c := range f.Calls {
			switch c.Kind {
			case "go":
				k := site{c.CallerID, c.Line}
				goSites[k] = append(goSites[k], c.Name)
			case "closure":
				k := site{c.CallerID, c.Line}
				laterSites[k] = append(laterSites[k], c.Name)
			}
		}
	}
	// at reports whether the edge's call site (its first, whose line the
	// edge carries) is one of sites, calling the edge's target by name.
	at := func(sites map[site][]string, e schema.Edge) bool {
		if names, ok := sites[site{e.From, e.Line}]; ok {
			if s := ix.Symbol(e.To); s != nil && contains(names, s.Name) {
				return true
			}
		}
		return false
	}
	// A nested function its enclosing function returns (lang.Returned) is
	// a later step of the enclosing function: its closure flow starts
	// with it. The edge stands for the callback reference the return
	// statement also made.
	es := make([]Edge, 0, nReturned+len(edges))
	returned := map[[2]string]bool{}
	returnedTo := map[string]bool{}
	for _, f := range ix.Files {
		for _, r := range f.Returned {
			if k := [2]string{r.OuterID, r.InnerID}; !returned[k] {
				returned[k], returnedTo[r.InnerID] = true, true
				es = append(es, Edge{From: r.OuterID, To: r.InnerID, Type: schema.RelCalls, Confidence: 1, Reason: ReasonReturned, Later: true})
			}
		}
	}
	goTarget := map[string]bool{}
	for _, e := range edges {
		if e.Reason == schema.ReasonReference && len(returned) > 0 && returned[[2]string{e.From, e.To}] {
			continue
		}
		later := false
		if e.Type == schema.RelCalls {
			if len(goSites) > 0 && at(goSites, e) {
				goTarget[e.To] = true
			}
			later = len(laterSites) > 0 && e.Reason != schema.ReasonReference && at(laterSites, e)
		}
		switch e.Type {
		case schema.RelCalls, schema.RelExtends, schema.RelImplements:
			es = append(es, Edge{From: e.From, To: e.To, Type: e.Type, Confidence: e.Confidence, Reason: e.Reason, Later: later})
		}
	}
	for i := range nodes {
		nodes[i].Goroutine = goTarget[nodes[i].ID]
		nodes[i].Returned = returnedTo[nodes[i].ID]
	}
	return newGraph(nodes, es)
}

// cRegistrationLine renders a C registration as the decorator line the
// framework rules read: "module_init(foo_init)", "SYSCALL_DEFINE3(sys_read)",
// ".read = foo_read in struct file_operations", "ops->open = foo_open".
func cRegistrationLine(r lang.Registration) string {
	switch {
	case r.Via != "":
		return r.Via + "(" + r.Name + ")"
	case r.Type != "":
		return "." + r.Field + " = " + r.Name + " in struct " + r.Type
	default:
		return r.Receiver + "->" + r.Field + " = " + r.Name
	}
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
