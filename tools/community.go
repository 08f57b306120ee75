package tools

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

// DefaultCommunityMembers is how many members CommunityDetail lists when
// the input names no limit.
const DefaultCommunityMembers = 100

// CommunityDetailInput is the community tool's input.
type CommunityDetailInput struct {
	ID    string `json:"id" jsonschema:"Community id, a unique prefix of one, or its label or a piece of it; several matches are listed as candidates"`
	Limit int    `json:"limit,omitempty" jsonschema:"Most member symbols listed (default 100, max 5000)"`
}

// CommunityMember is one symbol of a community.
type CommunityMember struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	FilePath  string `json:"filePath"`
	StartLine int    `json:"startLine"`
}

// CommunityDetailOutput is one community: its members (by file, then
// line) and the processes with a step in it. When the reference matched
// several communities, Status is "ambiguous" and Candidates lists them
// instead (largest first, at most 20; More says there were more).
type CommunityDetailOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status     string            `json:"status"` // "found" or "ambiguous"
	Community  *CommunityRow     `json:"community,omitempty"`
	Members    []CommunityMember `json:"members"`
	Truncated  bool              `json:"truncated,omitempty"` // more members than listed
	Processes  []ProcessRow      `json:"processes"`
	Candidates []CommunityRow    `json:"candidates,omitempty"`
	More       bool              `json:"more,omitempty"`
}

func communityRow(c query.Community) CommunityRow {
	return CommunityRow{ID: c.ID, Label: c.Label, Keywords: append([]string{}, c.Keywords...), Cohesion: c.Cohesion, SymbolCount: c.SymbolCount}
}

// CommunityDetail finds a community by the reference rule of resolveRef
// (id, unique id prefix, label, piece of a label) and lists its members
// and the processes that have a step in it.
func CommunityDetail(ctx context.Context, ix Index, in CommunityDetailInput) (*CommunityDetailOutput, error) {
	if err := checkRef("community", in.ID); err != nil {
		return nil, err
	}
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, DefaultCommunityMembers, 1, MaxRows)
	g := ix.Graph
	all, err := sortedCommunities(g)
	if err != nil {
		return nil, err
	}
	found := resolveRef(all, func(c query.Community) (string, string) { return c.ID, c.Label }, in.ID)
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: no community with id, id prefix or label matching %q: list the communities (gitnexus communities, or the resource gitnexus://repo/{name}/communities)", ErrNotFound, in.ID)
	}
	out := &CommunityDetailOutput{Members: []CommunityMember{}, Processes: []ProcessRow{}}
	if len(found) > 1 {
		out.Status, out.More = "ambiguous", len(found) > maxCandidates
		for _, c := range found[:min(len(found), maxCandidates)] {
			out.Candidates = append(out.Candidates, communityRow(c))
		}
		return out, nil
	}
	c := communityRow(found[0])
	out.Status, out.Community = "found", &c
	members, err := g.CommunityMembers(c.ID)
	if err != nil {
		return nil, fmt.Errorf("community members: %w", err)
	}
	sort.Slice(members, func(i, j int) bool {
		a, b := members[i], members[j]
		if a.FilePath != b.FilePath {
			return a.FilePath < b.FilePath
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.ID < b.ID
	})
	out.Truncated = len(members) > limit
	for _, m := range members[:min(len(members), limit)] {
		out.Members = append(out.Members, CommunityMember{ID: m.ID, Name: m.Name, Kind: m.Kind, FilePath: m.FilePath, StartLine: m.StartLine})
	}
	procs, err := sortedProcesses(g)
	if err != nil {
		return nil, err
	}
	for _, p := range procs {
		if slices.Contains(p.Communities, c.ID) && len(out.Processes) < MaxRows {
			out.Processes = append(out.Processes, processRow(p))
		}
	}
	return out, nil
}
