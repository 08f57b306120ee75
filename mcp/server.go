package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/tools"
)

// Options configure a server.
type Options struct {
	// Version is reported to clients in initialize.
	Version string
	// Cwd resolves a request without "repo" when several repositories are
	// registered ("" = the working directory).
	Cwd string
	// Open tunes how databases are opened (zero: DefaultOpenOptions).
	Open graph.OpenOptions
	// Exe is the gitnexus executable. When set, each cypher call runs in a
	// child process of it (see Server.cypher), so that no statement can take
	// the server's memory; gitnexus mcp sets it to itself.
	Exe string
	// Repos, when set, is the allow-list of repositories served (registered
	// names or paths, resolved once by NewServer); others cannot be
	// reached by name, path or default.
	Repos []string
	// Tools, when set, is the allow-list of tools served; the others are
	// not listed and cannot be called.
	Tools []string
}

// Server is the gitnexus MCP server: an SDK server with the tools and
// resources registered, over a pool of open indexes.
type Server struct {
	SDK   *sdk.Server
	Repos *Repos

	cache     *queryCache // exact-match answers of the query tool
	emb       embedder    // the embedding model, opened on first need
	toolNames []string    // registered tools, in order (the context resource lists them)
	// inputSchemas are the tools' plain input schemas, by name.
	inputSchemas map[string]*jsonschema.Schema
	exe          string // Options.Exe
}

// NewServer builds a server, checking the allow-lists of opts: a name
// that is no registered repository or no tool is an ErrAllowList error
// listing the valid ones. Close the server to close its databases.
func NewServer(opts Options) (*Server, error) {
	allow, err := newRepoAllow(opts.Repos, opts.Cwd)
	if err != nil {
		return nil, err
	}
	s := newServer(opts)
	s.Repos.allow = allow
	if err := s.restrictTools(opts.Tools); err != nil {
		return nil, err
	}
	s.addPrompts()
	return s, nil
}

// New builds a server without allow-lists (opts.Repos and opts.Tools must
// be empty; NewServer checks them). Close it to close its databases.
func New(opts Options) *Server {
	if len(opts.Repos) > 0 || len(opts.Tools) > 0 {
		panic("mcp.New: allow-lists need mcp.NewServer")
	}
	s, err := NewServer(opts)
	if err != nil {
		panic(err) // unreachable: no allow-list to check
	}
	return s
}

func newServer(opts Options) *Server {
	v := opts.Version
	if v == "" {
		v = "dev"
	}
	s := &Server{
		SDK: sdk.NewServer(&sdk.Implementation{Name: "gitnexus", Title: "gitnexus code knowledge graph", Version: v}, &sdk.ServerOptions{
			Instructions: instructions(opts.Tools),
		}),
		Repos:        NewRepos(opts.Cwd, opts.Open),
		cache:        newQueryCache(),
		inputSchemas: map[string]*jsonschema.Schema{},
		exe:          opts.Exe,
	}
	s.SDK.AddReceivingMiddleware(s.checkArguments)
	s.addTools()
	s.addResources()
	return s
}

// toolGuide says when to use each tool, in the order the instructions
// name them.
var toolGuide = []struct{ tool, use string }{
	{"list_repos", "list_repos (or the gitnexus://repos resource) to see the indexed repositories"},
	{"query", "query to find code by meaning, grouped into execution flows"},
	{"explain", "explain for one symbol's role"},
	{"context", "context for one symbol's callers, callees and processes"},
	{"impact", "impact for a change's blast radius"},
	{"detect_changes", "detect_changes for the current git diff"},
	{"trace", "trace for a call path"},
	{"route_map", "route_map for HTTP routes and their handlers"},
	{"api_impact", "api_impact for a route's blast radius"},
	{"rename", "rename to preview a rename's exact edits"},
	{"cypher", "cypher for anything else"},
}

