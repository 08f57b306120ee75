package graph

import (
	"fmt"
	"math"
	"math/big"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"
)

// Result is a query's answer with every value converted by JSONValue.
type Result struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// Truncated is true when the rows stopped at the row limit.
	Truncated bool `json:"truncated,omitempty"`
}

// collect reads all rows (at most maxRows when > 0) of res into a Result.
func collect(res *kuzu.QueryResult, maxRows int) (*Result, error) {
	out := &Result{Columns: append([]string{}, res.GetColumnNames()...), Rows: [][]any{}}
	ncol := uint64(len(out.Columns))
	for res.HasNext() {
		if maxRows > 0 && len(out.Rows) >= maxRows {
			out.Truncated = true
			break
		}
		t, err := res.Next()
		if err != nil {
			return nil, fmt.Errorf("read row %d: %w", len(out.Rows), err)
		}
		row := make([]any, ncol)
		for i := uint64(0); i < ncol; i++ {
			v, err := t.GetValue(i)
			if err != nil {
				// go-kuzu returns unsupported types forced to their
				// string form along with an error; keep the string.
				if s, ok := v.(string); ok {
					row[i] = s
					continue
				}
				t.Close()
				return nil, fmt.Errorf("read row %d column %s: %w", len(out.Rows), out.Columns[i], err)
			}
			row[i] = JSONValue(v)
		}
		t.Close()
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// JSONValue converts a value returned by go-kuzu into plain JSON-friendly Go
// values:
//   - nodes become maps of their properties plus "_label" and "_id"
//     ("table:offset"); NULL properties are left out;
//   - relationships add "_src" and "_dst" (internal ids) to the same;
//   - paths (recursive rels) become {"_nodes": [...], "_rels": [...]};
//   - lists and arrays become []any, structs map[string]any, maps
//     map[string]any when every key is a string and [{"key","value"}] otherwise;
//   - integers become int64 (uint64 stays uint64), float32 becomes float64,
//     NaN and ±Inf become nil (JSON cannot carry them);
//   - times become RFC 3339 strings, durations, UUIDs, decimals and 128-bit
//     integers their string forms, blobs strings.
func JSONValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, uint64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint32:
		return int64(x)
	case uint16:
		return int64(x)
	case uint8:
		return int64(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case float32:
		return JSONValue(float64(x))
	case kuzu.InternalID:
		return internalID(x)
	case kuzu.Node:
		m := props(x.Properties)
		m["_label"] = x.Label
		m["_id"] = internalID(x.ID)
		return m
	case kuzu.Relationship:
		m := props(x.Properties)
		m["_label"] = x.Label
		m["_id"] = internalID(x.ID)
		m["_src"] = internalID(x.SourceID)
		m["_dst"] = internalID(x.DestinationID)
		return m
	case kuzu.RecursiveRelationship:
		nodes := make([]any, len(x.Nodes))
		for i, n := range x.Nodes {
			nodes[i] = JSONValue(n)
		}
		rels := make([]any, len(x.Relationships))
		for i, r := range x.Relationships {
			rels[i] = JSONValue(r)
		}
		return map[string]any{"_nodes": nodes, "_rels": rels}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSONValue(e)
		}
		return out
	case []kuzu.MapItem:
		m := make(map[string]any, len(x))
		for _, it := range x {
			k, ok := it.Key.(string)
			if !ok {
				m = nil
				break
			}
			m[k] = JSONValue(it.Value)
		}
		if m != nil {
			return m
		}
		list := make([]any, len(x))
		for i, it := range x {
			list[i] = map[string]any{"key": JSONValue(it.Key), "value": JSONValue(it.Value)}
		}
		return list
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return x.String()
	case []byte:
		return string(x)
	case *big.Int:
		return x.String()
	case fmt.Stringer: // uuid.UUID, decimal.Decimal
		return x.String()
	}
	return fmt.Sprint(v)
}

func props(p map[string]any) map[string]any {
	m := make(map[string]any, len(p)+4)
	for k, v := range p {
		if v == nil {
			continue
		}
		m[k] = JSONValue(v)
	}
	return m
}

func internalID(id kuzu.InternalID) string {
	return fmt.Sprintf("%d:%d", id.TableID, id.Offset)
}

// String, Int, Float and Bool read a Result cell as the Go type a caller
// wants: Kuzu's integers arrive as int64 (or uint64), doubles as float64,
// booleans as bool, and NULL as nil, which reads as the zero value.

// String is a cell as a string ("" for NULL).
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// Int is a numeric cell as an int (0 for NULL or non-numbers).
func Int(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case uint64:
		return int(x)
	case int32:
		return int(x)
	case int:
		return x
	case float64:
		return int(x)
	}
	return 0
}

// Float is a numeric cell as a float64 (0 for NULL or non-numbers).
func Float(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return 0
}

// Bool is a boolean cell as a bool (false for NULL or non-booleans).
func Bool(v any) bool {
	b, _ := v.(bool)
	return b
}
