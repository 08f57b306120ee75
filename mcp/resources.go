package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitnexus/gitnexus/graph/schema"
)

const uriPrefix = "gitnexus://repo/"

func (s *Server) addResources() {
	s.SDK.AddResource(&sdk.Resource{URI: "gitnexus://repos", Name: "repos", Title: "All indexed repositories",
		Description: "Every indexed repository with its stats. Read this first to find repo names.", MIMEType: "application/json"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			out, err := ListRepos(s.Repos, ListReposInput{Limit: 200})
			if err != nil {
				return nil, err
			}
			return jsonResource(req.Params.URI, out)
		})
	templates := []struct{ path, name, desc string }{
		{"context", "repo context", "Codebase stats and staleness of the index against git HEAD"},
		{"processes", "repo processes", "All execution flows, highest priority first"},
		{"process/{id}", "process trace", "One execution flow step by step (by process id or a word of its label)"},
		{"communities", "repo communities", "All communities (functional areas) with their keywords and sizes"},
		{"clusters", "repo clusters", "Alias of communities (the reference tool's name)"},
		{"schema", "graph schema", "Node tables, relationship tables and their properties, for cypher"},
	}
	for _, t := range templates {
		s.SDK.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: uriPrefix + "{name}/" + t.path, Name: t.name, Description: t.desc, MIMEType: "application/json"},
			s.readRepoResource)
	}
}

func jsonResource(uri string, v any) (*sdk.ReadResourceResult, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}

// readRepoResource serves gitnexus://repo/{name}/{what}[/{id}].
func (s *Server) readRepoResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	name, err := url.PathUnescape(parts[0])
	if err != nil {
		return nil, fmt.Errorf("bad repo name in %s: %w", uri, err)
	}
	r, err := s.Repos.Acquire(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var v any
	switch parts[1] {
	case "context":
		v, err = RepoContext(ctx, r)
	case "processes":
		v, err = Processes(ctx, r.DB, 0)
	case "process":
		if len(parts) < 3 || parts[2] == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		id, _ := url.PathUnescape(parts[2])
		v, err = ProcessDetail(ctx, r.DB, id)
	case "communities", "clusters":
		v, err = Communities(ctx, r.DB)
	case "schema":
		v = Schema()
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return jsonResource(uri, v)
}

// RepoContextOutput is a repository's overview.
type RepoContextOutput struct {
	Name      string         `json:"name"`
	Path      string         `json:"path"`
	IndexedAt string         `json:"indexedAt"`
	Commit    string         `json:"indexedCommit"`
	Branch    string         `json:"branch,omitempty"`
	Stats     map[string]int `json:"stats"`
	Languages map[string]int `json:"languages,omitempty"`
	Head      string         `json:"head,omitempty"`
	// CommitsBehind is how many commits HEAD is ahead of the indexed
	// commit (-1: unknown); DirtyFiles counts uncommitted changes.
	CommitsBehind int      `json:"commitsBehind"`
	DirtyFiles    int      `json:"dirtyFiles"`
	Stale         bool     `json:"stale"`
	Staleness     string   `json:"staleness"`
	Tools         []string `json:"tools"`
}

// RepoContext describes a repository: counts, and how the index compares
// with the working tree's HEAD.
func RepoContext(ctx context.Context, r *Repo) (*RepoContextOutput, error) {
	m := r.DB.Meta()
	out := &RepoContextOutput{Name: r.Entry.Name, Path: r.Entry.Path, Stats: map[string]int{}, CommitsBehind: -1,
		Tools: []string{"query", "context", "impact", "detect_changes", "trace", "cypher", "list_repos"}}
	if m != nil {
		out.IndexedAt, out.Commit, out.Branch, out.Languages = m.IndexedAt.UTC().Format(time.RFC3339), m.Commit, m.Branch, m.Languages
		for k, v := range m.Counts {
			out.Stats[k] = v
		}
	}
	if head, err := git(ctx, r.Entry.Path, "rev-parse", "HEAD"); err == nil {
		out.Head = strings.TrimSpace(string(head))
		if out.Commit != "" && out.Head == out.Commit {
			out.CommitsBehind = 0
		} else if out.Commit != "" {
			if n, err := git(ctx, r.Entry.Path, "rev-list", "--count", out.Commit+"..HEAD"); err == nil {
				fmt.Sscan(strings.TrimSpace(string(n)), &out.CommitsBehind)
			}
		}
		if st, err := git(ctx, r.Entry.Path, "status", "--porcelain", "--untracked-files=no"); err == nil {
			out.DirtyFiles = strings.Count(string(st), "\n")
		}
	}
	switch {
	case out.Head == "":
		out.Staleness = "not a git repository: staleness unknown"
	case out.CommitsBehind == 0 && out.DirtyFiles == 0:
		out.Staleness = "up to date with HEAD"
	case out.CommitsBehind != 0:
		out.Stale = true
		out.Staleness = fmt.Sprintf("HEAD is %d commits past the indexed commit: run `gitnexus analyze` to refresh", out.CommitsBehind)
		if out.CommitsBehind < 0 {
			out.Staleness = "the indexed commit is not an ancestor of HEAD: run `gitnexus analyze` to refresh"
		}
	default:
		out.Staleness = fmt.Sprintf("indexed at HEAD; %d files have uncommitted changes (see detect_changes)", out.DirtyFiles)
	}
	return out, nil
}

// ProcessRow is one process in a listing.
type ProcessRow struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	ProcessType string   `json:"process_type"`
	StepCount   int      `json:"step_count"`
	Priority    float64  `json:"priority"`
	EntryPoint  string   `json:"entryPointId"`
	Terminal    string   `json:"terminalId"`
	Communities []string `json:"communities,omitempty"`
}

