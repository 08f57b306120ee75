package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The registry lists indexed repositories so commands can name them
// (-r NAME) from anywhere. It lives in $GITNEXUS_HOME/registry.json
// (default ~/.gitnexus/registry.json); writers serialize on registry.lock.

// RepoEntry is one indexed repository.
type RepoEntry struct {
	Name      string         `json:"name"`
	Path      string         `json:"path"` // canonical absolute root
	IndexedAt time.Time      `json:"indexedAt"`
	Commit    string         `json:"commit,omitempty"`
	Branch    string         `json:"branch,omitempty"`
	Counts    map[string]int `json:"counts,omitempty"`
}

// EntryFromMeta is the registry entry describing an index's metadata.
func EntryFromMeta(m *Meta) RepoEntry {
	return RepoEntry{Name: m.RepoName, Path: m.RepoRoot, IndexedAt: m.IndexedAt, Commit: m.Commit, Branch: m.Branch, Counts: m.Counts}
}

// Registry is a snapshot of registry.json.
type Registry struct {
	path  string
	repos []RepoEntry
}

type registryFile struct {
	Version int         `json:"version"`
	Repos   []RepoEntry `json:"repos"`
}

// Home is $GITNEXUS_HOME, or ~/.gitnexus.
func Home() (string, error) {
	if h := os.Getenv("GITNEXUS_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the gitnexus home (set GITNEXUS_HOME): %w", err)
	}
	return filepath.Join(home, ".gitnexus"), nil
}

// LoadRegistry reads the registry; a missing file is an empty registry.
func LoadRegistry() (*Registry, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	r := &Registry{path: filepath.Join(home, "registry.json")}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Registry) reload() error {
	data, err := os.ReadFile(r.path)
	if errors.Is(err, os.ErrNotExist) {
		r.repos = nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("read registry: %w", err)
	}
	var f registryFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("registry %s is damaged (%v): fix or delete it, then re-run `gitnexus analyze` in each repo", r.path, err)
	}
	r.repos = f.Repos
	return nil
}

// update re-reads the registry under its lock, applies fn, and writes it
// back atomically, so concurrent analyzes never lose each other's entries.
func (r *Registry) update(fn func()) error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o755); err != nil {
		return fmt.Errorf("create gitnexus home: %w", err)
	}
	lock, err := waitLock(filepath.Join(filepath.Dir(r.path), "registry.lock"))
	if err != nil {
		return err
	}
	defer lock.unlock()
	if err := r.reload(); err != nil {
		return err
	}
	fn()
	sort.Slice(r.repos, func(i, j int) bool {
		if r.repos[i].Name != r.repos[j].Name {
			return r.repos[i].Name < r.repos[j].Name
		}
		return r.repos[i].Path < r.repos[j].Path
	})
	data, err := json.MarshalIndent(registryFile{Version: 1, Repos: r.repos}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode registry: %w", err)
	}
	return writeFileAtomic(r.path, append(data, '\n'))
}

// Register adds e, replacing the entry with the same path. Path is made
// canonical; Name defaults to the path's base name. A name another path
// already has is refused (ErrNameTaken, saying which path has it and how
// to pick another): names must pick one repository.
//
// An entry of this path under this name, as r was read, is left as it
// is: its time, commit and counts are then those of an earlier analyze,
// and readers take the live ones from the index's meta.json
// (tools.ListRepos). Every re-analyze had rewritten and synced the file
// (40-50 ms of an incremental one of about a second, session 33).
func (r *Registry) Register(e RepoEntry) error {
	p, err := canonical(e.Path)
	if err != nil {
		return err
	}
	e.Path = p
	if e.Name == "" {
		e.Name = filepath.Base(p)
	}
	for _, x := range r.repos {
		if x.Path == e.Path && x.Name == e.Name {
			return nil
		}
	}
	var taken error
	err = r.update(func() {
		if taken = r.nameTaken(e.Name, e.Path); taken != nil {
			return
		}
		out := r.repos[:0]
		for _, x := range r.repos {
			if x.Path != e.Path {
				out = append(out, x)
			}
		}
		r.repos = append(out, e)
	})
	if err != nil {
		return err
	}
	return taken
}

