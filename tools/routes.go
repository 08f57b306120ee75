package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// RouteMapInput is the route_map tool's input.
type RouteMapInput struct {
	Method    string `json:"method,omitempty" jsonschema:"Keep routes of this HTTP method (GET, POST, ...; ANY matches routes for every method)"`
	Path      string `json:"path,omitempty" jsonschema:"Keep routes whose path contains this text (e.g. /users)"`
	Framework string `json:"framework,omitempty" jsonschema:"Keep routes of this framework: net/http, gin, echo, chi, flask, fastapi, django, express, spring"`
	Repo      string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// Route is one HTTP route and the symbol that handles it.
type Route struct {
	Method    string `json:"method"` // GET, POST, ... or ANY
	Path      string `json:"path"`
	Framework string `json:"framework"`
	FilePath  string `json:"filePath"`
	Line      int    `json:"line"`           // where the route is declared
	Handler   string `json:"handler"`        // as written in the source
	HandlerID string `json:"handler_id"`     // the handling symbol, "" when unresolved
	Resolved  string `json:"resolution"`     // decorated | same_file | unique_name | unresolved | inline
	Note      string `json:"note,omitempty"` // why unresolved
}

// RouteMapOutput lists a repository's HTTP routes.
type RouteMapOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Routes     []Route           `json:"routes"`
	Total      int               `json:"total"`
	Frameworks []FrameworkCount  `json:"frameworks"`
	Notices    []string          `json:"notices,omitempty"`
	Budget     *query.BudgetNote `json:"budget,omitempty"`
}

// FrameworkCount is how many routes of one framework an answer lists.
type FrameworkCount struct {
	Framework string `json:"framework"`
	Routes    int    `json:"routes"`
}

// Route scanning bounds and the default budget.
const (
	maxRouteFileBytes  = 1 << 20
	maxRoutes          = 5000
	DefaultRouteTokens = 8000
)

// RouteFrameworks are the frameworks route_map reads.
var RouteFrameworks = []string{"net/http", "gin", "echo", "chi", "flask", "fastapi", "django", "express", "spring"}

// RouteMap lists the HTTP routes declared in the indexed source files of
// the repository at root (test code left out) for the frameworks of
// RouteFrameworks, each with its handler symbol: the function a decorator
// or annotation sits on, else a symbol of that name in the same file, else
// the one symbol of that name in the repository; otherwise the handler is
// reported unresolved, never guessed. Only files the index holds are read,
// each at most 1 MiB.
func RouteMap(ctx context.Context, ix Index, root string, in RouteMapInput) (*RouteMapOutput, error) {
	for _, f := range []struct{ name, v string }{{"method", in.Method}, {"path", in.Path}, {"framework", in.Framework}} {
		if err := checkLen(f.name, f.v, MaxNameBytes); err != nil {
			return nil, err
		}
	}
	if in.Framework != "" && !slices.Contains(RouteFrameworks, strings.ToLower(in.Framework)) {
		return nil, inputErr("framework %.60q is not one route_map reads: %s", in.Framework, strings.Join(RouteFrameworks, ", "))
	}
	budget, err := in.Budget.tokens(DefaultRouteTokens)
	if err != nil {
		return nil, err
	}
	g := ix.Graph
	files, err := g.FindFiles(ctx, func(h *query.Hit, _ string) bool {
		return !h.IsTest && routeLanguage(h.Language)
	}, 1<<30)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].ID < files[j].ID })
	out := &RouteMapOutput{Routes: []Route{}, Frameworks: []FrameworkCount{}}
	perFramework := map[string]int{}
	var all []Route
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src, err := readIndexed(root, f.ID)
		if err != nil {
			continue // gone or unreadable since analyze: staleness says so
		}
		for _, r := range scanRoutes(f.ID, f.Language, src) {
			all = append(all, r)
			if len(all) >= maxRoutes {
				break
			}
		}
	}
	// The handlers' symbols, looked up in one pass over the snapshot.
	names := map[string]bool{}
	for _, r := range all {
		names[handlerName(r.Handler)] = true
	}
	byName := map[string][]query.Node{}
	syms, err := g.Find(ctx, func(h *query.Hit, _ string) bool {
		return schema.Label(h.Label).IsSymbol() && names[h.Name]
	}, 1<<30)
	if err != nil {
		return nil, fmt.Errorf("look up handlers: %w", err)
	}
	for _, n := range syms {
		if len(byName[n.Name]) < maxHandlerCands {
			byName[n.Name] = append(byName[n.Name], n)
		}
	}
	for i := range all {
		resolveHandler(&all[i], byName)
	}
	for _, r := range all {
		if in.Method != "" && !strings.EqualFold(r.Method, in.Method) && r.Method != "ANY" {
			continue
		}
		if in.Path != "" && !strings.Contains(r.Path, in.Path) {
			continue
		}
		if in.Framework != "" && !strings.EqualFold(r.Framework, in.Framework) {
			continue
		}
		out.Routes = append(out.Routes, r)
		perFramework[r.Framework]++
	}
	for _, f := range RouteFrameworks {
		if n := perFramework[f]; n > 0 {
			out.Frameworks = append(out.Frameworks, FrameworkCount{Framework: f, Routes: n})
		}
	}
	out.Total = len(out.Routes)
	if len(all) >= maxRoutes {
		out.Notices = append(out.Notices, fmt.Sprintf("stopped at %d routes: filter by path or framework", maxRoutes))
	}
	total := out.Total
	out.Budget = fit(out, budget, func() (string, bool) { return halve(&out.Routes, 1, total, "routes") }, "raise max_tokens, or filter by path, method or framework")
	return out, nil
}

