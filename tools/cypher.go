package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
)

// CypherInput is the cypher tool's input.
type CypherInput struct {
	Statement string         `json:"statement" jsonschema:"Cypher statement to execute (read-only: MATCH ... RETURN). Read gitnexus://repo/{name}/schema for the tables."`
	Params    map[string]any `json:"params,omitempty" jsonschema:"Optional values for $name placeholders."`
	Limit     int            `json:"limit,omitempty" jsonschema:"Most rows returned (default 200, max 5000); more are cut with a notice."`
	Repo      string         `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
}

// CypherOutput is a statement's result.
type CypherOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	RowCount  int      `json:"row_count"`
	Truncated bool     `json:"truncated,omitempty"`
	Notices   []string `json:"notices,omitempty"`
}

// writeWords are the clauses that change the database or touch the file
// system; a statement containing any of them (outside string literals) is
// refused before it reaches Kuzu.
var writeWords = map[string]bool{
	"CREATE": true, "MERGE": true, "SET": true, "DELETE": true, "REMOVE": true, "DROP": true,
	"ALTER": true, "COPY": true, "EXPORT": true, "IMPORT": true, "LOAD": true, "INSTALL": true,
	"ATTACH": true, "DETACH": true, "USE": true, "CHECKPOINT": true, "BEGIN": true, "COMMIT": true,
	"ROLLBACK": true, "TRUNCATE": true,
}

// CheckReadOnly refuses statements that would write (to the graph or the
// file system) or that hold more than one statement. The index is also
// opened read-only, so this is a clear early error, not the only guard.
func CheckReadOnly(stmt string) error {
	if strings.TrimSpace(stmt) == "" {
		return inputErr("empty statement: give a Cypher query, e.g. MATCH (n:Function) RETURN n.name LIMIT 5")
	}
	if len(stmt) > MaxStatementBytes {
		return inputErr("statement is %d bytes long, at most %d", len(stmt), MaxStatementBytes)
	}
	words, semicolon := cypherWords(stmt)
	if semicolon {
		return inputErr("one statement per call: remove the ';'")
	}
	for _, w := range words {
		if writeWords[w] {
			return inputErr("cypher is read-only: %s is not allowed (the index changes only through `gitnexus analyze`)", w)
		}
	}
	return nil
}

// cypherWords returns the upper-cased bare words of stmt outside string
// literals, comments and backquoted names, and whether a ';' is followed
// by more text.
func cypherWords(stmt string) ([]string, bool) {
	var words []string
	semi := false
	seenSemi := false
	i := 0
	for i < len(stmt) {
		c := stmt[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(stmt) && stmt[j] != c {
				if stmt[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			if seenSemi {
				semi = true
			}
			continue
		case c == '/' && i+1 < len(stmt) && stmt[i+1] == '/':
			for i < len(stmt) && stmt[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(stmt) && stmt[i+1] == '*':
			end := strings.Index(stmt[i+2:], "*/")
			if end < 0 {
				i = len(stmt)
			} else {
				i += end + 4
			}
			continue
		case c == ';':
			seenSemi = true
		case isWordByte(c):
			j := i
			for j < len(stmt) && isWordByte(stmt[j]) {
				j++
			}
			words = append(words, strings.ToUpper(stmt[i:j]))
			if seenSemi {
				semi = true
			}
			i = j
			continue
		default:
			if seenSemi && c != ' ' && c != '\n' && c != '\t' && c != '\r' {
				semi = true
			}
		}
		i++
	}
	return words, semi
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// DefaultCypherRows is how many rows Cypher returns when the input names
// no limit.
const DefaultCypherRows = 200

// MaxStatementBytes bounds a cypher statement's length.
const MaxStatementBytes = 64 << 10

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
	if len(in.Params) > 32 {
		return nil, inputErr("at most 32 params (got %d)", len(in.Params))
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
	return out, nil
}
