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
	ix := flowIndex(t)
	if _, err := Processes(ctx, ix, ProcessesInput{Limit: -1}); !errors.Is(err, ErrInput) {
		t.Errorf("Processes limit -1: %v, want ErrInput", err)
	}
	if _, err := Communities(ctx, ix, CommunitiesInput{Limit: MaxRows + 1}); !errors.Is(err, ErrInput) {
		t.Errorf("Communities limit past MaxRows: %v, want ErrInput", err)
	}
	if _, err := ProcessDetail(ctx, ix, ProcessDetailInput{}); !errors.Is(err, ErrInput) {
		t.Errorf("ProcessDetail without id: %v, want ErrInput", err)
	}
	if _, err := ProcessDetail(ctx, ix, ProcessDetailInput{ID: strings.Repeat("x", maxRefBytes+1)}); !errors.Is(err, ErrInput) {
		t.Errorf("ProcessDetail with a huge id: %v, want ErrInput", err)
	}
	if _, err := ProcessDetail(ctx, ix, ProcessDetailInput{ID: "x' OR 1=1 //"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ProcessDetail of a missing process: %v, want ErrNotFound", err)
	}

	// Past the limit the listing is truncated; at it, it is not.
	out, err := Communities(ctx, ix, CommunitiesInput{Limit: 1})
	if err != nil || len(out.Communities) != 1 || !out.Truncated || out.Communities[0].ID != "comm_auth" {
		t.Errorf("Communities limit 1 over 2 = %+v, %v; want comm_auth (the larger), truncated", out, err)
	}
	if out, err := Communities(ctx, ix, CommunitiesInput{Limit: 2}); err != nil || len(out.Communities) != 2 || out.Truncated {
		t.Errorf("Communities limit 2 over 2 = %+v, %v", out, err)
	}
	ps, err := Processes(ctx, ix, ProcessesInput{Limit: 1})
	if err != nil || ps.Total != 3 || len(ps.Processes) != 1 || !ps.Truncated || ps.Processes[0].ID != "proc_a1" {
		t.Errorf("Processes limit 1 = %+v, %v; want proc_a1 (highest priority) of 3, truncated", ps, err)
	}
}