func routeLanguage(l string) bool {
	switch l {
	case "go", "python", "javascript", "typescript", "java":
		return true
	}
	return false
}

// readIndexed reads an indexed file of the repository at root: a
// repo-relative path, no parent steps, a regular file of bounded size.
func readIndexed(root, rel string) ([]byte, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.Contains("/"+rel+"/", "/../") {
		return nil, fmt.Errorf("not a repository path: %q", rel)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxRouteFileBytes {
		return nil, fmt.Errorf("%s: not a regular file under %d bytes", rel, maxRouteFileBytes)
	}
	return os.ReadFile(p)
}

var (
	// Go: gin/echo (r.GET), chi (r.Get), net/http (http.HandleFunc,
	// mux.Handle), with a Go 1.22 "METHOD /path" pattern split.
	goVerb   = regexp.MustCompile(`\.(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Any|Get|Post|Put|Delete|Patch|Head|Options|HandleFunc|Handle)\(\s*"([^"]*)"\s*,\s*(.+)$`)
	goHandle = regexp.MustCompile(`\.Handle\(\s*"(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)"\s*,\s*"([^"]*)"\s*,\s*(.+)$`)
	// Python: Flask @app.route, Flask 2 / FastAPI @app.get, Django path().
	pyRoute  = regexp.MustCompile(`^\s*@\s*[\w.]+\.route\(\s*r?["']([^"']*)["'](.*)$`)
	pyVerb   = regexp.MustCompile(`^\s*@\s*[\w.]+\.(get|post|put|delete|patch|head|options)\(\s*r?["']([^"']*)["']`)
	pyDjango = regexp.MustCompile(`\b(?:re_)?path\(\s*r?["']([^"']*)["']\s*,\s*([\w.]+)`)
	pyMethod = regexp.MustCompile(`["'](GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)["']`)
	pyDef    = regexp.MustCompile(`^\s*(?:async\s+)?def\s+(\w+)`)
	// Express: app.get('/p', h), router.post("/p", ...).
	jsVerb = regexp.MustCompile(`\b\w+\.(get|post|put|delete|patch|all|head|options)\(\s*['"` + "`" + `]([^'"` + "`" + `]+)['"` + "`" + `]\s*,\s*(.+)$`)
	// Spring: @GetMapping("/p"), @RequestMapping(value = "/p", method = RequestMethod.GET).
	javaMapping = regexp.MustCompile(`@(Get|Post|Put|Delete|Patch|Request)Mapping\s*(?:\((.*)\))?`)
	javaPath    = regexp.MustCompile(`"([^"]*)"`)
	javaMethod  = regexp.MustCompile(`RequestMethod\.(\w+)`)
	javaDecl    = regexp.MustCompile(`^\s*(?:public|protected|private|static|final|\s)*[\w<>\[\], ?]+\s+(\w+)\s*\(`)
	javaClass   = regexp.MustCompile(`\bclass\s+\w+`)
	identTail   = regexp.MustCompile(`([A-Za-z_]\w*)\s*\)?\s*[,;)]*\s*$`)
)

// scanRoutes finds the routes declared in one file's source.
func scanRoutes(path, lang string, src []byte) []Route {
	var out []Route
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), maxRouteFileBytes)
	inDoc := false // inside a Python triple-quoted string
	for sc.Scan() {
		// A comment or docstring line declares nothing (doc examples show
		// routes).
		l := sc.Text()
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "#") {
			l = ""
		}
		if lang == "python" {
			quotes := strings.Count(t, `"""`) + strings.Count(t, "'''")
			if inDoc || quotes > 0 {
				l = ""
			}
			if quotes%2 == 1 {
				inDoc = !inDoc
			}
		}
		lines = append(lines, l)
	}
	fw := func(def string, markers map[string]string) string {
		for m, name := range markers {
			if bytes.Contains(src, []byte(m)) {
				return name
			}
		}
		return def
	}
	switch lang {
	case "go":
		framework := fw("net/http", map[string]string{"github.com/gin-gonic/gin": "gin", "github.com/labstack/echo": "echo", "github.com/go-chi/chi": "chi"})
		for i, l := range lines {
			if m := goHandle.FindStringSubmatch(l); m != nil {
				out = append(out, goRoute(path, framework, i+1, m[1], m[2], m[3]))
				continue
			}
			m := goVerb.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			method := strings.ToUpper(m[1])
			p := m[2]
			switch m[1] {
			case "Any", "Handle", "HandleFunc":
				method = "ANY"
				if v, rest, ok := strings.Cut(p, " "); ok && strings.ToUpper(v) == v && strings.HasPrefix(rest, "/") {
					method, p = v, rest // net/http patterns: "GET /items/{id}"
				}
			}
			if !strings.HasPrefix(p, "/") {
				continue // not a URL path: some other Get("key", ...)
			}
			out = append(out, goRoute(path, framework, i+1, method, p, m[3]))
		}
	case "python":
		framework := fw("flask", map[string]string{"fastapi": "fastapi"})
		for i, l := range lines {
			var method, p string
			if m := pyRoute.FindStringSubmatch(l); m != nil {
				p, method = m[1], "GET"
				if ms := pyMethod.FindAllStringSubmatch(m[2], -1); len(ms) > 0 {
					var names []string
					for _, x := range ms {
						names = append(names, x[1])
					}
					method = strings.Join(names, ",")
				}
			} else if m := pyVerb.FindStringSubmatch(l); m != nil {
				method, p = strings.ToUpper(m[1]), m[2]
			} else if m := pyDjango.FindStringSubmatch(l); m != nil && strings.Contains(path, "urls") {
				out = append(out, Route{Method: "ANY", Path: "/" + strings.TrimPrefix(m[1], "^"), Framework: "django", FilePath: path, Line: i + 1, Handler: m[2]})
				continue
			} else {
				continue
			}
			r := Route{Method: method, Path: p, Framework: framework, FilePath: path, Line: i + 1}
			for j := i + 1; j < len(lines) && j < i+20; j++ {
				if d := pyDef.FindStringSubmatch(lines[j]); d != nil {
					r.Handler, r.Resolved = d[1], "decorated"
					r.Line = i + 1
					break
				}
			}
			out = append(out, r)
		}
	case "javascript", "typescript":
		for i, l := range lines {
			m := jsVerb.FindStringSubmatch(l)
			if m == nil || !strings.HasPrefix(m[2], "/") {
				continue
			}
			r := Route{Method: strings.ToUpper(m[1]), Path: m[2], Framework: "express", FilePath: path, Line: i + 1}
			if r.Method == "ALL" {
				r.Method = "ANY"
			}
			r.Handler = handlerOf(m[3])
			out = append(out, r)
		}
	case "java":
		prefix := ""
		for i, l := range lines {
			m := javaMapping.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			p := ""
			if pm := javaPath.FindStringSubmatch(m[2]); pm != nil {
				p = pm[1]
			}
			method := strings.ToUpper(m[1])
			if m[1] == "Request" {
				method = "ANY"
				if mm := javaMethod.FindStringSubmatch(m[2]); mm != nil {
					method = strings.ToUpper(mm[1])
				}
			}
			// A mapping on the class is the prefix of the ones in it.
			isClass := false
			for j := i + 1; j < len(lines) && j < i+6; j++ {
				if javaClass.MatchString(lines[j]) {
					isClass = true
					break
				}
				if javaDecl.MatchString(lines[j]) {
					break
				}
			}
			if isClass {
				prefix = strings.TrimSuffix(p, "/")
				continue
			}
			r := Route{Method: method, Path: prefix + p, Framework: "spring", FilePath: path, Line: i + 1}
			for j := i + 1; j < len(lines) && j < i+10; j++ {
				if strings.HasPrefix(strings.TrimSpace(lines[j]), "@") {
					continue
				}
				if d := javaDecl.FindStringSubmatch(lines[j]); d != nil {
					r.Handler, r.Resolved = d[1], "decorated"
					break
				}
			}
			out = append(out, r)
		}
	}
	return out
}

