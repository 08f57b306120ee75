package vectors

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// BatchChunks is how many chunks the worker gathers before embedding them
// (one length-sorted slice: larger means less padding, more memory).
const BatchChunks = 1024

// Stored is a vector of the previous index.
type Stored struct {
	Hash   string
	Vector []float32
}

// Previous looks up rows of the previous index by RowID, returning those it
// has (a missing id is simply absent from the map).
type Previous interface {
	Lookup(ctx context.Context, ids []string) (map[string]Stored, error)
}

// Options tune a Writer.
type Options struct {
	// Previous, when set, supplies vectors to reuse for unchanged chunks.
	Previous Previous
	// Progress, when set, is called with the chunks written so far.
	Progress func(done int)
}

// Stats count what a Writer did.
type Stats struct {
	Owners   int `json:"owners"`   // symbols and files
	Chunks   int `json:"chunks"`   // rows written
	Embedded int `json:"embedded"` // chunks run through the model
	Reused   int `json:"reused"`   // chunks whose previous vector was kept
}

type item struct {
	chunks []embed.Chunk
	label  schema.Label
	sym    *schema.Symbol // tokenized by the worker when chunks is nil
}

// Writer embeds chunks in the background and writes them as rows. Its Add
// methods may be called from one goroutine at a time.
type Writer struct {
	ctx  context.Context
	emb  *embed.Embedder
	opts Options
	path string
	f    *os.File
	bw   *bufio.Writer
	dim  int

	queue chan item
	done  chan struct{}
	once  sync.Once
	err   error // the worker's first error, read after done
	stats Stats
}

// NewWriter starts a writer whose rows (schema.Embedding) go to
// stagingDir/vectors-CodeEmbedding.json.
func NewWriter(ctx context.Context, emb *embed.Embedder, stagingDir string, opts Options) (*Writer, error) {
	path := filepath.Join(stagingDir, "vectors-"+string(schema.LabelEmbedding)+".json") // Kuzu reads NDJSON only from *.json
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	w := &Writer{ctx: ctx, emb: emb, opts: opts, path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20), dim: emb.Dim(),
		queue: make(chan item, 256), done: make(chan struct{})}
	go w.work()
	return w, nil
}

// AddSymbol queues a symbol's chunks (see embed.DocumentText). It returns
// the worker's error once it has failed.
func (w *Writer) AddSymbol(s schema.Symbol) error {
	return w.enqueue(item{sym: &s, label: s.Label})
}

// AddFileSummary queues a file's summary chunk (see embed.FileSummaryText).
func (w *Writer) AddFileSummary(f schema.File, defined []schema.Symbol) error {
	return w.enqueue(item{chunks: w.emb.Tokenizer().FileChunks(f, defined), label: schema.LabelFile})
}

