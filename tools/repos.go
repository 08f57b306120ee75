package tools

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

// ListReposInput is list_repos's input.
type ListReposInput struct {
	Limit  int `json:"limit,omitempty" jsonschema:"Max repositories in this page (default 50, max 200)"`
	Offset int `json:"offset,omitempty" jsonschema:"Repositories to skip (pass pagination.nextOffset)"`
	Budget
}

// RepoInfo is one registered repository.
type RepoInfo struct {
	Name      string         `json:"name"`
	Path      string         `json:"path"`
	IndexedAt string         `json:"indexed_at"`
	Commit    string         `json:"last_commit,omitempty"`
	Branch    string         `json:"branch,omitempty"`
	Indexed   bool           `json:"indexed"` // the index is present and readable
	Stats     map[string]int `json:"stats,omitempty"`
}

// Pagination describes a page.
type Pagination struct {
	Total      int  `json:"total"`
	Limit      int  `json:"limit"`
	Offset     int  `json:"offset"`
	Returned   int  `json:"returned"`
	HasMore    bool `json:"has_more"`
	NextOffset int  `json:"next_offset,omitempty"`
}

// ListReposOutput is a page of the registry.
type ListReposOutput struct {
	Repos      []RepoInfo        `json:"repos"`
	Pagination Pagination        `json:"pagination"`
	Budget     *query.BudgetNote `json:"budget,omitempty"`
}

// RegisteredRepos is the repository registry (graph.LoadRegistry),
// sorted by name.
func RegisteredRepos() ([]graph.RepoEntry, error) {
	reg, err := graph.LoadRegistry()
	if err != nil {
		return nil, fmt.Errorf("read the repository registry: %w", err)
	}
	list := reg.List()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, nil
}

// MaxReposPage is the most repositories ListRepos returns at once.
const MaxReposPage = 200

// ListRepos pages through the registered repositories list (in the order
// given), saying of each whether its index is present.
func ListRepos(list []graph.RepoEntry, in ListReposInput) (*ListReposOutput, error) {
	if in.Limit < 0 || in.Limit > MaxReposPage || in.Offset < 0 {
		return nil, inputErr("limit must be 1..%d and offset ≥ 0 (got %d, %d)", MaxReposPage, in.Limit, in.Offset)
	}
	limit := clamp(in.Limit, 50, 1, MaxReposPage)
	budget, err := in.Budget.tokens(DefaultListTokens)
	if err != nil {
		return nil, err
	}
	out := &ListReposOutput{Repos: []RepoInfo{}}
	for i := in.Offset; i < len(list) && len(out.Repos) < limit; i++ {
		e := list[i]
		info := RepoInfo{Name: e.Name, Path: e.Path, IndexedAt: e.IndexedAt.UTC().Format(time.RFC3339), Commit: e.Commit, Branch: e.Branch, Stats: e.Counts}
		// The index's own meta.json has the last analyze's time, commit
		// and counts; the registry's entry, those of the analyze that
		// registered it (graph.Registry.Register).
		if m, err := graph.ReadMetaHead(e.Path); err == nil {
			info.Indexed = true
			info.IndexedAt, info.Commit, info.Branch, info.Stats = m.IndexedAt.UTC().Format(time.RFC3339), m.Commit, m.Branch, m.Counts
		}
		out.Repos = append(out.Repos, info)
	}
	out.Pagination = Pagination{Total: len(list), Limit: limit, Offset: in.Offset, Returned: len(out.Repos)}
	if in.Offset+len(out.Repos) < len(list) {
		out.Pagination.HasMore = true
		out.Pagination.NextOffset = in.Offset + len(out.Repos)
	}
	page := len(out.Repos)
	out.Budget = fit(out, budget, func() (string, bool) { return halve(&out.Repos, 1, page, "repos") }, "page on with offset (pagination.next_offset), or raise max_tokens")
	if out.Budget != nil {
		out.Pagination.Returned = len(out.Repos)
		out.Pagination.HasMore = true
		out.Pagination.NextOffset = in.Offset + len(out.Repos)
	}
	return out, nil
}

