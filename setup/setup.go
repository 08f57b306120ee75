package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

var execLookPath = exec.LookPath

// ServerName is the key the server is configured under in every client.
const ServerName = "gitnexus"

// MaxConfigSize bounds a config file setup reads (~/.claude.json grows
// with history; anything past this is not a config file to edit).
const MaxConfigSize = 64 << 20

// Options say what setup does.
type Options struct {
	Env Env
	// Clients to configure by name; empty: every client Installed.
	Clients []string
	// Project, when set, is the repository root: its project-level config
	// files are written instead of the user's.
	Project string
	// Command and Args start the server (the absolute path of this binary
	// and "mcp").
	Command string
	Args    []string
	// Uninstall removes the entry instead.
	Uninstall bool
	// DryRun computes every change and its diff but writes nothing.
	DryRun bool
}

// Action is what setup did (or, in a dry run, would do) to one file.
type Action string

const (
	Added     Action = "added"     // the entry was written (the file may be new)
	Updated   Action = "updated"   // an entry of that name was replaced
	Unchanged Action = "unchanged" // the entry was already there as it would be written
	Removed   Action = "removed"
	Absent    Action = "absent"  // uninstall: no entry to remove
	Skipped   Action = "skipped" // not installed, or no project config
	Failed    Action = "failed"
)

// Result is one client's outcome.
type Result struct {
	Client string `json:"client"`
	Path   string `json:"path,omitempty"`
	Action Action `json:"action"`
	Backup string `json:"backup,omitempty"` // the previous file, kept before writing
	Diff   string `json:"diff,omitempty"`   // unified diff of the change
	Note   string `json:"note,omitempty"`   // why skipped or failed
}

// ErrUnknownClient is a --client name setup does not know.
var ErrUnknownClient = errors.New("unknown client")