func goRoute(path, framework string, line int, method, p, rest string) Route {
	return Route{Method: method, Path: p, Framework: framework, FilePath: path, Line: line, Handler: handlerOf(rest)}
}

// handlerOf is the handler named by the last argument of a route call
// ("h)", "handlers.GetUser)", "mw, getUser);"): its last identifier; an
// inline function literal is "(inline)".
func handlerOf(rest string) string {
	rest = strings.TrimSpace(rest)
	if strings.Contains(rest, "func(") || strings.Contains(rest, "=>") || strings.Contains(rest, "function") {
		return "(inline)"
	}
	args := strings.Split(rest, ",")
	last := strings.TrimSpace(args[len(args)-1])
	if m := identTail.FindStringSubmatch(last); m != nil {
		return m[1]
	}
	return last
}

// maxHandlerCands bounds the symbols of one name a handler is chosen from.
const maxHandlerCands = 200

// handlerName is the name a handler is written with, without its
// qualifier (views.order_list → order_list).
func handlerName(h string) string {
	if i := strings.LastIndex(h, "."); i >= 0 {
		return h[i+1:]
	}
	return h
}

// resolveHandler links r to its handler symbol among the symbols of its
// name (byName): the decorated/annotated function (the first symbol of
// that name in the file at or after the route's line), a symbol of that
// name in the same file, or the one symbol of that name in the
// repository.
func resolveHandler(r *Route, byName map[string][]query.Node) {
	if r.Handler == "(inline)" {
		r.Resolved = "inline"
		return
	}
	name := handlerName(r.Handler)
	if name == "" {
		r.Resolved, r.Note = "unresolved", "no handler name in the declaration"
		return
	}
	cands := byName[name]
	var same []query.Node
	for _, c := range cands {
		if c.FilePath == r.FilePath {
			same = append(same, c)
		}
	}
	if r.Resolved == "decorated" {
		best := -1
		for i, c := range same {
			if c.StartLine >= r.Line && (best < 0 || c.StartLine < same[best].StartLine) {
				best = i
			}
		}
		if best >= 0 {
			r.HandlerID = same[best].ID
			return
		}
	}
	switch {
	case len(same) == 1:
		r.HandlerID, r.Resolved = same[0].ID, "same_file"
	case len(same) == 0 && len(cands) == 1:
		r.HandlerID, r.Resolved = cands[0].ID, "unique_name"
	default:
		r.Resolved = "unresolved"
		r.Note = fmt.Sprintf("%d symbols named %s", len(cands), name)
		if len(cands) == 0 {
			r.Note = "no symbol named " + name + " in the index"
		}
	}
}