func (w *Writer) enqueue(it item) error {
	select {
	case w.queue <- it:
		return nil
	case <-w.done:
		return w.failure()
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
}

func (w *Writer) failure() error {
	if w.err != nil {
		return w.err
	}
	return fmt.Errorf("vectors: writer closed")
}

// Close waits for every queued chunk to be written and closes the file.
func (w *Writer) Close() (Stats, error) {
	w.once.Do(func() { close(w.queue) })
	<-w.done
	if w.err != nil {
		return w.stats, w.err
	}
	return w.stats, nil
}

// Path is the NDJSON file of rows.
func (w *Writer) Path() string { return w.path }

// Execer runs a statement on the database being built (graph.Build).
type Execer interface {
	Exec(ctx context.Context, stmt string) error
}

// CopyRows is how many rows one COPY statement loads. Kuzu's COPY of
// FLOAT[384] rows takes buffer-pool memory far beyond the rows' size, and
// more with each copying thread: one COPY of all of prometheus's 11k chunk
// vectors on two threads failed in analyze's 256 MiB build pool ("buffer
// pool is full", the last step of analyze). Parts of CopyRows rows on one
// thread load 40k rows in 208 MiB (TestLoadManyVectorsInASmallPool). The
// need still grows with the table (measured: 100k rows fail in 256 MiB,
// load in 512 MiB; 200k load in 1 GiB), so Load first grows the build's
// pool to PoolBase + PoolPerRow × rows when the database can (graph.Build
// can: the pool is address space, filled only as far as needed).
const CopyRows = 4096

// The buffer pool Load asks for: enough for the measured cases above with
// room to spare.
const (
	PoolBase   = 256 << 20
	PoolPerRow = 4 << 10
)

// poolGrower is a database whose buffer pool can grow (graph.Build).
type poolGrower interface {
	GrowBufferPool(bytes uint64) error
}

// Load creates the table and copies the rows in, CopyRows at a time on one
// thread; call it after Close and after the graph build's own Load. The
// connection stays on one thread afterwards: this is meant as the build's
// last bulk load.
func (w *Writer) Load(ctx context.Context, db Execer) error {
	if err := db.Exec(ctx, schema.EmbeddingTable(w.dim).CreateStatement()); err != nil {
		return fmt.Errorf("vectors: create table: %w", err)
	}
	if w.stats.Chunks == 0 {
		return nil
	}
	if g, ok := db.(poolGrower); ok {
		if err := g.GrowBufferPool(PoolBase + PoolPerRow*uint64(w.stats.Chunks)); err != nil {
			return fmt.Errorf("vectors: grow the buffer pool for %d rows: %w", w.stats.Chunks, err)
		}
	}
	if err := db.Exec(ctx, "CALL threads=1"); err != nil {
		return fmt.Errorf("vectors: one copy thread: %w", err)
	}
	in, err := os.Open(w.path)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	part := strings.TrimSuffix(w.path, ".json") + "-part.json" // Kuzu reads NDJSON only from *.json
	defer os.Remove(part)
	for more := true; more; {
		n, err := writePart(sc, part, CopyRows)
		if err != nil {
			return err
		}
		more = n == CopyRows
		if n == 0 {
			break
		}
		if err := db.Exec(ctx, fmt.Sprintf("COPY %s FROM %s", schema.LabelEmbedding, schema.Quote(part))); err != nil {
			return fmt.Errorf("vectors: copy rows: %w", err)
		}
	}
	return nil
}

// writePart copies up to limit lines from sc into the file path (replacing
// it) and returns how many it copied.
func writePart(sc *bufio.Scanner, path string, limit int) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("vectors: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	n := 0
	for n < limit && sc.Scan() {
		bw.Write(sc.Bytes())
		bw.WriteByte('\n')
		n++
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return 0, fmt.Errorf("vectors: read rows: %w", err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return 0, fmt.Errorf("vectors: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("vectors: close %s: %w", path, err)
	}
	return n, nil
}

func (w *Writer) work() {
	defer close(w.done)
	var pending []item
	n := 0
	flush := func() bool {
		if err := w.flush(pending); err != nil {
			w.err = err
			return false
		}
		pending, n = pending[:0], 0
		return true
	}
	for it := range w.queue {
		if w.err != nil {
			continue // drain
		}
		if it.sym != nil {
			it.chunks = w.emb.Tokenizer().SymbolChunks(*it.sym)
			it.sym = nil
		}
		pending = append(pending, it)
		n += len(it.chunks)
		if n >= BatchChunks && !flush() {
			continue
		}
	}
	if w.err == nil && len(pending) > 0 {
		flush()
	}
	if err := w.bw.Flush(); err != nil && w.err == nil {
		w.err = fmt.Errorf("vectors: write %s: %w", w.path, err)
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = fmt.Errorf("vectors: close %s: %w", w.path, err)
	}
}

// flush embeds (or reuses) the chunks of items and writes their rows.
func (w *Writer) flush(items []item) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	var all []embed.Chunk
	var labels []schema.Label
	for _, it := range items {
		all = append(all, it.chunks...)
		for range it.chunks {
			labels = append(labels, it.label)
		}
		w.stats.Owners++
	}
	vecs := make([][]float32, len(all))
	if w.opts.Previous != nil {
		ids := make([]string, len(all))
		for i, c := range all {
			ids[i] = schema.EmbeddingID(c.OwnerID, c.Index)
		}
		prev, err := w.opts.Previous.Lookup(w.ctx, ids)
		if err != nil {
			return fmt.Errorf("vectors: previous index: %w", err)
		}
		for i, c := range all {
			if p, ok := prev[ids[i]]; ok && p.Hash == c.Hash && len(p.Vector) == w.dim {
				vecs[i] = p.Vector
				w.stats.Reused++
			}
		}
	}
	var todo []int
	var seqs [][]int32
	for i := range all {
		if vecs[i] == nil {
			todo = append(todo, i)
			seqs = append(seqs, all[i].IDs)
		}
	}
	if len(seqs) > 0 {
		out, err := w.emb.EmbedTokenIDs(w.ctx, seqs)
		if err != nil {
			return fmt.Errorf("vectors: embed: %w", err)
		}
		for k, i := range todo {
			vecs[i] = out[k]
		}
		w.stats.Embedded += len(seqs)
	}
	var line []byte
	for i, c := range all {
		line = appendRow(line[:0], c, labels[i], vecs[i])
		if _, err := w.bw.Write(line); err != nil {
			return fmt.Errorf("vectors: write %s: %w", w.path, err)
		}
	}
	w.stats.Chunks += len(all)
	if w.opts.Progress != nil {
		w.opts.Progress(w.stats.Chunks)
	}
	return nil
}

// appendRow writes one NDJSON row of schema.Embedding (newline included),
// by hand: the floats are most of the bytes, and encoding/json would box
// each one.
func appendRow(b []byte, c embed.Chunk, label schema.Label, v []float32) []byte {
	str := func(b []byte, s string) []byte {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	b = append(b, `{"id":`...)
	b = str(b, schema.EmbeddingID(c.OwnerID, c.Index))
	b = append(b, `,"ownerId":`...)
	b = str(b, c.OwnerID)
	b = append(b, `,"ownerLabel":`...)
	b = str(b, string(label))
	b = append(b, `,"chunk":`...)
	b = strconv.AppendInt(b, int64(c.Index), 10)
	b = append(b, `,"hash":`...)
	b = str(b, c.Hash)
	b = append(b, `,"vector":[`...)
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, "]}\n"...)
}
