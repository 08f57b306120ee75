package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

// Repos is the set of indexed repositories a server answers for. It opens
// each index read-only on first use, keeps it open, and reopens it when a
// re-analyze swapped it (meta.json names another database) — without a
// restart, and without closing a database under a call still using it.
// Its methods are safe for concurrent use.
type Repos struct {
	opts  graph.OpenOptions
	cwd   string
	allow *repoAllow // nil: every registered repository (allow.go)

	mu   sync.Mutex
	open map[string]*repoState // by canonical root
}

// repoState is one repository's live database and the meta.json it was
// opened from (compared by stat to notice a swap cheaply).
type repoState struct {
	entry graph.RepoEntry
	cur   *handle
	stamp metaStamp
}

// handle counts the calls using one index; a superseded handle closes its
// database when the last call releases it. db is checked when the handle
// is made and opens Kuzu on its first statement (graph.Lazy): searches,
// context, impact and trace read only pack, the database's search pack
// (query.Pack), read once, and the cypher tool runs in a child process.
type handle struct {
	db         *graph.Lazy
	refs       int
	superseded bool
	root       string

	packOnce sync.Once
	pack     *query.Pack
	packErr  error
}

// searchPack reads the handle's search pack on first use.
func (h *handle) searchPack() (*query.Pack, error) {
	h.packOnce.Do(func() {
		h.pack, h.packErr = query.ReadPack(graph.CompanionPath(h.root, h.db.Meta(), graph.PackSuffix))
	})
	return h.pack, h.packErr
}

type metaStamp struct {
	mod  time.Time
	size int64
}

// DefaultOpenOptions are the read options a server uses: a modest buffer
// pool per repository, a row cap and a query timeout so that no call can
// hold the server.
var DefaultOpenOptions = graph.OpenOptions{
	BufferPoolSize: 256 << 20,
	Connections:    4,
	QueryTimeout:   30 * time.Second,
	MaxRows:        tools.MaxRows,
}

// NewRepos makes a pool that resolves repositories with
// graph.ResolveIn(graph.RegisteredOnly, …) relative to cwd ("" = the
// working directory) — registered repositories only, the CLI's default
// rule — and opens them with opts (zero value: DefaultOpenOptions).
func NewRepos(cwd string, opts graph.OpenOptions) *Repos {
	if reflect.ValueOf(opts).IsZero() { // a comparable zero test: OpenOptions holds a func
		opts = DefaultOpenOptions
	}
	return &Repos{opts: opts, cwd: cwd, open: map[string]*repoState{}}
}

// Repo is a repository acquired for one call. Release it when done.
type Repo struct {
	Entry graph.RepoEntry
	DB    *graph.Lazy
	r     *Repos
	h     *handle
}

// Release gives the database back to the pool.
func (r *Repo) Release() {
	if r == nil || r.h == nil {
		return
	}
	r.r.release(r.h)
	r.h = nil
}

// Pack is the search pack of the repository's database (query.ErrNoPack
// for an index without one).
func (r *Repo) Pack() (*query.Pack, error) {
	if r == nil || r.h == nil {
		return nil, query.ErrNoPack
	}
	return r.h.searchPack()
}

// Index is what the graph tools read: the snapshot in the repository's
// search pack (source text included).
func (r *Repo) Index() (tools.Index, error) {
	p, err := r.Pack()
	if err != nil {
		return tools.Index{}, err
	}
	return tools.Index{Graph: &p.Snapshot}, nil
}

// ErrRepo marks errors about which repository is meant (unknown name,
// ambiguous default, no index): the caller should pass another repo.
var ErrRepo = errors.New("repository")

// Acquire resolves name (see resolve) and returns its index, checked
// (graph.OpenLazy), making a new handle when the index was swapped since
// the last one was made. The
// registry is read on every call, so a repository registered or removed
// while the server runs is served or refused at once, and no map grows
// with the strings clients send.
func (rs *Repos) Acquire(ctx context.Context, name string) (*Repo, error) {
	entry, err := rs.resolve(name)
	if err != nil {
		return nil, err
	}
	root := entry.Path

	rs.mu.Lock()
	defer rs.mu.Unlock()
	st := rs.open[root]
	if st == nil {
		st = &repoState{entry: entry}
		rs.open[root] = st
	}
	stamp, serr := statMeta(root)
	if serr != nil {
		// The index is gone (removed, or the repo moved): drop it so a
		// later call resolves afresh.
		rs.retire(st)
		delete(rs.open, root)
		return nil, fmt.Errorf("%w: the index of %s is gone (%v): run `gitnexus analyze %s` to rebuild it", graph.ErrNoIndex, root, serr, root)
	}
	if st.cur != nil && stamp != st.stamp && st.cur.db.Stale() {
		rs.retire(st)
	}
	if st.cur == nil {
		db, err := graph.OpenLazy(ctx, root, rs.opts)
		if err != nil {
			delete(rs.open, root)
			if errors.Is(err, graph.ErrDamaged) {
				return nil, err // names the repo and the remedy
			}
			return nil, fmt.Errorf("open index of %s: %w", root, err)
		}
		st.cur = &handle{db: db, root: root}
		st.cur.refs++ // the pack loader's
		go rs.loadPack(st.cur, root)
		if m := db.Meta(); m != nil {
			// The registered name is the one clients use and answers
			// carry; the metadata adds commit, branch and counts.
			e := graph.EntryFromMeta(m)
			e.Path, e.Name = root, entry.Name
			st.entry = e
		}
	}
	st.stamp = stamp
	st.cur.refs++
	return &Repo{Entry: st.entry, DB: st.cur.db, r: rs, h: st.cur}, nil
}

