// Package models knows the embedding model gitnexus uses: where its files
// come from (a pinned Hugging Face repository revision), their sizes and
// sha256 sums (the Manifest), where they live on disk, and how to fetch
// them.
//
// Contract:
//   - ArcticEmbedXS is the one manifest; its pins never change without a
//     code change.
//   - Dir resolves the model directory: an explicit --model-dir, else
//     $GITNEXUS_HOME/models/<name> (GITNEXUS_HOME defaults to ~/.gitnexus).
//   - Find locates the tokenizer and ONNX files in a directory, or returns
//     an error wrapping ErrModelMissing, which callers (analyze, query) test
//     with errors.Is to say once "no model, keyword-only" and carry on.
//   - Check reports, per file, present / size / sha256 verified.
//   - Pull downloads the files it lacks into a directory, resuming a
//     partial download (<file>.part, HTTP Range), verifying every sha256
//     (a mismatch deletes the file and fails), and renaming into place only
//     when verified. It never leaves a half-written file under the final
//     name.
package models
