package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/query"
)

// Budget is the answer-size parameter every tool takes: an agent pays for
// every token of an answer, so each answer is cut to fit max_tokens (a
// default per tool when not given), least important parts first, and says
// in "budget" what it left out and how to get it.
//
// Tokens are estimated as CharsPerToken characters of the answer's JSON
// (the usual figure for English and code with BPE tokenizers), indented
// as `--json` prints it: the whole answer, and an upper bound for the
// compact JSON the MCP server sends.
type Budget struct {
	MaxTokens      int `json:"max_tokens,omitempty" jsonschema:"Most tokens the answer may take (about 4 characters each; 256..100000; default per tool). Longer answers are cut, least important parts first, and budget says what was left out."`
	MaxTokensAlias int `json:"maxTokens,omitempty" jsonschema:"Alias of max_tokens"`
}

// CharsPerToken is the characters of JSON one token is taken to be.
const CharsPerToken = 4

// Budget bounds.
const (
	MinBudgetTokens = 256
	MaxBudgetTokens = 100_000
)

// Default budgets, in tokens, per tool: impact's fits the direct callers
// of a widely used symbol with room for its flows (8 K tokens, about 32 K
// characters).
const (
	DefaultImpactTokens  = 8000
	DefaultContextTokens = 6000
	DefaultQueryTokens   = 6000
	DefaultChangesTokens = 8000
	DefaultTraceTokens   = 4000
	DefaultCypherTokens  = 8000
	DefaultListTokens    = 8000
)

// tokens is the budget asked for, or def; an error for a budget out of
// bounds or two that disagree.
func (b Budget) tokens(def int) (int, error) {
	v := b.MaxTokens
	if v != 0 && b.MaxTokensAlias != 0 && v != b.MaxTokensAlias {
		return 0, inputErr("max_tokens %d and maxTokens %d disagree: give one", b.MaxTokens, b.MaxTokensAlias)
	}
	if v == 0 {
		v = b.MaxTokensAlias
	}
	if v == 0 {
		return def, nil
	}
	if v < MinBudgetTokens || v > MaxBudgetTokens {
		return 0, inputErr("max_tokens must be %d..%d (got %d)", MinBudgetTokens, MaxBudgetTokens, v)
	}
	return v, nil
}

// estimateTokens is the estimated token count of v's JSON, indented as the
// CLI prints it (the MCP server's compact form is smaller).
func estimateTokens(v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return 0
	}
	return (len(b) + CharsPerToken - 1) / CharsPerToken
}

// fit cuts out until its JSON fits limit tokens: shrink removes the least
// important part it still can (about half of one list) and says what it
// left out, or reports false when nothing is left to cut. The returned
// note (nil when nothing was cut) is what the answer's "budget" says; its
// Tokens is the size with the note itself in it.
func fit(out any, limit int, shrink func() (string, bool), hint string) *query.BudgetNote {
	if estimateTokens(out) <= limit {
		return nil
	}
	note := &query.BudgetNote{MaxTokens: limit, LeftOut: []string{}, Hint: hint}
	var cuts []string
	for estimateTokens(out)+estimateTokens(note) > limit {
		what, ok := shrink()
		if !ok {
			break
		}
		cuts = append(cuts, what)
	}
	note.LeftOut = lastPerList(cuts)
	note.Tokens = estimateTokens(out) + estimateTokens(note)
	return note
}

// lastPerList keeps, of successive cuts of one list ("affected_processes:
// 60 of 238 listed", then "... 30 of 238 listed"), the last, in the order
// the lists were first cut.
func lastPerList(cuts []string) []string {
	var keys []string
	last := map[string]string{}
	for _, c := range cuts {
		k := c
		if i := indexColon(c); i > 0 {
			k = c[:i]
		}
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = c
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, last[k])
	}
	return out
}

func indexColon(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

// halve cuts *list to half its length (at least one fewer, at least keep
// left), reporting "name: kept of total listed"; false when it is at keep
// already.
func halve[T any](list *[]T, keep, total int, name string) (string, bool) {
	n := len(*list)
	if n <= keep {
		return "", false
	}
	m := max(keep, n/2)
	*list = (*list)[:m]
	return fmt.Sprintf("%s: %d of %d listed", name, m, total), true
}

// BudgetOf is the budget note of a tool's answer (nil when it was not cut
// or the answer has none).
func BudgetOf(out any) *query.BudgetNote {
	switch o := out.(type) {
	case *ImpactOutput:
		return o.Budget
	case *ContextOutput:
		return o.Budget
	case *TraceOutput:
		return o.Budget
	case *DetectChangesOutput:
		return o.Budget
	case *CypherOutput:
		return o.Budget
	case *ListReposOutput:
		return o.Budget
	case *ExplainOutput:
		return o.Budget
	case *RouteMapOutput:
		return o.Budget
	case *APIImpactOutput:
		return o.Budget
	case *RenameOutput:
		return o.Budget
	case *query.Result:
		return o.Budget
	}
	return nil
}

// BudgetLine is a budget note as one line for a terminal.
func BudgetLine(n *query.BudgetNote) string {
	return fmt.Sprintf("answer cut to about %d tokens (max %d): %s; %s", n.Tokens, n.MaxTokens, strings.Join(n.LeftOut, ", "), n.Hint)
}