// loadPack reads h's search pack in the background and decodes all of
// it, holding a reference so the database stays open meanwhile, and gives
// the reference back: the first search then finds it ready.
func (rs *Repos) loadPack(h *handle, root string) {
	defer rs.release(h)
	t0 := time.Now()
	pack, err := h.searchPack()
	if err != nil {
		slog.Info("mcp: no search pack; searches will fail until the index is rebuilt", "repo", root, "err", err)
		return
	}
	nodes, edges, procs, err := pack.Stats()
	if err != nil {
		slog.Info("mcp: search pack damaged", "repo", root, "err", err)
		return
	}
	slog.Debug("mcp: search pack loaded", "repo", root, "nodes", nodes, "edges", edges, "processes", procs, "took", time.Since(t0))
}

// release drops one reference to h, closing a superseded database with
// its last one.
func (rs *Repos) release(h *handle) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	h.refs--
	if h.superseded && h.refs == 0 {
		h.db.Close()
	}
}

// retire detaches the current handle; its database closes now or when
// its last call releases it. Callers hold rs.mu.
func (rs *Repos) retire(st *repoState) {
	if st.cur == nil {
		return
	}
	st.cur.superseded = true
	if st.cur.refs == 0 {
		st.cur.db.Close()
	}
	st.cur = nil
}

func statMeta(root string) (metaStamp, error) {
	fi, err := os.Stat(filepath.Join(graph.IndexDir(root), "meta.json"))
	if err != nil {
		return metaStamp{}, err
	}
	return metaStamp{mod: fi.ModTime(), size: fi.Size()}, nil
}

// resolve maps a request's repo string to a registry entry by the one
// rule the CLI uses too (graph.ResolveIn): an explicit name, or a path
// equal to a registered repository's path, wins; "" is the repository
// containing the working directory, else the only registered one. Only
// registered repositories are served; the errors never say whether a path
// exists.
func (rs *Repos) resolve(name string) (graph.RepoEntry, error) {
	if rs.allow != nil {
		return rs.resolveAllowed(strings.TrimSpace(name))
	}
	e, err := graph.ResolveIn(graph.RegisteredOnly, strings.TrimSpace(name), rs.cwd)
	if err != nil {
		return e, fmt.Errorf("%w: %w", ErrRepo, err)
	}
	return e, nil
}

// List returns the registered repositories, sorted by name.
// With an allow-list, only the repositories on it.
func (rs *Repos) List() ([]graph.RepoEntry, error) {
	list, err := tools.RegisteredRepos()
	return rs.allow.filter(list), err
}

// resolveAllowed is resolve under an allow-list: the same rule, then the
// entry must be on the list; "" is the repository containing the working
// directory when it is on the list, else the only one on it. A refusal
// names only the served repositories.
func (rs *Repos) resolveAllowed(name string) (graph.RepoEntry, error) {
	e, err := graph.ResolveIn(graph.RegisteredOnly, name, rs.cwd)
	if err == nil && rs.allow.allows(e) {
		return e, nil
	}
	if name != "" {
		return graph.RepoEntry{}, rs.allow.refuse(name)
	}
	list, lerr := rs.List()
	if lerr != nil {
		return graph.RepoEntry{}, fmt.Errorf("%w: %w", ErrRepo, lerr)
	}
	if len(list) == 1 {
		return list[0], nil
	}
	return graph.RepoEntry{}, fmt.Errorf("%w: %w: name a repository with the \"repo\" argument: this server serves %s", ErrRepo, graph.ErrNoIndex, strings.Join(rs.allow.names, ", "))
}

// Close closes every open database (calls in flight finish first).
func (rs *Repos) Close() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for root, st := range rs.open {
		rs.retire(st)
		delete(rs.open, root)
	}
	return nil
}
