package query

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestFindNamedAndFilesAreFind: FindNamed and FindFiles give what Find
// gives for the same restriction (FindNamed: symbols of that name), in
// the same order and under the same limit, on a read pack (indexes of
// names and files), on a mapped one-shot pack that has decoded its nodes
// (a scan), and on a fresh one-shot pack (the names section and the node
// records read in place): the same nodes, details included.
func TestFindNamedAndFilesAreFind(t *testing.T) {
	path, _, _ := packImage(t)
	read, mapped := readAndMap(t, path)
	ctx := context.Background()
	all := func(*Hit, string) bool { return true }
	ids := func(ns []Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	fresh := func() *Pack {
		p, err := MapPack(path)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodes, err := read.Find(ctx, all, 1<<30)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("Find: %d nodes, %v", len(nodes), err)
	}
	names := map[string]bool{"no such name": true, "": true}
	for _, n := range nodes {
		names[n.Name] = true
		names[strings.ToUpper(n.Name)] = true // a case the names section sorts beside it
	}
	if _, err := mapped.Find(ctx, all, 1); err != nil { // decodes its nodes
		t.Fatal(err)
	}
	for name := range names {
		for _, limit := range []int{1, 2, 1 << 30} {
			want, err := read.Find(ctx, func(h *Hit, _ string) bool { return h.Name == name && schema.Label(h.Label).IsSymbol() }, limit)
			if err != nil {
				t.Fatal(err)
			}
			for k, p := range []*Pack{read, mapped, fresh()} {
				got, err := p.FindNamed(ctx, name, all, limit)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("pack %d: FindNamed(%q, limit %d) = %v (%v), Find %v", k, name, limit, ids(got), err, ids(want))
				}
			}
		}
	}
	want, _ := read.Find(ctx, func(h *Hit, _ string) bool { return h.Label == string(schema.LabelFile) }, 1<<30)
	for k, p := range []*Pack{read, mapped, fresh()} {
		got, err := p.FindFiles(ctx, all, 1<<30)
		if err != nil || len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("pack %d: FindFiles = %v (%v), Find %v", k, ids(got), err, ids(want))
		}
		if got, err := fresh().FindFiles(ctx, all, 1); err != nil || len(got) != 1 || got[0].ID != want[0].ID {
			t.Fatalf("FindFiles with limit 1 on a fresh pack = %v (%v)", ids(got), err)
		}
	}
}

// TestEdgesInPlaceAreDecoded: a fresh one-shot pack reads each node's
// edges in place (edges/at) and gives what a reader that decoded every
// node's edges gives, both directions, with and without a relationship
// filter.
func TestEdgesInPlaceAreDecoded(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "p.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	read, _ := readAndMap(t, path)
	ctx := context.Background()
	nodes, err := read.Find(ctx, func(*Hit, string) bool { return true }, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	edges := 0
	for _, n := range nodes {
		for _, out := range []bool{true, false} {
			for _, rels := range [][]schema.RelType{nil, {schema.RelCalls}, {schema.RelImports, schema.RelExtends}} {
				want, err := read.Edges(n.ID, out, rels...)
				if err != nil {
					t.Fatal(err)
				}
				mapped, err := MapPack(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := mapped.Edges(n.ID, out, rels...)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("Edges(%s, out %v, %v) in place = %+v (%v), decoded %+v", n.ID, out, rels, got, err, want)
				}
				if mapped.edgesL.decoded() {
					t.Fatal("the one-shot pack decoded every node's edges")
				}
				edges += len(want)
			}
		}
	}
	if edges == 0 {
		t.Fatal("the pack has no edges to compare")
	}
}

// TestOneShotReadsOfDamagedSections: a one-shot pack whose edges, edges/at,
// details, details/at or names section has a byte flipped in every block
// answers the in-place reads of those sections (Edges, Node, FindNamed)
// with ErrPackDamaged, never a panic or an answer from damaged bytes.
func TestOneShotReadsOfDamagedSections(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "p.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	good, err := MapPack(path)
	if err != nil {
		t.Fatal(err)
	}
	n, ok, err := good.Node(fx.handleLogin)
	if err != nil || !ok {
		t.Fatalf("node: %v %v", ok, err)
	}
	secs := good.src.sections
	reads := map[string]func(p *Pack) error{
		secEdges:     func(p *Pack) error { _, err := p.Edges(fx.handleLogin, true); return err },
		secEdgesAt:   func(p *Pack) error { _, err := p.Edges(fx.handleLogin, true); return err },
		secDetails:   func(p *Pack) error { _, _, err := p.Node(fx.handleLogin); return err },
		secDetailsAt: func(p *Pack) error { _, _, err := p.Node(fx.handleLogin); return err },
		secNames: func(p *Pack) error {
			_, err := p.FindNamed(context.Background(), n.Name, func(*Hit, string) bool { return true }, 10)
			return err
		},
	}
	for name, read := range reads {
		s := secs[name]
		bad := append([]byte(nil), data...)
		for at := 0; at < len(s.data); at += packBlock {
			bad[s.off+at+min(len(s.data)-at, packBlock)/2] ^= 0xff
		}
		badPath := filepath.Join(t.TempDir(), "bad.pack")
		if err := os.WriteFile(badPath, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := MapPack(badPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := read(p); !errors.Is(err, ErrPackDamaged) {
			t.Errorf("%s damaged: a one-shot read gave %v, want ErrPackDamaged", name, err)
		}
	}
}
