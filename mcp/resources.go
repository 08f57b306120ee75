package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/tools"
)

const uriPrefix = "gitnexus://repo/"

func (s *Server) addResources() {
	s.SDK.AddResource(&sdk.Resource{URI: "gitnexus://repos", Name: "repos", Title: "All indexed repositories",
		Description: "Every indexed repository with its stats. Read this first to find repo names.", MIMEType: "application/json"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			out, err := s.listRepos(tools.ListReposInput{Limit: 200})
			if err != nil {
				return nil, resourceError(req.Params.URI, err)
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
	v, err := tools.Answer(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", uri, err)
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}

// readRepoResource serves gitnexus://repo/{name}/{what}[/{id}]. The URI
// is split on '/' first and each segment percent-decoded once; {name} must
// then be a registered repository's name exactly — no paths, so "%2F"
// (and, decoded once, "%252F") names nothing — and {what} one of the
// templates. Anything else is "resource not found", the same answer
// whether or not a path exists on disk.
func (s *Server) readRepoResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok || len(uri) > maxURI {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	name, err := url.PathUnescape(parts[0])
	if err != nil || !s.registeredName(name) {
		return nil, repoNotFound(uri, name)
	}
	r, err := s.Repos.Acquire(ctx, name)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	defer r.Release()
	var v any
	ix, err := r.Index()
	if err != nil && parts[1] != "context" && parts[1] != "schema" {
		return nil, resourceError(uri, err)
	}
	switch parts[1] {
	case "context":
		v, err = tools.RepoContext(ctx, r.Entry, r.DB.Meta(), s.toolNames)
	case "processes":
		v, err = tools.Processes(ctx, ix, tools.ProcessesInput{})
	case "process":
		if len(parts) < 3 || parts[2] == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		id, uerr := url.PathUnescape(parts[2])
		if uerr != nil {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		v, err = tools.ProcessDetail(ctx, ix, tools.ProcessDetailInput{ID: id})
	case "communities", "clusters":
		v, err = tools.Communities(ctx, ix, tools.CommunitiesInput{})
	case "schema":
		v = tools.Schema()
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, resourceError(uri, err)
	}
	tools.NameRepo(v, r.Entry)
	tools.MarkStale(v, r.Entry.Path, r.DB.Meta())
	return jsonResource(uri, v)
}

// maxURI bounds a resource URI; longer ones name nothing.
const maxURI = 8192

// registeredName reports whether name is a registered repository's name.
func (s *Server) registeredName(name string) bool {
	if name == "" {
		return false
	}
	list, err := s.Repos.List()
	if err != nil {
		return false
	}
	for _, e := range list {
		if e.Name == name {
			return true
		}
	}
	return false
}

// repoNotFound is the "resource not found" error (-32602, the code
// sdk.ResourceNotFoundError uses) for a URI whose repo
// segment is no registered name; it says where to find the names.
func repoNotFound(uri, name string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	if len(name) > 200 {
		name = name[:200] + "…"
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Data: data,
		Message: fmt.Sprintf("resource not found: no registered repository is named %q (repository paths are not accepted here): read gitnexus://repos for the names", name)}
}

// resourceError gives a resource's error its JSON-RPC code: an unknown
// repository, a missing index or a missing item is "resource not found"
// (-32602 with the URI in data, the MCP spec's code since SEP-2164, as
// sdk.ResourceNotFoundError), bad input is -32602 (invalid params),
// anything else -32603 (internal error, logged).
func resourceError(uri string, err error) error {
	switch {
	case errors.Is(err, ErrRepo), errors.Is(err, graph.ErrNoIndex), errors.Is(err, tools.ErrNotFound):
		data, _ := json.Marshal(map[string]string{"uri": uri})
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s not found: %v", uri, err), Data: data}
	case errors.Is(err, tools.ErrInput):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	}
	slog.Error("mcp resource failed", "uri", uri, "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
}