// RepoContextOutput is a repository's overview.
type RepoContextOutput struct {
	Name      string         `json:"name"`
	Path      string         `json:"path"`
	IndexedAt string         `json:"indexed_at"`
	Commit    string         `json:"indexed_commit"`
	Branch    string         `json:"branch,omitempty"`
	Stats     map[string]int `json:"stats"`
	Languages map[string]int `json:"languages,omitempty"`
	Head      string         `json:"head,omitempty"`
	// CommitsBehind is how many commits HEAD is ahead of the indexed
	// commit (-1: unknown); DirtyFiles counts uncommitted changes.
	CommitsBehind int      `json:"commits_behind"`
	DirtyFiles    int      `json:"dirty_files"`
	Stale         bool     `json:"stale"`
	Staleness     string   `json:"staleness"`
	Tools         []string `json:"tools"`
}

// RepoContext describes a repository: the counts of its index (m, nil if
// unknown), and how the index compares with the working tree's HEAD.
// tools names the tools the caller serves.
func RepoContext(ctx context.Context, e graph.RepoEntry, m *graph.Meta, tools []string) (*RepoContextOutput, error) {
	out := &RepoContextOutput{Name: e.Name, Path: e.Path, Stats: map[string]int{}, CommitsBehind: -1, Tools: tools}
	if m != nil {
		out.IndexedAt, out.Commit, out.Branch, out.Languages = m.IndexedAt.UTC().Format(time.RFC3339), m.Commit, m.Branch, m.Languages
		for k, v := range m.Counts {
			out.Stats[k] = v
		}
	}
	if head, err := git(ctx, e.Path, "rev-parse", "HEAD"); err == nil {
		out.Head = strings.TrimSpace(string(head))
		if out.Commit != "" && out.Head == out.Commit {
			out.CommitsBehind = 0
		} else if out.Commit != "" {
			if n, err := git(ctx, e.Path, "rev-list", "--count", out.Commit+"..HEAD"); err == nil {
				fmt.Sscan(strings.TrimSpace(string(n)), &out.CommitsBehind)
			}
		}
		if st, err := git(ctx, e.Path, "status", "--porcelain", "--untracked-files=no"); err == nil {
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

// StaleMarker is an answer that can say its repository moved on from the
// index: every per-repository Output embeds graph.Origin.
type StaleMarker interface{ SetStale(*graph.Staleness) }

// MarkStale records on out (a tool's Output, a *query.Result; nil or one
// without the field is left alone) whether the repository at root moved
// on from the index m describes (graph.CheckStaleCached: HEAD and the
// indexed files' mtimes, at most every 2 s per index), and returns what
// it recorded (nil: up to date). Transports call it on every answer,
// after NameRepo; a shared (cached) answer must be copied first.
func MarkStale(out any, root string, m *graph.Meta) *graph.Staleness {
	return markStale(out, func() *graph.Staleness { return graph.CheckStaleCached(root, m) })
}

// MarkStaleWith is MarkStale with the staleness the caller checked (a
// one-shot command checks beside the call: graph.CheckStaleShared).
func MarkStaleWith(out any, s *graph.Staleness) *graph.Staleness {
	return markStale(out, func() *graph.Staleness { return s })
}

// markStale records check's answer on out when out can say it.
func markStale(out any, check func() *graph.Staleness) *graph.Staleness {
	n, ok := out.(StaleMarker)
	if !ok {
		return nil
	}
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	s := check()
	n.SetStale(s)
	return s
}

// RepoNamer is an answer that names its repository: every per-repository
// tool's Output embeds graph.Origin.
type RepoNamer interface{ SetRepo(graph.RepoEntry) }

// NameRepo fills the "repo" field of out (a tool's Output, a
// *query.Result) with e. Transports call it on every answer; an out that
// has no such field, or is nil, is left alone.
func NameRepo(out any, e graph.RepoEntry) {
	n, ok := out.(RepoNamer)
	if !ok {
		return
	}
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	n.SetRepo(e)
}
