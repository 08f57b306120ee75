package graph

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"
)

// ErrReadOnly means a query tried to write to a read-only index.
var ErrReadOnly = errors.New("cypher is read-only: CREATE/SET/DELETE/MERGE are rejected; re-run analyze to change the index")

func systemConfig(bufferPool uint64, threads int, readOnly bool) kuzu.SystemConfig {
	cfg := kuzu.DefaultSystemConfig()
	cfg.BufferPoolSize = bufferPool
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	cfg.MaxNumThreads = uint64(threads)
	cfg.ReadOnly = readOnly
	return cfg
}

func openKuzu(path string, cfg kuzu.SystemConfig) (*kuzu.Database, error) {
	db, err := kuzu.OpenDatabase(path, cfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open kuzu database %s: %w", path, err)
	}
	return db, nil
}

// run executes one statement (or several separated by ';', results after the
// first are discarded) on conn, interrupting it when ctx is cancelled. With
// params it prepares the statement and binds them.
//
// Leak: go-kuzu v0.11.3 Execute converts every string parameter with
// C.CString and never frees it, so each string parameter leaks its length
// plus one byte of C memory. Long-running callers (the MCP server) should
// keep string parameters few and short, or inline values they control.
func run(ctx context.Context, conn *kuzu.Connection, stmt string, params map[string]any) (*kuzu.QueryResult, error) {
	return runStatements(ctx, conn, stmt, params, false)
}

// ErrManyStatements means a reader's query held more than one statement.
var ErrManyStatements = errors.New("cypher: one statement per call")

// runStatements is run; with single, a text that held more than one
// statement fails with ErrManyStatements. Kuzu has run them all by then
// (go-kuzu cannot tell whether a later one failed, nor stop it), so this
// is the last line behind the callers' own statement checks: it keeps a
// reader from reporting success for statements it never meant to run.
func runStatements(ctx context.Context, conn *kuzu.Connection, stmt string, params map[string]any, single bool) (*kuzu.QueryResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		// Kuzu clears a connection's interrupt flag when a statement
		// starts, so an interrupt that lands before the statement has
		// begun (a short deadline on a loaded machine) is lost. Repeat it
		// until the statement returns; a stale one is cleared harmlessly
		// by the next statement.
		tick := time.NewTicker(interruptEvery)
		defer tick.Stop()
		for {
			conn.Interrupt()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var res *kuzu.QueryResult
	var err error
	if len(params) == 0 {
		res, err = conn.Query(stmt)
	} else {
		var ps *kuzu.PreparedStatement
		ps, err = conn.Prepare(stmt)
		if err == nil {
			res, err = conn.Execute(ps, params)
		}
		if ps != nil {
			ps.Close()
		}
	}
	close(done)
	<-stopped
	if err != nil {
		if res != nil {
			res.Close()
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("%w (kuzu: %v)", cerr, err)
		}
		// Kuzu reports a write to a read-only database only as text (the C
		// API has no error codes, go-kuzu wraps the message in a plain
		// error), so this is the one place its wording is matched; a test
		// (TestReadOnlyRejectsWrites) catches a Kuzu that rewords it.
		if strings.Contains(err.Error(), "read-only database") {
			return nil, fmt.Errorf("%w (kuzu: %v)", ErrReadOnly, err)
		}
		return nil, err
	}
	if single && res.HasNextQueryResult() {
		res.Close()
		return nil, ErrManyStatements
	}
	// Drain further statements' results so their errors surface.
	for res.HasNextQueryResult() {
		next, nerr := res.NextQueryResult()
		if nerr != nil {
			res.Close()
			return nil, nerr
		}
		next.Close()
	}
	return res, nil
}

// interruptEvery is how often run repeats the interrupt of a cancelled
// statement until it returns.
const interruptEvery = 50 * time.Millisecond

// exec runs stmt and discards its result.
func exec(ctx context.Context, conn *kuzu.Connection, stmt string) error {
	res, err := run(ctx, conn, stmt, nil)
	if err != nil {
		return err
	}
	res.Close()
	return nil
}

// queryInt runs a query returning one integer (a count).
func queryInt(ctx context.Context, conn *kuzu.Connection, stmt string) (int, error) {
	res, err := run(ctx, conn, stmt, nil)
	if err != nil {
		return 0, err
	}
	defer res.Close()
	if !res.HasNext() {
		return 0, fmt.Errorf("%s: no rows", stmt)
	}
	t, err := res.Next()
	if err != nil {
		return 0, err
	}
	defer t.Close()
	v, err := t.GetValue(0)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%s: got %T, want an integer", stmt, v)
	}
	return int(n), nil
}
