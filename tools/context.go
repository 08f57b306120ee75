package tools

import (
	"context"
	"fmt"
	"math"
	"path"
	"sort"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// ContextInput is the context tool's input (the reference tool's names).
type ContextInput struct {
	Name           string `json:"name,omitempty" jsonschema:"Symbol name (e.g. validateUser, AuthService) or qualified name (Server.HandleOrder)"`
	UID            string `json:"uid,omitempty" jsonschema:"Direct symbol UID from prior tool results (zero-ambiguity lookup)"`
	FilePath       string `json:"file_path,omitempty" jsonschema:"File path to disambiguate common names"`
	File           string `json:"file,omitempty" jsonschema:"Compatibility alias for file_path"`
	Kind           string `json:"kind,omitempty" jsonschema:"Kind filter to disambiguate: Function, Class, Method, Interface, or a precise kind (struct, constructor, ...)"`
	IncludeContent bool   `json:"include_content,omitempty" jsonschema:"Include the symbol's source text (default false)"`
	Limit          int    `json:"limit,omitempty" jsonschema:"Most edges listed per relationship type and direction (default 50, max 500)"`
	Repo           string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// Ref is one neighbor of a symbol over one relationship.
type Ref struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Label      string  `json:"label"`
	Kind       string  `json:"kind,omitempty"`
	FilePath   string  `json:"filePath,omitempty"`
	StartLine  int     `json:"startLine,omitempty"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason,omitempty"`
	Line       int     `json:"line,omitempty"` // call or import site
}

// RefGroup is a symbol's edges of one relationship type in one direction.
type RefGroup struct {
	Type      string `json:"type"`
	Total     int    `json:"total"`
	Refs      []Ref  `json:"refs"`
	Truncated bool   `json:"truncated,omitempty"`
}

// ProcessRef is a process a symbol is a step of.
type ProcessRef struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	ProcessType string `json:"process_type,omitempty"`
	StepCount   int    `json:"step_count,omitempty"`
	StepIndex   int    `json:"step_index,omitempty"`
}

// CommunityRef is a community (cluster) a symbol belongs to.
type CommunityRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Coverage says how complete a callers answer is. Callers come from
// resolved CALLS edges; a call site the resolver could not link is counted
// on its file (File.unresolved). When files that may call the symbol hold
// unresolved call sites, the callers listed are a lower bound.
type Coverage struct {
	Exact bool `json:"exact"`
	// UnresolvedCallSites in UnresolvedFiles files that may reach the
	// symbol(s) (same directory, importers, or known callers' files).
	UnresolvedCallSites int    `json:"unresolved_call_sites"`
	UnresolvedFiles     int    `json:"unresolved_files"`
	Note                string `json:"note,omitempty"`
}

// ContextOutput is the 360° view of one symbol.
type ContextOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status      string            `json:"status"` // found | ambiguous
	Symbol      *Symbol           `json:"symbol,omitempty"`
	Candidates  []Symbol          `json:"candidates,omitempty"`
	Incoming    []RefGroup        `json:"incoming"`
	Outgoing    []RefGroup        `json:"outgoing"`
	Processes   []ProcessRef      `json:"processes"`
	Communities []CommunityRef    `json:"communities"`
	Callers     *Coverage         `json:"callers_coverage,omitempty"`
	Notices     []string          `json:"notices,omitempty"`
	Budget      *query.BudgetNote `json:"budget,omitempty"`
}

