package discover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// gitEnvDrop are variables that would point git at another repository or
// index than the one containing root (they are set inside git hooks, for
// one). Discovery must see root's own repository.
var gitEnvDrop = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
}

// git runs git -C dir args... and returns its stdout.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return gitIn(ctx, dir, nil, args...)
}

// gitIn is git with stdin as the command's input.
func gitIn(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, d := range gitEnvDrop {
			drop = drop || name == d
		}
		if !drop {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
		}
		return out, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

type gitInfo struct {
	top    string
	commit string
	branch string
}

// probeGit reports whether root lies in a git work tree, and its HEAD. It
// logs a warning when git is missing or fails for another reason than
// "not a repository", since discovery then walks the tree instead.
func probeGit(ctx context.Context, root string) (gitInfo, bool) {
	out, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		switch {
		case ctx.Err() != nil:
			// Discover reports the cancellation.
		case errors.Is(err, exec.ErrNotFound):
			slog.Warn("discover: git is not installed; walking the directory tree and honouring .gitignore files instead", "root", root)
		case strings.Contains(err.Error(), "not a git repository"):
			// git says "not a repository" only in words: rev-parse exits
			// 128 for every fatal error (git runs with LC_ALL=C, so the words
			// are English). The match only picks the log
			// level; either way discovery walks the tree.
			slog.Debug("discover: not a git repository; walking the directory tree", "root", root)
		default:
			slog.Warn("discover: git cannot read this repository; walking the directory tree instead", "root", root, "err", err)
		}
		return gitInfo{}, false
	}
	g := gitInfo{top: strings.TrimSpace(string(out))}
	g.commit = HeadCommit(root)
	if out, err := git(ctx, root, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		g.branch = strings.TrimSpace(string(out))
	}
	return g, true
}

