package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// hubIndex is a loaded index where Save has 40 direct callers, each the
// entry of its own flow with a long label.
func hubIndex(t *testing.T) Index {
	t.Helper()
	ctx := context.Background()
	b := testBuild(t)
	if err := b.AddFile(schema.File{ID: "app.go", Path: "app.go", Name: "app.go", Language: "go", Lines: 900}); err != nil {
		t.Fatal(err)
	}
	fn := func(name string, line int) string {
		id := schema.SymbolID("app.go", name, schema.KindFunction, line)
		if err := b.AddSymbol(schema.Symbol{ID: id, Kind: schema.KindFunction, Name: name, QualifiedName: name, FilePath: "app.go",
			StartLine: line, EndLine: line + 5, Language: "go"}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	save := fn("Save", 1)
	for i := range 40 {
		c := fn(fmt.Sprintf("Caller%02d", i), 10+i*10)
		if err := b.AddEdge(schema.Edge{Type: schema.RelCalls, From: c, To: save, FromLabel: schema.LabelFunction,
			ToLabel: schema.LabelFunction, Confidence: 1, Reason: "same-file", Line: 12 + i*10}); err != nil {
			t.Fatal(err)
		}
		pid := fmt.Sprintf("proc_%02d", i)
		if err := b.AddProcess(schema.Process{ID: pid, Label: fmt.Sprintf("Caller%02d → Save (a flow with a long label to fill the answer)", i),
			ProcessType: "intra_community", StepCount: 2, EntryPointID: c, TerminalID: save, Priority: float64(i)}); err != nil {
			t.Fatal(err)
		}
		for st, id := range []string{c, save} {
			if err := b.AddEdge(schema.Edge{Type: schema.RelStepInProcess, From: id, To: pid, FromLabel: schema.LabelFunction,
				ToLabel: schema.LabelProcess, Confidence: 1, Step: st + 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return packIndex(t, b)
}

// TestImpactBudget: an answer over its budget is cut, least important
// first (flows before symbols), says what it left out, and always keeps
// the direct callers; the default budget leaves a small answer whole.
func TestImpactBudget(t *testing.T) {
	ix := hubIndex(t)
	ctx := context.Background()
	whole, err := Impact(ctx, ix, ImpactInput{Target: "Save"})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Budget != nil || len(whole.Processes) != 40 {
		t.Fatalf("default budget: %d flows, budget %+v; want all 40, uncut", len(whole.Processes), whole.Budget)
	}
	out, err := Impact(ctx, ix, ImpactInput{Target: "Save", Budget: Budget{MaxTokens: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Budget == nil || len(out.Budget.LeftOut) == 0 || !strings.HasPrefix(out.Budget.LeftOut[0], "affected_processes:") {
		t.Fatalf("budget 1000: note %+v; want affected_processes cut first", out.Budget)
	}
	if len(out.ByDepth) == 0 || len(out.ByDepth[0].Symbols) != 40 {
		t.Errorf("budget 1000: depth 1 lists %d symbols, want all 40 direct callers", len(out.ByDepth[0].Symbols))
	}
	if len(out.Processes) >= 40 || out.Summary.Processes != 40 {
		t.Errorf("budget 1000: %d flows listed of summary %d; want fewer listed, the count kept", len(out.Processes), out.Summary.Processes)
	}
	if n := estimateTokens(out); n > 1000 && len(out.Processes) > 0 {
		t.Errorf("budget 1000: answer is %d tokens with %d flows still listed", n, len(out.Processes))
	}
	// max_tokens and its alias, and the bounds.
	if _, err := Impact(ctx, ix, ImpactInput{Target: "Save", Budget: Budget{MaxTokens: 500, MaxTokensAlias: 600}}); !errors.Is(err, ErrInput) {
		t.Errorf("max_tokens and maxTokens disagreeing: %v, want ErrInput", err)
	}
	if _, err := Impact(ctx, ix, ImpactInput{Target: "Save", Budget: Budget{MaxTokensAlias: 10}}); !errors.Is(err, ErrInput) {
		t.Errorf("maxTokens 10: %v, want ErrInput (below %d)", err, MinBudgetTokens)
	}
	alias, err := Impact(ctx, ix, ImpactInput{Target: "Save", Budget: Budget{MaxTokensAlias: 1000}})
	if err != nil || alias.Budget == nil {
		t.Errorf("maxTokens 1000 (alias): %v, budget %+v; want cut like max_tokens", err, alias.Budget)
	}
}

// TestContextBudget: context cuts its longest edge list, keeping the
// list's total and marking it truncated.
func TestContextBudget(t *testing.T) {
	ix := hubIndex(t)
	out, err := Context(context.Background(), ix, ContextInput{Name: "Save", Budget: Budget{MaxTokens: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Budget == nil {
		t.Fatal("context with 40 callers under 600 tokens: not cut")
	}
	var calls *RefGroup
	for i := range out.Incoming {
		if out.Incoming[i].Type == string(schema.RelCalls) {
			calls = &out.Incoming[i]
		}
	}
	if calls == nil || calls.Total != 40 || len(calls.Refs) >= 40 || !calls.Truncated {
		t.Errorf("incoming CALLS after the cut: %+v; want total 40, fewer listed, truncated", calls)
	}
}
