package cmd

import (
	"errors"
	"os"

	"github.com/gitnexus/gitnexus/graph"
)

// resolveRepo finds the repository a command acts on: the PATH argument if
// given, else -r NAME|PATH, else the indexed repository containing the
// working directory.
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
	return e, nil
}
