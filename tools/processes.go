package tools

import (
	"context"
	"fmt"
	"sort"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
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
	Description string   `json:"description"` // what it does, in words
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

// Processes lists up to in.Limit (default DefaultProcesses, at most
// MaxRows) processes, highest priority first, with the total count.
func Processes(ctx context.Context, ix Index, in ProcessesInput) (*ProcessesOutput, error) {
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, DefaultProcesses, 1, MaxRows)
	all, err := sortedProcesses(ix.Graph)
	if err != nil {
		return nil, err
	}
	out := &ProcessesOutput{Processes: []ProcessRow{}, Total: len(all)}
	for _, p := range all[:min(len(all), limit)] {
		out.Processes = append(out.Processes, processRow(p))
	}
	out.Truncated = out.Total > len(out.Processes)
	return out, nil
}

// sortedProcesses are the index's processes, highest priority first, then
// by id.
func sortedProcesses(g *query.Snapshot) ([]query.Process, error) {
	all, err := g.Processes()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Priority != all[j].Priority {
			return all[i].Priority > all[j].Priority
		}
		return all[i].ID < all[j].ID
	})
	return all, nil
}

func processRow(p query.Process) ProcessRow {
	return ProcessRow{ID: p.ID, Label: p.Summary, Description: p.Description, ProcessType: p.ProcessType, StepCount: p.StepCount, Priority: p.Priority,
		EntryPoint: p.EntryPoint, Terminal: p.Terminal, Communities: p.Communities}
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
func ProcessDetail(ctx context.Context, ix Index, in ProcessDetailInput) (*ProcessDetailOutput, error) {
	ref := in.ID
	if err := checkRef("process", ref); err != nil {
		return nil, err
	}
	all, err := sortedProcesses(ix.Graph)
	if err != nil {
		return nil, err
	}
	found := resolveRef(all, func(p query.Process) (string, string) { return p.ID, p.Summary }, ref)
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: no process with id, id prefix or label matching %q: list the processes (gitnexus processes, or the resource gitnexus://repo/{name}/processes)", ErrNotFound, ref)
	}
	if len(found) > 1 {
		out := &ProcessDetailOutput{Status: "ambiguous", Steps: []ProcessStep{}, More: len(found) > maxCandidates}
		for _, p := range found[:min(len(found), maxCandidates)] {
			out.Candidates = append(out.Candidates, processRow(p))
		}
		return out, nil
	}
	p := processRow(found[0])
	out := &ProcessDetailOutput{Status: "found", Process: &p, Steps: []ProcessStep{}}
	for _, st := range found[0].Steps {
		step := ProcessStep{Step: st.Index, ID: st.ID, Name: st.Name, FilePath: st.FilePath}
		n, ok, err := ix.Graph.Node(st.ID)
		if err != nil {
			return nil, fmt.Errorf("process steps: %w", err)
		}
		if ok {
			step.Kind, step.StartLine = n.Kind, n.StartLine
		}
		out.Steps = append(out.Steps, step)
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
func Communities(ctx context.Context, ix Index, in CommunitiesInput) (*CommunitiesOutput, error) {
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, MaxRows, 1, MaxRows)
	all, err := sortedCommunities(ix.Graph)
	if err != nil {
		return nil, err
	}
	out := &CommunitiesOutput{Communities: []CommunityRow{}, Truncated: len(all) > limit}
	for _, c := range all[:min(len(all), limit)] {
		out.Communities = append(out.Communities, communityRow(c))
	}
	return out, nil
}

// sortedCommunities are the index's communities, largest first, then by
// id.
func sortedCommunities(g *query.Snapshot) ([]query.Community, error) {
	cs, err := g.Communities()
	if err != nil {
		return nil, fmt.Errorf("list communities: %w", err)
	}
	all := append([]query.Community(nil), cs...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].SymbolCount != all[j].SymbolCount {
			return all[i].SymbolCount > all[j].SymbolCount
		}
		return all[i].ID < all[j].ID
	})
	return all, nil
}