// ProcessesOutput lists processes.
type ProcessesOutput struct {
	Total     int          `json:"total"`
	Processes []ProcessRow `json:"processes"`
	Truncated bool         `json:"truncated,omitempty"`
}

// Processes lists up to limit (default 500) processes, highest priority
// first.
func Processes(ctx context.Context, db Querier, limit int) (*ProcessesOutput, error) {
	limit = clamp(limit, 500, 1, MaxRows)
	cnt, err := db.Query(ctx, "MATCH (p:Process) RETURN count(p)", nil)
	if err != nil {
		return nil, fmt.Errorf("count processes: %w", err)
	}
	res, err := db.Query(ctx, fmt.Sprintf("MATCH (p:Process) RETURN p.id, p.label, p.processType, p.stepCount, p.priority, p.entryPointId, p.terminalId, p.communities ORDER BY p.priority DESC, p.id LIMIT %d", limit), nil)
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

// ProcessStep is one step of a process.
type ProcessStep struct {
	Step      int    `json:"step_index"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	FilePath  string `json:"filePath"`
	StartLine int    `json:"startLine"`
}

// ProcessDetailOutput is one process step by step.
type ProcessDetailOutput struct {
	Process ProcessRow    `json:"process"`
	Steps   []ProcessStep `json:"steps"`
}

// ProcessDetail finds a process by id, else by a word of its label.
func ProcessDetail(ctx context.Context, db Querier, ref string) (*ProcessDetailOutput, error) {
	res, err := db.Query(ctx, "MATCH (p:Process) WHERE p.id = "+schema.Quote(ref)+" OR p.label CONTAINS "+schema.Quote(ref)+
		" RETURN p.id, p.label, p.processType, p.stepCount, p.priority, p.entryPointId, p.terminalId, p.communities ORDER BY p.id = "+schema.Quote(ref)+" DESC, p.priority DESC LIMIT 1", nil)
	if err != nil {
		return nil, fmt.Errorf("find process: %w", err)
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("%w: no process with id or label matching %q: read gitnexus://repo/{name}/processes", ErrNotFound, ref)
	}
	out := &ProcessDetailOutput{Process: processRow(res.Rows[0]), Steps: []ProcessStep{}}
	steps, err := db.Query(ctx, "MATCH (s)-[r:STEP_IN_PROCESS]->(p:Process) WHERE p.id = "+schema.Quote(out.Process.ID)+" RETURN r.step, s.id, s.name, s.kind, s.filePath, s.startLine ORDER BY r.step", nil)
	if err != nil {
		return nil, fmt.Errorf("process steps: %w", err)
	}
	for _, r := range steps.Rows {
		out.Steps = append(out.Steps, ProcessStep{Step: num(r[0]), ID: str(r[1]), Name: str(r[2]), Kind: str(r[3]), FilePath: str(r[4]), StartLine: num(r[5])})
	}
	return out, nil
}

// CommunityRow is one community.
type CommunityRow struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Keywords    []string `json:"keywords"`
	Cohesion    float64  `json:"cohesion"`
	SymbolCount int      `json:"symbolCount"`
}

// CommunitiesOutput lists communities, largest first.
type CommunitiesOutput struct {
	Communities []CommunityRow `json:"communities"`
	Truncated   bool           `json:"truncated,omitempty"`
}

// Communities lists up to MaxRows communities, largest first.
func Communities(ctx context.Context, db Querier) (*CommunitiesOutput, error) {
	res, err := db.Query(ctx, fmt.Sprintf("MATCH (c:Community) RETURN c.id, c.label, c.keywords, c.cohesion, c.symbolCount ORDER BY c.symbolCount DESC, c.id LIMIT %d", MaxRows), nil)
	if err != nil {
		return nil, fmt.Errorf("list communities: %w", err)
	}
	out := &CommunitiesOutput{Communities: []CommunityRow{}, Truncated: res.Truncated}
	for _, r := range res.Rows {
		c := CommunityRow{ID: str(r[0]), Label: str(r[1]), Keywords: []string{}, Cohesion: flt(r[3]), SymbolCount: num(r[4])}
		for _, k := range list(r[2]) {
			c.Keywords = append(c.Keywords, str(k))
		}
		out.Communities = append(out.Communities, c)
	}
	return out, nil
}

// SchemaOutput describes the graph for cypher writers.
type SchemaOutput struct {
	Nodes   map[string][]string `json:"nodes"` // table → properties
	Rels    []SchemaRel         `json:"relationships"`
	Kinds   []string            `json:"kinds"`
	Example string              `json:"example"`
}

// SchemaRel is one relationship table.
type SchemaRel struct {
	Type       string   `json:"type"`
	Pairs      []string `json:"pairs"` // "From->To"
	Properties []string `json:"properties"`
}

// Schema is the graph's vocabulary, from graph/schema.
func Schema() *SchemaOutput {
	sym := []string{"id", "kind", "name", "qualifiedName", "filePath", "startLine", "endLine", "language", "signature", "docComment", "isExported", "content", "contentHash"}
	out := &SchemaOutput{Nodes: map[string][]string{
		string(schema.LabelFile):      {"id (repo-relative path)", "path", "name", "language", "size", "lines", "parseStatus", "contentHash", "unresolved (call sites the resolver could not link)"},
		string(schema.LabelFolder):    {"id", "path", "name"},
		string(schema.LabelCommunity): {"id", "label", "keywords", "cohesion", "symbolCount"},
		string(schema.LabelProcess):   {"id", "label", "processType", "stepCount", "communities", "entryPointId", "terminalId", "priority"},
	}, Example: "MATCH (a:Function)-[r:CALLS]->(b:Function) WHERE b.name = 'Open' RETURN a.name, a.filePath, r.confidence LIMIT 20"}
	for _, l := range schema.SymbolLabels {
		out.Nodes[string(l)] = sym
	}
	for _, r := range schema.Rels {
		sr := SchemaRel{Type: string(r.Type), Properties: []string{"confidence", "reason", "step", "line"}}
		for _, p := range r.Pairs {
			sr.Pairs = append(sr.Pairs, string(p.From)+"->"+string(p.To))
		}
		out.Rels = append(out.Rels, sr)
	}
	for _, k := range []schema.Kind{schema.KindFunction, schema.KindMethod, schema.KindConstructor, schema.KindClass, schema.KindStruct, schema.KindEnum,
		schema.KindRecord, schema.KindUnion, schema.KindTypeAlias, schema.KindModule, schema.KindInterface, schema.KindTrait, schema.KindProtocol} {
		out.Kinds = append(out.Kinds, string(k))
	}
	sort.Strings(out.Kinds)
	return out
}
