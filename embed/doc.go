// Package embed turns text into snowflake-arctic-embed-xs vectors: a BERT
// WordPiece tokenizer in pure Go, inference on ONNX Runtime, CLS pooling
// and L2 normalisation.
//
// # Tokenizer
//
// LoadTokenizer reads a model directory's tokenizer.json (or vocab.txt).
// Tokenize reproduces the Hugging Face BertNormalizer + BertPreTokenizer +
// WordPiece pipeline exactly (the reference ids in
// shared/models/snowflake-arctic-embed-xs are a test): control characters
// removed, whitespace unified, CJK ideographs split, accents stripped (NFD
// without nonspacing marks, from a generated table), lowercased; split on
// whitespace and punctuation; greedy longest-match WordPiece with "##"
// continuations, [UNK] for unmatched or >100-rune words. Special tokens
// spelled verbatim in text ("[SEP]") map to their ids, as in the
// reference. Encode frames [CLS] ids [SEP] truncated to 512.
//
// # What is embedded
//
// One document per Function, Method, Class and Interface (DocumentText:
// kind and qualified name, file path, signature, doc comment, then the
// body) and one per file that defines a symbol (FileSummaryText: path,
// language, then "kind name" of each definition in source order; analyze
// queues them after the symbols, and they are search results only with
// --files). Tokenizer.SymbolChunks
// splits a long document into overlapping chunks of at most 512 tokens, each
// repeating the header; Chunk.Hash keys vector reuse across re-analyses.
// Package embed/vectors is the analyze stage that streams symbols through
// this and writes the vectors to the graph.
//
// # Inference
//
// New(Options) loads the tokenizer and the ONNX model (models.Find:
// ErrModelMissing when absent) and opens one ORT session. ORT is
// initialised once per process (InitORT, sync.Once); its library is found
// at $GITNEXUS_ORT_LIB, beside the executable ($ORIGIN and $ORIGIN/lib),
// then in the source tree's lib/ (tests); versions before 1.24 are refused.
// Device auto tries CUDA (DirectML on Windows) and falls back to the CPU,
// logging one line with the choice and the reason; an explicit cuda or dml
// that cannot load is an error wrapping ErrDeviceUnavailable. Intra-op
// threads default to the core count.
//
// EmbedDocuments (no prefix), EmbedQuery (QueryPrefix) and EmbedTokenIDs
// sort their inputs by length and run them in batches (PlanBatches: at most
// BatchSize rows and MaxBatchTokens padded tokens), so padding is small and
// a text's vector does not depend on what it is batched with. Results come
// back in input order as unit vectors; Dot of two is their cosine.
//
// Tests use a small generated BERT (testdata/tiny, made by
// testdata/gen_fixture.py); gen_fixture.py --full makes a random-weight
// model of the real shape for embed/bench.
package embed
