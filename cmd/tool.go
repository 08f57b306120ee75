package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/tools"
)

// toolRepo is the repository a tool command runs on: its registry entry and
// its index, open read-only.
type toolRepo struct {
	Entry graph.RepoEntry
	DB    *graph.DB
}

// runTool is the body every tool command shares: resolve the repository
// (-r, else the one containing the working directory), open its index
// read-only, call the tool with in, and print its output — with --json
// exactly the tool's JSON (the object the MCP server returns for the same
// input), else through text. Errors get their exit codes (toolError).
func runTool[In, Out any](ctx context.Context, in In, call func(context.Context, toolRepo, In) (Out, error), text func(Out) error) error {
	e, db, err := openEntry(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	out, err := call(ctx, toolRepo{Entry: e, DB: db}, in)
	if err != nil {
		return toolError(err)
	}
	if flagJSON {
		tools.NameRepo(out, e)
		return printAnswer(out)
	}
	return text(out)
}

// onDB adapts a tool that reads only the index to runTool.
func onDB[In, Out any](fn func(context.Context, tools.Querier, In) (Out, error)) func(context.Context, toolRepo, In) (Out, error) {
	return func(ctx context.Context, r toolRepo, in In) (Out, error) { return fn(ctx, r.DB, in) }
}

// openEntry resolves -r / the working directory and opens its index
// read-only.
func openEntry(ctx context.Context) (graph.RepoEntry, *graph.DB, error) {
	e, err := resolveRepo("")
	if err != nil {
		return e, nil, err
	}
	db, err := graph.Open(ctx, e.Path, oneShotOpen)
	if err != nil {
		return e, nil, toolError(err)
	}
	return e, db, nil
}

// oneShotOpen is how a CLI command opens an index: a statement that grows
// memory past graph.DefaultQueryMemory and does not stop when interrupted
// ends the process with a clear error (the process is the call).
var oneShotOpen = graph.OpenOptions{MemoryExceeded: func() {
	err := fmt.Errorf("%w: a statement grew memory by more than %d MiB and did not stop when interrupted; add a LIMIT, aggregate or narrow the MATCH", graph.ErrQueryMemory, graph.DefaultQueryMemory>>20)
	reportError(err, ExitError)
	os.Exit(ExitError)
}}

// toolError gives an error its exit code: bad input is a usage error, a
// missing symbol, process or index (or a damaged one: no usable index) is
// "not found", a held lock is "locked", anything else a plain failure.
func toolError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tools.ErrNotFound), errors.Is(err, graph.ErrNoIndex), errors.Is(err, graph.ErrDamaged):
		return &Error{Code: ExitNotFound, Err: err}
	case errors.Is(err, tools.ErrInput):
		return &Error{Code: ExitUsage, Err: err}
	case errors.Is(err, graph.ErrLocked):
		return &Error{Code: ExitLocked, Err: err}
	}
	return err
}

// printNotices prints a tool's notices on stderr.
func printNotices(notices []string) {
	for _, n := range notices {
		fmt.Fprintf(os.Stderr, "gitnexus: %s\n", n)
	}
}

// printCandidates lists the symbols an ambiguous name matched.
func printCandidates(cands []tools.Symbol) {
	fmt.Printf("%d symbols match; pick one with --uid (or --file / --kind):\n", len(cands))
	for _, s := range cands {
		fmt.Printf("  %-10s %-50s %s:%d\n", s.Kind, s.ID, s.FilePath, s.StartLine)
	}
}
