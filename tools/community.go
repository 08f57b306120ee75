package tools

import (
	"context"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
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

const communityCols = "c.id, c.label, c.keywords, c.cohesion, c.symbolCount"

func communityRow(r []any) CommunityRow {
	c := CommunityRow{ID: str(r[0]), Label: str(r[1]), Keywords: []string{}, Cohesion: flt(r[3]), SymbolCount: num(r[4])}
	for _, k := range list(r[2]) {
		c.Keywords = append(c.Keywords, str(k))
	}
	return c
}

// CommunityDetail finds a community by the reference rule of resolveRef
// (id, unique id prefix, label, piece of a label) and lists its members
// and the processes that have a step in it.
func CommunityDetail(ctx context.Context, db Querier, in CommunityDetailInput) (*CommunityDetailOutput, error) {
	if err := checkRef("community", in.ID); err != nil {
		return nil, err
	}
	if in.Limit < 0 || in.Limit > MaxRows {
		return nil, inputErr("limit must be 1..%d (got %d)", MaxRows, in.Limit)
	}
	limit := clamp(in.Limit, DefaultCommunityMembers, 1, MaxRows)
	rows, err := resolveRef(ctx, db, schema.LabelCommunity, "c", in.ID, communityCols, "c.symbolCount DESC")
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no community with id, id prefix or label matching %q: list the communities (gitnexus communities, or the resource gitnexus://repo/{name}/communities)", ErrNotFound, in.ID)
	}
	out := &CommunityDetailOutput{Members: []CommunityMember{}, Processes: []ProcessRow{}}
	if len(rows) > 1 {
		out.Status, out.More = "ambiguous", len(rows) > maxCandidates
		for _, r := range rows[:min(len(rows), maxCandidates)] {
			out.Candidates = append(out.Candidates, communityRow(r))
		}
		return out, nil
	}
	c := communityRow(rows[0])
	out.Status, out.Community = "found", &c
	id := schema.Quote(c.ID)
	res, err := db.Query(ctx, fmt.Sprintf("MATCH (s)-[:MEMBER_OF]->(c:Community) WHERE c.id = %s RETURN s.id, s.name, s.kind, s.filePath, s.startLine ORDER BY s.filePath, s.startLine, s.id LIMIT %d", id, limit+1), nil)
	if err != nil {
		return nil, fmt.Errorf("community members: %w", err)
	}
	out.Truncated = len(res.Rows) > limit
	for _, r := range res.Rows[:min(len(res.Rows), limit)] {
		out.Members = append(out.Members, CommunityMember{ID: str(r[0]), Name: str(r[1]), Kind: str(r[2]), FilePath: str(r[3]), StartLine: num(r[4])})
	}
	procs, err := db.Query(ctx, fmt.Sprintf("MATCH (p:Process) WHERE list_contains(p.communities, %s) RETURN %s ORDER BY p.priority DESC, p.id LIMIT %d", id, processCols, MaxRows), nil)
	if err != nil {
		return nil, fmt.Errorf("community processes: %w", err)
	}
	for _, r := range procs.Rows {
		out.Processes = append(out.Processes, processRow(r))
	}
	return out, nil
}
