package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// ExplainInput is the explain tool's input.
type ExplainInput struct {
	Name     string `json:"name,omitempty" jsonschema:"Symbol name (e.g. validateUser) or qualified name (Server.HandleOrder)"`
	UID      string `json:"uid,omitempty" jsonschema:"Direct symbol UID from prior tool results (zero-ambiguity lookup)"`
	FilePath string `json:"file_path,omitempty" jsonschema:"File path to disambiguate common names"`
	Kind     string `json:"kind,omitempty" jsonschema:"Kind filter to disambiguate: Function, Class, Method, Interface, or a precise kind"`
	Repo     string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// ExplainFlow is a flow a symbol takes part in, and its role there.
type ExplainFlow struct {
	ID        string `json:"id"`
	Label     string `json:"label"`
	StepIndex int    `json:"step_index"`
	StepCount int    `json:"step_count"`
	Role      string `json:"role"` // entry | step | terminal
}

// ExplainRef is a caller or callee: the symbol and the call site's line.
type ExplainRef struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	FilePath string `json:"filePath"`
	Line     int    `json:"line,omitempty"` // the call site
}

// ExplainOutput is one symbol's role in its repository, compact: where it
// sits (community), which flows it is part of and as what, who calls it
// and what it calls, and a one-sentence summary of all that.
type ExplainOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status      string            `json:"status"` // found | ambiguous
	Symbol      *Symbol           `json:"symbol,omitempty"`
	Candidates  []Symbol          `json:"candidates,omitempty"`
	Summary     string            `json:"summary,omitempty"`
	Community   *CommunityRef     `json:"community,omitempty"`
	Processes   []ExplainFlow     `json:"processes"`
	FlowCount   int               `json:"flow_count"`
	Callers     []ExplainRef      `json:"callers"`
	CallerCount int               `json:"caller_count"`
	Callees     []ExplainRef      `json:"callees"`
	CalleeCount int               `json:"callee_count"`
	Notices     []string          `json:"notices,omitempty"`
	Budget      *query.BudgetNote `json:"budget,omitempty"`
}

// Explain lists and default budget.
const (
	explainRefs          = 10 // callers and callees listed (most confident, code before tests)
	explainFlows         = 10
	DefaultExplainTokens = 3000
)

// Explain answers the explain tool: the symbol's community, its flows
// (entry, step or terminal, at which step), its callers and callees (the
// most confident explainRefs of each, with the counts), and a summary
// sentence — what context says, reduced to a symbol's role.
func Explain(ctx context.Context, ix Index, in ExplainInput) (*ExplainOutput, error) {
	fp := in.FilePath
	budget, err := in.Budget.tokens(DefaultExplainTokens)
	if err != nil {
		return nil, err
	}
	g := ix.Graph
	sym, amb, err := resolveOne(ctx, g, Lookup{Name: in.Name, UID: in.UID, FilePath: fp, Kind: in.Kind}, "symbol")
	if err != nil {
		return nil, err
	}
	out := &ExplainOutput{Processes: []ExplainFlow{}, Callers: []ExplainRef{}, Callees: []ExplainRef{}}
	if amb != nil {
		out.Status, out.Candidates = amb.Status, amb.Candidates
		out.Notices = append(out.Notices, fmt.Sprintf("%d symbols match: call again with uid (or file_path / kind) to pick one", len(amb.Candidates)))
		return out, nil
	}
	out.Status, out.Symbol = "found", sym
	if c, ok, err := g.CommunityOf(sym.ID); err != nil {
		return nil, fmt.Errorf("read community: %w", err)
	} else if ok {
		out.Community = &CommunityRef{ID: c.ID, Label: c.Label}
	}
	procs, err := processRefs(g, sym.ID)
	if err != nil {
		return nil, err
	}
	out.FlowCount = len(procs)
	roles := map[string]int{}
	for _, p := range procs {
		role := "step"
		switch {
		case p.StepIndex == 1:
			role = "entry"
		case p.StepIndex == p.StepCount:
			role = "terminal"
		}
		roles[role]++
		if len(out.Processes) < explainFlows {
			out.Processes = append(out.Processes, ExplainFlow{ID: p.ID, Label: p.Label, StepIndex: p.StepIndex, StepCount: p.StepCount, Role: role})
		}
	}
	callerFiles := map[string]bool{}
	for _, dirOut := range []bool{false, true} {
		es, err := g.Edges(sym.ID, dirOut, schema.RelCalls)
		if err != nil {
			return nil, fmt.Errorf("read calls: %w", err)
		}
		sort.SliceStable(es, func(i, j int) bool {
			a, b := es[i], es[j]
			if a.Confidence != b.Confidence {
				return a.Confidence > b.Confidence
			}
			if a.Other.IsTest != b.Other.IsTest {
				return !a.Other.IsTest // code before tests (the stored isTest)
			}
			return a.Other.ID < b.Other.ID
		})
		var refs []ExplainRef
		for _, e := range es {
			if !dirOut {
				callerFiles[e.Other.FilePath] = true
			}
			if len(refs) < explainRefs {
				refs = append(refs, ExplainRef{ID: e.Other.ID, Name: e.Other.Name, FilePath: e.Other.FilePath, Line: e.Line})
			}
		}
		if refs == nil {
			refs = []ExplainRef{}
		}
		if dirOut {
			out.Callees, out.CalleeCount = refs, len(es)
		} else {
			out.Callers, out.CallerCount = refs, len(es)
		}
	}
	out.Summary = explainSummary(sym, out, roles, len(procs), len(callerFiles))
	out.Budget = fit(out, budget, out.shrink, "raise max_tokens; context lists every edge, impact the transitive callers")
	return out, nil
}

// explainSummary is the answer in one sentence.
func explainSummary(s *Symbol, o *ExplainOutput, roles map[string]int, flows, callerFiles int) string {
	var b strings.Builder
	name := s.QualifiedName
	if name == "" {
		name = s.Name
	}
	fmt.Fprintf(&b, "%s is a %s in %s", name, s.Kind, s.FilePath)
	if o.Community != nil {
		fmt.Fprintf(&b, ", part of the %q cluster", o.Community.Label)
	}
	b.WriteString(". ")
	if flows == 0 {
		b.WriteString("It is in no traced execution flow. ")
	} else {
		var parts []string
		for _, r := range []string{"entry", "step", "terminal"} {
			if n := roles[r]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s of %d", map[string]string{"entry": "the entry", "step": "a step", "terminal": "the last step"}[r], n))
			}
		}
		fmt.Fprintf(&b, "It is %s of the %d flows it takes part in. ", strings.Join(parts, ", "), flows)
	}
	fmt.Fprintf(&b, "Called from %d places in %d files; calls %d.", o.CallerCount, callerFiles, o.CalleeCount)
	return b.String()
}

// shrink cuts an explain answer for its token budget: flows, then callees,
// then callers, by half (the counts and the summary stay).
func (o *ExplainOutput) shrink() (string, bool) {
	if what, ok := halve(&o.Processes, 1, o.FlowCount, "processes"); ok {
		return what, true
	}
	if what, ok := halve(&o.Callees, 1, o.CalleeCount, "callees"); ok {
		return what, true
	}
	return halve(&o.Callers, 1, o.CallerCount, "callers")
}
