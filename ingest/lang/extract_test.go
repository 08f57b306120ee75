package lang

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// parseFixture parses testdata/<rel> with the language Detect picks and
// fails the test unless the parse is clean.
func parseFixture(t *testing.T, rel string) Facts {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	l := Detect(rel)
	if l == nil {
		t.Fatalf("no language for %s", rel)
	}
	p := NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), rel, l, src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse %s: status %s, err %v", rel, status, err)
	}
	return facts
}

// TestDumpFixture prints the facts of GITNEXUS_DUMP=<testdata-relative
// path> as JSON; it is a debugging aid and skips without the variable.
func TestDumpFixture(t *testing.T) {
	rel := os.Getenv("GITNEXUS_DUMP")
	if rel == "" {
		t.Skip("set GITNEXUS_DUMP=go/engine.go to print a fixture's facts")
	}
	facts := parseFixture(t, rel)
	for i := range facts.Symbols {
		facts.Symbols[i].Content, facts.Symbols[i].ContentHash = "", ""
	}
	b, _ := json.MarshalIndent(facts, "", "  ")
	fmt.Println(string(b))
	for _, s := range facts.Symbols {
		fmt.Printf("SYM %s %s parent=%q lines=%d-%d exp=%v sig=%q doc=%q\n", s.ID, s.Label, s.ParentID, s.StartLine, s.EndLine, s.IsExported, s.Signature, s.DocComment)
	}
}

// symbol finds the symbol with the given qualified name and kind.
func symbol(t *testing.T, facts Facts, qn string, kind schema.Kind) schema.Symbol {
	t.Helper()
	for _, s := range facts.Symbols {
		if s.QualifiedName == qn && s.Kind == kind {
			return s
		}
	}
	var have []string
	for _, s := range facts.Symbols {
		have = append(have, s.QualifiedName+":"+string(s.Kind))
	}
	t.Fatalf("no symbol %s:%s; have %s", qn, kind, strings.Join(have, ", "))
	return schema.Symbol{}
}

// hasCall reports whether facts has a call site matching all of the
// non-empty fields of want (Args < -1 ignores Args; Line 0 ignores Line).
func hasCall(facts Facts, want CallSite) bool {
	for _, c := range facts.Calls {
		if c.Name == want.Name && c.Receiver == want.Receiver && c.CallerID == want.CallerID &&
			(want.Kind == "" || c.Kind == want.Kind) && (want.Line == 0 || c.Line == want.Line) &&
			(want.Args < -1 || c.Args == want.Args) {
			return true
		}
	}
	return false
}

func callsString(facts Facts) string {
	var b strings.Builder
	for _, c := range facts.Calls {
		fmt.Fprintf(&b, "  %s %q recv=%q caller=%q args=%d line=%d\n", c.Kind, c.Name, c.Receiver, c.CallerID, c.Args, c.Line)
	}
	return b.String()
}

func hasType(facts Facts, want TypeFact) bool {
	for _, f := range facts.Types {
		if f.Scope == want.Scope && f.Name == want.Name && f.Type == want.Type && f.Kind == want.Kind {
			return true
		}
	}
	return false
}

func typesString(facts Facts) string {
	var b strings.Builder
	for _, f := range facts.Types {
		fmt.Fprintf(&b, "  %s %s %s:%s line=%d\n", f.Scope, f.Kind, f.Name, f.Type, f.Line)
	}
	return b.String()
}

func checkImports(t *testing.T, facts Facts, want []Import) {
	t.Helper()
	if len(facts.Imports) != len(want) {
		t.Fatalf("imports = %+v, want %+v", facts.Imports, want)
	}
	for i, w := range want {
		g := facts.Imports[i]
		if g.Spec != w.Spec || g.Alias != w.Alias || g.Kind != w.Kind || g.Line != w.Line || strings.Join(g.Names, ",") != strings.Join(w.Names, ",") {
			t.Errorf("import %d = %+v, want %+v", i, g, w)
		}
	}
}