// ErrNameTaken means a repository name is already registered for another
// path.
var ErrNameTaken = errors.New("repository name already taken")

// CheckName says whether name may be registered for the repository at
// path: nil, or an ErrNameTaken error naming the path that has it. Call it
// before long work that ends in Register.
func (r *Registry) CheckName(name, path string) error {
	p, err := canonical(path)
	if err != nil {
		return err
	}
	if name == "" {
		name = filepath.Base(p)
	}
	return r.nameTaken(name, p)
}

func (r *Registry) nameTaken(name, path string) error {
	for _, x := range r.repos {
		if x.Name == name && x.Path != path {
			return fmt.Errorf("%w: %q is the name of %s: index this one under another name (`gitnexus analyze --name OTHER`), or free the name first (`gitnexus clean %s`)",
				ErrNameTaken, name, x.Path, x.Path)
		}
	}
	return nil
}

// Remove deletes the entry named nameOrPath (a name, or a path to the repo
// root). It is an error when nothing matches or a name is ambiguous.
func (r *Registry) Remove(nameOrPath string) error {
	var rmErr error
	err := r.update(func() {
		e, err := r.lookup(nameOrPath, "")
		if err != nil {
			rmErr = err
			return
		}
		out := r.repos[:0]
		for _, x := range r.repos {
			if x.Path != e.Path {
				out = append(out, x)
			}
		}
		r.repos = out
	})
	if err != nil {
		return err
	}
	return rmErr
}

// List returns the entries, sorted by name.
func (r *Registry) List() []RepoEntry {
	return append([]RepoEntry(nil), r.repos...)
}

// lookup finds an entry by name, or by path (relative to cwd).
func (r *Registry) lookup(nameOrPath, cwd string) (RepoEntry, error) {
	var byName []RepoEntry
	for _, e := range r.repos {
		if e.Name == nameOrPath {
			byName = append(byName, e)
		}
	}
	if len(byName) == 1 {
		return byName[0], nil
	}
	if len(byName) > 1 {
		return RepoEntry{}, ambiguous(nameOrPath, byName)
	}
	p := nameOrPath
	if cwd != "" && !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if cp, err := canonical(p); err == nil {
		for _, e := range r.repos {
			if e.Path == cp {
				return e, nil
			}
		}
	}
	return RepoEntry{}, fmt.Errorf("%w: no indexed repo named %q%s", ErrUnknownRepo, nameOrPath, r.knownNames())
}

func (r *Registry) knownNames() string {
	if len(r.repos) == 0 {
		return " (none registered yet: run `gitnexus analyze` in a repo)"
	}
	var names []string
	for _, e := range r.repos {
		names = append(names, e.Name)
	}
	return " (known: " + strings.Join(names, ", ") + ")"
}

// ErrUnknownRepo means a name matches no registered repository.
var ErrUnknownRepo = errors.New("unknown repository")

// Scope says which repositories a resolution may pick.
type Scope int

const (
	// AnyIndex lets an explicit path name any indexed directory, registered
	// or not: the CLI, where the user typed the path at their own terminal.
	AnyIndex Scope = iota
	// RegisteredOnly serves registry entries only: by name, or by a path
	// that equals an entry's path after lexical cleaning (filepath.Clean;
	// a relative path is taken relative to the working directory). Nothing
	// on disk is looked at for the argument — no stat, no symlink
	// resolution — so the answer is the same whether the path exists or
	// not, and a symlink to a registered repository is refused: the MCP
	// server, whose arguments come from prompt-injectable agents.
	RegisteredOnly
)

