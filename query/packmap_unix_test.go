//go:build unix

package query

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestReadPackMappingGoesWithThePack: a pack ReadPack mapped is unmapped
// once it is unreachable, and what it answered before — hits, nodes,
// edges, flows — is still whole after: no string handed out lies in the
// mapping (reading one would fault).
func TestReadPackMappingGoesWithThePack(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "p.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	before := mappingsUnmapped.Load()
	var kept []any
	func() {
		p, err := ReadPack(path)
		if err != nil {
			t.Fatal(err)
		}
		if p.src.keep == nil {
			t.Skip("the pack file could not be mapped here")
		}
		res, err := Search(context.Background(), p, "login session", Options{Mode: ModeKeyword})
		if err != nil || len(res.Processes) == 0 {
			t.Fatalf("search: %v, %d processes", err, len(res.Processes))
		}
		n, ok, err := p.Node(fx.handleLogin)
		if err != nil || !ok {
			t.Fatalf("node: %v %v", ok, err)
		}
		es, err := p.Edges(fx.handleLogin, true)
		if err != nil || len(es) == 0 {
			t.Fatalf("edges: %v %v", es, err)
		}
		ms, err := p.Memberships(fx.handleLogin)
		if err != nil || len(ms) == 0 {
			t.Fatalf("memberships: %v %v", ms, err)
		}
		pr, ok, err := p.Process(ms[0].ProcessID)
		if err != nil || !ok {
			t.Fatalf("process: %v %v", ok, err)
		}
		kept = append(kept, res, n, es, ms, pr)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for mappingsUnmapped.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the mapping of an unreachable pack was not unmapped")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	b, err := json.Marshal(kept)
	if err != nil || len(b) < 100 {
		t.Fatalf("answers after the unmap: %v (%d bytes)", err, len(b))
	}
}
