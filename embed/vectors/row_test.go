package vectors

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestRowIsTheSchemaRecord keeps the hand-written row encoder and the
// table's one definition (schema.Embedding, schema.EmbeddingTable) in step:
// the row decodes into the record with every field set, and has exactly
// the table's columns.
func TestRowIsTheSchemaRecord(t *testing.T) {
	c := embed.Chunk{OwnerID: `a "b".go#F:function`, Index: 2, Hash: "h1"}
	line := appendRow(nil, c, schema.LabelMethod, []float32{0.5, -1, 3e-8})
	var got schema.Embedding
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("row %s does not decode into schema.Embedding: %v", line, err)
	}
	want := schema.Embedding{ID: schema.EmbeddingID(c.OwnerID, 2), OwnerID: c.OwnerID, OwnerLabel: schema.LabelMethod,
		Chunk: 2, Hash: "h1", Vector: []float32{0.5, -1, 3e-8}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row decodes to %+v, want %+v", got, want)
	}
	var keys map[string]any
	if err := json.Unmarshal(line, &keys); err != nil {
		t.Fatal(err)
	}
	cols := schema.EmbeddingTable(3).Columns
	if len(keys) != len(cols) {
		t.Errorf("row has %d keys, table %d columns", len(keys), len(cols))
	}
	for _, col := range cols {
		if _, ok := keys[col.Name]; !ok {
			t.Errorf("row lacks column %s", col.Name)
		}
	}
}
