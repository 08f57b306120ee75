// Package vectors computes and stores the embedding vectors of an index:
// it is the embedding stage of analyze, between ingest (which streams
// symbols) and the graph build (which loads rows into Kuzu).
//
// Wiring (cmd/analyze):
//
//	emb, err := embed.New(embed.Options{ModelDir: flagModelDir, Device: dev})
//	// errors.Is(err, models.ErrModelMissing): say once "no model: keyword-only", skip this stage
//	var prev vectors.Previous // only when the live index's meta.Embeddings.Model == emb.ModelID()
//	if old, err := graph.Open(ctx, root, graph.OpenOptions{}); err == nil && old.Meta().Embeddings.Model == emb.ModelID() {
//		defer old.Close(); prev = vectors.FromDB(old)
//	}
//	w, _ := vectors.NewWriter(ctx, emb, b.StagingDir(), vectors.Options{Previous: prev})
//	// tee every symbol ingest emits into w.AddSymbol (Sink wrapper), and
//	// after ingest, w.AddFileSummary per file that defines a symbol
//	// (cmd/embedstage.go keeps kinds and names per file for this)
//	st, err := w.Close()         // waits for the last batch
//	...b.Load(ctx, ...)...
//	err = w.Load(ctx, b)         // CREATE NODE TABLE + COPY, after b.Load
//	meta.Embeddings = graph.EmbeddingInfo{Model: emb.ModelID(), Count: st.Chunks, Dim: emb.Dim()}
//
// A Writer works in the background: AddSymbol queues the symbol; a worker
// chunks queued symbols (embed.Tokenizer.SymbolChunks), reuses the vector of
// every chunk whose (id, hash) is in the previous index, embeds the rest in
// length-sorted batches (embed.Embedder.EmbedTokenIDs), and appends rows to
// an NDJSON file in the staging directory. Memory stays bounded: at most
// one slice (BatchChunks chunks) is held at a time.
//
// The table (one row per chunk, schema.Embedding) is defined in graph/schema:
// schema.LabelEmbedding, created by schema.EmbeddingTable(dim), ids from
// schema.EmbeddingID. No vector index is created (see schema.LabelEmbedding);
// the query side scans the table and maps hits to symbols by
// ownerId/ownerLabel.
package vectors