// HeadCommit returns the sha of HEAD in the git repository containing dir,
// or "" outside git, without git, or before the first commit.
func HeadCommit(dir string) string {
	out, err := git(context.Background(), dir, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// EnsureGitExclude adds pattern as a line of the repository's info/exclude
// file unless a line already says it. It finds the file with
// `git rev-parse --git-path info/exclude`, so linked worktrees and
// GIT_COMMON_DIR layouts get the right one. Outside git, or without git,
// it does nothing and returns nil.
func EnsureGitExclude(root, pattern string) error {
	out, err := git(context.Background(), root, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		slog.Debug("discover: no git repository to exclude from", "root", root, "err", err)
		return nil
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", p, err)
	}
	for _, line := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(line) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	add := pattern + "\n"
	if len(old) > 0 && old[len(old)-1] != '\n' {
		add = "\n" + add
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", p, err)
	}
	if _, err := f.WriteString(add); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// entry kinds in git's listing.
const (
	kindFile     = iota
	kindSymlink  // index mode 120000
	kindGitlink  // index mode 160000: a submodule
	kindEmbedded // an untracked nested repository ("dir/" in ls-files -o)
)

type gitEntry struct {
	path string
	kind int
}

// gitList returns git's view of root: tracked files (git ls-files
// --stage) and untracked files that no ignore rule covers (--others
// --exclude-standard, which reads .gitignore files, .git/info/exclude and
// core.excludesFile), sorted by path without duplicates. Paths come
// relative to root, limited to files under it, even when root is a
// subdirectory of the work tree.
func gitList(ctx context.Context, root string) ([]gitEntry, error) {
	var (
		tracked, others []byte
		errT, errO      error
		done            = make(chan struct{})
	)
	go func() {
		others, errO = git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
		close(done)
	}()
	tracked, errT = git(ctx, root, "ls-files", "-z", "--stage")
	<-done
	if errT != nil {
		return nil, errT
	}
	if errO != nil {
		return nil, errO
	}
	entries := parseStage(tracked)
	for _, p := range bytes.Split(others, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		s := string(p)
		if strings.HasSuffix(s, "/") {
			entries = append(entries, gitEntry{strings.TrimSuffix(s, "/"), kindEmbedded})
		} else {
			entries = append(entries, gitEntry{s, kindFile})
		}
	}
	// Sort and deduplicate: a path in a merge conflict is listed once per
	// stage, and a tracked file is never also untracked.
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	uniq := entries[:0]
	for i, e := range entries {
		if i > 0 && e.path == entries[i-1].path {
			continue
		}
		uniq = append(uniq, e)
	}
	return uniq, nil
}

// feedGit applies the filter to git's entries and hands the files to the
// pool.
func feedGit(ctx context.Context, root string, entries []gitEntry, flt *filter, t *tally, jobs chan<- job) error {
	loadIgnoreFiles(root, flt, entries)
	dirs := map[string]state{"": {}}
	var dirState func(d string) state
	dirState = func(d string) state {
		if s, ok := dirs[d]; ok {
			return s
		}
		s := flt.child(dirState(parentDir(d)), d, true)
		dirs[d] = s
		return s
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if hardSkipped(e.path) {
			continue
		}
		isDir := e.kind == kindGitlink || e.kind == kindEmbedded
		s := flt.child(dirState(parentDir(e.path)), e.path, isDir)
		if reason, where, ok := s.excluded(); ok {
			t.skip(reason, where, 1)
			t.byRule(s.excludedBy(), reason, 1)
			continue
		}
		switch e.kind {
		case kindGitlink, kindEmbedded:
			t.skip(ReasonSubmodule, e.path+"/", 1)
		case kindSymlink:
			t.skip(ReasonSymlink, e.path, 1)
		default:
			select {
			case jobs <- job{rel: e.path, abs: filepath.Join(root, filepath.FromSlash(e.path)), exempt: flt.sniffExempt(s)}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// parseStage parses `git ls-files -z --stage`: "mode sha stage\tpath".
func parseStage(out []byte) []gitEntry {
	var entries []gitEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		kind := kindFile
		switch {
		case bytes.HasPrefix(meta, []byte("160000 ")):
			kind = kindGitlink
		case bytes.HasPrefix(meta, []byte("120000 ")):
			kind = kindSymlink
		}
		entries = append(entries, gitEntry{string(p), kind})
	}
	return entries
}

// loadIgnoreFiles reads the .gitnexusignore files among git's entries,
// plus the root's own even when git ignores it, shallowest first, skipping
// those inside a directory that shallower ones already exclude.
func loadIgnoreFiles(root string, flt *filter, entries []gitEntry) {
	dirs := []string{""}
	for _, e := range entries {
		if e.kind == kindFile && path.Base(e.path) == IgnoreFileName && e.path != IgnoreFileName {
			dirs = append(dirs, parentDir(e.path))
		}
	}
	sort.SliceStable(dirs, func(i, j int) bool {
		return strings.Count(dirs[i], "/") < strings.Count(dirs[j], "/")
	})
	for _, d := range dirs {
		if d != "" && hardSkipped(d) {
			continue
		}
		if d != "" {
			// Walk down to d with the rules loaded so far: an excluded
			// directory's ignore file is never read, as in git.
			var s state
			var cur string
			excluded := false
			for _, part := range strings.Split(d, "/") {
				cur = path.Join(cur, part)
				s = flt.child(s, cur, true)
				if _, _, ok := s.excluded(); ok {
					excluded = true
					break
				}
			}
			if excluded {
				continue
			}
		}
		readIgnoreFile(root, d, flt)
	}
}

// readIgnoreFile loads dir/.gitnexusignore into flt if it exists.
func readIgnoreFile(root, dir string, flt *filter) {
	if content, ok := readSmallFile(filepath.Join(root, filepath.FromSlash(dir), IgnoreFileName)); ok {
		flt.addIgnoreFile(dir, content)
	}
}

// maxIgnoreFile bounds how much of an ignore file is read.
const maxIgnoreFile = 4 << 20

// readSmallFile reads an ignore file: a regular file, not through a
// symlink, at most maxIgnoreFile bytes. ok is false when there is none or
// it cannot be read (logged: rules silently missing would surprise).
func readSmallFile(p string) (content []byte, ok bool) {
	f, err := openNoFollow(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			slog.Warn("discover: cannot read ignore file", "path", p, "err", err)
		}
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		slog.Warn("discover: ignore file is not a regular file", "path", p)
		return nil, false
	}
	content, err = io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		slog.Warn("discover: cannot read ignore file", "path", p, "err", err)
		return nil, false
	}
	return content, true
}

// hardSkipped reports whether a path lies in a .git or .gitnexus
// directory: never indexed, never counted.
func hardSkipped(p string) bool {
	for p != "" {
		var part string
		part, p, _ = strings.Cut(p, "/")
		if part == ".git" || part == ".gitnexus" {
			return true
		}
	}
	return false
}

// maxIgnoredProbe bounds how many ignored paths gitIgnoredRules asks git
// about.
const maxIgnoredProbe = 200_000

// gitIgnoredRules runs when git lists no source file under root: it counts the
// files git's own ignore rules hide (up to maxIgnoredProbe) and, through
// `git check-ignore -v`, the rule hiding each, so that an empty result can
// say which rule to look at. A failure is logged: these counts only
// explain.
func gitIgnoredRules(ctx context.Context, root string, t *tally) {
	out, err := git(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		slog.Warn("discover: cannot list the files git ignores", "root", root, "err", err)
		return
	}
	out = bytes.TrimSuffix(out, []byte{0})
	if len(out) == 0 {
		return
	}
	paths := bytes.Split(out, []byte{0})
	paths = paths[:min(len(paths), maxIgnoredProbe)]
	// check-ignore exits 1 when it finds nothing ignored: read the output
	// whatever the status.
	res, err := gitIn(ctx, root, append(bytes.Join(paths, []byte{0}), 0), "check-ignore", "-v", "-z", "--stdin")
	if err != nil && len(res) == 0 {
		slog.Warn("discover: cannot ask git which rules ignore files", "root", root, "err", err)
		return
	}
	// -z -v: source, line number, pattern, path; each NUL-terminated.
	f := bytes.Split(res, []byte{0})
	for i := 0; i+3 < len(f); i += 4 {
		if len(f[i]) == 0 {
			continue // not ignored (cannot happen with ls-files' list)
		}
		t.byRule(string(f[i])+":"+string(f[i+1]), ReasonIgnored, 1)
	}
}