// flowIndex is a loaded index with three processes and two communities:
// proc_a1 "main → a" (priority 0.9), proc_a2 "main → b" (0.5), proc_b
// "serve → c" (0.1); comm_auth (2 symbols), comm_db (1).
func flowIndex(t *testing.T) Index {
	t.Helper()
	ctx := context.Background()
	b := testBuild(t)
	if err := b.AddFile(schema.File{ID: "app.go", Path: "app.go", Name: "app.go", Language: "go", Lines: 40}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for i, name := range []string{"main", "a", "b", "serve", "c"} {
		id := schema.SymbolID("app.go", name, schema.KindFunction, i*5+1)
		ids[name] = id
		if err := b.AddSymbol(schema.Symbol{ID: id, Kind: schema.KindFunction, Name: name, QualifiedName: name, FilePath: "app.go",
			StartLine: i*5 + 1, EndLine: i*5 + 4, Language: "go"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []schema.Community{{ID: "comm_auth", Label: "auth", Keywords: []string{"login"}, Cohesion: 0.5, SymbolCount: 2},
		{ID: "comm_db", Label: "db", Keywords: []string{}, Cohesion: 0.4, SymbolCount: 1}} {
		if err := b.AddCommunity(c); err != nil {
			t.Fatal(err)
		}
	}
	member := func(sym, comm string) {
		if err := b.AddEdge(schema.Edge{Type: schema.RelMemberOf, From: ids[sym], To: comm, FromLabel: schema.LabelFunction,
			ToLabel: schema.LabelCommunity, Confidence: 1}); err != nil {
			t.Fatal(err)
		}
	}
	member("main", "comm_auth")
	member("a", "comm_auth")
	member("c", "comm_db")
	for _, p := range []struct {
		id, label string
		prio      float64
		steps     []string
		comms     []string
	}{{"proc_a1", "main → a", 0.9, []string{"main", "a"}, []string{"comm_auth"}},
		{"proc_a2", "main → b", 0.5, []string{"main", "b"}, []string{"comm_auth"}},
		{"proc_b", "serve → c", 0.1, []string{"serve", "c"}, []string{"comm_db"}}} {
		if err := b.AddProcess(schema.Process{ID: p.id, Label: p.label, ProcessType: "intra_community", StepCount: len(p.steps),
			Communities: p.comms, EntryPointID: ids[p.steps[0]], TerminalID: ids[p.steps[len(p.steps)-1]], Priority: p.prio}); err != nil {
			t.Fatal(err)
		}
		for i, st := range p.steps {
			if err := b.AddEdge(schema.Edge{Type: schema.RelStepInProcess, From: ids[st], To: p.id, FromLabel: schema.LabelFunction,
				ToLabel: schema.LabelProcess, Confidence: 1, Step: i + 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return packIndex(t, b)
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
	long := strings.Repeat("a", MaxNameBytes+1)
	ix := Index{Graph: emptyIndex(t).Graph}
	if _, err := Context(ctx, ix, ContextInput{Name: long}); !errors.Is(err, ErrInput) {
		t.Errorf("Context with a %d-byte name: %v, want ErrInput", len(long), err)
	}
	if _, err := Impact(ctx, ix, ImpactInput{Target: "x", FilePath: long}); !errors.Is(err, ErrInput) {
		t.Errorf("Impact with a %d-byte file_path: %v, want ErrInput", len(long), err)
	}
	if _, err := Explain(ctx, ix, ExplainInput{Name: long}); !errors.Is(err, ErrInput) {
		t.Errorf("Explain with a %d-byte name: %v, want ErrInput", len(long), err)
	}
	if _, err := Rename(ctx, ix, t.TempDir(), RenameInput{Name: long, NewName: "ok"}); !errors.Is(err, ErrInput) {
		t.Errorf("Rename with a %d-byte name: %v, want ErrInput", len(long), err)
	}
	if _, err := RouteMap(ctx, ix, t.TempDir(), RouteMapInput{Path: long}); !errors.Is(err, ErrInput) {
		t.Errorf("RouteMap with a %d-byte path filter: %v, want ErrInput", len(long), err)
	}
	if _, err := APIImpact(ctx, ix, t.TempDir(), APIImpactInput{Route: "GET " + long}); !errors.Is(err, ErrInput) {
		t.Errorf("APIImpact with a %d-byte route: %v, want ErrInput", len(long), err)
	}
	if _, err := Query(ctx, nil, QueryInput{SearchQuery: "x", Goal: strings.Repeat("a", MaxTextBytes+1)}, nil); !errors.Is(err, ErrInput) {
		t.Errorf("Query with a long goal: %v, want ErrInput", err)
	}
}

// TestProcessAndCommunityRefs: a reference one node matches is found; one
// several match is answered with the candidates, never one picked; the
// first rule that matches decides (an exact id stops before prefixes).
func TestProcessAndCommunityRefs(t *testing.T) {
	ctx := context.Background()
	ix := flowIndex(t)
	out, err := ProcessDetail(ctx, ix, ProcessDetailInput{ID: "proc_a1"})
	if err != nil || out.Status != "found" || out.Process == nil || out.Process.ID != "proc_a1" || len(out.Steps) != 2 ||
		out.Steps[1].Name != "a" || out.Steps[1].StartLine != 6 || out.Steps[1].Kind != "function" {
		t.Fatalf("exact id = %+v, %v; want found proc_a1 with steps main, a (a at line 6, a function)", out, err)
	}
	if out, err = ProcessDetail(ctx, ix, ProcessDetailInput{ID: "proc_b"}); err != nil || out.Status != "found" || out.Process.ID != "proc_b" {
		t.Errorf("unique prefix proc_b = %+v, %v; want found proc_b", out, err)
	}
	out, err = ProcessDetail(ctx, ix, ProcessDetailInput{ID: "proc_a"})
	if err != nil || out.Status != "ambiguous" || len(out.Candidates) != 2 || out.Process != nil || len(out.Steps) != 0 {
		t.Errorf("prefix of two = %+v, %v; want ambiguous with 2 candidates, no steps", out, err)
	}
	if out, err = ProcessDetail(ctx, ix, ProcessDetailInput{ID: "SERVE"}); err != nil || out.Status != "found" || out.Process.ID != "proc_b" {
		t.Errorf("piece of a label, any case = %+v, %v; want proc_b", out, err)
	}
	c, err := CommunityDetail(ctx, ix, CommunityDetailInput{ID: "comm"})
	if err != nil || c.Status != "ambiguous" || len(c.Candidates) != 2 || c.Community != nil {
		t.Errorf("community with two matches = %+v, %v; want ambiguous", c, err)
	}
	c, err = CommunityDetail(ctx, ix, CommunityDetailInput{ID: "auth"})
	if err != nil || c.Status != "found" || len(c.Members) != 2 || c.Members[0].Name != "main" || len(c.Processes) != 2 ||
		c.Processes[0].ID != "proc_a1" || len(c.Community.Keywords) != 1 {
		t.Errorf("community auth = %+v, %v; want members main, a and processes proc_a1, proc_a2", c, err)
	}
	if _, err := CommunityDetail(ctx, ix, CommunityDetailInput{ID: "nothing"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("community with no match: %v, want ErrNotFound", err)
	}
	if _, err := CommunityDetail(ctx, ix, CommunityDetailInput{}); !errors.Is(err, ErrInput) {
		t.Errorf("community without id: %v, want ErrInput", err)
	}
}