// instructions is the server's guide for the tools it serves (all when
// allowed is empty): a server restricted with --tools names no tool it
// does not serve.
func instructions(allowed []string) string {
	var uses []string
	for _, g := range toolGuide {
		if len(allowed) == 0 || slices.Contains(allowed, g.tool) {
			uses = append(uses, g.use)
		}
	}
	return "gitnexus indexes repositories into a code graph. Use " + strings.Join(uses, "; ") + ". Every answer takes max_tokens and says when the index is stale."
}

// Close closes every open database.
func (s *Server) Close() error {
	if s.emb.emb != nil {
		s.emb.emb.Close()
	}
	return s.Repos.Close()
}

// ServeStdio serves one client over stdin/stdout until it disconnects or
// ctx ends, through LineTransport: no input line ends the session, and
// every request received before stdin closes is answered.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.ServeIO(ctx, os.Stdin, os.Stdout)
}

// ServeIO is ServeStdio over any pair of streams.
func (s *Server) ServeIO(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	return s.SDK.Run(ctx, &LineTransport{In: in, Out: out})
}

// ToolTimeout bounds one tool call. When it passes, the call's statements
// are interrupted and the client gets an error at once, even if a
// statement is slow to notice the interrupt (its connection returns to
// the pool when it does).
var ToolTimeout = 45 * time.Second

// slowCall is when a call is logged as slow (with its tool and repo).
const slowCall = 5 * time.Second

// withRepo acquires the request's repository and runs fn under
// ToolTimeout; errors become tool errors the client sees (the server keeps
// serving).
func withRepo[Out any](s *Server, ctx context.Context, tool, repo string, fn func(context.Context, *Repo) (Out, error)) (*sdk.CallToolResult, Out, error) {
	var zero Out
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, ToolTimeout)
	defer cancel()
	r, res, err := callRepo(s, ctx, start, tool, repo, fn)
	if errors.Is(res.err, graph.ErrSwapped) {
		// A re-analyze retired the database before the call's first
		// statement opened it: once more, on the new index.
		r, res, err = callRepo(s, ctx, start, tool, repo, fn)
	}
	if err != nil {
		return nil, zero, protocolError(tool, repo, err)
	}
	if d := time.Since(start); d > slowCall {
		slog.Warn("slow mcp tool call", "tool", tool, "repo", r.Entry.Name, "duration", d, "err", res.err)
	} else {
		slog.Debug("mcp tool", "tool", tool, "repo", r.Entry.Name, "ms", d.Milliseconds(), "err", res.err)
	}
	if res.err != nil {
		return nil, zero, protocolError(tool, r.Entry.Name, res.err)
	}
	tools.NameRepo(res.out, r.Entry)
	tools.MarkStale(res.out, r.Entry.Path, r.DB.Meta())
	return nil, res.out, nil
}

// result is one tool call's answer or error.
type result[Out any] struct {
	out Out
	err error
}

// callRepo acquires repo and runs fn on it until ctx ends: err is
// Acquire's, res the call's. The repository is released when fn returns,
// even after ctx ended.
func callRepo[Out any](s *Server, ctx context.Context, start time.Time, tool, repo string, fn func(context.Context, *Repo) (Out, error)) (*Repo, result[Out], error) {
	r, err := s.Repos.Acquire(ctx, repo)
	if err != nil {
		return nil, result[Out]{}, err
	}
	done := make(chan result[Out], 1)
	go func() {
		defer r.Release()
		// One call never takes the server down: a panic (a damaged index
		// the checks missed; a fault reading a mapped pack file someone
		// cut short, under SetPanicOnFault) is this call's error.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if p := recover(); p != nil {
				slog.Error("mcp tool call panicked", "tool", tool, "repo", r.Entry.Name, "panic", p, "stack", string(debug.Stack()))
				done <- result[Out]{err: fmt.Errorf("%s on %s failed: %v: the index may be damaged; run `gitnexus analyze` there", tool, r.Entry.Name, p)}
			}
		}()
		out, err := fn(ctx, r)
		done <- result[Out]{out, err}
	}()
	var res result[Out]
	select {
	case res = <-done:
	case <-ctx.Done():
		res.err = fmt.Errorf("%s on %s stopped after %v (%w): narrow the request (lower limit or depth)", tool, r.Entry.Name, time.Since(start).Round(time.Millisecond), ctx.Err())
	}
	return r, res, nil
}