// Run configures (or unconfigures) the clients and returns one result per
// client considered. A client whose file cannot be edited gets Failed
// with the reason, and the others are still done; the error is for bad
// options only.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if !o.Uninstall && !filepath.IsAbs(o.Command) {
		return nil, fmt.Errorf("setup: the server command %q must be an absolute path", o.Command)
	}
	if o.Project == "" && !filepath.IsAbs(o.Env.Home) {
		return nil, fmt.Errorf("setup: no home directory (got %q): set HOME, or use --project", o.Env.Home)
	}
	if o.Project != "" && !filepath.IsAbs(o.Project) {
		return nil, fmt.Errorf("setup: the project directory %q must be an absolute path", o.Project)
	}
	var clients []*Client
	explicit := len(o.Clients) > 0
	if explicit {
		for _, n := range o.Clients {
			c := ClientByName(strings.ToLower(strings.TrimSpace(n)))
			if c == nil {
				return nil, fmt.Errorf("%w %q: the clients are %s", ErrUnknownClient, n, strings.Join(ClientNames(), ", "))
			}
			clients = append(clients, c)
		}
	} else {
		clients = Clients
	}
	var out []Result
	for _, c := range clients {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := Result{Client: c.Name}
		switch {
		case o.Project != "" && c.Project == "":
			r.Action, r.Note = Skipped, c.Title+" has no project-level config"
			if explicit {
				r.Action = Failed
			}
		case o.Project == "" && !explicit && !c.Installed(o.Env):
			r.Action, r.Note = Skipped, c.Title+" does not look installed (use --client "+c.Name+" to configure it anyway)"
		default:
			r.Path = c.User(o.Env)
			if o.Project != "" {
				r.Path = filepath.Join(o.Project, c.Project)
			}
			if err := edit(c, &r, o); err != nil {
				r.Action, r.Note = Failed, err.Error()
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// edit computes the change to r.Path and, unless a dry run, writes it.
func edit(c *Client, r *Result, o Options) error {
	target, err := resolveLink(r.Path)
	if err != nil {
		return err
	}
	old, mode, err := readConfig(target)
	if err != nil {
		return err
	}
	key := append(append([]string{}, c.Key...), ServerName)
	var next []byte
	var changed bool
	switch {
	case c.Format == TOML && o.Uninstall:
		next, changed, err = tomlDelete(old, key)
	case c.Format == TOML:
		next, changed, err = tomlSet(old, key, c.Entry(o.Command, o.Args).(string))
	case c.Format == YAML && o.Uninstall:
		next, changed, err = yamlDelete(old, c.Key[0], ServerName)
	case c.Format == YAML:
		next, changed, err = yamlSet(old, c.Key[0], ServerName, c.Entry(o.Command, o.Args).(string))
	case o.Uninstall:
		next, changed, err = jsonDelete(old, key)
	default:
		next, changed, err = jsonSet(old, key, c.Entry(o.Command, o.Args))
	}
	if err != nil {
		return fmt.Errorf("%s: %w (left as it is)", r.Path, err)
	}
	switch {
	case !changed && o.Uninstall:
		r.Action = Absent
		return nil
	case !changed:
		r.Action = Unchanged
		return nil
	case o.Uninstall:
		r.Action = Removed
	case old != nil && hasEntry(c, old):
		r.Action = Updated
	default:
		r.Action = Added
	}
	r.Diff = UnifiedDiff(r.Path, old, next)
	if o.DryRun {
		return nil
	}
	if old != nil {
		r.Backup = target + ".gitnexus-backup"
		if err := writeAtomic(r.Backup, old, mode); err != nil {
			return fmt.Errorf("back up %s: %w (nothing written)", target, err)
		}
	}
	if next == nil {
		// Uninstall left nothing: the file goes (every client reads a
		// missing file as no config; an empty one is not valid JSON).
		return removeChecked(target, old)
	}
	return writeChecked(target, old, next, mode)
}

// removeChecked removes path unless it changed since it was read as old.
func removeChecked(path string, old []byte) error {
	now, _, err := readConfig(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("%s changed while setup was editing it: nothing written, run setup again", path)
	}
	return os.Remove(path)
}

// hasEntry reports whether src already has a server entry of our name.
func hasEntry(c *Client, src []byte) bool {
	key := append(append([]string{}, c.Key...), ServerName)
	if c.Format == YAML {
		lines, err := yamlLines(src)
		if err != nil {
			return false
		}
		_, at, _, err := yamlFind(lines, c.Key[0], ServerName)
		return err == nil && at >= 0
	}
	if c.Format == TOML {
		lines, err := tomlLines(src)
		if err != nil {
			return false
		}
		first, _, err := tomlTable(lines, key)
		return err == nil && first >= 0
	}
	root, err := parseJSONC(src)
	if err != nil || root == nil || root.kind != '{' {
		return false
	}
	v := root
	for _, k := range key {
		m := v.member(k)
		if m == nil {
			return false
		}
		v = m.val
	}
	return true
}

// resolveLink follows a symlinked config file (dotfile managers link
// them) so that the link stays and its target is edited.
func resolveLink(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	t, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s is a broken symlink: fix it first", path)
	}
	return t, nil
}

// readConfig reads a config file: nil for a missing one, an error for
// one that is not a regular file or is too large.
func readConfig(path string) ([]byte, fs.FileMode, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxConfigSize {
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not edited", path, MaxConfigSize>>20)
	}
	return data, fi.Mode().Perm(), nil
}

// writeChecked writes next to path atomically, unless the file changed
// since it was read as old (a client writing its own config meanwhile):
// then nothing is written and the error says to run setup again.
func writeChecked(path string, old, next []byte, mode fs.FileMode) error {
	now, _, err := readConfig(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) || (now == nil) != (old == nil) {
		return fmt.Errorf("%s changed while setup was editing it: nothing written, run setup again", path)
	}
	return writeAtomic(path, next, mode)
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so a crash leaves the old file or the new one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename: nothing there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
