package cmd

import (
	"time"

	"github.com/gitnexus/gitnexus/graph"
)

// statusJSON is `status --json`: the index's meta.json under the CLI's
// snake_case keys (meta.json itself is an on-disk format and keeps its
// own), plus what status measured: HEAD, staleness, the search pack's
// size and the integrity check.
type statusJSON struct {
	Name          string                   `json:"name"`
	Path          string                   `json:"path"`
	SchemaVersion int                      `json:"schema_version"`
	ToolVersion   string                   `json:"tool_version"`
	Commit        string                   `json:"commit"`
	Branch        string                   `json:"branch"`
	IndexedAt     time.Time                `json:"indexed_at"`
	DBFile        string                   `json:"db_file"`
	Head          string                   `json:"head,omitempty"`
	Stale         bool                     `json:"stale"`
	Counts        map[string]int           `json:"counts"`
	DroppedEdges  map[string]int           `json:"dropped_edges,omitempty"`
	Files         map[string]string        `json:"files"` // path → content hash
	ParseStatus   map[string]int           `json:"parse_status"`
	Skipped       map[string]int           `json:"skipped"`
	Languages     map[string]int           `json:"languages"`
	Kinds         map[string]int           `json:"kinds"`
	Phases        map[string]float64       `json:"phases"` // seconds
	Embeddings    graph.EmbeddingInfo      `json:"embeddings"`
	Calls         *statusCalls             `json:"calls,omitempty"`
	Unresolved    map[string]int           `json:"unresolved,omitempty"` // file → unresolved call sites
	Sums          map[string]graph.FileSum `json:"sums,omitempty"`
	// SearchPackBytes is the size of the search pack every search reads
	// (0: none).
	SearchPackBytes int64 `json:"search_pack_bytes"`
	// Integrity is "ok" or "unverified: …" (graph.Verify; a damaged index
	// is an error).
	Integrity string `json:"integrity"`
}

// statusCalls is meta.json's calls map (call sites by resolution outcome).
type statusCalls struct {
	CallSites  int `json:"call_sites"`
	Resolved   int `json:"resolved"`
	External   int `json:"external"`
	Dynamic    int `json:"dynamic"`
	Unresolved int `json:"unresolved"`
}

// stale says whether the index no longer matches HEAD: a commit was made
// since, or the index was built before the directory became a git
// repository (no commit recorded, a HEAD now).
func stale(m *graph.Meta, head string) bool { return head != "" && head != m.Commit }

func newStatusJSON(m *graph.Meta, head string, packBytes int64, integrity string) statusJSON {
	out := statusJSON{
		Name: m.RepoName, Path: m.RepoRoot, SchemaVersion: m.SchemaVersion, ToolVersion: m.ToolVersion,
		Commit: m.Commit, Branch: m.Branch, IndexedAt: m.IndexedAt, DBFile: m.DBFile,
		Head: head, Stale: stale(m, head),
		Counts: m.Counts, DroppedEdges: m.DroppedEdges, Files: m.Files, ParseStatus: m.ParseStatus,
		Skipped: m.Skipped, Languages: m.Languages, Kinds: m.Kinds, Phases: m.Phases,
		Embeddings: m.Embeddings, Unresolved: m.Unresolved, Sums: m.Sums,
		SearchPackBytes: packBytes, Integrity: integrity,
	}
	if c := m.Calls; c != nil {
		out.Calls = &statusCalls{c["callSites"], c["resolved"], c["external"], c["dynamic"], c["unresolved"]}
	}
	return out
}