// protocolError is how a tool's error reaches the client: as a tool error
// (isError, the message for the agent to act on), the server serving on.
// Bad input, a missing symbol and a repository problem are the caller's to
// fix and pass as they are; anything else is an internal failure, logged
// here with its tool and repository.
func protocolError(tool, repo string, err error) error {
	switch {
	case errors.Is(err, tools.ErrInput), errors.Is(err, tools.ErrNotFound), errors.Is(err, ErrRepo),
		errors.Is(err, graph.ErrNoIndex), errors.Is(err, graph.ErrSwapped), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
	default:
		slog.Error("mcp tool failed", "tool", tool, "repo", repo, "err", err)
	}
	return err
}

// listRepos pages through the registry.
func (s *Server) listRepos(in tools.ListReposInput) (*tools.ListReposOutput, error) {
	list, err := s.Repos.List()
	if err != nil {
		return nil, err
	}
	return tools.ListRepos(list, in)
}

// addRepoTool registers a tool that runs fn on the repository the input's
// "repo" names (repoOf reads it), under withRepo.
func addRepoTool[In, Out any](s *Server, t *sdk.Tool, repoOf func(In) string, fn func(context.Context, *Repo, In) (Out, error)) {
	addTool(s, t, func(ctx context.Context, in In) (Out, error) {
		_, out, err := withRepo(s, ctx, t.Name, repoOf(in), func(ctx context.Context, r *Repo) (Out, error) { return fn(ctx, r, in) })
		return out, err
	})
}

// addTool registers a tool with plain input and output schemas (see
// schema.go) derived from In and Out, its output normalized to match.
func addTool[In, Out any](s *Server, t *sdk.Tool, fn func(context.Context, In) (Out, error)) {
	in, err := tools.InputSchema[In]()
	if err != nil {
		panic(err) // a programming error: the tools' types are fixed
	}
	outSchema, err := tools.OutputSchema[Out]()
	if err != nil {
		panic(err)
	}
	t.InputSchema, t.OutputSchema = in, outSchema
	s.inputSchemas[t.Name] = in
	s.toolNames = append(s.toolNames, t.Name)
	sdk.AddTool(s.SDK, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		out, err := fn(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		v, err := tools.PlainValue(out, outSchema)
		return nil, v, err
	})
}

// onIndex adapts a tool that reads the index (its graph snapshot, and its
// database for stored source).
func onIndex[In, Out any](fn func(context.Context, tools.Index, In) (Out, error)) func(context.Context, *Repo, In) (Out, error) {
	return onIndexRoot(func(ctx context.Context, ix tools.Index, _ string, in In) (Out, error) { return fn(ctx, ix, in) })
}

// onIndexRoot adapts a tool that also reads the repository's files under
// its root (the git diff, route declarations, a rename's occurrences).
func onIndexRoot[In, Out any](fn func(context.Context, tools.Index, string, In) (Out, error)) func(context.Context, *Repo, In) (Out, error) {
	return func(ctx context.Context, r *Repo, in In) (Out, error) {
		ix, err := r.Index()
		if err != nil {
			var zero Out
			return zero, err
		}
		return fn(ctx, ix, r.Entry.Path, in)
	}
}

