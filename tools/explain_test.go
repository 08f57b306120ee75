package tools

import (
	"context"
	"strings"
	"testing"
)

// TestExplain: a symbol's role — its flows and its place in them, its
// callers (capped, with the count and call-site lines) and a summary that
// says the same.
func TestExplain(t *testing.T) {
	ix := hubIndex(t)
	out, err := Explain(context.Background(), ix, ExplainInput{Name: "Save"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "found" || out.CallerCount != 40 || len(out.Callers) != explainRefs || out.CalleeCount != 0 {
		t.Fatalf("explain Save: status %s, %d callers listed of %d, %d callees; want found, %d of 40, 0",
			out.Status, len(out.Callers), out.CallerCount, out.CalleeCount, explainRefs)
	}
	if out.Callers[0].Line == 0 || out.Callers[0].FilePath != "app.go" {
		t.Errorf("first caller %+v: want its call-site line in app.go", out.Callers[0])
	}
	if out.FlowCount != 40 || len(out.Processes) != explainFlows || out.Processes[0].Role != "terminal" || out.Processes[0].StepIndex != 2 {
		t.Errorf("flows %d (listed %d), first %+v; want 40, Save the terminal step 2 of each", out.FlowCount, len(out.Processes), out.Processes[0])
	}
	if !strings.Contains(out.Summary, "the last step of 40") || !strings.Contains(out.Summary, "Called from 40 places in 1 files") {
		t.Errorf("summary %q does not say the role and the callers", out.Summary)
	}
	amb, err := Explain(context.Background(), ix, ExplainInput{Name: "Caller0", Kind: "class"})
	if err == nil || amb != nil {
		t.Errorf("explain of a missing class: %+v, %v; want not found", amb, err)
	}
}
