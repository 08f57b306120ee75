package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/internal/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDamagedRepoServesOthers: a server with two registered repositories,
// one whose database file is garbled in the middle (Kuzu segfaults on it
// mid-query, which used to end the server for every repo), answers calls
// on the damaged one with "the index of X is damaged: run gitnexus
// analyze" and keeps answering the healthy one, before and after: in
// process and as the spawned `gitnexus mcp`.
func TestDamagedRepoServesOthers(t *testing.T) {
	w := newWorld(t)
	bad := filepath.Join(t.TempDir(), "broken")
	if err := os.CopyFS(bad, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(binary, "analyze", "--skip-embeddings", "-q", bad)
	c.Env = w.env()
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("analyze %s: %v\n%s", bad, err, out)
	}
	testkit.GarbleIndex(t, bad)

	for _, transport := range []string{"in-process", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			cs := w.inMemory(context.Background())
			if transport == "stdio" {
				cs = w.stdio(context.Background())
			}
			damagedServes(t, cs, bad)
		})
	}
}

// damagedServes calls tools on the damaged repo bad and the healthy goshop.
func damagedServes(t *testing.T, cs *sdk.ClientSession, bad string) {
	t.Helper()
	healthy := func() {
		t.Helper()
		if c := call(t, cs, "context", map[string]any{"name": "HandleOrder", "repo": "goshop"}); c["status"] != "found" {
			t.Errorf("healthy repo: context = %v", c)
		}
	}
	healthy()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"cypher", map[string]any{"statement": "MATCH (n) RETURN n.id", "repo": "broken"}},
		{"context", map[string]any{"name": "HandleOrder", "repo": "broken"}},
		{"impact", map[string]any{"target": "validate", "repo": "broken"}},
	} {
		_, e := callRaw(t, cs, tc.tool, tc.args)
		if !strings.Contains(e, "the index of "+bad+" is damaged") || !strings.Contains(e, "gitnexus analyze") {
			t.Errorf("%s on the damaged repo: %q, want it reported damaged", tc.tool, e)
		}
		healthy()
	}
}
