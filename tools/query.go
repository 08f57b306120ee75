package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// Bounds of the query tool's numeric fields: Limit is the most processes
// listed, MaxSymbols the most symbols listed per process and the most
// definitions.
const (
	DefaultQueryLimit = 5
	MaxQueryLimit     = 100
	DefaultMaxSymbols = 10
	MaxMaxSymbols     = 200
)

// Bounds of the query tool's filters: at most MaxFilterValues languages
// or kinds, each at most MaxFilterValueBytes long.
const (
	MaxFilterValues     = 16
	MaxFilterValueBytes = 32
)

// QueryInput is the query tool's input (the reference tool's names, plus
// the filters and mode of `gitnexus query`, which is a driver of this
// tool: its --json prints what the tool returns for the same input).
type QueryInput struct {
	SearchQuery    string `json:"search_query" jsonschema:"Natural language or keyword search query"`
	TaskContext    string `json:"task_context,omitempty" jsonschema:"What you are working on (e.g. adding OAuth support). Helps ranking."`
	Goal           string `json:"goal,omitempty" jsonschema:"What you want to find (e.g. existing auth validation logic). Helps ranking."`
	Limit          int    `json:"limit,omitempty" jsonschema:"Max processes to return (default 5, max 100)"`
	MaxSymbols     int    `json:"max_symbols,omitempty" jsonschema:"Max symbols per process, and max definitions (default 10, max 200)"`
	IncludeContent bool   `json:"include_content,omitempty" jsonschema:"Include the source text of matching symbols (default false)"`
	Repo           string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`

	Mode         string   `json:"mode,omitempty" jsonschema:"Retrievers: hybrid (default: keyword and vector fused; keyword only when the index has no embeddings), keyword, or vector"`
	Lang         []string `json:"lang,omitempty" jsonschema:"Keep only hits in these languages (as indexed: go, python, typescript, ...; at most 16)"`
	Kind         []string `json:"kind,omitempty" jsonschema:"Keep only hits of these kinds: function, method, constructor, class, struct, enum, record, union, type_alias, module, interface, trait, protocol, file (class also keeps structs, enums...; interface also keeps traits; file implies include_files)"`
	Name         string   `json:"name,omitempty" jsonschema:"Keep only symbols whose name matches this glob, case-insensitively (e.g. *Handler)"`
	Path         string   `json:"path,omitempty" jsonschema:"Keep only hits under this repo-relative path prefix (e.g. pkg/auth/)"`
	MinScore     float64  `json:"min_score,omitempty" jsonschema:"Drop hits scoring below this (0..1; the best hit scores 1)"`
	IncludeFiles bool     `json:"include_files,omitempty" jsonschema:"Also search files by path and name"`
	Budget
}

// QueryKinds are the values QueryInput.Kind accepts: every schema.Kind,
// the symbol tables in lower case (class, interface, ... keep every kind
// of their table) and "file".
func QueryKinds() []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range schema.Kinds {
		add(string(k))
	}
	for _, l := range schema.SymbolLabels {
		add(strings.ToLower(string(l)))
	}
	add(strings.ToLower(string(schema.LabelFile)))
	return out
}

// queryOptions validates in and turns it into the search options (without
// Vectors and Source), the processes and symbols to list, and the
// trimmed search text.
func queryOptions(in QueryInput) (query.Options, int, int, string, error) {
	var o query.Options
	for _, f := range []struct{ name, v string }{{"search_query", in.SearchQuery}, {"task_context", in.TaskContext}, {"goal", in.Goal}} {
		if err := checkLen(f.name, f.v, MaxTextBytes); err != nil {
			return o, 0, 0, "", err
		}
	}
	q := strings.TrimSpace(in.SearchQuery)
	if q == "" {
		return o, 0, 0, "", inputErr("search_query is required: say what you are looking for, e.g. \"parse config file\"")
	}
	if in.Limit < 0 || in.MaxSymbols < 0 {
		return o, 0, 0, "", inputErr("limit and max_symbols must not be negative (got %d, %d)", in.Limit, in.MaxSymbols)
	}
	limit := clamp(in.Limit, DefaultQueryLimit, 1, MaxQueryLimit)
	maxSym := clamp(in.MaxSymbols, DefaultMaxSymbols, 1, MaxMaxSymbols)
	mode := query.Mode(strings.ToLower(strings.TrimSpace(in.Mode)))
	switch mode {
	case "", query.ModeHybrid, query.ModeKeyword, query.ModeVector:
	default:
		return o, 0, 0, "", inputErr("unknown mode %.40q: use hybrid, keyword or vector", in.Mode)
	}
	if !(in.MinScore >= 0 && in.MinScore <= 1) { // also refuses NaN
		return o, 0, 0, "", inputErr("min_score must be between 0 and 1 (got %v)", in.MinScore)
	}
	lang, err := filterValues("lang", in.Lang)
	if err != nil {
		return o, 0, 0, "", err
	}
	for _, l := range lang {
		if !langShape(l) {
			return o, 0, 0, "", inputErr("lang %.40q is not a language name (letters, digits, _ + # -)", l)
		}
	}
	kind, err := filterValues("kind", in.Kind)
	if err != nil {
		return o, 0, 0, "", err
	}
	known := QueryKinds()
	files := in.IncludeFiles
	for _, k := range kind {
		if !slices.Contains(known, k) {
			return o, 0, 0, "", inputErr("unknown kind %.40q: use %s", k, strings.Join(known, ", "))
		}
		if k == strings.ToLower(string(schema.LabelFile)) {
			files = true // a kind filter of files finds nothing unless files are searched
		}
	}
	if err := checkLen("name", in.Name, MaxNameBytes); err != nil {
		return o, 0, 0, "", err
	}
	if err := checkLen("path", in.Path, MaxNameBytes); err != nil {
		return o, 0, 0, "", err
	}
	name := strings.TrimSpace(in.Name)
	if name != "" {
		if _, err := path.Match(name, ""); err != nil {
			return o, 0, 0, "", inputErr("name %.80q is not a valid glob (* ? [a-z], \\ escapes): %v", name, err)
		}
	}
	// Hits searched: enough to fill limit processes and max_symbols
	// definitions; more costs expansion and grouping time (measured: 50
	// hits take ~1.5x the time of 20 on prometheus).
	hits := min(max(limit*4, maxSym, 20), 200)
	o = query.Options{Mode: mode, Limit: hits, MaxProcesses: limit, MinScore: in.MinScore, Lang: lang, Kind: kind,
		NameGlob: name, PathPrefix: strings.TrimSpace(in.Path), Files: files, Content: in.IncludeContent}
	return o, limit, maxSym, q, nil
}

// ValidateQuery checks a query input without searching (a driver that
// runs the tool on several repositories refuses bad input once, up front).
func ValidateQuery(in QueryInput) error {
	_, _, _, _, err := queryOptions(in)
	return err
}

// filterValues splits comma-separated values (the CLI passes "go,python"
// as one), lower-cases them and bounds their number and size.
func filterValues(field string, vs []string) ([]string, error) {
	if len(vs) > MaxFilterValues {
		return nil, inputErr("%s lists %d values, at most %d", field, len(vs), MaxFilterValues)
	}
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			if len(p) > MaxFilterValueBytes {
				return nil, inputErr("%s value %.40q... is %d bytes long, at most %d", field, p, len(p), MaxFilterValueBytes)
			}
			out = append(out, p)
		}
	}
	if len(out) > MaxFilterValues {
		return nil, inputErr("%s lists %d values, at most %d", field, len(out), MaxFilterValues)
	}
	return out, nil
}

// langShape reports whether s looks like a language name as the index
// spells it (go, python, c_sharp, c++, c#, objective-c).
func langShape(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("_+#-", r)) {
			return false
		}
	}
	return s != ""
}

// ContextWeight is the weight of the task_context + goal ranked list in
// the fusion with the search_query list (which has weight 1): a hint that
// reorders near-ties and adds context-only hits below the query's own.
const ContextWeight = 0.5

// Query answers the query tool: query.Search on search_query with the
// input's mode and filters, and, when task_context or goal is given, a
// second search on their words (same mode and filters) whose ranked list
// is fused with the first by weighted reciprocal rank fusion (weights 1
// and ContextWeight). Results are grouped into processes, at most limit
// processes with at most max_symbols symbols each, and at most
// max_symbols definitions.
//
// pack is the index's search pack: the keyword engine, the graph behind
// search and the source text include_content asks for.
func Query(ctx context.Context, pack *query.Pack, in QueryInput, vectors query.VectorFunc) (*query.Result, error) {
	opts, limit, maxSym, q, err := queryOptions(in)
	if err != nil {
		return nil, err
	}
	budget, err := in.Budget.tokens(DefaultQueryTokens)
	if err != nil {
		return nil, err
	}
	opts.Vectors = vectors
	hits := opts.Limit
	res, err := query.Search(ctx, pack, q, opts)
	if err != nil {
		if errors.Is(err, query.ErrNoVectors) || errors.Is(err, query.ErrNoPack) {
			return nil, err
		}
		return nil, fmt.Errorf("search: %w", err)
	}
	extra := strings.TrimSpace(strings.TrimSpace(in.TaskContext) + " " + strings.TrimSpace(in.Goal))
	if extra != "" {
		cres, err := query.Search(ctx, pack, extra, opts)
		if err != nil {
			return nil, fmt.Errorf("search task_context/goal: %w", err)
		}
		res = fuseContext(res, cres, hits, limit)
		res.Notices = append(res.Notices, "ranked with task_context/goal")
	}
	capResult(res, limit, maxSym)
	res.Budget = fit(res, budget, shrinkResult(res), "raise max_tokens, or lower limit / max_symbols; include_content makes answers long")
	return res, nil
}

// shrinkResult cuts the least important part of a search answer for its
// token budget: the ranked files beyond 5, the definitions beyond 3, then
// the last flow (with its symbols), down to one, then the definitions,
// then the first flow's steps.
func shrinkResult(r *query.Result) func() (string, bool) {
	defs, procs, files := len(r.Definitions), len(r.Processes), len(r.Files)
	return func() (string, bool) {
		if what, ok := halve(&r.Files, 5, files, "files"); ok {
			return what, true
		}
		if what, ok := halve(&r.Definitions, 3, defs, "definitions"); ok {
			return what, true
		}
		if len(r.Processes) > 1 {
			last := r.Processes[len(r.Processes)-1].ID
			r.Processes = r.Processes[:len(r.Processes)-1]
			kept := r.ProcessSymbols[:0]
			for _, ps := range r.ProcessSymbols {
				if ps.ProcessID != last {
					kept = append(kept, ps)
				}
			}
			r.ProcessSymbols = kept
			return fmt.Sprintf("processes: %d of %d listed", len(r.Processes), procs), true
		}
		if what, ok := halve(&r.Definitions, 0, defs, "definitions"); ok {
			return what, true
		}
		if len(r.Processes) == 1 {
			p := &r.Processes[0]
			return halve(&p.Steps, 1, p.StepCount, "steps of "+p.ID)
		}
		return "", false
	}
}

// ranked lists a result's hits best first with their memberships.
func ranked(r *query.Result) ([]query.Hit, []query.Membership, map[string]query.Process) {
	byID := map[string]query.Hit{}
	var members []query.Membership
	procs := map[string]query.Process{}
	for _, p := range r.Processes {
		procs[p.ID] = p
	}
	for _, ps := range r.ProcessSymbols {
		byID[ps.ID] = ps.Hit
		members = append(members, query.Membership{SymbolID: ps.ID, ProcessID: ps.ProcessID, Step: ps.StepIndex})
	}
	for _, h := range r.Definitions {
		byID[h.ID] = h
	}
	hits := make([]query.Hit, 0, len(byID))
	for _, h := range byID {
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits, members, procs
}

// fuseContext fuses the main and the context result by weighted RRF and
// regroups the fused hits into processes.
func fuseContext(main, extra *query.Result, n, maxProcesses int) *query.Result {
	mh, mm, mp := ranked(main)
	ch, cm, cp := ranked(extra)
	score := map[string]float64{}
	hit := map[string]query.Hit{}
	for i, h := range mh {
		score[h.ID] += 1 / float64(query.RRFK+i+1)
		hit[h.ID] = h
	}
	for i, h := range ch {
		score[h.ID] += ContextWeight / float64(query.RRFK+i+1)
		if _, ok := hit[h.ID]; !ok {
			hit[h.ID] = h
		}
	}
	ceiling := (1 + ContextWeight) / float64(query.RRFK+1)
	hits := make([]query.Hit, 0, len(hit))
	for id, h := range hit {
		h.Score = score[id] / ceiling
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	for id, p := range cp {
		if _, ok := mp[id]; !ok {
			mp[id] = p
		}
	}
	out := *main
	out.Hits = hits
	out.Processes, out.ProcessSymbols, out.Definitions = query.Group(hits, append(mm, cm...), mp, maxProcesses)
	return &out
}

// capResult keeps the best limit processes, at most maxSym symbols of
// each, and at most maxSym definitions, saying what it cut.
func capResult(r *query.Result, limit, maxSym int) {
	cut := 0
	if len(r.Processes) > limit {
		cut = len(r.Processes) - limit
		r.Processes = r.Processes[:limit]
	}
	keep := map[string]bool{}
	for _, p := range r.Processes {
		keep[p.ID] = true
	}
	per := map[string]int{}
	ps := r.ProcessSymbols[:0]
	for _, s := range r.ProcessSymbols {
		if keep[s.ProcessID] && per[s.ProcessID] < maxSym {
			per[s.ProcessID]++
			ps = append(ps, s)
		}
	}
	r.ProcessSymbols = ps
	dcut := 0
	if len(r.Definitions) > maxSym {
		dcut = len(r.Definitions) - maxSym
		r.Definitions = r.Definitions[:maxSym]
	}
	if cut > 0 || dcut > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d more processes and %d more definitions matched: raise limit / max_symbols to see them", cut, dcut))
	}
}

// QueryOutput is the query tool's output: query.Result, whose JSON uses
// the reference tool's field names (processes, process_symbols,
// definitions).
type QueryOutput = query.Result
