package embed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/gitnexus/gitnexus/models"
)

// QueryPrefix is prepended to search queries (not to documents), as the
// model was trained.
const QueryPrefix = "Represent this sentence for searching relevant passages: "

// Defaults for batching. The token budget bounds ORT's working memory: the
// attention scores of a run take rows × 12 heads × length² floats, and
// ORT's arena keeps its largest run. Measured on prometheus chunks (random
// model of the real shape, 2 cores, interleaved runs): a budget of 4096
// added ~390 MiB of RSS over the loaded model at 20.1-20.6 chunks/s, 2048
// ~140 MiB at 20.9-22.3, 1024 ~30 MiB at 21.1-22.9. Larger batches only
// cost memory.
const (
	DefaultBatchSize      = 16
	DefaultMaxBatchTokens = 1024 // rows × padded length per ORT run
)

// Options configure New.
type Options struct {
	// ModelDir holds the tokenizer and the ONNX model ("" means
	// models.ArcticEmbedXS.Dir: $GITNEXUS_MODEL_DIR or
	// $GITNEXUS_HOME/models/snowflake-arctic-embed-xs).
	ModelDir string
	// ModelFile overrides the ONNX file found in ModelDir (benchmarks use
	// it for a generated model); the tokenizer still comes from ModelDir.
	ModelFile string
	// Quantized prefers the int8 model when both are present.
	Quantized bool
	// Device: auto (default), cpu, cuda or dml.
	Device Device
	// Threads is ORT's intra-op thread count (0: the number of cores).
	Threads int
	// BatchSize caps the sequences per ORT run (0: DefaultBatchSize).
	BatchSize int
	// MaxBatchTokens caps rows × padded length per run (0: the default).
	MaxBatchTokens int
}

// Embedder embeds text with a BERT encoder on ONNX Runtime: tokenize,
// batch by length, run, take [CLS], L2-normalise. Safe for concurrent use;
// ORT runs are serialised (each one already uses every core).
type Embedder struct {
	tok   *Tokenizer
	sess  *session
	paths models.Paths
	opts  Options
	dim   int

	mu    sync.Mutex // serialises runs and guards stats
	stats Stats
}

// Stats count the work an Embedder did.
type Stats struct {
	Runs         int64         // ORT runs
	Sequences    int64         // sequences embedded
	Tokens       int64         // real tokens ([CLS] and [SEP] included)
	PaddedTokens int64         // rows × padded length actually computed
	ORTTime      time.Duration // time inside ORT's Run (the rest is this package's overhead)
}

// New loads the tokenizer and the model. A directory without the model
// gives an error wrapping models.ErrModelMissing; a missing ONNX Runtime
// library one wrapping ErrORTNotFound; an explicit --device that cannot be
// used one wrapping ErrDeviceUnavailable.
func New(opts Options) (*Embedder, error) {
	dev, err := ParseDevice(string(opts.Device))
	if err != nil {
		return nil, err
	}
	opts.Device = dev
	dir, err := models.ArcticEmbedXS.Dir(opts.ModelDir)
	if err != nil {
		return nil, err
	}
	p, err := models.Find(dir, opts.Quantized)
	if opts.ModelFile != "" {
		p.ONNX = opts.ModelFile
		if p.Tokenizer != "" {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.MaxBatchTokens <= 0 {
		opts.MaxBatchTokens = DefaultMaxBatchTokens
	}
	sess, err := newSession(sessionConfig{modelPath: p.ONNX, device: opts.Device, threads: opts.Threads})
	if err != nil {
		return nil, err
	}
	e := &Embedder{tok: tok, sess: sess, paths: p, opts: opts}
	// One tiny run checks the model's interface and learns its dimension.
	probe, _, err := sess.run(makeBatch([][]int32{{tok.CLS(), tok.SEP()}}, tok.PAD()))
	if err != nil {
		sess.close()
		return nil, fmt.Errorf("model %s: %w", p.ONNX, err)
	}
	e.dim = len(probe[0])
	return e, nil
}

// Close releases the ORT session. The Embedder is unusable afterwards.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sess.close()
}

// Tokenizer is the model's tokenizer.
func (e *Embedder) Tokenizer() *Tokenizer { return e.tok }

// Dim is the embedding dimension (384 for arctic-embed-xs).
func (e *Embedder) Dim() int { return e.dim }

// ModelID names the weights in use (file name and size), for meta.json:
// vectors from an index whose model id differs must not be reused.
func (e *Embedder) ModelID() string {
	size := int64(-1)
	if st, err := os.Stat(e.paths.ONNX); err == nil {
		size = st.Size()
	}
	return fmt.Sprintf("%s:%s:%d", models.ArcticEmbedXS.Repo, filepath.Base(e.paths.ONNX), size)
}

// Paths are the files in use.
func (e *Embedder) Paths() models.Paths { return e.paths }

// Device is where inference runs and why that device was chosen.
func (e *Embedder) Device() (Device, string) { return e.sess.device, e.sess.reason }

// Stats returns the counters so far.
func (e *Embedder) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// EmbedQuery embeds a search query (with QueryPrefix).
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	vs, err := e.EmbedTokenIDs(ctx, [][]int32{e.tok.Encode(QueryPrefix + query)})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// EmbedDocuments embeds texts as documents (no prefix), truncating each to
// 512 tokens, and returns one unit vector per text, in order. The pipeline
// calls it with slices of a few hundred texts at a time (streaming); each
// call sorts its texts by length so batches carry little padding.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedTokenIDs(ctx, e.encodeAll(texts))
}

// encodeAll tokenizes texts on all cores.
func (e *Embedder) encodeAll(texts []string) [][]int32 {
	seqs := make([][]int32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts)/16+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(texts); i += workers {
				seqs[i] = e.tok.Encode(texts[i])
			}
		})
	}
	wg.Wait()
	return seqs
}

// EmbedTokenIDs embeds sequences that are already framed ([CLS] ... [SEP],
// at most MaxSeqLen ids, as Tokenizer.Encode, Wrap and Chunk make them).
func (e *Embedder) EmbedTokenIDs(ctx context.Context, seqs [][]int32) ([][]float32, error) {
	for i, s := range seqs {
		if len(s) == 0 || len(s) > MaxSeqLen {
			return nil, fmt.Errorf("sequence %d has %d ids, want 1..%d", i, len(s), MaxSeqLen)
		}
	}
	lengths := make([]int, len(seqs))
	for i, s := range seqs {
		lengths[i] = len(s)
	}
	out := make([][]float32, len(seqs))
	for _, idx := range PlanBatches(lengths, e.opts.BatchSize, e.opts.MaxBatchTokens) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := make([][]int32, len(idx))
		for k, i := range idx {
			rows[k] = seqs[i]
		}
		vs, err := e.run(rows)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			out[i] = vs[k]
		}
	}
	return out, nil
}

func (e *Embedder) run(rows [][]int32) ([][]float32, error) {
	b := makeBatch(rows, e.tok.PAD())
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess.s == nil {
		return nil, errors.New("embedder is closed")
	}
	vs, took, err := e.sess.run(b)
	e.stats.ORTTime += took
	if err != nil {
		return nil, err
	}
	e.stats.Runs++
	e.stats.Sequences += int64(b.rows)
	e.stats.PaddedTokens += int64(b.rows * b.seqLen)
	for _, r := range rows {
		e.stats.Tokens += int64(len(r))
	}
	return vs, nil
}
