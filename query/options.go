package query

import (
	"fmt"
	"path"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Mode is which retrievers a search runs.
type Mode string

const (
	ModeHybrid  Mode = "hybrid"  // keyword and vector lists fused by RRF
	ModeKeyword Mode = "keyword" // BM25 over the search pack only
	ModeVector  Mode = "vector"  // cosine over the embeddings only
)

// Defaults of Options.
const (
	DefaultLimit = 20
	DefaultTopK  = 50
	// DefaultMaxProcesses is the default of Options.MaxProcesses.
	DefaultMaxProcesses = 5
	// MaxTopK bounds how many hits one index of the pack may return.
	MaxTopK = 1000
)

// Options tune a search. The zero value is a hybrid search with the
// defaults.
type Options struct {
	Mode  Mode // "" means hybrid
	Limit int  // hits returned (processes + definitions draw from them); default DefaultLimit
	// MaxProcesses bounds the processes listed (a hit in many flows would
	// list them all); default DefaultMaxProcesses.
	MaxProcesses int
	TopK         int // hits each retriever contributes before fusion; default DefaultTopK
	// MinScore drops hits whose final score (0..1, see doc.go) is lower.
	MinScore float64
	// Lang keeps hits in these languages (as the index spells them: "go",
	// "python", "typescript"); empty keeps all.
	Lang []string
	// Kind keeps hits of these kinds: a schema.Kind ("function", "method",
	// "struct", ...), a table name in lower case ("class" also keeps
	// structs, enums, ...; "interface" also keeps traits), or "file".
	Kind []string
	// NameGlob keeps hits whose name matches this path.Match pattern,
	// case-insensitively ("*Handler", "test_*").
	NameGlob string
	// PathPrefix keeps hits whose file path starts with this
	// repo-relative prefix ("pkg/auth/", "src").
	PathPrefix string
	// Files also searches File nodes (by path and name); without it only
	// symbols are returned.
	Files bool
	// Content adds each returned symbol's source text (capped at
	// schema.ContentCap) to the result.
	Content bool

	// Vectors is the vector retriever (nil: none; hybrid then falls back
	// to keyword with a notice, vector mode fails with ErrNoVectors).
	Vectors VectorFunc

	// Ranking overrides the ranking constants (evaluation and tuning); nil
	// uses DefaultRanking.
	Ranking *Ranking
}

// withDefaults fills zero fields and validates the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Mode == "" {
		o.Mode = ModeHybrid
	}
	switch o.Mode {
	case ModeHybrid, ModeKeyword, ModeVector:
	default:
		return o, fmt.Errorf("unknown search mode %q: use hybrid, keyword or vector", o.Mode)
	}
	if o.Limit < 0 || o.TopK < 0 {
		return o, fmt.Errorf("limit and top-k must not be negative (got %d, %d)", o.Limit, o.TopK)
	}
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = DefaultMaxProcesses
	}
	if o.TopK == 0 {
		o.TopK = DefaultTopK
	}
	if o.TopK < o.Limit {
		o.TopK = o.Limit
	}
	if o.TopK > MaxTopK {
		o.TopK = MaxTopK
	}
	if o.MinScore < 0 || o.MinScore > 1 {
		return o, fmt.Errorf("min-score %v is outside 0..1", o.MinScore)
	}
	if o.NameGlob != "" {
		if _, err := path.Match(o.NameGlob, ""); err != nil {
			return o, fmt.Errorf("bad name pattern %q: %w", o.NameGlob, err)
		}
	}
	o.Lang = lowerAll(o.Lang)
	o.Kind = lowerAll(o.Kind)
	o.NameGlob = strings.ToLower(o.NameGlob)
	o.PathPrefix = strings.TrimPrefix(strings.ReplaceAll(o.PathPrefix, `\`, "/"), "./")
	if o.Ranking == nil {
		r := DefaultRanking
		o.Ranking = &r
	}
	return o, nil
}

// filtered reports whether any filter is set (then more hits are taken
// per index, since filtering happens after the index returns its top K).
func (o Options) filtered() bool {
	return len(o.Lang) > 0 || len(o.Kind) > 0 || o.NameGlob != "" || o.PathPrefix != ""
}

// keep applies the filters to one hit.
func (o Options) keep(h *Hit) bool {
	if h.Label == string(schema.LabelFile) && !o.Files {
		return false // files are results only with Files (vector hits of file summaries)
	}
	if len(o.Lang) > 0 && !contains(o.Lang, strings.ToLower(h.Language)) {
		return false
	}
	if len(o.Kind) > 0 && !contains(o.Kind, h.Kind) && !contains(o.Kind, strings.ToLower(h.Label)) {
		return false
	}
	if o.NameGlob != "" {
		if ok, _ := path.Match(o.NameGlob, strings.ToLower(h.Name)); !ok {
			return false
		}
	}
	if o.PathPrefix != "" && !strings.HasPrefix(h.FilePath, o.PathPrefix) {
		return false
	}
	return true
}

func lowerAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		for _, p := range strings.Split(s, ",") {
			if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