// APIImpactInput is the api_impact tool's input.
type APIImpactInput struct {
	Route  string `json:"route" jsonschema:"The route: its path (/users/:id), or METHOD and path (GET /users/:id); as route_map lists it"`
	Method string `json:"method,omitempty" jsonschema:"HTTP method, when route gives only the path"`
	Repo   string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// APIImpactOutput is a route's blast radius: its handler, the flows the
// handler takes part in, and impact upstream of it.
type APIImpactOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Status     string            `json:"status"` // found | ambiguous | unresolved
	Route      *Route            `json:"route,omitempty"`
	Candidates []Route           `json:"candidates,omitempty"`
	Processes  []ProcessRef      `json:"processes"`
	Impact     *Blast            `json:"impact,omitempty"`
	Notices    []string          `json:"notices,omitempty"`
	Budget     *query.BudgetNote `json:"budget,omitempty"`
}

// Blast is impact's answer about a handler, without the parts the route
// already says (the target, the repository).
type Blast struct {
	Risk        string              `json:"risk"`
	Summary     ImpactSummary       `json:"summary"`
	ByDepth     []DepthLevel        `json:"by_depth"`
	Processes   []AffectedProcess   `json:"affected_processes"`
	Communities []AffectedCommunity `json:"affected_modules"`
	Exact       bool                `json:"exact"`
	Notices     []string            `json:"notices,omitempty"`
}

