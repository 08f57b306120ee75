package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
)

// resolveRepo finds the repository a command acts on by graph.Resolve, the
// rule the MCP server follows too: the PATH argument if given, else
// -r NAME|PATH, else the indexed repository containing the working
// directory, else the only registered one (said on stderr). Unlike the
// server, the CLI accepts a path to any indexed directory, registered or
// not: the user typed it at their own terminal.
func resolveRepo(pathArg string) (graph.RepoEntry, error) {
	target := flagRepo
	if pathArg != "" {
		target = pathArg
	}
	cwd, err := os.Getwd()
	if err != nil {
		return graph.RepoEntry{}, Fail(ExitError, "working directory: %v", err)
	}
	e, err := graph.Resolve(target, cwd)
	if err != nil {
		if errors.Is(err, graph.ErrNoIndex) || errors.Is(err, graph.ErrUnknownRepo) {
			return e, &Error{Code: ExitNotFound, Err: err}
		}
		return e, err
	}
	if target == "" && !within(cwd, e.Path) {
		newScreen(os.Stderr).message(fmt.Sprintf("gitnexus: using %s (%s), the only registered repository: the working directory is in no indexed one", e.Name, e.Path))
	}
	return e, nil
}

// within reports whether dir is root or below it (after resolving links).
func within(dir, root string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
