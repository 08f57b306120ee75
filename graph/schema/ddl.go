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

// No full-text index is created in the database: keyword search runs on
// the search pack beside it (package query), our own BM25 index, which
// tokenizes Unicode and splits identifiers as Kuzu's FTS cannot. Users who
// want full-text search from their own Cypher can still create one with
// CALL CREATE_FTS_INDEX on a copy of the database; gitnexus promises
// nothing about it.
