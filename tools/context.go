package tools

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
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

	Status      string         `json:"status"` // found | ambiguous
	Symbol      *Symbol        `json:"symbol,omitempty"`
	Candidates  []Symbol       `json:"candidates,omitempty"`
	Incoming    []RefGroup     `json:"incoming"`
	Outgoing    []RefGroup     `json:"outgoing"`
	Processes   []ProcessRef   `json:"processes"`
	Communities []CommunityRef `json:"communities"`
	Callers     *Coverage      `json:"callers_coverage,omitempty"`
	Notices     []string       `json:"notices,omitempty"`
}

// Context answers the context tool: the symbol, its incoming and outgoing
// edges grouped by type, the processes it is a step of, its community, and
// whether its callers are complete. Several matching symbols give status
// "ambiguous" and the candidates.
func Context(ctx context.Context, db Querier, in ContextInput) (*ContextOutput, error) {
	limit := clamp(in.Limit, 50, 1, 500)
	fp, err := alias("file_path", in.FilePath, "file", in.File)
	if err != nil {
		return nil, err
	}
	sym, amb, err := resolveOne(ctx, db, Lookup{Name: in.Name, UID: in.UID, FilePath: fp, Kind: in.Kind}, "symbol")
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
	if err := fillDetails(ctx, db, sym, in.IncludeContent); err != nil {
		return nil, err
	}
	out.Symbol = sym
	if !safeLabel(sym.Label) {
		return nil, fmt.Errorf("symbol %s has unknown table %q", sym.ID, sym.Label)
	}
	node := "(n:" + sym.Label + " {id: " + schema.Quote(sym.ID) + "})"
	cols := " RETURN label(r), m.id, m.name, label(m), m.kind, m.filePath, m.startLine, r.confidence, r.reason, r.line, m.label LIMIT " + fmt.Sprint(MaxRows)
	for _, dir := range []string{"out", "in"} {
		pat := node + "-[r]->(m)"
		if dir == "in" {
			pat = node + "<-[r]-(m)"
		}
		res, err := db.Query(ctx, "MATCH "+pat+cols, nil)
		if err != nil {
			return nil, fmt.Errorf("read %sgoing edges: %w", dir, err)
		}
		groups := map[string]*RefGroup{}
		for _, r := range res.Rows {
			typ := str(r[0])
			switch schema.RelType(typ) {
			case schema.RelStepInProcess:
				continue // reported under processes
			case schema.RelMemberOf:
				out.Communities = append(out.Communities, CommunityRef{ID: str(r[1]), Label: str(r[10])})
				continue
			}
			g := groups[typ]
			if g == nil {
				g = &RefGroup{Type: typ, Refs: []Ref{}}
				groups[typ] = g
			}
			g.Total++
			ref := Ref{ID: str(r[1]), Name: str(r[2]), Label: str(r[3]), Kind: str(r[4]), FilePath: str(r[5]), StartLine: num(r[6]),
				Confidence: flt(r[7]), Reason: str(r[8]), Line: num(r[9])}
			if ref.Label == string(schema.LabelFile) {
				ref.FilePath, ref.Kind = ref.ID, "file"
			}
			g.Refs = append(g.Refs, ref)
		}
		list := sortedGroups(groups, limit)
		if dir == "in" {
			out.Incoming = list
		} else {
			out.Outgoing = list
		}
		if res.Truncated {
			out.Notices = append(out.Notices, fmt.Sprintf("more than %d %sgoing edges: lists are incomplete", MaxRows, dir))
		}
	}
	procs, err := db.Query(ctx, "MATCH "+node+"-[r:STEP_IN_PROCESS]->(p:Process) RETURN p.id, p.label, p.processType, p.stepCount, min(r.step), p.priority AS pr ORDER BY pr DESC, p.id LIMIT 200", nil)
	if err != nil {
		return nil, fmt.Errorf("read processes: %w", err)
	}
	for _, r := range procs.Rows {
		out.Processes = append(out.Processes, ProcessRef{ID: str(r[0]), Label: str(r[1]), ProcessType: str(r[2]), StepCount: num(r[3]), StepIndex: num(r[4])})
	}
	if sym.Label == string(schema.LabelFunction) || sym.Label == string(schema.LabelMethod) {
		var callerFiles []string
		for _, g := range out.Incoming {
			if g.Type == string(schema.RelCalls) {
				for _, r := range g.Refs {
					callerFiles = append(callerFiles, r.FilePath)
				}
			}
		}
		cov, err := coverage(ctx, db, []string{sym.FilePath}, callerFiles)
		if err != nil {
			return nil, err
		}
		out.Callers = cov
		if !cov.Exact {
			out.Notices = append(out.Notices, cov.Note)
		}
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
func coverage(ctx context.Context, db Querier, targetFiles, callerFiles []string) (*Coverage, error) {
	files := uniq(targetFiles)
	var conds []string
	if len(files) > 0 {
		conds = append(conds, "f.id IN "+schema.QuoteList(files))
		dirs := map[string]bool{}
		for _, f := range files {
			dirs[path.Dir(f)] = true
		}
		for d := range dirs {
			if d == "." {
				conds = append(conds, "NOT f.id CONTAINS '/'")
			} else {
				conds = append(conds, "(f.id STARTS WITH "+schema.Quote(d+"/")+" AND NOT substring(f.id, "+fmt.Sprint(len(d)+2)+", 100000) CONTAINS '/')")
			}
			if len(conds) > 64 {
				break
			}
		}
	}
	if cf := uniq(callerFiles); len(cf) > 0 {
		conds = append(conds, "f.id IN "+schema.QuoteList(cf))
	}
	cov := &Coverage{Exact: true}
	if len(conds) == 0 {
		return cov, nil
	}
	// Each file counts once, whichever way it may reach the targets.
	sites := map[string]int{}
	add := func(res *graph.Result) {
		for _, r := range res.Rows {
			sites[str(r[0])] = num(r[1])
		}
	}
	res, err := db.Query(ctx, "MATCH (f:File) WHERE f.unresolved > 0 AND ("+strings.Join(conds, " OR ")+") RETURN f.id, f.unresolved", nil)
	if err != nil {
		return nil, fmt.Errorf("count unresolved call sites: %w", err)
	}
	add(res)
	if len(files) > 0 {
		imp, err := db.Query(ctx, "MATCH (f:File)-[:IMPORTS]->(t:File) WHERE t.id IN "+schema.QuoteList(files)+" AND f.unresolved > 0 RETURN DISTINCT f.id, f.unresolved", nil)
		if err != nil {
			return nil, fmt.Errorf("count unresolved call sites of importers: %w", err)
		}
		add(imp)
	}
	for _, n := range sites {
		cov.UnresolvedFiles++
		cov.UnresolvedCallSites += n
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
