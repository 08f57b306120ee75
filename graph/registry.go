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
// canonical; Name defaults to the path's base name.
func (r *Registry) Register(e RepoEntry) error {
	p, err := canonical(e.Path)
	if err != nil {
		return err
	}
	e.Path = p
	if e.Name == "" {
		e.Name = filepath.Base(p)
	}
	return r.update(func() {
		out := r.repos[:0]
		for _, x := range r.repos {
			if x.Path != e.Path {
				out = append(out, x)
			}
		}
		r.repos = append(out, e)
	})
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
		var paths []string
		for _, e := range byName {
			paths = append(paths, e.Path)
		}
		return RepoEntry{}, fmt.Errorf("%q names several indexed repos (%s): pass the path instead", nameOrPath, strings.Join(paths, ", "))
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

// Resolve finds the repository a command acts on:
//   - "" → the indexed repo containing cwd (the nearest ancestor with
//     .gitnexus/meta.json);
//   - a path (absolute, or relative to cwd, or containing a separator) →
//     the indexed repo containing it;
//   - a name → the registry entry of that name.
//
// Errors say what to do and list the registered names.
func Resolve(nameOrPath string, cwd string) (RepoEntry, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return RepoEntry{}, fmt.Errorf("resolve repo: %w", err)
		}
		cwd = wd
	}
	if nameOrPath == "" {
		e, err := findIndexed(cwd)
		if err != nil {
			names := ""
			if reg, rerr := LoadRegistry(); rerr == nil {
				names = reg.knownNames()
			}
			return RepoEntry{}, fmt.Errorf("%w: %s is not inside an indexed repo: run `gitnexus analyze` there, or pass -r NAME|PATH%s", ErrNoIndex, cwd, names)
		}
		return e, nil
	}
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
			m, err := ReadMeta(d)
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