// Context answers the context tool: the symbol, its incoming and outgoing
// edges grouped by type, the processes it is a step of, its community, and
// whether its callers are complete. Several matching symbols give status
// "ambiguous" and the candidates.
func Context(ctx context.Context, ix Index, in ContextInput) (*ContextOutput, error) {
	limit := clamp(in.Limit, 50, 1, 500)
	fp, err := alias("file_path", in.FilePath, "file", in.File)
	if err != nil {
		return nil, err
	}
	budget, err := in.Budget.tokens(DefaultContextTokens)
	if err != nil {
		return nil, err
	}
	g := ix.Graph
	sym, amb, err := resolveOne(ctx, g, Lookup{Name: in.Name, UID: in.UID, FilePath: fp, Kind: in.Kind}, "symbol")
	if err != nil {
		return nil, err
	}
	out := &ContextOutput{Incoming: []RefGroup{}, Outgoing: []RefGroup{}, Processes: []ProcessRef{}, Communities: []CommunityRef{}}
	if amb != nil {
		out.Status = amb.Status
		out.Candidates = amb.Candidates
		out.Notices = append(out.Notices, fmt.Sprintf("%d symbols match: call again with uid (or file_path / kind) to pick one", len(amb.Candidates)))
		return out, nil
	}
	out.Status = "found"
	if err := fillDetails(ix, sym, in.IncludeContent); err != nil {
		return nil, err
	}
	out.Symbol = sym
	for _, dirOut := range []bool{true, false} {
		edges, err := g.Edges(sym.ID, dirOut)
		if err != nil {
			return nil, fmt.Errorf("read edges: %w", err)
		}
		groups := map[string]*RefGroup{}
		for _, e := range edges {
			typ := string(e.Rel)
			grp := groups[typ]
			if grp == nil {
				grp = &RefGroup{Type: typ, Refs: []Ref{}}
				groups[typ] = grp
			}
			grp.Total++
			m := e.Other
			ref := Ref{ID: m.ID, Name: m.Name, Label: m.Label, Kind: m.Kind, FilePath: m.FilePath, StartLine: m.StartLine,
				Confidence: e.Confidence, Reason: e.Reason, Line: e.Line}
			if ref.Label == string(schema.LabelFile) {
				ref.FilePath, ref.Kind, ref.StartLine = ref.ID, "file", 0
			}
			grp.Refs = append(grp.Refs, ref)
		}
		list := sortedGroups(groups, limit)
		if dirOut {
			out.Outgoing = list
		} else {
			out.Incoming = list
		}
	}
	if c, ok, err := g.CommunityOf(sym.ID); err != nil {
		return nil, fmt.Errorf("read community: %w", err)
	} else if ok {
		out.Communities = append(out.Communities, CommunityRef{ID: c.ID, Label: c.Label})
	}
	procs, err := processRefs(g, sym.ID)
	if err != nil {
		return nil, err
	}
	out.Processes = procs
	if sym.Label == string(schema.LabelFunction) || sym.Label == string(schema.LabelMethod) {
		var callerFiles []string
		for _, grp := range out.Incoming {
			if grp.Type == string(schema.RelCalls) {
				for _, r := range grp.Refs {
					callerFiles = append(callerFiles, r.FilePath)
				}
			}
		}
		cov, err := coverage(ctx, g, []string{sym.FilePath}, callerFiles)
		if err != nil {
			return nil, err
		}
		out.Callers = cov
		if !cov.Exact {
			out.Notices = append(out.Notices, cov.Note)
		}
	}
	out.Budget = fit(out, budget, out.shrink, "raise max_tokens, or lower limit; the edges of one type are all in impact (depth 1), the flows in the process tool/resource")
	return out, nil
}

// processRefs are the processes id is a step of, highest priority first
// (then by id), each at its first step, at most 200.
func processRefs(g *query.Snapshot, id string) ([]ProcessRef, error) {
	ms, err := g.Memberships(id)
	if err != nil {
		return nil, fmt.Errorf("read processes: %w", err)
	}
	first := map[string]int{}
	var order []query.Process
	for _, m := range ms {
		if st, ok := first[m.ProcessID]; ok {
			first[m.ProcessID] = min(st, m.Step)
			continue
		}
		first[m.ProcessID] = m.Step
		p, ok, err := g.Process(m.ProcessID)
		if err != nil {
			return nil, fmt.Errorf("read processes: %w", err)
		}
		if ok {
			order = append(order, p)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Priority != order[j].Priority {
			return order[i].Priority > order[j].Priority
		}
		return order[i].ID < order[j].ID
	})
	out := []ProcessRef{}
	for _, p := range order[:min(len(order), 200)] {
		out = append(out, ProcessRef{ID: p.ID, Label: p.Summary, ProcessType: p.ProcessType, StepCount: p.StepCount, StepIndex: first[p.ID]})
	}
	return out, nil
}