// APIImpact finds a route (route_map's rule) and answers for its handler:
// the flows it takes part in and impact upstream (what calls it, what
// breaks with it). A route whose handler is unresolved is reported as such.
func APIImpact(ctx context.Context, ix Index, root string, in APIImpactInput) (*APIImpactOutput, error) {
	if err := checkLen("route", in.Route, MaxNameBytes); err != nil {
		return nil, err
	}
	method, path := strings.ToUpper(strings.TrimSpace(in.Method)), strings.TrimSpace(in.Route)
	if m, p, ok := strings.Cut(path, " "); ok && strings.HasPrefix(strings.TrimSpace(p), "/") {
		method, path = strings.ToUpper(m), strings.TrimSpace(p)
	}
	if path == "" {
		return nil, inputErr("route is required: a path (/users/:id) or METHOD path, as route_map lists it")
	}
	budget, err := in.Budget.tokens(DefaultImpactTokens)
	if err != nil {
		return nil, err
	}
	routes, err := RouteMap(ctx, ix, root, RouteMapInput{Method: method, Budget: Budget{MaxTokens: MaxBudgetTokens}})
	if err != nil {
		return nil, err
	}
	var found []Route
	for _, r := range routes.Routes {
		if r.Path == path {
			found = append(found, r)
		}
	}
	out := &APIImpactOutput{Processes: []ProcessRef{}}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("%w: no route %q%s in the indexed source: list them with route_map", ErrNotFound, path, map[bool]string{true: " for " + method}[method != ""])
	case len(found) > 1:
		out.Status, out.Candidates = "ambiguous", found[:min(len(found), maxCandidates)]
		out.Notices = append(out.Notices, fmt.Sprintf("%d routes match: call again with method", len(found)))
		return out, nil
	}
	r := found[0]
	out.Route = &r
	if r.HandlerID == "" {
		out.Status = "unresolved"
		out.Notices = append(out.Notices, "the handler is not resolved to a symbol ("+r.Resolved+"): "+r.Note)
		return out, nil
	}
	out.Status = "found"
	if out.Processes, err = processRefs(ix.Graph, r.HandlerID); err != nil {
		return nil, err
	}
	im, err := Impact(ctx, ix, ImpactInput{TargetUID: r.HandlerID, Budget: Budget{MaxTokens: budget}})
	if err != nil {
		return nil, err
	}
	out.Impact = &Blast{Risk: im.Risk, Summary: im.Summary, ByDepth: im.ByDepth, Processes: im.Processes, Communities: im.Communities,
		Exact: im.Exact, Notices: im.Notices}
	out.Budget = fit(out, budget, func() (string, bool) {
		if what, ok := halve(&out.Processes, 5, len(out.Processes), "processes"); ok {
			return what, true
		}
		if what, ok := im.shrink(); ok {
			out.Impact.ByDepth, out.Impact.Processes, out.Impact.Communities = im.ByDepth, im.Processes, im.Communities
			return "impact " + what, true
		}
		return "", false
	}, "raise max_tokens, or call impact on the handler with a lower maxDepth")
	return out, nil
}
