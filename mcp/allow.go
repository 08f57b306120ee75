package mcp

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
)

// ErrAllowList marks an allow-list (Options.Repos, Options.Tools) that
// names something unknown: a usage error, its message listing the valid
// names.
var ErrAllowList = errors.New("allow-list")

// maxAllow bounds an allow-list's entries.
const maxAllow = 256

// repoAllow is the set of repositories a server may serve, by canonical
// root path (names may repeat in the registry; paths do not). nil serves
// every registered repository.
type repoAllow struct {
	paths map[string]bool
	names []string // as resolved at start, sorted: for messages
}

// newRepoAllow resolves each entry of list (a registered name or path,
// graph.ResolveIn's RegisteredOnly rule relative to cwd) once, at start.
// An entry that names no registered repository is an ErrAllowList error
// listing the registered names.
func newRepoAllow(list []string, cwd string) (*repoAllow, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if len(list) > maxAllow {
		return nil, fmt.Errorf("%w: --repos names %d repositories, at most %d", ErrAllowList, len(list), maxAllow)
	}
	a := &repoAllow{paths: map[string]bool{}}
	for _, x := range list {
		x = strings.TrimSpace(x)
		if x == "" {
			return nil, fmt.Errorf("%w: --repos has an empty entry", ErrAllowList)
		}
		e, err := graph.ResolveIn(graph.RegisteredOnly, x, cwd)
		if err != nil {
			// err lists the registered names and says what to do.
			return nil, fmt.Errorf("%w: --repos %q: %w", ErrAllowList, x, err)
		}
		if !a.paths[e.Path] {
			a.paths[e.Path] = true
			a.names = append(a.names, e.Name)
		}
	}
	sort.Strings(a.names)
	return a, nil
}

// allows reports whether e may be served.
func (a *repoAllow) allows(e graph.RepoEntry) bool { return a == nil || a.paths[e.Path] }

// filter keeps the entries a allows.
func (a *repoAllow) filter(list []graph.RepoEntry) []graph.RepoEntry {
	if a == nil {
		return list
	}
	return slices.DeleteFunc(list, func(e graph.RepoEntry) bool { return !a.paths[e.Path] })
}

// refuse is the error for a repository argument a does not allow; it is
// the same whether the argument names a registered repository, an
// unregistered path or nothing.
func (a *repoAllow) refuse(arg string) error {
	if len(arg) > 200 {
		arg = arg[:200] + "…"
	}
	return fmt.Errorf("%w: %w: %q is not served here: this server serves only %s", ErrRepo, graph.ErrUnknownRepo, arg, strings.Join(a.names, ", "))
}

// restrictTools removes from s every tool not in allow (nil: keep all).
// A name that is no tool is an ErrAllowList error listing the tools.
func (s *Server) restrictTools(allow []string) error {
	if len(allow) == 0 {
		return nil
	}
	if len(allow) > maxAllow {
		return fmt.Errorf("%w: --tools names %d tools, at most %d", ErrAllowList, len(allow), maxAllow)
	}
	keep := map[string]bool{}
	for _, n := range allow {
		n = strings.TrimSpace(n)
		if !slices.Contains(s.toolNames, n) {
			shown := n
			if len(shown) > 100 {
				shown = shown[:100] + "…"
			}
			return fmt.Errorf("%w: --tools: no tool is named %q; the tools are %s", ErrAllowList, shown, strings.Join(s.toolNames, ", "))
		}
		keep[n] = true
	}
	var drop, kept []string
	for _, n := range s.toolNames {
		if keep[n] {
			kept = append(kept, n)
		} else {
			drop = append(drop, n)
			delete(s.inputSchemas, n)
		}
	}
	s.SDK.RemoveTools(drop...)
	s.toolNames = kept
	return nil
}

// hasTools reports whether every named tool is served.
func (s *Server) hasTools(names ...string) bool {
	for _, n := range names {
		if !slices.Contains(s.toolNames, n) {
			return false
		}
	}
	return true
}

// ToolNames lists the tools the server serves, in registration order.
func (s *Server) ToolNames() []string { return slices.Clone(s.toolNames) }
