package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
)

// Querier runs Cypher on an index's database: a *graph.DB. The cypher tool
// reads through it; no other tool needs the database.
type Querier interface {
	Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// Index is what the graph tools (context, impact, trace, detect_changes)
// read: Graph, the snapshot in the index's search pack — the same one
// search expands over, the one read interface for symbols, files, edges
// with their confidence, reason and site line, processes, communities and
// source text.
type Index struct {
	Graph *query.Snapshot
}

// ErrNotFound means a symbol, file or process named in a request is not in
// the index.
var ErrNotFound = errors.New("not found")

// ErrInput means a request's arguments are wrong; the message says how.
var ErrInput = errors.New("bad request")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// MaxRows is the most rows a tool reads from one statement or lists (cypher
// rows, edges per direction, processes, communities); the MCP server also
// opens databases with it as graph.OpenOptions.MaxRows.
const MaxRows = 5000

// MaxNameBytes bounds a name, uid or path a request names a symbol or file
// by; MaxTextBytes bounds free text (a search query, task context, goal).
const (
	MaxNameBytes = 4 << 10
	MaxTextBytes = 16 << 10
)

// checkLen refuses a field longer than limit bytes.
func checkLen(field, v string, limit int) error {
	if len(v) > limit {
		return inputErr("%s is %d bytes long, at most %d", field, len(v), limit)
	}
	return nil
}
