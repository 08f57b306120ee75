package tools

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// DefaultProcesses is how many processes Processes lists when the input
// names no limit.
const DefaultProcesses = 500

// ProcessesInput is the processes tool's input.
type ProcessesInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"Most processes listed (default 500, max 5000), highest priority first"`
}

// ProcessRow is one process in a listing.
type ProcessRow struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	ProcessType string   `json:"process_type"`
	StepCount   int      `json:"step_count"`
	Priority    float64  `json:"priority"`
	EntryPoint  string   `json:"entry_point_id"`
	Terminal    string   `json:"terminal_id"`
	Communities []string `json:"communities,omitempty"`
}

// ProcessesOutput lists processes.
type ProcessesOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Total     int          `json:"total"`
	Processes []ProcessRow `json:"processes"`
	Truncated bool         `json:"truncated,omitempty"`
}

// processCols are the Process properties a ProcessRow is read from, in
// processRow's order.
const processCols = "p.id, p.label, p.processType, p.stepCount, p.priority, p.entryPointId, p.terminalId, p.communities"

// Processes lists up to in.Limit (default DefaultProcesses, at most
// MaxRows) processes, highest priority first, with the total count.
func Processes(ctx context.Context, db Querier, in ProcessesInput) (*ProcessesOutput, error) {
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, DefaultProcesses, 1, MaxRows)
	cnt, err := db.Query(ctx, "MATCH (p:Process) RETURN count(p)", nil)
	if err != nil {
		return nil, fmt.Errorf("count processes: %w", err)
	}
	res, err := db.Query(ctx, fmt.Sprintf("MATCH (p:Process) RETURN %s ORDER BY p.priority DESC, p.id LIMIT %d", processCols, limit), nil)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	out := &ProcessesOutput{Processes: []ProcessRow{}}
	if len(cnt.Rows) == 1 {
		out.Total = num(cnt.Rows[0][0])
	}
	for _, r := range res.Rows {
		out.Processes = append(out.Processes, processRow(r))
	}
	out.Truncated = out.Total > len(out.Processes)
	return out, nil
}

func processRow(r []any) ProcessRow {
	p := ProcessRow{ID: str(r[0]), Label: str(r[1]), ProcessType: str(r[2]), StepCount: num(r[3]), Priority: flt(r[4]), EntryPoint: str(r[5]), Terminal: str(r[6])}
	for _, c := range list(r[7]) {
		p.Communities = append(p.Communities, str(c))
	}
	return p
}

// ProcessDetailInput is the process tool's input.
type ProcessDetailInput struct {
	ID string `json:"id" jsonschema:"Process id, a unique prefix of one, or its label or a piece of it; several matches are listed as candidates"`
}

// ProcessStep is one step of a process.
type ProcessStep struct {
	Step      int    `json:"step_index"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	FilePath  string `json:"filePath"`
	StartLine int    `json:"startLine"`
}

// ProcessDetailOutput is one process step by step; when the reference
// matched several processes, Status is "ambiguous" and Candidates lists
// them instead (best first, at most 20; More says there were more).
type ProcessDetailOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status     string        `json:"status"` // "found" or "ambiguous"
	Process    *ProcessRow   `json:"process,omitempty"`
	Steps      []ProcessStep `json:"steps"`
	Candidates []ProcessRow  `json:"candidates,omitempty"`
	More       bool          `json:"more,omitempty"`
}

// maxRefBytes bounds a process reference (ids are short; a label word
// longer than this matches nothing anyway).
const maxRefBytes = 1024

// ProcessDetail finds a process by the reference rule of resolveRef (id,
// unique id prefix, label, piece of a label) and lists its steps in
// order; several matches are returned as candidates.
func ProcessDetail(ctx context.Context, db Querier, in ProcessDetailInput) (*ProcessDetailOutput, error) {
	ref := in.ID
	if err := checkRef("process", ref); err != nil {
		return nil, err
	}
	rows, err := resolveRef(ctx, db, schema.LabelProcess, "p", ref, processCols, "p.priority DESC")
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no process with id, id prefix or label matching %q: list the processes (gitnexus processes, or the resource gitnexus://repo/{name}/processes)", ErrNotFound, ref)
	}
	if len(rows) > 1 {
		out := &ProcessDetailOutput{Status: "ambiguous", Steps: []ProcessStep{}, More: len(rows) > maxCandidates}
		for _, r := range rows[:min(len(rows), maxCandidates)] {
			out.Candidates = append(out.Candidates, processRow(r))
		}
		return out, nil
	}
	p := processRow(rows[0])
	out := &ProcessDetailOutput{Status: "found", Process: &p, Steps: []ProcessStep{}}
	steps, err := db.Query(ctx, "MATCH (s)-[r:STEP_IN_PROCESS]->(p:Process) WHERE p.id = "+schema.Quote(out.Process.ID)+" RETURN r.step, s.id, s.name, s.kind, s.filePath, s.startLine ORDER BY r.step", nil)
	if err != nil {
		return nil, fmt.Errorf("process steps: %w", err)
	}
	for _, r := range steps.Rows {
		out.Steps = append(out.Steps, ProcessStep{Step: num(r[0]), ID: str(r[1]), Name: str(r[2]), Kind: str(r[3]), FilePath: str(r[4]), StartLine: num(r[5])})
	}
	return out, nil
}

// CommunitiesInput is the communities tool's input.
type CommunitiesInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"Most communities listed (default and max 5000), largest first"`
}

// CommunityRow is one community.
type CommunityRow struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Keywords    []string `json:"keywords"`
	Cohesion    float64  `json:"cohesion"`
	SymbolCount int      `json:"symbol_count"`
}

// CommunitiesOutput lists communities, largest first.
type CommunitiesOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Communities []CommunityRow `json:"communities"`
	Truncated   bool           `json:"truncated,omitempty"`
}

// Communities lists up to in.Limit (default and at most MaxRows)
// communities, largest first; Truncated says more exist.
func Communities(ctx context.Context, db Querier, in CommunitiesInput) (*CommunitiesOutput, error) {
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, MaxRows, 1, MaxRows)
	// One row past the limit says whether there are more.
	res, err := db.Query(ctx, fmt.Sprintf("MATCH (c:Community) RETURN "+communityCols+" ORDER BY c.symbolCount DESC, c.id LIMIT %d", limit+1), nil)
	if err != nil {
		return nil, fmt.Errorf("list communities: %w", err)
	}
	out := &CommunitiesOutput{Communities: []CommunityRow{}, Truncated: res.Truncated || len(res.Rows) > limit}
	for _, r := range res.Rows[:min(len(res.Rows), limit)] {
		out.Communities = append(out.Communities, communityRow(r))
	}
	return out, nil
}