// sortedGroups orders groups by type and caps each at limit refs (highest
// confidence first).
func sortedGroups(groups map[string]*RefGroup, limit int) []RefGroup {
	list := make([]RefGroup, 0, len(groups))
	for _, g := range groups {
		sort.SliceStable(g.Refs, func(i, j int) bool {
			a, b := g.Refs[i], g.Refs[j]
			if a.Confidence != b.Confidence {
				return a.Confidence > b.Confidence
			}
			if a.FilePath != b.FilePath {
				return a.FilePath < b.FilePath
			}
			return a.StartLine < b.StartLine
		})
		if len(g.Refs) > limit {
			g.Refs = g.Refs[:limit]
			g.Truncated = true
		}
		list = append(list, *g)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Type < list[j].Type })
	return list
}

// coverage counts the unresolved call sites in files that may call into
// targetFiles: files in the same directories, files importing them, and
// the files of known callers. Any such site may be a missed caller.
func coverage(ctx context.Context, g *query.Snapshot, targetFiles, callerFiles []string) (*Coverage, error) {
	files := uniq(targetFiles)
	cov := &Coverage{Exact: true}
	dirs := map[string]bool{}
	for _, f := range files {
		dirs[path.Dir(f)] = true
	}
	// Each file counts once, whichever way it may reach the targets.
	maybe := map[string]bool{}
	for _, f := range files {
		maybe[f] = true
	}
	for _, f := range uniq(callerFiles) {
		maybe[f] = true
	}
	for _, f := range files {
		imps, err := g.Edges(f, false, schema.RelImports)
		if err != nil {
			return nil, fmt.Errorf("count unresolved call sites of importers: %w", err)
		}
		for _, e := range imps {
			maybe[e.Other.ID] = true
		}
	}
	withSites, err := g.FindFiles(ctx, func(h *query.Hit, _ string) bool {
		return maybe[h.ID] || dirs[path.Dir(h.ID)]
	}, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("count unresolved call sites: %w", err)
	}
	for _, f := range withSites {
		if f.Unresolved > 0 {
			cov.UnresolvedFiles++
			cov.UnresolvedCallSites += f.Unresolved
		}
	}
	if cov.UnresolvedCallSites > 0 {
		cov.Exact = false
		cov.Note = fmt.Sprintf("callers are a LOWER BOUND: %d call sites in %d files that may call it could not be resolved", cov.UnresolvedCallSites, cov.UnresolvedFiles)
	}
	return cov, nil
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func clamp(v, def, lo, hi int) int {
	if v == 0 {
		v = def
	}
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return v
}

// alias merges a parameter with its compatibility alias; both given must
// agree.
func alias(name, v, aliasName, av string) (string, error) {
	if v != "" && av != "" && v != av {
		return "", inputErr("%s %q and %s %q disagree: give one", name, v, aliasName, av)
	}
	if v == "" {
		return av, nil
	}
	return v, nil
}

// shrink cuts the least important part of a context answer for its token
// budget: the flows beyond 5, then the longest edge list (each group keeps
// its total), down to 5 refs, then the flows.
func (o *ContextOutput) shrink() (string, bool) {
	total := len(o.Processes)
	if what, ok := halve(&o.Processes, 5, total, "processes"); ok {
		return what, true
	}
	var longest *RefGroup
	dir := ""
	for _, gs := range []struct {
		d  string
		gs []RefGroup
	}{{"outgoing", o.Outgoing}, {"incoming", o.Incoming}} {
		for i := range gs.gs {
			if longest == nil || len(gs.gs[i].Refs) > len(longest.Refs) {
				longest, dir = &gs.gs[i], gs.d
			}
		}
	}
	if longest != nil {
		if what, ok := halve(&longest.Refs, 5, longest.Total, dir+" "+longest.Type); ok {
			longest.Truncated = true
			return what, true
		}
	}
	return halve(&o.Processes, 0, total, "processes")
}
