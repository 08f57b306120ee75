package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// fakeDB answers every statement with rows, recording the statements.
type fakeDB struct {
	rows  [][]any
	stmts []string
}

func (f *fakeDB) Query(_ context.Context, stmt string, _ map[string]any) (*graph.Result, error) {
	f.stmts = append(f.stmts, stmt)
	return &graph.Result{Rows: f.rows}, nil
}

func TestListingInputs(t *testing.T) {
	ctx := context.Background()
	db := &fakeDB{}
	if _, err := Processes(ctx, db, ProcessesInput{Limit: -1}); !errors.Is(err, ErrInput) {
		t.Errorf("Processes limit -1: %v, want ErrInput", err)
	}
	if _, err := Communities(ctx, db, CommunitiesInput{Limit: MaxRows + 1}); !errors.Is(err, ErrInput) {
		t.Errorf("Communities limit past MaxRows: %v, want ErrInput", err)
	}
	if _, err := ProcessDetail(ctx, db, ProcessDetailInput{}); !errors.Is(err, ErrInput) {
		t.Errorf("ProcessDetail without id: %v, want ErrInput", err)
	}
	if _, err := ProcessDetail(ctx, db, ProcessDetailInput{ID: strings.Repeat("x", maxRefBytes+1)}); !errors.Is(err, ErrInput) {
		t.Errorf("ProcessDetail with a huge id: %v, want ErrInput", err)
	}
	if len(db.stmts) != 0 {
		t.Errorf("refused inputs reached the database: %q", db.stmts)
	}
	if _, err := ProcessDetail(ctx, db, ProcessDetailInput{ID: "x' OR 1=1 //"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ProcessDetail of a missing process: %v, want ErrNotFound", err)
	}
	// One statement per naming rule (id, id prefix, label, piece of a
	// label), each with the reference as a quoted literal.
	if len(db.stmts) != 4 {
		t.Errorf("ProcessDetail of a missing process ran %d statements, want 4 (one per rule): %q", len(db.stmts), db.stmts)
	}
	for _, st := range db.stmts {
		if !strings.Contains(st, schema.Quote("x' OR 1=1 //")) && !strings.Contains(st, schema.Quote("x' or 1=1 //")) {
			t.Errorf("the reference is not inlined as a quoted literal: %q", st)
		}
	}

	// One row past the limit marks the listing truncated, and is not listed.
	row := []any{"c1", "auth", []any{"login"}, 0.5, int64(3)}
	db = &fakeDB{rows: [][]any{row, row, row}}
	out, err := Communities(ctx, db, CommunitiesInput{Limit: 2})
	if err != nil || len(out.Communities) != 2 || !out.Truncated || !strings.HasSuffix(db.stmts[0], "LIMIT 3") {
		t.Errorf("Communities limit 2 over 3 rows = %+v, %v (%q)", out, err, db.stmts)
	}
	db.rows = db.rows[:2]
	if out, err := Communities(ctx, db, CommunitiesInput{Limit: 2}); err != nil || len(out.Communities) != 2 || out.Truncated {
		t.Errorf("Communities limit 2 over 2 rows = %+v, %v", out, err)
	}
}

func TestSchemaFromGraphSchema(t *testing.T) {
	s := Schema()
	tables := schema.NodeTables()
	if len(s.Nodes) != len(tables) {
		t.Errorf("schema lists %d node tables, graph/schema has %d", len(s.Nodes), len(tables))
	}
	for _, nt := range tables {
		if got := len(s.Nodes[string(nt.Label)]); got != len(nt.Columns) {
			t.Errorf("%s: %d properties listed, %d columns", nt.Label, got, len(nt.Columns))
		}
	}
	if !strings.Contains(strings.Join(s.Nodes["File"], ","), "unresolved (") {
		t.Errorf("File.unresolved lacks its note: %v", s.Nodes["File"])
	}
	if len(s.Rels) != len(schema.Rels) || len(s.Kinds) != len(schema.Kinds) {
		t.Errorf("schema has %d relationships and %d kinds, want %d and %d", len(s.Rels), len(s.Kinds), len(schema.Rels), len(schema.Kinds))
	}
	for _, r := range schema.Rels {
		if !strings.Contains(SchemaSummary(), string(r.Type)) {
			t.Errorf("SchemaSummary lacks %s: %s", r.Type, SchemaSummary())
		}
	}
}

func TestLongInputsRefused(t *testing.T) {
	ctx := context.Background()
	db := &fakeDB{}
	long := strings.Repeat("a", MaxNameBytes+1)
	ix := Index{Graph: emptyIndex(t).Graph, DB: db}
	if _, err := Context(ctx, ix, ContextInput{Name: long}); !errors.Is(err, ErrInput) {
		t.Errorf("Context with a %d-byte name: %v, want ErrInput", len(long), err)
	}
	if _, err := Impact(ctx, ix, ImpactInput{Target: "x", FilePath: long}); !errors.Is(err, ErrInput) {
		t.Errorf("Impact with a %d-byte file_path: %v, want ErrInput", len(long), err)
	}
	if _, err := Query(ctx, db, nil, QueryInput{SearchQuery: "x", Goal: strings.Repeat("a", MaxTextBytes+1)}, nil); !errors.Is(err, ErrInput) {
		t.Errorf("Query with a long goal: %v, want ErrInput", err)
	}
	if len(db.stmts) != 0 {
		t.Errorf("refused inputs reached the database: %d statements", len(db.stmts))
	}
}

// TestProcessAndCommunityRefs: a reference one node matches is found; one
// several match is answered with the candidates, never one picked; the
// first rule that matches decides (an exact id stops before prefixes).
func TestProcessAndCommunityRefs(t *testing.T) {
	ctx := context.Background()
	proc := func(id, label string) []any {
		return []any{id, label, "cross_community", int64(3), 0.5, "e", "t", []any{}}
	}
	db := &fakeDB{rows: [][]any{proc("proc_a1", "main → a")}}
	out, err := ProcessDetail(ctx, db, ProcessDetailInput{ID: "proc_a"})
	if err != nil || out.Status != "found" || out.Process == nil || out.Process.ID != "proc_a1" {
		t.Fatalf("one match = %+v, %v; want found proc_a1", out, err)
	}
	if len(db.stmts) != 2 || !strings.Contains(db.stmts[0], "p.id = 'proc_a'") {
		t.Errorf("an exact-id match must stop the search, got %q", db.stmts)
	}
	db = &fakeDB{rows: [][]any{proc("proc_a1", "main → a"), proc("proc_a2", "main → b")}}
	out, err = ProcessDetail(ctx, db, ProcessDetailInput{ID: "main"})
	if err != nil || out.Status != "ambiguous" || len(out.Candidates) != 2 || out.Process != nil || len(db.stmts) != 1 {
		t.Errorf("two matches = %+v, %v (%d statements); want ambiguous with 2 candidates, no steps read", out, err, len(db.stmts))
	}
	comm := []any{"comm_1", "auth", []any{"login"}, 0.5, int64(3)}
	db = &fakeDB{rows: [][]any{comm, comm}}
	c, err := CommunityDetail(ctx, db, CommunityDetailInput{ID: "comm"})
	if err != nil || c.Status != "ambiguous" || len(c.Candidates) != 2 || c.Community != nil {
		t.Errorf("community with two matches = %+v, %v; want ambiguous", c, err)
	}
	if _, err := CommunityDetail(ctx, &fakeDB{}, CommunityDetailInput{ID: "nothing"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("community with no match: %v, want ErrNotFound", err)
	}
	if _, err := CommunityDetail(ctx, &fakeDB{}, CommunityDetailInput{}); !errors.Is(err, ErrInput) {
		t.Errorf("community without id: %v, want ErrInput", err)
	}
}
