package query

import "github.com/gitnexus/gitnexus/graph"

// Hit is one ranked node: a symbol, or a file when Options.Files is set.
// Its JSON field names are the reference tool's.
type Hit struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`  // schema.Kind, or "file"
	Label     string  `json:"label"` // node table: Function, Method, ..., File
	FilePath  string  `json:"filePath"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Language  string  `json:"language,omitempty"`
	Score     float64 `json:"score"`
	// Matched says which retrievers found the hit: "keyword", "vector" or
	// "both". A hit reached by graph expansion carries its seed's value and
	// a Via.
	Matched string `json:"matched"`
	// Via is set when the hit was not retrieved itself but reached from a
	// retrieved hit over one relationship.
	Via *Via `json:"via,omitempty"`
	// Signature and Content are filled with Options.Content.
	Signature string `json:"signature,omitempty"`
	Content   string `json:"content,omitempty"`
	// IsTest is the node's stored isTest property (schema.Symbol.IsTest,
	// schema.File.IsTest: decided once by ingest), carried by the search
	// pack; ranking reads it (Ranking.TestFactor). Not printed: the path
	// says as much to a reader.
	IsTest bool `json:"-"`
}

// Via is how graph expansion reached a hit: over relationship Rel from (or,
// when Incoming, to) the hit From.
type Via struct {
	From     string `json:"from"`
	Rel      string `json:"rel"`
	Incoming bool   `json:"incoming,omitempty"`
}

// ProcessSymbol is a hit that is a step of an execution flow. A symbol
// that is a step of several flows appears once per flow.
type ProcessSymbol struct {
	Hit
	ProcessID string `json:"process_id"`
	StepIndex int    `json:"step_index"` // 1-based step within the process
}

// Process is an execution flow with at least one hit among its steps.
type Process struct {
	ID      string `json:"id"`
	Summary string `json:"summary"` // the process label, e.g. "HandleLogin → SaveSession"
	// Description says what the flow does in words, from its entry's doc
	// comment ("Attaches the router to a http.Server and starts listening
	// and serving HTTP requests, reaching debugPrint").
	Description string  `json:"description"`
	Priority    float64 `json:"priority"`
	SymbolCount int     `json:"symbol_count"` // hits among its steps
	ProcessType string  `json:"process_type"`
	StepCount   int     `json:"step_count"`
	// Score is the sum of its hits' scores; processes are sorted by it.
	Score float64 `json:"score"`
	// Steps are all its steps in order (hits or not), for drawing A → B → C.
	Steps []Step `json:"steps"`
	// EntryPoint, Terminal (symbol ids) and Communities (ids) describe the
	// flow for the process tools; a search answer leaves them out.
	EntryPoint  string   `json:"-"`
	Terminal    string   `json:"-"`
	Communities []string `json:"-"`
}

// Step is one step of a process.
type Step struct {
	Index    int    `json:"step_index"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	FilePath string `json:"filePath"`
}

// Result is the answer to a search, grouped by process.
type Result struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Query  string   `json:"query"`
	Mode   Mode     `json:"mode"`
	Tokens []string `json:"tokens"` // the words searched for, after splitting, stop words and aliases
	// Processes are the flows the hits take part in, best first; [] when
	// there are none (the index has no processes, or no hit is a step).
	Processes []Process `json:"processes"`
	// ProcessSymbols are the hits that are steps of Processes.
	ProcessSymbols []ProcessSymbol `json:"process_symbols"`
	// Definitions are the hits that are steps of none of Processes, best
	// first.
	Definitions []Hit `json:"definitions"`
	// Files are the files the hits are in, ranked by their best hit
	// (before classes and interfaces are demoted below their methods):
	// which files to open, at most Limit.
	Files []RankedFile `json:"files"`
	// Hits are all the hits, best first, before they were grouped: the
	// ranking itself, which query/eval scores. Not part of the JSON answer
	// (processes, process_symbols and definitions hold the same hits).
	Hits []Hit `json:"-"`
	// Notices are one-line remarks for the user (a fallback taken, a filter
	// that removed everything).
	Notices []string `json:"notices,omitempty"`
	// Budget is set when the answer was cut to fit a token budget (the
	// tools' max_tokens).
	Budget *BudgetNote `json:"budget,omitempty"`
}

// BudgetNote says that an answer was cut to fit a token budget: the
// budget, the answer's estimated size, what was left out (least important
// first) and how to get it.
type BudgetNote struct {
	MaxTokens int      `json:"max_tokens"`
	Tokens    int      `json:"tokens"`
	LeftOut   []string `json:"left_out"`
	Hint      string   `json:"hint"`
}

// RankedFile is a file of a search answer and its best hit's score.
type RankedFile struct {
	FilePath string  `json:"filePath"`
	Score    float64 `json:"score"`
}
