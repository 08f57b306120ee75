package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/gate"
	"github.com/gitnexus/gitnexus/query"
)

// CypherInput is the cypher tool's input.
type CypherInput struct {
	Statement string         `json:"statement" jsonschema:"Cypher statement to execute (read-only: MATCH ... RETURN). Read gitnexus://repo/{name}/schema for the tables."`
	Params    map[string]any `json:"params,omitempty" jsonschema:"Optional values for $name placeholders."`
	Limit     int            `json:"limit,omitempty" jsonschema:"Most rows returned (default 200, max 5000); more are cut with a notice."`
	Repo      string         `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// CypherOutput is a statement's result.
type CypherOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Columns   []string          `json:"columns"`
	Rows      [][]any           `json:"rows"`
	RowCount  int               `json:"row_count"`
	Truncated bool              `json:"truncated,omitempty"`
	Notices   []string          `json:"notices,omitempty"`
	Budget    *query.BudgetNote `json:"budget,omitempty"`
}

// CheckReadOnly admits a user's Cypher statement or says why not: the one
// gate for the CLI's `cypher` and the MCP cypher tool (graph/gate: one
// statement, lexed exactly as Kuzu lexes it, an allow-list of read clauses
// and table functions, no file, extension, transaction or write keyword,
// bounded size and nesting). The index is also opened read-only, but
// Kuzu's read-only mode alone lets LOAD FROM, COPY TO, EXPORT, ATTACH and
// CHECKPOINT through.
func CheckReadOnly(stmt string) error {
	if strings.TrimSpace(stmt) == "" {
		return inputErr("empty statement: give a Cypher query, e.g. MATCH (n:Function) RETURN n.name LIMIT 5")
	}
	if err := gate.Check(stmt, gate.DefaultLimits); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	return nil
}

// Bounds on the values of $name placeholders: go-kuzu v0.11.3 leaks the C
// copy of every bound string, so a long-running server admits only small
// ones, and only scalars.
const (
	MaxParams          = 32
	MaxParamBytes      = 1 << 10
	MaxParamTotalBytes = 8 << 10
)

// checkParams refuses placeholder values that are not scalars or that are
// too long.
func checkParams(params map[string]any) error {
	if len(params) > MaxParams {
		return inputErr("at most %d params (got %d)", MaxParams, len(params))
	}
	total := 0
	for k, v := range params {
		if len(k) > 64 {
			return inputErr("param name %.20q... is over 64 bytes", k)
		}
		switch x := v.(type) {
		case nil, bool, float64, int, int64, json.Number:
		case string:
			if len(x) > MaxParamBytes {
				return inputErr("param %s is %d bytes long, at most %d", k, len(x), MaxParamBytes)
			}
			total += len(x)
		default:
			return inputErr("param %s is a %T: only strings, numbers, booleans and null are accepted", k, v)
		}
	}
	if total > MaxParamTotalBytes {
		return inputErr("params hold %d bytes of strings, at most %d", total, MaxParamTotalBytes)
	}
	return nil
}

// DefaultCypherRows is how many rows Cypher returns when the input names
// no limit.
const DefaultCypherRows = 200

// MaxCypherBytes bounds the JSON size of a cypher answer's rows.
const MaxCypherBytes = 4 << 20

// Cypher runs one read-only statement, capped at in.Limit rows.
func Cypher(ctx context.Context, db Querier, in CypherInput) (*CypherOutput, error) {
	if err := CheckReadOnly(in.Statement); err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultCypherRows
	}
	if limit > MaxRows {
		limit = MaxRows
	}
	if err := checkParams(in.Params); err != nil {
		return nil, err
	}
	budget, err := in.Budget.tokens(DefaultCypherTokens)
	if err != nil {
		return nil, err
	}
	res, err := db.Query(ctx, in.Statement, in.Params)
	if err != nil {
		if errors.Is(err, graph.ErrReadOnly) {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	out := &CypherOutput{Columns: res.Columns, Rows: res.Rows, Truncated: res.Truncated}
	if len(out.Rows) > limit {
		out.Rows = out.Rows[:limit]
		out.Truncated = true
	}
	// Bound the answer's size too: rows of whole nodes carry source text.
	size := 0
	for i, row := range out.Rows {
		b, _ := json.Marshal(row)
		size += len(b)
		if size > MaxCypherBytes {
			out.Rows = out.Rows[:i]
			out.Truncated = true
			out.Notices = append(out.Notices, fmt.Sprintf("result cut at %d rows to stay under %d MiB: return fewer columns (not whole nodes) or page with SKIP/LIMIT", i, MaxCypherBytes>>20))
			break
		}
	}
	out.RowCount = len(out.Rows)
	if out.Truncated && len(out.Notices) == 0 {
		out.Notices = append(out.Notices, fmt.Sprintf("result cut at %d rows: add LIMIT/SKIP to page through it, or raise limit (max %d)", len(out.Rows), MaxRows))
	}
	total := len(out.Rows)
	out.Budget = fit(out, budget, func() (string, bool) { return halve(&out.Rows, 1, total, "rows") }, "raise max_tokens, return fewer columns, or page with SKIP/LIMIT")
	if out.Budget != nil {
		out.RowCount, out.Truncated = len(out.Rows), true
	}
	return out, nil
}
