package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
	"github.com/spf13/pflag"
)

// toolRepo is the repository a tool command runs on: its registry entry and
// its index, checked and opened read-only on its first statement (most
// tools read only the search pack).
type toolRepo struct {
	Entry graph.RepoEntry
	DB    *graph.Lazy
}

// runTool is the body every tool command shares: resolve the repository
// (-r, else the one containing the working directory), open its index
// read-only, call the tool with in, and print its output — with --json
// exactly the tool's JSON (the object the MCP server returns for the same
// input), else through text. Errors get their exit codes (toolError).
func runTool[In, Out any](ctx context.Context, in In, call func(context.Context, toolRepo, In) (Out, error), text func(Out) error) error {
	return runToolChecked(ctx, in, call, text, nil)
}

// callMapped runs a tool call that reads the index's search pack, which
// query.MapPack maps: a pack file cut short under us faults on access,
// which this makes an error (as searchRepo does) instead of a crash.
func callMapped[In, Out any](ctx context.Context, in In, r toolRepo, call func(context.Context, toolRepo, In) (Out, error)) (out Out, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			var zero Out
			out, err = zero, fmt.Errorf("%w (reading it failed: %v)", query.ErrPackDamaged, p)
		}
	}()
	return call(ctx, r, in)
}

// runToolChecked is runTool whose verdict, when not nil, says whether the
// answer printed is a failure (nothing found, ambiguous: exit 3) by
// returning its error; the answer stays printed (Error.Answered).
func runToolChecked[In, Out any](ctx context.Context, in In, call func(context.Context, toolRepo, In) (Out, error), text func(Out) error, verdict func(Out) error) error {
	e, db, err := openEntry(ctx)
	if err != nil {
		return err
	}
	defer func() { db.Close() }()
	// Beside the call, on the other core: the check of the database file
	// a statement would make (Lazy.Check: a damaged index is reported even
	// by a tool that reads only the search pack), and whether the
	// repository moved on from the index (stat'ing every indexed file:
	// 0.3 s on the Linux kernel), unless a command checked that less than
	// 2 s ago (graph.CheckStaleShared, as searchRepo does).
	staleness := func() *graph.Staleness { return nil }
	defer func() { staleness() }()
	// run is the call and the check of the database beside it: a damaged
	// or swapped index is the command's error, whatever the call answered
	// (but a call that found the index swapped is tried again, whatever
	// its check found of the retired one).
	run := func(e graph.RepoEntry, db *graph.Lazy) (Out, error) {
		checked := make(chan error, 1)
		go func() { checked <- db.Check(ctx) }()
		staleness = staleBeside(e.Path, db.Meta())
		out, err := callMapped(ctx, in, toolRepo{Entry: e, DB: db}, call)
		if cerr := <-checked; cerr != nil && !errors.Is(err, graph.ErrSwapped) {
			var zero Out
			return zero, cerr
		}
		return out, err
	}
	out, err := run(e, db)
	if errors.Is(err, graph.ErrSwapped) {
		// A re-analyze retired the database before its first statement
		// opened it, or before its check: once more, on the new index.
		db.Close()
		again, db2, oerr := openEntry(ctx)
		if oerr != nil {
			return oerr // the deferred Close finds db closed: a no-op
		}
		e, db = again, db2
		staleness() // of the retired index
		out, err = run(e, db)
	}
	if err != nil {
		return toolError(err)
	}
	stale := tools.MarkStaleWith(out, staleness())
	if flagJSON {
		tools.NameRepo(out, e)
		err = printAnswer(out)
	} else {
		err = text(out)
		if n := tools.BudgetOf(out); n != nil && err == nil {
			printNotices([]string{tools.BudgetLine(n)})
		}
		if stale != nil && err == nil {
			printNotices([]string{stale.Note})
		}
	}
	if err != nil || verdict == nil {
		return err
	}
	if err := verdict(out); err != nil {
		return &Error{Code: ExitNotFound, Err: err, Answered: true}
	}
	return nil
}

// staleBeside starts graph.CheckStaleShared of the index at root (meta
// its meta.json head) on a goroutine of its own; the func returned waits
// for it and gives its answer. A command calls it on every way out: the
// check may be writing its shared answer into the index directory.
func staleBeside(root string, meta *graph.Meta) func() *graph.Staleness {
	var s *graph.Staleness
	done := make(chan struct{})
	go func() {
		defer close(done)
		s = graph.CheckStaleShared(root, meta)
	}()
	return func() *graph.Staleness {
		<-done
		return s
	}
}

// onDB adapts a tool that runs Cypher on the database (cypher) to runTool.
func onDB[In, Out any](fn func(context.Context, tools.Querier, In) (Out, error)) func(context.Context, toolRepo, In) (Out, error) {
	return func(ctx context.Context, r toolRepo, in In) (Out, error) { return fn(ctx, r.DB, in) }
}

