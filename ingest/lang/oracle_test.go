package lang

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestGoRawRecallAgainstOracle checks the raw material of the call graph:
// for every static call edge of the x/tools oracle that bench/callgraph
// computes for gin (cached in ~/.cache/gitnexus-oracle/gin-*.json), the
// caller's facts must hold a call site (or reference) with the callee's
// name, attributed to the caller. Resolution can only lose from here, so
// this bounds the recall the resolver can reach.
func TestGoRawRecallAgainstOracle(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	oracles, _ := filepath.Glob(filepath.Join(home, ".cache", "gitnexus-oracle", "gin-*.json"))
	root := filepath.Join(home, ".cache", "gitnexus-corpora", "gin")
	if len(oracles) == 0 {
		t.Skip("no gin oracle in ~/.cache/gitnexus-oracle (run bench/callgraph/run.sh gin)")
	}
	if _, err := os.Stat(root); err != nil {
		t.Skipf("gin corpus absent at %s", root)
	}
	var g struct {
		Functions []struct {
			File string `json:"file"`
			Line int    `json:"line"`
			Name string `json:"name"`
		} `json:"functions"`
		Static []struct {
			Caller int    `json:"caller"`
			Callee int    `json:"callee"`
			Kind   string `json:"kind"`
			Site   string `json:"site"`
		} `json:"static"`
	}
	b, err := os.ReadFile(oracles[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", oracles[0], err)
	}
	if len(g.Static) == 0 {
		t.Fatalf("%s: no static edges", oracles[0])
	}
	p := NewParser()
	defer p.Close()
	facts := map[string]Facts{}
	hit := 0
	var misses []string
	for _, e := range g.Static {
		cf, ce := g.Functions[e.Caller], g.Functions[e.Callee]
		f, ok := facts[cf.File]
		if !ok {
			src, err := os.ReadFile(filepath.Join(root, cf.File))
			if err != nil {
				t.Fatalf("oracle file %s: %v (corpus and oracle differ?)", cf.File, err)
			}
			f, _, err = p.Parse(context.Background(), cf.File, ByName("go"), src)
			if err != nil {
				t.Fatal(err)
			}
			facts[cf.File] = f
		}
		caller := ""
		for _, s := range f.Symbols {
			if s.StartLine == cf.Line && (s.Kind == schema.KindFunction || s.Kind == schema.KindMethod) {
				caller = s.ID
			}
		}
		name := ce.Name[strings.LastIndex(ce.Name, ".")+1:]
		found := false
		for _, c := range f.Calls {
			if c.CallerID == caller && c.Name == name {
				found = true
				break
			}
		}
		if found {
			hit++
		} else if len(misses) < 10 {
			misses = append(misses, cf.Name+" -> "+ce.Name+" ["+e.Kind+" at "+e.Site+"]")
		}
	}
	recall := float64(hit) / float64(len(g.Static))
	t.Logf("raw call-site recall on gin: %d/%d = %.3f", hit, len(g.Static), recall)
	if recall < 0.99 {
		t.Errorf("raw recall %.3f < 0.99; misses: %s", recall, strings.Join(misses, "; "))
	}
}
