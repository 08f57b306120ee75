package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// Querier is what the tools read from: a *graph.DB.
type Querier interface {
	Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error)
}

// ErrNotFound means a symbol, file or process named in a request is not in
// the index.
var ErrNotFound = errors.New("not found")

// ErrInput means a request's arguments are wrong; the message says how.
var ErrInput = errors.New("bad request")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

func fnum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Result cells as Go values.
var (
	str = graph.String
	num = graph.Int
	flt = graph.Float
)

// symbolPattern is a node pattern over every symbol table.
func symbolPattern(v string) string {
	labels := make([]string, len(schema.SymbolLabels))
	for i, l := range schema.SymbolLabels {
		labels[i] = string(l)
	}
	return "(" + v + ":" + strings.Join(labels, ":") + ")"
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