// onIndex adapts a tool that reads the index's graph (the snapshot in its
// search pack, and the database for stored source) to runTool.
func onIndex[In, Out any](fn func(context.Context, tools.Index, In) (Out, error)) func(context.Context, toolRepo, In) (Out, error) {
	return onIndexRoot(func(ctx context.Context, ix tools.Index, _ string, in In) (Out, error) { return fn(ctx, ix, in) })
}

// onIndexRoot adapts a tool that also reads the repository's files under
// its root (the git diff, route declarations, a rename's occurrences).
func onIndexRoot[In, Out any](fn func(context.Context, tools.Index, string, In) (Out, error)) func(context.Context, toolRepo, In) (Out, error) {
	return func(ctx context.Context, r toolRepo, in In) (Out, error) {
		ix, err := r.index()
		if err != nil {
			var zero Out
			return zero, err
		}
		return fn(ctx, ix, r.Entry.Path, in)
	}
}

// index is what the graph tools read on r: its search pack's snapshot,
// mapped for this one call (query.MapPack: the command reads the sections
// and nodes its answer needs, not the whole pack).
func (r toolRepo) index() (tools.Index, error) {
	pack, err := query.MapPack(graph.CompanionPath(r.Entry.Path, r.DB.Meta(), graph.PackSuffix))
	if err != nil {
		return tools.Index{}, queryError(err)
	}
	return tools.Index{Graph: &pack.Snapshot}, nil
}

// openEntry resolves -r / the working directory and reads its index's
// meta.json head (graph.OpenLazyHead); the database file is checked beside
// the call (runToolChecked) and opened read-only by the first statement,
// which a tool that reads only the search pack never makes.
func openEntry(ctx context.Context) (graph.RepoEntry, *graph.Lazy, error) {
	e, err := resolveRepo("")
	if err != nil {
		return e, nil, err
	}
	db, err := graph.OpenLazyHead(e.Path, oneShotOpen)
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
// missing symbol, process or index (or a damaged one, or one of another
// schema: no usable index) is "not found", a held lock is "locked",
// anything else a plain failure.
func toolError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tools.ErrNotFound), errors.Is(err, graph.ErrNoIndex), errors.Is(err, graph.ErrDamaged),
		errors.Is(err, graph.ErrSchemaVersion): // no index this gitnexus can read (query: ErrNoPack, 3 too)
		return &Error{Code: ExitNotFound, Err: err}
	case errors.Is(err, tools.ErrInput):
		return &Error{Code: ExitUsage, Err: err}
	case errors.Is(err, graph.ErrLocked):
		return &Error{Code: ExitLocked, Err: err}
	}
	return err
}

// printNotices prints a tool's notices on stderr, in the CLI's words.
func printNotices(notices []string) {
	scr := newScreen(os.Stderr)
	for _, n := range notices {
		scr.message("gitnexus: " + cliText(n))
	}
}

// printCandidates lists the symbols an ambiguous NAME matched, to pick one
// with --uid.
func printCandidates(cands []tools.Symbol) {
	printCandidatesFor("NAME", cands, "--uid", "--file / --kind")
}

// printCandidatesFor lists the symbols an ambiguous argument (what)
// matched, under a header, for the user to pick one with flag (--uid,
// --from-uid, ...) or narrow the match with the flags in narrow.
func printCandidatesFor(what string, cands []tools.Symbol, flag, narrow string) {
	scr := stdout()
	scr.linef("%s matches %d symbols; pick one with %s (or narrow with %s):", what, len(cands), flag, narrow)
	scr.line(scr.paint(styleDim, fmt.Sprintf("  %-10s %-28s %s", "KIND", "LOCATION", "ID")))
	for _, s := range cands {
		scr.linef("  %-10s %-28s %s", s.Kind, loc(s.FilePath, s.StartLine), scr.paint(styleCyan, s.ID))
	}
}

// loc is "path:line", or the path alone when the line is unknown (0): a
// file, or a node with no line.
func loc(path string, line int) string {
	if line <= 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// ambiguousErr is the exit error of an answer that lists candidates.
func ambiguousErr(what string, n int) error {
	return fmt.Errorf("%s is ambiguous: %d matches (listed)", what, n)
}

// budgetFlag defines --max-tokens, the tool's max_tokens: the answer (text
// or --json alike) is cut to about that many tokens, least important parts
// first, and says what it left out.
func budgetFlag(f *pflag.FlagSet, b *tools.Budget) {
	f.IntVar(&b.MaxTokens, "max-tokens", 0, fmt.Sprintf("cut the answer to about this many tokens (%d..%d; 0: the tool's default), saying what was left out", tools.MinBudgetTokens, tools.MaxBudgetTokens))
}
