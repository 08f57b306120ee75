package tools

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/query"
)

// TestQueryOptions checks how the query tool's input becomes search
// options: defaults, the CLI's filters, and the hits searched.
func TestQueryOptions(t *testing.T) {
	o, limit, maxSym, q, err := queryOptions(QueryInput{SearchQuery: "  parse config  "})
	if err != nil {
		t.Fatal(err)
	}
	if q != "parse config" || limit != DefaultQueryLimit || maxSym != DefaultMaxSymbols || o.Limit != 20 || o.MaxProcesses != DefaultQueryLimit || o.Mode != "" {
		t.Errorf("defaults: q=%q limit=%d maxSym=%d opts=%+v", q, limit, maxSym, o)
	}
	o, limit, maxSym, _, err = queryOptions(QueryInput{SearchQuery: "x", Limit: 1000, MaxSymbols: 150, Mode: "Keyword",
		Lang: []string{"go,Python", " rust "}, Kind: []string{"function", "FILE"}, Name: " *Handler ", Path: "pkg/", MinScore: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	want := query.Options{Mode: query.ModeKeyword, Limit: 200, MaxProcesses: MaxQueryLimit, MinScore: 0.25,
		Lang: []string{"go", "python", "rust"}, Kind: []string{"function", "file"}, NameGlob: "*Handler", PathPrefix: "pkg/", Files: true}
	if limit != MaxQueryLimit || maxSym != 150 || !reflect.DeepEqual(o, want) {
		t.Errorf("filters: limit=%d maxSym=%d\n got %+v\nwant %+v", limit, maxSym, o, want)
	}
}

// TestQueryInputRefused checks that bad input is an ErrInput saying what
// is wrong, never a search that silently matches nothing.
func TestQueryInputRefused(t *testing.T) {
	many := make([]string, MaxFilterValues+1)
	for i := range many {
		many[i] = "go"
	}
	for _, tc := range []struct {
		in   QueryInput
		want string
	}{
		{QueryInput{SearchQuery: "  "}, "search_query is required"},
		{QueryInput{SearchQuery: strings.Repeat("x", MaxTextBytes+1)}, "search_query is"},
		{QueryInput{SearchQuery: "x", Goal: strings.Repeat("x", MaxTextBytes+1)}, "goal is"},
		{QueryInput{SearchQuery: "x", Limit: -1}, "must not be negative"},
		{QueryInput{SearchQuery: "x", MaxSymbols: -3}, "must not be negative"},
		{QueryInput{SearchQuery: "x", Mode: "fuzzy"}, `unknown mode "fuzzy"`},
		{QueryInput{SearchQuery: "x", Kind: []string{"func"}}, `unknown kind "func"`},
		{QueryInput{SearchQuery: "x", Kind: []string{"function,func"}}, `unknown kind "func"`},
		{QueryInput{SearchQuery: "x", Kind: many}, "at most 16"},
		{QueryInput{SearchQuery: "x", Lang: []string{strings.Join(many, ",")}}, "at most 16"},
		{QueryInput{SearchQuery: "x", Lang: []string{strings.Repeat("g", MaxFilterValueBytes+1)}}, "bytes long"},
		{QueryInput{SearchQuery: "x", Lang: []string{"go'"}}, "not a language name"},
		{QueryInput{SearchQuery: "x", Name: "["}, "not a valid glob"},
		{QueryInput{SearchQuery: "x", Name: strings.Repeat("a", MaxNameBytes+1)}, "name is"},
		{QueryInput{SearchQuery: "x", Path: strings.Repeat("a", MaxNameBytes+1)}, "path is"},
		{QueryInput{SearchQuery: "x", MinScore: 1.5}, "min_score"},
		{QueryInput{SearchQuery: "x", MinScore: -0.1}, "min_score"},
		{QueryInput{SearchQuery: "x", MinScore: math.NaN()}, "min_score"},
	} {
		err := ValidateQuery(tc.in)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80v: error %v, want ErrInput containing %q", tc.in, err, tc.want)
		}
	}
}

// TestQueryKinds checks that every kind the tool accepts is one the search
// filters on (a schema kind, a symbol table or file), and the reverse.
func TestQueryKinds(t *testing.T) {
	k := QueryKinds()
	for _, want := range []string{"function", "method", "class", "struct", "interface", "trait", "file"} {
		if !slices.Contains(k, want) {
			t.Errorf("QueryKinds lacks %q: %v", want, k)
		}
	}
	seen := map[string]bool{}
	for _, x := range k {
		if seen[x] {
			t.Errorf("QueryKinds lists %q twice", x)
		}
		seen[x] = true
	}
}
