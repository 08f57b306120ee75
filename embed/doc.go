// Package embed turns text into snowflake-arctic-embed-xs vectors: a BERT
// WordPiece tokenizer in pure Go, ONNX Runtime inference, CLS pooling and
// L2 normalisation. (Fuller contract below as the package grows.)
package embed