func (s *Server) addTools() {
	// Every tool only reads, and the same call on the same index gives the
	// same answer.
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	addRepoTool(s, &sdk.Tool{Name: "query", Annotations: ro,
		Description: "Search the code graph by keyword and meaning. Returns execution flows (processes) ranked by relevance, " +
			"each with its matching symbols (process_symbols: filePath, startLine, step_index), plus definitions in no flow, and the files ranked (files). " +
			"task_context and goal take part in ranking; mode, lang, kind, name (glob), path (prefix), min_score and include_files narrow it. " +
			"Next: context on a symbol for its callers and callees."},
		func(in tools.QueryInput) string { return in.Repo }, s.query)
	addRepoTool(s, &sdk.Tool{Name: "context", Annotations: ro,
		Description: "360-degree view of one symbol: incoming and outgoing edges by type (CALLS, HAS_METHOD, IMPORTS, EXTENDS, IMPLEMENTS, DEFINES) " +
			"with confidence, the processes it is a step of, its community, and whether its callers are complete or a lower bound. " +
			"Several matches give status ambiguous with candidates: call again with uid."},
		func(in tools.ContextInput) string { return in.Repo }, onIndex(tools.Context))
	addRepoTool(s, &sdk.Tool{Name: "impact", Annotations: ro,
		Description: "Blast radius of changing a symbol or file: affected symbols by depth (upstream: what depends on it; downstream: what it depends on), " +
			"affected processes and modules, a risk level, and whether the answer is exact or a lower bound (unresolved call sites)."},
		func(in tools.ImpactInput) string { return in.Repo }, onIndex(tools.Impact))
	addRepoTool(s, &sdk.Tool{Name: "detect_changes", Annotations: ro,
		Description: "Map the git diff (unstaged, staged, all, or compare against base_ref) to changed symbols by line overlap, and to the execution flows they are steps of."},
		func(in tools.DetectChangesInput) string { return in.Repo }, onIndexRoot(tools.DetectChanges))
	addRepoTool(s, &sdk.Tool{Name: "trace", Annotations: ro,
		Description: "Shortest directed call path from one symbol to another over CALLS and HAS_METHOD edges, with file:line and confidence per hop."},
		func(in tools.TraceInput) string { return in.Repo }, onIndex(tools.Trace))
	addRepoTool(s, &sdk.Tool{Name: "explain", Annotations: ro,
		Description: "One symbol's role, compactly: its community, the execution flows it takes part in (as entry, step or last step, at which step), " +
			"its most confident callers and callees with call-site lines and their counts, and a one-sentence summary. " +
			"Several matches give status ambiguous with candidates: call again with uid."},
		func(in tools.ExplainInput) string { return in.Repo }, onIndex(tools.Explain))
	addRepoTool(s, &sdk.Tool{Name: "route_map", Annotations: ro,
		Description: "HTTP routes -> handler symbols, read from the indexed source (net/http, gin, echo, chi, Flask, FastAPI, Django, Express, Spring): " +
			"method, path, framework, declaring file:line, and the handler's symbol id (or why it is unresolved). Filter by method, path or framework."},
		func(in tools.RouteMapInput) string { return in.Repo }, onIndexRoot(tools.RouteMap))
	addRepoTool(s, &sdk.Tool{Name: "api_impact", Annotations: ro,
		Description: "Blast radius of an HTTP route: its handler (as route_map finds it), the execution flows the handler takes part in, and impact upstream of it (what depends on it, risk)."},
		func(in tools.APIImpactInput) string { return in.Repo }, onIndexRoot(tools.APIImpact))
	addRepoTool(s, &sdk.Tool{Name: "rename", Annotations: ro,
		Description: "Preview renaming a symbol (nothing is written): the exact edits (file, line, column, old, new, confidence) for its definition and every call site the graph links to it, " +
			"and every other occurrence of the name, listed as unresolved for you to check; complete says there are none. The CLI's rename --apply writes them."},
		func(in tools.RenameInput) string { return in.Repo }, onIndexRoot(tools.Rename))
	addRepoTool(s, &sdk.Tool{Name: "cypher", Annotations: ro,
		Description: "Run one read-only Cypher statement on the code graph (writes are rejected). " + tools.SchemaSummary() +
			" Read gitnexus://repo/{name}/schema for node properties."},
		func(in tools.CypherInput) string { return in.Repo }, s.cypher)
	addTool(s, &sdk.Tool{Name: "list_repos", Annotations: ro,
		Description: "List indexed repositories (paginated): name, path, indexed date, last commit, stats."},
		func(ctx context.Context, in tools.ListReposInput) (*tools.ListReposOutput, error) {
			return s.listRepos(in)
		})
}