// maxRepoArg bounds a repository argument; longer ones name nothing.
const maxRepoArg = 4096

// Resolve is ResolveIn(AnyIndex, nameOrPath, cwd): the CLI's rule.
func Resolve(nameOrPath string, cwd string) (RepoEntry, error) {
	return ResolveIn(AnyIndex, nameOrPath, cwd)
}

// ResolveIn finds the repository a command or an MCP call acts on. It is
// the one rule for both:
//
//   - an explicit nameOrPath wins: a registered name, else (scope
//     permitting) a path — see Scope;
//   - "" → the indexed repository containing cwd (the nearest ancestor
//     with .gitnexus/meta.json; under RegisteredOnly it must also be
//     registered), and only when none contains cwd, the only registered
//     repository.
//
// cwd "" is the working directory. Errors wrap ErrUnknownRepo (nothing by
// that name or path) or ErrNoIndex (no default), say what to do and list
// the registered names.
func ResolveIn(scope Scope, nameOrPath, cwd string) (RepoEntry, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return RepoEntry{}, fmt.Errorf("resolve repo: %w", err)
		}
		cwd = wd
	}
	if nameOrPath == "" {
		return defaultRepo(scope, cwd)
	}
	if scope == RegisteredOnly {
		return resolveRegistered(nameOrPath, cwd)
	}
	return resolveAny(nameOrPath, cwd)
}

// defaultRepo is the repository a call without an explicit one acts on:
// the indexed repo containing cwd, else the only registered one.
func defaultRepo(scope Scope, cwd string) (RepoEntry, error) {
	e, ferr := findIndexed(cwd)
	if ferr == nil && scope == AnyIndex {
		return e, nil // the registry need not even be readable
	}
	reg, err := LoadRegistry()
	if err != nil {
		return RepoEntry{}, err
	}
	if ferr == nil {
		for _, x := range reg.repos {
			if x.Path == e.Path {
				return x, nil
			}
		}
		return RepoEntry{}, fmt.Errorf("%w: the working directory is inside %s, whose index is not registered: run `gitnexus analyze` there to register it, or pass a registered repo%s",
			ErrUnknownRepo, e.Path, reg.knownNames())
	}
	switch len(reg.repos) {
	case 1:
		return reg.repos[0], nil
	case 0:
		return RepoEntry{}, fmt.Errorf("%w: no repository is indexed: %s is in none and the registry is empty: run `gitnexus analyze` in a repo", ErrNoIndex, cwd)
	}
	return RepoEntry{}, fmt.Errorf("%w: %s is not inside an indexed repo and %d are registered: run `gitnexus analyze` there, or name one (-r NAME|PATH, or the \"repo\" argument)%s",
		ErrNoIndex, cwd, len(reg.repos), reg.knownNames())
}

