package tools

import (
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// SchemaOutput describes the graph for cypher writers.
type SchemaOutput struct {
	Nodes   map[string][]string `json:"nodes"` // table → properties
	Rels    []SchemaRel         `json:"relationships"`
	Kinds   []string            `json:"kinds"`
	Example string              `json:"example"`
}

// SchemaRel is one relationship table.
type SchemaRel struct {
	Type       string   `json:"type"`
	Pairs      []string `json:"pairs"` // "From->To"
	Properties []string `json:"properties"`
}

// columnNotes explain properties whose meaning their name does not say;
// Schema appends them in parentheses.
var columnNotes = map[string]string{
	"File.id":         "repo-relative path",
	"File.unresolved": "call sites the resolver could not link",
}

// Schema is the graph's vocabulary: every node table with its properties,
// every relationship table with its FROM/TO pairs and properties, and
// every symbol kind, all read from graph/schema.
func Schema() *SchemaOutput {
	out := &SchemaOutput{Nodes: map[string][]string{},
		Example: "MATCH (a:Function)-[r:CALLS]->(b:Function) WHERE b.name = 'Open' RETURN a.name, a.filePath, r.confidence LIMIT 20"}
	for _, t := range schema.NodeTables() {
		props := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			props[i] = c.Name
			if n, ok := columnNotes[string(t.Label)+"."+c.Name]; ok {
				props[i] += " (" + n + ")"
			}
		}
		out.Nodes[string(t.Label)] = props
	}
	relProps := columnNames(schema.RelColumns())
	for _, r := range schema.Rels {
		sr := SchemaRel{Type: string(r.Type), Properties: relProps}
		for _, p := range r.Pairs {
			sr.Pairs = append(sr.Pairs, string(p.From)+"->"+string(p.To))
		}
		out.Rels = append(out.Rels, sr)
	}
	for _, k := range schema.Kinds {
		out.Kinds = append(out.Kinds, string(k))
	}
	sort.Strings(out.Kinds)
	return out
}

func columnNames(cols []schema.Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// SchemaSummary is one line naming every node table and every
// relationship table (with the relationship properties), for the cypher
// tool's and command's help.
func SchemaSummary() string {
	var nodes, rels []string
	for _, t := range schema.NodeTables() {
		nodes = append(nodes, string(t.Label))
	}
	for _, r := range schema.Rels {
		rels = append(rels, string(r.Type))
	}
	return "Tables: " + strings.Join(nodes, ", ") + "; relationships: " + strings.Join(rels, ", ") +
		" (each with " + strings.Join(columnNames(schema.RelColumns()), ", ") + ")."
}
