package schema

import (
	"fmt"
	"reflect"
	"strconv"
)

// LabelEmbedding is the node table of chunk vectors: one row per chunk of a
// symbol (or of a file's summary), written by embed/vectors after the graph
// is loaded and scanned by query's vector retriever. It is not in
// NodeTables: its vector column takes the model's dimension, so it is
// created with EmbeddingTable(dim) once that is known, and an index built
// without a model has no such table. No vector (HNSW) index is created on
// it: a brute-force array_cosine_similarity scan is fast enough, and an
// HNSW build is slow on small machines.
const LabelEmbedding Label = "CodeEmbedding"

// Embedding is one row of LabelEmbedding. embed/vectors writes its rows
// with a hand-rolled encoder (floats are most of the bytes); its tests
// check that encoder against this record.
type Embedding struct {
	ID         string    `json:"id"`         // EmbeddingID(OwnerID, Chunk)
	OwnerID    string    `json:"ownerId"`    // the symbol or File the chunk belongs to
	OwnerLabel Label     `json:"ownerLabel"` // the owner's table
	Chunk      int       `json:"chunk"`      // 0-based chunk of the owner
	Hash       string    `json:"hash"`       // the chunk's content hash: an unchanged chunk keeps its vector
	Vector     []float32 `json:"vector"`     // FLOAT[dim]
}

// EmbeddingID is the id of the row of an owner's chunk-th chunk.
func EmbeddingID(ownerID string, chunk int) string { return ownerID + "@" + strconv.Itoa(chunk) }

// EmbeddingTable is the LabelEmbedding table for vectors of dimension dim:
// the columns of Embedding, with the vector a fixed-size FLOAT array.
func EmbeddingTable(dim int) NodeTable {
	t := NodeTable{Label: LabelEmbedding, Record: reflect.TypeOf(Embedding{}), Columns: columnsOf(reflect.TypeOf(Embedding{}))}
	for i := range t.Columns {
		if t.Columns[i].Name == "vector" {
			t.Columns[i].Type = fmt.Sprintf("FLOAT[%d]", dim)
		}
	}
	return t
}