// resolveRegistered is ResolveIn's RegisteredOnly rule for an explicit
// argument. Its errors are the same whether or not a path exists.
func resolveRegistered(arg, cwd string) (RepoEntry, error) {
	reg, err := LoadRegistry()
	if err != nil {
		return RepoEntry{}, err
	}
	shown := arg
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	unknown := fmt.Errorf("%w: no registered repository is named %q or has that path%s", ErrUnknownRepo, shown, reg.knownNames())
	if len(arg) > maxRepoArg || strings.ContainsFunc(arg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return RepoEntry{}, unknown
	}
	var byName []RepoEntry
	for _, e := range reg.repos {
		if e.Name == arg {
			byName = append(byName, e)
		}
	}
	if len(byName) == 1 {
		return byName[0], nil
	}
	if len(byName) > 1 {
		return RepoEntry{}, ambiguous(arg, byName)
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	for _, e := range reg.repos {
		if filepath.Clean(e.Path) == p {
			return e, nil
		}
	}
	return RepoEntry{}, unknown
}

func ambiguous(name string, es []RepoEntry) error {
	var paths []string
	for _, e := range es {
		paths = append(paths, e.Path)
	}
	return fmt.Errorf("%w: %q names several indexed repos (%s): pass the path instead", ErrUnknownRepo, name, strings.Join(paths, ", "))
}

// resolveAny is ResolveIn's AnyIndex rule for an explicit argument: a
// path (absolute, relative to cwd, containing a separator, or starting
// with ~) → the indexed repo containing it; a registered name → its
// entry; else a directory of that name under cwd.
func resolveAny(nameOrPath, cwd string) (RepoEntry, error) {
	looksLikePath := filepath.IsAbs(nameOrPath) || strings.ContainsRune(nameOrPath, filepath.Separator) ||
		nameOrPath == "." || nameOrPath == ".." || strings.HasPrefix(nameOrPath, "~")
	if strings.HasPrefix(nameOrPath, "~"+string(filepath.Separator)) || nameOrPath == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			nameOrPath = filepath.Join(home, strings.TrimPrefix(nameOrPath, "~"))
		}
	}
	if !looksLikePath {
		reg, err := LoadRegistry()
		if err != nil {
			return RepoEntry{}, err
		}
		e, lerr := reg.lookup(nameOrPath, "")
		if lerr == nil {
			return e, nil
		}
		// Not a registered name: a directory of that name under cwd?
		p := filepath.Join(cwd, nameOrPath)
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return RepoEntry{}, lerr
		}
		nameOrPath = p
	}
	p := nameOrPath
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if _, err := os.Stat(p); err != nil {
		return RepoEntry{}, fmt.Errorf("%w: repo path %s: %v", ErrUnknownRepo, nameOrPath, err)
	}
	e, err := findIndexed(p)
	if err != nil {
		return RepoEntry{}, fmt.Errorf("%w: %s is not inside an indexed repo: run `gitnexus analyze %s` first", ErrNoIndex, p, nameOrPath)
	}
	return e, nil
}

// findIndexed walks up from dir to the nearest directory holding
// .gitnexus/meta.json and describes it from its metadata.
func findIndexed(dir string) (RepoEntry, error) {
	d, err := canonical(dir)
	if err != nil {
		return RepoEntry{}, err
	}
	for {
		if _, err := os.Stat(filepath.Join(IndexDir(d), metaFileName)); err == nil {
			m, err := ReadMetaHead(d) // the entry's fields, not the file list
			if err != nil {
				return RepoEntry{}, err
			}
			e := EntryFromMeta(m)
			e.Path = d // where it is now, even if the repo moved since
			if e.Name == "" {
				e.Name = filepath.Base(d)
			}
			return e, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return RepoEntry{}, ErrNoIndex
		}
		d = parent
	}
}

// RepoRef names the repository an answer came from: the "repo" field of
// every answer about one repository (each MCP tool result, query result
// and CLI --json object), {"name": registered name, "path": its root}.
type RepoRef struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Ref is e's RepoRef.
func (e RepoEntry) Ref() RepoRef { return RepoRef{Name: e.Name, Path: e.Path} }

// Origin is embedded in every answer about one repository, giving it its
// "repo" field; the transports fill it (tools.NameRepo).
type Origin struct {
	Repo RepoRef `json:"repo"`
	// Stale is set when the repository moved on from the index (HEAD, or
	// indexed files changed since): the answer may be out of date.
	Stale *Staleness `json:"stale,omitempty"`
}

// SetStale records s (nil: up to date) on the answer. An answer shared by
// several calls (a cached one) must be copied first.
func (o *Origin) SetStale(s *Staleness) { o.Stale = s }

// SetRepo names e as the answer's repository. It writes only when the
// name changes, so naming an answer shared by several calls (a cached one)
// with the same repository only reads it.
func (o *Origin) SetRepo(e RepoEntry) {
	if r := e.Ref(); o.Repo != r {
		o.Repo = r
	}
}
