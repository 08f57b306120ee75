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

// ImpactInput is the impact tool's input (the reference tool's names).
type ImpactInput struct {
	Target        string   `json:"target,omitempty" jsonschema:"Name of the function, class or file to analyze"`
	Name          string   `json:"name,omitempty" jsonschema:"Compatibility alias for target"`
	TargetUID     string   `json:"target_uid,omitempty" jsonschema:"Direct symbol UID from prior tool results (zero-ambiguity lookup)"`
	Direction     string   `json:"direction,omitempty" jsonschema:"upstream (what depends on this, default) or downstream (what this depends on)"`
	FilePath      string   `json:"file_path,omitempty" jsonschema:"File path hint to disambiguate common names"`
	Kind          string   `json:"kind,omitempty" jsonschema:"Kind filter to disambiguate: Function, Class, Method, Interface"`
	MaxDepth      int      `json:"maxDepth,omitempty" jsonschema:"Max relationship depth (default 3, clamped to 1..32)"`
	Depth         int      `json:"depth,omitempty" jsonschema:"Compatibility alias for maxDepth"`
	RelationTypes []string `json:"relationTypes,omitempty" jsonschema:"Relationship types followed: CALLS, IMPORTS, EXTENDS, IMPLEMENTS, HAS_METHOD (default CALLS, IMPORTS, EXTENDS, IMPLEMENTS)"`
	MinConfidence float64  `json:"minConfidence,omitempty" jsonschema:"Minimum edge confidence 0..1 (default 0)"`
	IncludeTests  bool     `json:"includeTests,omitempty" jsonschema:"Include symbols in test files (default false)"`
	Limit         int      `json:"limit,omitempty" jsonschema:"Most symbols listed per depth level (default 100, max 1000); counts stay complete"`
	Repo          string   `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// Affected is one symbol reached by impact.
type Affected struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Label      string  `json:"label"`
	Kind       string  `json:"kind,omitempty"`
	FilePath   string  `json:"filePath"`
	StartLine  int     `json:"startLine,omitempty"`
	Depth      int     `json:"depth"`
	Via        string  `json:"via"`        // relationship type of the edge that reached it
	From       string  `json:"from"`       // the symbol it was reached from
	Confidence float64 `json:"confidence"` // product of confidences along the path
}

// DepthLevel is the symbols reached at one depth.
type DepthLevel struct {
	Depth     int        `json:"depth"`
	Count     int        `json:"count"`
	Symbols   []Affected `json:"symbols"`
	Truncated bool       `json:"truncated,omitempty"`
}

// AffectedProcess is a process with affected symbols among its steps.
type AffectedProcess struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	ProcessType string `json:"process_type,omitempty"`
	StepCount   int    `json:"step_count,omitempty"`
	Hits        int    `json:"hits"`       // affected symbols among its steps
	FirstStep   int    `json:"first_step"` // the earliest affected step
}

// AffectedCommunity is a community with affected symbols.
type AffectedCommunity struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Hits  int    `json:"hits"`
}

// ImpactSummary counts the answer.
type ImpactSummary struct {
	Direct      int `json:"direct"`      // depth 1
	Total       int `json:"total"`       // all depths
	Files       int `json:"files"`       // distinct files of affected symbols
	Processes   int `json:"processes"`   // affected processes
	Communities int `json:"communities"` // affected communities
	MaxDepth    int `json:"max_depth"`   // deepest level reached
}

// ImpactOutput is the blast radius of changing a symbol.
type ImpactOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status        string              `json:"status"` // found | ambiguous
	Target        *Symbol             `json:"target,omitempty"`
	Candidates    []Symbol            `json:"candidates,omitempty"`
	Direction     string              `json:"direction"`
	RelationTypes []string            `json:"relation_types"`
	MinConfidence float64             `json:"min_confidence"`
	Risk          string              `json:"risk"` // LOW | MEDIUM | HIGH | CRITICAL (see RiskOf)
	Summary       ImpactSummary       `json:"summary"`
	ByDepth       []DepthLevel        `json:"by_depth"`
	Processes     []AffectedProcess   `json:"affected_processes"`
	Communities   []AffectedCommunity `json:"affected_modules"`
	// Exact is false when unresolved call sites may hide more affected
	// symbols (upstream) or more dependencies (downstream): the answer is
	// then a lower bound; Coverage says how many sites.
	Budget   *query.BudgetNote `json:"budget,omitempty"`
	Exact    bool              `json:"exact"`
	Coverage *Coverage         `json:"coverage,omitempty"`
	Notices  []string          `json:"notices,omitempty"`
}

// DefaultImpactRels are the relationships impact follows by default.
var DefaultImpactRels = []schema.RelType{schema.RelCalls, schema.RelImports, schema.RelExtends, schema.RelImplements}

// maxVisited bounds an impact walk.
const maxVisited = 20000

// RiskOf grades a blast radius: CRITICAL when ≥ 50 symbols or ≥ 10
// processes are affected, HIGH at ≥ 15 symbols, ≥ 10 direct dependents or
// ≥ 3 processes, MEDIUM at ≥ 4 symbols or any process, else LOW.
func RiskOf(s ImpactSummary) string {
	switch {
	case s.Total >= 50 || s.Processes >= 10:
		return "CRITICAL"
	case s.Total >= 15 || s.Direct >= 10 || s.Processes >= 3:
		return "HIGH"
	case s.Total >= 4 || s.Processes >= 1:
		return "MEDIUM"
	}
	return "LOW"
}

// Impact walks the graph from the target, breadth first, one query per
// depth level: upstream follows edges backwards (who calls, imports,
// extends or implements it), downstream forwards. A class's methods and a
// file's definitions are the walk's starting points too.
func Impact(ctx context.Context, ix Index, in ImpactInput) (*ImpactOutput, error) {
	g := ix.Graph
	dir := strings.ToLower(strings.TrimSpace(in.Direction))
	if dir == "" {
		dir = "upstream"
	}
	if dir != "upstream" && dir != "downstream" {
		return nil, inputErr("direction must be upstream or downstream (got %q)", in.Direction)
	}
	if in.MinConfidence < 0 || in.MinConfidence > 1 {
		return nil, inputErr("minConfidence must be within 0..1 (got %v)", in.MinConfidence)
	}
	target, err := alias("target", in.Target, "name", in.Name)
	if err != nil {
		return nil, err
	}
	if in.MaxDepth != 0 && in.Depth != 0 && in.MaxDepth != in.Depth {
		return nil, inputErr("maxDepth %d and depth %d disagree: give one", in.MaxDepth, in.Depth)
	}
	depthMax := clamp(max(in.MaxDepth, in.Depth), 3, 1, 32)
	budget, err := in.Budget.tokens(DefaultImpactTokens)
	if err != nil {
		return nil, err
	}
	limit := clamp(in.Limit, 100, 1, 1000)
	rels, err := relTypes(in.RelationTypes)
	if err != nil {
		return nil, err
	}
	relNames := make([]string, len(rels))
	for i, r := range rels {
		relNames[i] = string(r)
	}
	sym, amb, err := resolveOne(ctx, g, Lookup{Name: target, UID: in.TargetUID, FilePath: in.FilePath, Kind: in.Kind, Files: true}, "symbol or file")
	if err != nil {
		return nil, err
	}
	out := &ImpactOutput{Direction: dir, RelationTypes: relNames, MinConfidence: in.MinConfidence, ByDepth: []DepthLevel{},
		Processes: []AffectedProcess{}, Communities: []AffectedCommunity{}, Exact: true}
	if amb != nil {
		out.Status, out.Candidates = amb.Status, amb.Candidates
		out.Notices = append(out.Notices, fmt.Sprintf("%d symbols match: call again with target_uid (or file_path / kind) to pick one", len(amb.Candidates)))
		out.Risk = "UNKNOWN"
		return out, nil
	}
	out.Status, out.Target = "found", sym

	// Seeds: the target, plus a class's methods or a file's definitions.
	seeds := []string{sym.ID}
	seedConf := map[string]float64{sym.ID: 1}
	var seedRel schema.RelType
	switch sym.Label {
	case string(schema.LabelClass), string(schema.LabelInterface):
		seedRel = schema.RelHasMethod
	case string(schema.LabelFile):
		seedRel = schema.RelDefines
	}
	if seedRel != "" {
		es, err := g.Edges(sym.ID, true, seedRel)
		if err != nil {
			return nil, fmt.Errorf("impact seeds: %w", err)
		}
		for _, e := range es[:min(len(es), 5000)] {
			seeds = append(seeds, e.Other.ID)
			seedConf[e.Other.ID] = 1
		}
	}

	visited := map[string]bool{}
	for _, s := range seeds {
		visited[s] = true
	}
	conf := seedConf
	frontier := seeds
	var all []Affected
	files := map[string]bool{}
	for depth := 1; depth <= depthMax && len(frontier) > 0; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		level := DepthLevel{Depth: depth, Symbols: []Affected{}}
		var next []string
		inLevel := map[string]int{}
		full := false
	walk:
		for _, from := range frontier {
			// upstream: what points at from (incoming edges); downstream:
			// what from points at.
			es, err := g.Edges(from, dir == "downstream", rels...)
			if err != nil {
				return nil, fmt.Errorf("impact depth %d: %w", depth, err)
			}
			for _, e := range es {
				m := e.Other
				if e.Confidence < in.MinConfidence {
					continue
				}
				if !in.IncludeTests && m.IsTest { // the stored isTest
					continue
				}
				a := Affected{ID: m.ID, Name: m.Name, Label: m.Label, Kind: m.Kind, FilePath: m.FilePath, StartLine: m.StartLine,
					Depth: depth, Via: string(e.Rel), From: from, Confidence: conf[from] * e.Confidence}
				if a.Label == string(schema.LabelFile) {
					a.FilePath, a.Kind, a.StartLine = a.ID, "file", 0
				}
				if i, ok := inLevel[m.ID]; ok {
					// Reached again at this depth: keep the most confident
					// edge (then the smallest from id), whatever the order.
					if b := level.Symbols[i]; a.Confidence > b.Confidence || (a.Confidence == b.Confidence && a.From < b.From) {
						level.Symbols[i] = a
						conf[m.ID] = a.Confidence
					}
					continue
				}
				if visited[m.ID] {
					continue
				}
				inLevel[m.ID] = len(level.Symbols)
				visited[m.ID] = true
				conf[m.ID] = a.Confidence
				next = append(next, m.ID)
				level.Symbols = append(level.Symbols, a)
				if len(visited) >= maxVisited {
					out.Notices = append(out.Notices, fmt.Sprintf("stopped after %d symbols: narrow relationTypes, raise minConfidence or lower maxDepth", maxVisited))
					out.Exact = false
					full = true
					break walk
				}
			}
		}
		level.Count = len(level.Symbols)
		if level.Count == 0 {
			break
		}
		for _, a := range level.Symbols {
			files[a.FilePath] = true
		}
		all = append(all, level.Symbols...)
		sort.SliceStable(level.Symbols, func(i, j int) bool {
			a, b := level.Symbols[i], level.Symbols[j]
			if a.Confidence != b.Confidence {
				return a.Confidence > b.Confidence
			}
			return a.ID < b.ID
		})
		if len(level.Symbols) > limit {
			level.Symbols = level.Symbols[:limit]
			level.Truncated = true
		}
		out.ByDepth = append(out.ByDepth, level)
		frontier = next
		if full {
			break
		}
	}
	for _, l := range out.ByDepth {
		if l.Truncated {
			out.Notices = append(out.Notices, fmt.Sprintf("depth %d lists %d of %d symbols: raise limit to see more", l.Depth, len(l.Symbols), l.Count))
		}
	}

	// Processes and communities of the target and everything affected.
	ids := append([]string{}, seeds...)
	for _, a := range all {
		ids = append(ids, a.ID)
	}
	if err := impactGroups(g, ids, out); err != nil {
		return nil, err
	}
	out.Summary.Total = len(all)
	if len(out.ByDepth) > 0 {
		out.Summary.Direct = out.ByDepth[0].Count
		out.Summary.MaxDepth = out.ByDepth[len(out.ByDepth)-1].Depth
	}
	out.Summary.Files = len(files)
	out.Summary.Processes = len(out.Processes)
	out.Summary.Communities = len(out.Communities)
	out.Risk = RiskOf(out.Summary)
	defer func() {
		if out != nil {
			out.Budget = fit(out, budget, out.shrink, "raise max_tokens, lower maxDepth, or narrow with relationTypes / minConfidence / limit; depth 1 (the direct dependents) is never cut")
		}
	}()

	// Completeness: upstream misses callers hidden behind unresolved call
	// sites in files that may call into the affected set; downstream
	// misses callees of unresolved call sites in the walked symbols' files.
	if containsRel(rels, schema.RelCalls) {
		var cov *Coverage
		targetFiles := []string{sym.FilePath}
		var walked []string
		for _, a := range all {
			walked = append(walked, a.FilePath)
		}
		if dir == "upstream" {
			cov, err = coverage(ctx, g, append(targetFiles, walked...), nil)
		} else {
			cov, err = ownUnresolved(g, append(targetFiles, walked...))
		}
		if err != nil {
			return nil, err
		}
		out.Coverage = cov
		if !cov.Exact {
			out.Exact = false
			out.Notices = append(out.Notices, strings.Replace(cov.Note, "callers are", "this answer is", 1))
		}
	}
	return out, nil
}

// ownUnresolved counts unresolved call sites in the given files (the
// calls out of them that may lead to more dependencies).
func ownUnresolved(g *query.Snapshot, files []string) (*Coverage, error) {
	cov := &Coverage{Exact: true}
	for _, f := range uniq(files) {
		n, ok, err := g.Node(f)
		if err != nil {
			return nil, fmt.Errorf("count unresolved call sites: %w", err)
		}
		if ok && n.Label == string(schema.LabelFile) && n.Unresolved > 0 {
			cov.UnresolvedFiles++
			cov.UnresolvedCallSites += n.Unresolved
		}
	}
	if cov.UnresolvedCallSites > 0 {
		cov.Exact = false
		cov.Note = fmt.Sprintf("dependencies are a LOWER BOUND: %d call sites in %d walked files could not be resolved", cov.UnresolvedCallSites, cov.UnresolvedFiles)
	}
	return cov, nil
}

// impactGroups fills the processes and communities of ids.
func impactGroups(g *query.Snapshot, ids []string, out *ImpactOutput) error {
	procs := map[string]*AffectedProcess{}
	comms := map[string]*AffectedCommunity{}
	for _, id := range ids {
		ms, err := g.Memberships(id)
		if err != nil {
			return fmt.Errorf("affected processes: %w", err)
		}
		for _, m := range ms {
			if ap := procs[m.ProcessID]; ap != nil {
				ap.Hits++
				ap.FirstStep = min(ap.FirstStep, m.Step)
				continue
			}
			p, ok, err := g.Process(m.ProcessID)
			if err != nil {
				return fmt.Errorf("affected processes: %w", err)
			}
			if ok {
				procs[p.ID] = &AffectedProcess{ID: p.ID, Label: p.Summary, ProcessType: p.ProcessType, StepCount: p.StepCount, Hits: 1, FirstStep: m.Step}
			}
		}
		c, ok, err := g.CommunityOf(id)
		if err != nil {
			return fmt.Errorf("affected communities: %w", err)
		}
		if ok {
			if ac := comms[c.ID]; ac != nil {
				ac.Hits++
			} else {
				comms[c.ID] = &AffectedCommunity{ID: c.ID, Label: c.Label, Hits: 1}
			}
		}
	}
	for _, p := range procs {
		out.Processes = append(out.Processes, *p)
	}
	for _, c := range comms {
		out.Communities = append(out.Communities, *c)
	}
	sort.Slice(out.Processes, func(i, j int) bool {
		a, b := out.Processes[i], out.Processes[j]
		if a.Hits != b.Hits {
			return a.Hits > b.Hits
		}
		return a.ID < b.ID
	})
	sort.Slice(out.Communities, func(i, j int) bool {
		a, b := out.Communities[i], out.Communities[j]
		if a.Hits != b.Hits {
			return a.Hits > b.Hits
		}
		return a.ID < b.ID
	})
	return nil
}

// relTypes validates relationship type names (default DefaultImpactRels).
func relTypes(names []string) ([]schema.RelType, error) {
	if len(names) == 0 {
		return DefaultImpactRels, nil
	}
	allowed := map[schema.RelType]bool{schema.RelCalls: true, schema.RelImports: true, schema.RelExtends: true,
		schema.RelImplements: true, schema.RelHasMethod: true, schema.RelDefines: true}
	var out []schema.RelType
	for _, n := range names {
		for _, p := range strings.Split(n, ",") {
			r := schema.RelType(strings.ToUpper(strings.TrimSpace(p)))
			if r == "" {
				continue
			}
			if !allowed[r] {
				return nil, inputErr("relation type %q is not one impact follows: use CALLS, IMPORTS, EXTENDS, IMPLEMENTS, HAS_METHOD or DEFINES", p)
			}
			if !containsRel(out, r) {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return DefaultImpactRels, nil
	}
	return out, nil
}

func containsRel(rs []schema.RelType, r schema.RelType) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// shrink cuts the least important part of an impact answer for its token
// budget: the affected processes beyond 10, the modules beyond 5, then the
// deepest level's symbols (each level keeps its count), then all
// processes and modules. The direct dependents (depth 1) are never cut.
func (o *ImpactOutput) shrink() (string, bool) {
	if what, ok := halve(&o.Processes, 10, o.Summary.Processes, "affected_processes"); ok {
		return what, true
	}
	if what, ok := halve(&o.Communities, 5, o.Summary.Communities, "affected_modules"); ok {
		return what, true
	}
	for i := len(o.ByDepth) - 1; i >= 1; i-- {
		l := &o.ByDepth[i]
		if what, ok := halve(&l.Symbols, 0, l.Count, fmt.Sprintf("depth %d", l.Depth)); ok {
			l.Truncated = true
			return what, true
		}
	}
	if what, ok := halve(&o.Processes, 0, o.Summary.Processes, "affected_processes"); ok {
		return what, true
	}
	return halve(&o.Communities, 0, o.Summary.Communities, "affected_modules")
}
