package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// This file derives the Kuzu DDL from the record types and Rels, so adding a
// property (a field with a json tag) or a FROM/TO pair is a one-place edit.

// Column is one property of a table: its name (the record's json tag) and
// its Kuzu type.
type Column struct {
	Name string
	Type string // STRING, INT64, DOUBLE, FLOAT, BOOLEAN, STRING[], FLOAT[n]
}

// NodeTable is a node table: its label, the Go record type whose json form is
// one row, and its columns. The first column is "id", the primary key.
type NodeTable struct {
	Label   Label
	Record  reflect.Type
	Columns []Column
}

// NodeTables lists every node table in load order (parents before children
// is not required by Kuzu, but a stable order keeps logs readable).
func NodeTables() []NodeTable {
	tables := []NodeTable{
		nodeTable(LabelFolder, reflect.TypeOf(Folder{})),
		nodeTable(LabelFile, reflect.TypeOf(File{})),
	}
	for _, l := range SymbolLabels {
		tables = append(tables, nodeTable(l, reflect.TypeOf(Symbol{})))
	}
	tables = append(tables,
		nodeTable(LabelCommunity, reflect.TypeOf(Community{})),
		nodeTable(LabelProcess, reflect.TypeOf(Process{})),
	)
	return tables
}

// NodeTableOf returns the node table for l.
func NodeTableOf(l Label) (NodeTable, bool) {
	for _, t := range NodeTables() {
		if t.Label == l {
			return t, true
		}
	}
	return NodeTable{}, false
}

func nodeTable(l Label, rt reflect.Type) NodeTable {
	return NodeTable{Label: l, Record: rt, Columns: columnsOf(rt)}
}

// RelColumns are the properties every relationship table carries (the Edge
// record minus its endpoints).
func RelColumns() []Column {
	var out []Column
	for _, c := range columnsOf(reflect.TypeOf(Edge{})) {
		if c.Name == "from" || c.Name == "to" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// columnsOf maps the json-tagged fields of a struct to Kuzu columns.
func columnsOf(rt reflect.Type) []Column {
	var cols []Column
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		cols = append(cols, Column{Name: name, Type: kuzuType(f.Type)})
	}
	return cols
}

func kuzuType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "STRING"
	case reflect.Bool:
		return "BOOLEAN"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		return "INT64"
	case reflect.Float64:
		return "DOUBLE"
	case reflect.Float32:
		return "FLOAT"
	case reflect.Slice:
		return kuzuType(t.Elem()) + "[]"
	}
	panic(fmt.Sprintf("schema: no Kuzu type for Go type %s", t))
}

// CreateStatement is the CREATE NODE TABLE statement of t.
func (t NodeTable) CreateStatement() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE NODE TABLE %s(", t.Label)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
	}
	b.WriteString(", PRIMARY KEY(id))")
	return b.String()
}

// RelCreateStatement is the CREATE REL TABLE statement of relationship type
// rt with the given pairs.
func RelCreateStatement(rt RelType, pairs []Pair) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE REL TABLE %s(", rt)
	for i, p := range pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "FROM %s TO %s", p.From, p.To)
	}
	for _, c := range RelColumns() {
		fmt.Fprintf(&b, ", %s %s", c.Name, c.Type)
	}
	b.WriteString(")")
	return b.String()
}

// DDL is every CREATE statement of the schema: node tables, then rel tables.
func DDL() []string {
	var out []string
	for _, t := range NodeTables() {
		out = append(out, t.CreateStatement())
	}
	for _, r := range Rels {
		out = append(out, RelCreateStatement(r.Type, r.Pairs))
	}
	return out
}

// HasPair reports whether relationship type rt has the FROM/TO pair p.
func HasPair(rt RelType, p Pair) bool {
	for _, r := range Rels {
		if r.Type != rt {
			continue
		}
		for _, q := range r.Pairs {
			if q == p {
				return true
			}
		}
	}
	return false
}

// Full-text search.
//
// Kuzu 0.11.3's FTS (built into libkuzu, no INSTALL/LOAD, works offline) was
// checked by hand against this version:
//   - CREATE_FTS_INDEX(table, name, [props], stemmer := S, stopWords := W,
//     ignore_pattern := R). Defaults: stemmer 'english' (Snowball), stopWords
//     'default' (an English list: "the" is never indexed), and an
//     ignore_pattern regex that strips digits and punctuation. Stemmers:
//     arabic basque catalan danish dutch english finnish french german greek
//     hindi hungarian indonesian irish italian lithuanian nepali norwegian
//     porter portuguese romanian russian serbian spanish swedish tamil turkish,
//     or 'none'. stopWords may instead name a one-column CSV file of words,
//     which replaces the default list (graph.BuildOptions.StopWords does
//     this); Kuzu splices that path unescaped into generated Cypher, so it
//     must hold no quote. There is no strip_accents or lower option (text is
//     always lowercased).
//   - Tokens are split on the space character only: "long\nline" and
//     "tab\there" are single tokens. Text meant for search (SearchText) must
//     be space-separated words; camelCase is not split.
//   - QUERY_FTS_INDEX(table, name, query, top := N, conjunctive := bool,
//     K := 1.2, B := 0.75) yields node and score (BM25).
//
// The query issue tunes the fields; they are listed here and nowhere else.

// FTS index options used for every index.
const (
	FTSStemmer   = "english"
	FTSStopWords = "default"
)

// FTSIndex is one full-text index.
type FTSIndex struct {
	Table  Label
	Name   string
	Fields []string
}

// FTSIndexes are the full-text indexes created after every load. Symbols
// are searched through the query package's SymbolSearch table (one table,
// so one set of BM25 statistics over all symbols; built after Load by
// query.BuildIndexes): per-table symbol indexes would double the full-text
// cost of a load (its largest part) for no use.
var FTSIndexes = []FTSIndex{
	{LabelFile, "file_fts", []string{"name", "searchText"}},
}

// SymbolFTSIndex is the per-table index shape for a symbol table; indexes
// built before SymbolSearch existed used it (query's fallback plan).
func SymbolFTSIndex(l Label) FTSIndex {
	return FTSIndex{l, strings.ToLower(string(l)) + "_fts", []string{"name", "searchText", "signature", "docComment"}}
}

// FTSIndexOf returns the full-text index of table l.
func FTSIndexOf(l Label) (FTSIndex, bool) {
	for _, ix := range FTSIndexes {
		if ix.Table == l {
			return ix, true
		}
	}
	return FTSIndex{}, false
}

// CreateStatement is the CALL that builds the index with Kuzu's default
// stop words.
func (ix FTSIndex) CreateStatement() string {
	return ix.CreateStatementWith(FTSStopWords)
}

// CreateStatementWith is the CALL that builds the index with the given
// stopWords option: "default", or the path of a one-column CSV file of
// words (which then replaces the default list; Kuzu copies it into the
// index). Kuzu 0.11.3 splices the path unescaped into Cypher it generates,
// so the path must not contain a quote or backslash.
func (ix FTSIndex) CreateStatementWith(stopWords string) string {
	return fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%s', ['%s'], stemmer := '%s', stopWords := '%s')",
		ix.Table, ix.Name, strings.Join(ix.Fields, "', '"), FTSStemmer, stopWords)
}
