package index

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/embed/vectors"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/models"
)

// embedStage is analyze's embedding step: it tees the symbols ingest
// streams into a vectors.Writer that embeds them in the background, and
// loads the vectors into the new database after the graph.
type embedStage struct {
	emb    *embed.Embedder
	w      *vectors.Writer
	prev   *graph.DB // the live index, read for vectors to reuse
	status string    // one line for the summary

	files   []schema.File              // seen by the sink, for file summaries
	defined map[string][]schema.Symbol // by file path: kind and names only

	drained bool                // drain ran
	err     error               // drain's error
	info    graph.EmbeddingInfo // what drain learned, for the meta
}

// startEmbedding opens the model. A missing model or ONNX Runtime is not
// an error: Build warns once and builds a keyword-only index (nil stage,
// and the line the summary shows). An explicitly requested device that
// cannot load is an error (embed.ErrDeviceUnavailable). The vectors of the
// live index (meta live, nil when none) are reused when its model is this
// one.
func startEmbedding(ctx context.Context, root string, live *graph.Meta, b *graph.Build, opts embed.Options, warn func(string)) (*embedStage, string, error) {
	emb, err := embed.New(opts)
	switch {
	case err == nil:
	case errors.Is(err, models.ErrModelMissing), errors.Is(err, embed.ErrORTNotFound):
		msg := fmt.Sprintf("not computed: %v — the index is keyword-only (--skip-embeddings silences this)", err)
		warn("embeddings " + msg)
		return nil, msg, nil
	case errors.Is(err, embed.ErrDeviceUnavailable):
		return nil, "", err
	default:
		return nil, "", fmt.Errorf("load embedding model: %w", err)
	}
	st := &embedStage{emb: emb, defined: map[string][]schema.Symbol{}}
	var prev vectors.Previous
	if live != nil && live.Embeddings.Model == emb.ModelID() {
		if db, err := graph.Open(ctx, root, graph.OpenOptions{}); err == nil {
			st.prev = db
			prev = vectors.FromDB(db)
		}
	}
	st.w, err = vectors.NewWriter(ctx, emb, b.StagingDir(), vectors.Options{Previous: prev})
	if err != nil {
		st.close()
		return nil, "", fmt.Errorf("start embedding: %w", err)
	}
	return st, "", nil
}

// sink wraps the graph build so that every symbol also goes to the writer.
func (s *embedStage) sink(next ingest.Sink) ingest.Sink {
	if s == nil {
		return next
	}
	return &teeSink{Sink: next, w: s.w, st: s}
}

// teeSink sends every symbol to the writer as it comes, and remembers the
// files and what each defines (kind and names only) for the file
// summaries drain queues at the end.
type teeSink struct {
	ingest.Sink
	w  *vectors.Writer
	st *embedStage
}

func (t *teeSink) AddSymbol(sym schema.Symbol) error {
	if err := t.Sink.AddSymbol(sym); err != nil {
		return err
	}
	t.st.defined[sym.FilePath] = append(t.st.defined[sym.FilePath],
		schema.Symbol{Kind: sym.Kind, Name: sym.Name, QualifiedName: sym.QualifiedName, StartLine: sym.StartLine})
	return t.w.AddSymbol(sym)
}

func (t *teeSink) AddFile(f schema.File) error {
	if err := t.Sink.AddFile(f); err != nil {
		return err
	}
	t.st.files = append(t.st.files, f)
	return nil
}

// addFileSummaries queues one summary per file that defines a symbol (a
// file that defines none, such as a README or a config file, has nothing
// its path and language would not already say), in path order.
func (s *embedStage) addFileSummaries() error {
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].Path < s.files[j].Path })
	for _, f := range s.files {
		defs := s.defined[f.Path]
		if len(defs) == 0 {
			continue
		}
		sort.SliceStable(defs, func(i, j int) bool { return defs[i].StartLine < defs[j].StartLine })
		if err := s.w.AddFileSummary(f, defs); err != nil {
			return err
		}
	}
	s.files, s.defined = nil, nil
	return nil
}

// finish waits for the last batch and loads the vectors into the build
// (after b.Load). It returns what meta.json records.
// drain waits for the last symbols to be embedded and closes the model and
// the previous index. analyze calls it before the graph load: ONNX
// Runtime's session and arena (tens to hundreds of MiB) are then gone
// before Kuzu grows, instead of alive beside it (on prometheus the peak
// came from the two together). On CPU embedding is the slowest step, so
// the wait costs at most the load's few seconds.
func (s *embedStage) drain() error {
	if s.drained {
		return s.err
	}
	s.drained = true
	defer s.close()
	if err := s.addFileSummaries(); err != nil {
		s.w.Close()
		s.err = fmt.Errorf("embed file summaries: %w", err)
		return s.err
	}
	st, err := s.w.Close()
	if err != nil {
		s.err = fmt.Errorf("embed symbols: %w", err)
		return s.err
	}
	dev, why := s.emb.Device()
	s.status = fmt.Sprintf("%d chunks of %d symbols (%d embedded, %d reused) with %s on %s (%s)",
		st.Chunks, st.Owners, st.Embedded, st.Reused, s.emb.ModelID(), dev, why)
	s.info = graph.EmbeddingInfo{Model: s.emb.ModelID(), Count: st.Chunks, Dim: s.emb.Dim()}
	return nil
}

// finish drains (if drain was not called) and loads the vectors into the
// new database, after the graph's own Load.
func (s *embedStage) finish(ctx context.Context, b *graph.Build) (graph.EmbeddingInfo, error) {
	if err := s.drain(); err != nil {
		return graph.EmbeddingInfo{}, err
	}
	if err := s.w.Load(ctx, b); err != nil {
		return graph.EmbeddingInfo{}, fmt.Errorf("load vectors: %w", err)
	}
	return s.info, nil
}

func (s *embedStage) close() {
	if s.prev != nil {
		s.prev.Close()
		s.prev = nil
	}
	if s.emb != nil {
		s.emb.Close()
		s.emb = nil
	}
}
