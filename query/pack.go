package query

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// Pack is the search pack: the one keyword engine and the graph behind
// search, in one file beside the database (db-<stamp>.kuzu.pack). It
// holds the Snapshot (symbols, files, expanded edges, processes, source
// text) and four BM25 indexes over node positions:
//
//   - index/ident: a symbol's name as one word ("getuserbyid") and its
//     searchText (the words of its name, qualified name and path, and
//     their whole forms);
//   - index/doc: its signature and doc comment;
//   - index/file: a file's name and path (searched with Options.Files);
//   - index/body: the words of a symbol's source text (bodyScale says
//     when a query reads it).
//
// analyze builds it from the symbol tables of the database it has just
// loaded (BuildPack) and writes it (WriteFile); every search reads it
// (ReadPack): the CLI, multi-repo, the MCP server and query/eval. The
// database is opened only for what the pack does not hold: vectors.
type Pack struct {
	Snapshot
	ident, doc, file, body lazy[*bm25Index]
}

// prefetch starts opening, each in a goroutine of its own, the indexes
// of the fields a keyword search is about to read (each checks its
// documents' lengths, 4 bytes a node): on two cores side by side is
// faster than one after another. The search's own calls wait for them
// (lazy); errors come back there. Already opened indexes (a warm server)
// cost a goroutine that returns at once.
func (p *Pack) prefetch(fields []field) {
	run := func(f func()) {
		go func() {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped pack (MapPack)
			f()
		}()
	}
	for _, f := range fields {
		if f.weight > 0 {
			name := f.name
			run(func() { _, _ = p.index(name) })
		}
	}
}

// index is the named BM25 index, decoded on first use.
func (p *Pack) index(name string) (*bm25Index, error) {
	var l *lazy[*bm25Index]
	switch name {
	case secIdent:
		l = &p.ident
	case secDoc:
		l = &p.doc
	case secFile:
		l = &p.file
	case secBody:
		l = &p.body
	default:
		return nil, fmt.Errorf("internal error: no index %q", name)
	}
	return l.get(func() (*bm25Index, error) {
		n, err := p.nodeCount()
		if err != nil {
			return nil, err
		}
		return p.src.decodeIndex(name, n)
	})
}

// packReadRows is how many rows of a table BuildPack reads at a time (a
// variable for tests).
var packReadRows = 20000

// BuildPack reads a Pack from an index just loaded (a *graph.Build before
// commit): the nodes, with their stored isTest, and the text they are
// searched by straight from the symbol tables (name, searchText,
// signature, docComment) with each symbol's source text (the row's text,
// graph.Rows.EachNode) and the File table (name, path), a slice of rows at
// a time so that a large repository's text is never all in memory at
// once; then the edges and the processes. Nodes and edges come from the
// row files the database was loaded from when q hands them over
// (graph.Build's EachNode and EachEdge: one pass over each file, where
// the database costs a cgo call per value and, for edges, a table scan
// per slice), else from the database; the pack is byte for byte the same
// either way but for the source text, which the database does not hold
// (a pack read from one alone has none, and no body index). It is laid out as its file will be (WriteFile writes
// those bytes) and read back through the same decoder as ReadPack.
func BuildPack(ctx context.Context, q Querier) (*Pack, error) {
	p, _, err := BuildPackFrom(ctx, q, nil)
	return p, err
}

// PackStats says how BuildPackFrom built a pack.
type PackStats struct {
	Nodes  int `json:"nodes"`
	Reused int `json:"reused"` // nodes taken from the base instead of indexed
	// NoBase says why a base given was not used ("" when it was, or when
	// none was given).
	NoBase string `json:"no_base,omitempty"`
	// BesideLoad: the pack was built from the build's row files while the
	// database was updated in place (set by index.Build, not here).
	BesideLoad bool `json:"beside_load,omitempty"`
}

// BuildPackFrom is BuildPack reusing base, the pack of the index q's rows
// replace (nil: none), for every node whose row has not changed (see
// packreuse.go): the same pack, without tokenizing those nodes again.
// base must have been written by this very gitnexus; one that cannot
// serve (no row hashes, damaged) is not used, and stats say why.
func BuildPackFrom(ctx context.Context, q Querier, base *Pack) (*Pack, PackStats, error) {
	b, stats, err := readPackRows(ctx, q, base, "")
	if err != nil {
		return nil, stats, err
	}
	t0 := time.Now()
	p, err := b.finish()
	slog.Debug("pack: encoded", "took", time.Since(t0), "rss_MiB", graph.RSSMiB())
	return p, stats, err
}

// readPackRows reads q's rows into a pack builder (reusing base where it
// can), ready to encode: BuildPackFrom's and BuildPackFileFrom's first
// part. The source section goes to a temporary file in dir (in memory
// when dir is ""), which the builder's src.close removes: the caller's
// to call once the builder is returned.
func readPackRows(ctx context.Context, q Querier, base *Pack, dir string) (_ *packBuilder, stats PackStats, err error) {
	start := time.Now()
	b := newPackBuilder()
	if b.src, err = newSourceWriter(dir); err != nil {
		return nil, stats, err
	}
	defer func() {
		if err != nil {
			b.src.close()
		}
	}()
	if base != nil {
		pb, err := newPackBase(base)
		if err != nil {
			stats.NoBase = err.Error()
			slog.Debug("pack: base not used", "err", err)
		}
		b.base = pb
	}
	_, b.hashed = q.(rowHasher)
	if rr, ok := q.(rowReader); ok {
		// The node index and list sized for every row at once: grown
		// entry by entry the index rehashed its way up (kubernetes: 50k
		// nodes, 0.1 s) and the list was copied about four times its size
		// (the Linux kernel's 958k nodes: 4.5 s of CPU). The symbol and
		// file tables are what they hold (the others are not added).
		n, counts := 0, rr.Counts()
		for _, l := range packNodeLabels {
			n += counts[string(l)]
		}
		b.g.index = make(map[string]int32, n)
		b.g.nodes = make([]Hit, 0, n)
		if b.hashed {
			b.g.rows = make([]uint64, 0, n)
		}
	}
	b.startBodies(bodyShards)
	defer b.waitBodies()
	// The node tables are read on a goroutine of their own, a slice of
	// rows ahead of the indexing, so that reading and decoding overlap the
	// indexing (measured on prometheus when the rows came from Kuzu: pack
	// 0.62 → 0.60 s, within noise). Rows are indexed in the order read.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan nodeChunk)
	go readNodeTables(ctx, q, b.base, chunks)
	stop := func(err error) (*packBuilder, PackStats, error) {
		cancel()
		for range chunks { // let the reader finish
		}
		return nil, stats, err
	}
	seen := 0
	for c := range chunks {
		if c.err != nil {
			return stop(c.err)
		}
		l := c.label
		for i := range c.rows {
			r := &c.rows[i]
			seen++
			switch {
			case r.base > 0:
				b.addReused(r.base - 1)
			case l == schema.LabelFile:
				b.addFile(fileHit(r.ID, r.Name, r.Path, r.Language, r.Lines, r.IsTest), r.Unresolved)
			default:
				b.addSymbol(Hit{ID: r.ID, Label: string(l), Name: r.Name, Kind: r.Kind, FilePath: r.FilePath,
					StartLine: r.StartLine, EndLine: r.EndLine, Language: r.Language, IsTest: r.IsTest}, r.SearchText, r.Signature, r.DocComment, r.QualifiedName, r.Content)
			}
			b.noteRow(r.hash)
		}
		if c.last && seen != c.total {
			return stop(fmt.Errorf("pack: read %d of the %d rows of %s", seen, c.total, l))
		}
		if c.last {
			seen = 0
		}
	}
	if err := cmp.Or(ctx.Err(), b.err); err != nil {
		return nil, stats, err
	}
	step := func(name string, t0 time.Time) {
		slog.Debug("pack: "+name, "took", time.Since(t0), "rss_MiB", graph.RSSMiB())
	}
	step("nodes read and indexed", start)
	// The indexes are whole once the nodes are read: they are ended
	// (their shards merged, and merged with the base's) on a goroutine
	// beside the reading of the edges, processes and communities, which
	// an early view of the rows may also have to wait for
	// (graph.Build.EarlyRows: kubernetes' one-file update waits there
	// about 0.3 s; the Linux kernel's body shards take 5.9 s to merge).
	if b.base != nil {
		stats.Reused = b.base.reused
	}
	ixc := make(chan error, 1)
	go func() {
		t0 := time.Now()
		var err error
		b.ixs, err = b.indexes()
		step("indexes ended", t0)
		ixc <- err
	}()
	ixWait := func() error {
		if ixc == nil {
			return nil
		}
		err := <-ixc
		ixc = nil
		return err
	}
	defer ixWait() // on every way out: the goroutine uses b
	// The processes and communities are read beside the edges when they
	// come from the row files (each read opens its own): they touch
	// parts of g the edges do not (procs, members, comms and the
	// details' communities against adj), and on an update the load is
	// what they would otherwise wait behind (kubernetes' one-file update:
	// the pack ended 0.7 s after the load, 0.18 s of it these two).
	others := func() error {
		t0 := time.Now()
		if err := b.g.readProcesses(ctx, q); err != nil {
			return err
		}
		step("processes read", t0)
		t0 = time.Now()
		if err := b.g.readCommunities(ctx, q); err != nil {
			return err
		}
		step("communities read", t0)
		return nil
	}
	var oc chan error
	if _, ok := q.(rowReader); ok {
		oc = make(chan error, 1)
		go func() { oc <- others() }()
	}
	t0 := time.Now()
	err = b.g.readEdges(ctx, q)
	if err == nil {
		step("edges read", t0)
		// The indexes of a pack of at most earlyLayoutNodes nodes start
		// being laid out now, beside the reading of the processes and the
		// rest of the layout: what the pack does after the reading is
		// what an update waits for after its load (kubernetes: 0.2 s of
		// CPU). Not before the edges: an update's edges wait for its
		// processes, which the layout would slow (kubernetes' new
		// function: processes 0.86 → 1.07 s). A larger pack's are laid
		// out beside the rest of the layout only (encodePackParts): laid
		// out before it, the Linux kernel's took 7 s that had run beside
		// it (its pack 78 → 88 s).
		if err = ixWait(); err == nil && len(b.g.nodes) <= earlyLayoutNodes {
			b.laid = startEncodeIndexes(b.ixs, len(b.g.nodes))
			b.ixs = nil
		}
	}
	if oc != nil {
		if oerr := <-oc; err == nil {
			err = oerr
		}
	} else if err == nil {
		err = others()
	}
	if err != nil {
		return nil, stats, err
	}
	if err := ixWait(); err != nil {
		return nil, stats, err
	}
	stats.Nodes = len(b.g.nodes)
	return b, stats, nil
}

// BuildPackFileFrom is BuildPackFrom writing the pack to path (through a
// temporary file and a rename, as Pack.WriteFile) instead of returning it:
// the same bytes, without the pack's image in memory beside its sections
// and without reading it back (the Linux kernel's pack: 1.3 GB in session 30).
func BuildPackFileFrom(ctx context.Context, q Querier, base *Pack, path string) (PackStats, error) {
	b, stats, err := readPackRows(ctx, q, base, filepath.Dir(path))
	if err != nil {
		return stats, err
	}
	defer b.src.close()
	t0 := time.Now()
	parts, err := b.parts()
	if err != nil {
		return stats, err
	}
	err = graph.WriteFileAtomicFunc(path, 0o644, func(w io.Writer) error {
		for i, p := range parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
			parts[i] = nil // let the section go once written
		}
		return b.src.writeTo(w)
	})
	if err != nil {
		return stats, err
	}
	slog.Debug("pack: encoded and written", "took", time.Since(t0), "rss_MiB", graph.RSSMiB())
	return stats, nil
}

// nodeChunk is a slice of one node table's rows, or the error that ended
// the reading. last marks a table's final slice, total its row count.
type nodeChunk struct {
	label schema.Label
	rows  []nodeRow
	last  bool
	total int
	err   error
}

// nodeRow is what the pack reads of a node: a symbol's columns, or a
// File's (Path, Lines, Unresolved), with the row's text.
type nodeRow struct {
	ID            string
	Name          string
	Kind          string
	FilePath      string
	StartLine     int
	EndLine       int
	Language      string
	IsTest        bool
	SearchText    string
	Signature     string
	DocComment    string
	QualifiedName string
	Content       string // the row's text (graph.Rows.EachNode), not a property
	Path          string
	Lines         int
	Unresolved    int
	// hash is the row's hash (rowHasher; 0 unknown); base, when not 0,
	// the 1-based position of the base node derived from the same row:
	// then the row was not decoded and nothing else is set.
	hash uint64
	base int32
}

// parse sets r's properties from line, a row of node table l (graph's
// row format: ParseFileLine for File, else ParseSymbolLine).
func (r *nodeRow) parse(l schema.Label, line []byte) error {
	if l == schema.LabelFile {
		f, err := graph.ParseFileLine(line)
		if err != nil {
			return err
		}
		r.ID, r.Name, r.Path, r.Lines, r.Language, r.IsTest, r.Unresolved = f.ID, f.Name, f.Path, f.Lines, f.Language, f.IsTest, f.Unresolved
		return nil
	}
	s, err := graph.ParseSymbolLine(line)
	if err != nil {
		return err
	}
	r.ID, r.Name, r.Kind, r.FilePath, r.StartLine, r.EndLine = s.ID, s.Name, string(s.Kind), s.FilePath, s.StartLine, s.EndLine
	r.Language, r.IsTest, r.SearchText, r.Signature, r.DocComment, r.QualifiedName = s.Language, s.IsTest, s.SearchText, s.Signature, s.DocComment, s.QualifiedName
	return nil
}

// rowReader is a Querier that can also hand over the rows its database
// was loaded from, in table order (graph.Build before Commit): a node
// table's NDJSON lines, a rel type's rows. BuildPack reads them instead of
// the database wherever q is one.
type rowReader interface {
	EachNode(ctx context.Context, l schema.Label, fn func(line, text []byte) error) error // line and text valid only during fn
	EachEdge(ctx context.Context, rt schema.RelType, fn func(graph.EdgeRow) error) error
	EachEdgeView(ctx context.Context, rt schema.RelType, fn func(graph.EdgeView) error) error // bytes valid only during fn
	// Counts are the rows loaded by label (and rel type).
	Counts() map[string]int
}

// countNodes is the number of rows of node table l: the build's count
// where q is a build (its database may be closed: an in-place load closes
// it), else the database's.
func countNodes(ctx context.Context, q Querier, l schema.Label) (int, error) {
	if rr, ok := q.(rowReader); ok {
		return rr.Counts()[string(l)], nil
	}
	res, err := readAll(ctx, q, fmt.Sprintf("MATCH (n:%s) RETURN count(n)", l))
	if err != nil {
		return 0, err
	}
	if len(res.Rows) == 0 {
		return 0, nil
	}
	return num(res.Rows[0][0]), nil
}

// packNodeLabels are the node tables a pack holds, in the order
// readNodeTables reads them: the symbol tables, then File.
var packNodeLabels = append(append([]schema.Label(nil), schema.SymbolLabels...), schema.LabelFile)

// PackNodeLabels are the node tables whose rows a pack reads first, before
// any edge: a view of the rows that holds these can start a pack
// (graph.Build.EarlyRows) before it holds the rest.
func PackNodeLabels() []schema.Label { return slices.Clone(packNodeLabels) }

// readNodeTables reads the symbol tables and the File table, a slice of
// rows at a time (so that a large repository's text is never all in
// memory at once), into out, which it closes. Where q can hand over the
// row files the database was loaded from, they are read instead of the
// database: the same rows in the same order, without a cgo call per value
// (nodes read and indexed, prometheus 0.26 → 0.23 s; the Linux kernel,
// with bodies tokenized beside, 130 → 51 s).
//
// With the row hashes of q (rowHasher), each row carries its hash; a row
// whose hash base holds is not decoded (nodeRow.base).
func readNodeTables(ctx context.Context, q Querier, base *packBase, out chan<- nodeChunk) {
	defer close(out)
	send := func(c nodeChunk) bool {
		select {
		case out <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	nodes := 0
	for _, l := range packNodeLabels {
		n, err := countNodes(ctx, q, l)
		if err != nil {
			send(nodeChunk{err: fmt.Errorf("pack: count %s: %w", l, err)})
			return
		}
		if nodes += n; nodes > MaxSnapshotNodes {
			send(nodeChunk{err: fmt.Errorf("pack: more than %d nodes", MaxSnapshotNodes)})
			return
		}
		// The database does not hold source text (graph's rowtext.go): a
		// pack read from one alone has none.
		ret := "n.id, n.name, n.kind, n.filePath, n.startLine, n.endLine, n.language, n.isTest, n.searchText, n.signature, n.docComment, n.qualifiedName"
		if l == schema.LabelFile {
			ret = "n.id, n.name, n.path, n.lines, n.language, n.isTest, n.unresolved"
		}
		if n == 0 {
			if !send(nodeChunk{label: l, last: true}) {
				return
			}
			continue
		}
		var hashes []uint64
		if rh, ok := q.(rowHasher); ok {
			if hashes = rh.NodeRowHashes(l); len(hashes) != n {
				hashes = nil
			}
		}
		if nr, ok := q.(rowReader); ok {
			read := 0
			chunk := func() []nodeRow { return make([]nodeRow, 0, min(packReadRows, n-read)) }
			rows := chunk()
			err := nr.EachNode(ctx, l, func(line, text []byte) error {
				var r nodeRow
				if read < len(hashes) {
					r.hash = hashes[read]
				}
				if j, ok := base.lookup(l, r.hash); ok {
					r.base = j + 1
				} else if err := r.parse(l, line); err != nil {
					return err
				} else {
					r.Content = string(text)
				}
				rows = append(rows, r)
				if read++; len(rows) == packReadRows && read < n {
					if !send(nodeChunk{label: l, rows: rows, total: n}) {
						return ctx.Err()
					}
					rows = chunk()
				}
				return nil
			})
			if err != nil {
				send(nodeChunk{err: fmt.Errorf("pack: read %s rows: %w", l, err)})
				return
			}
			if !send(nodeChunk{label: l, rows: rows, last: true, total: n}) {
				return
			}
			continue
		}
		for lo := 0; lo < n; lo += packReadRows {
			res, err := readAll(ctx, q, fmt.Sprintf("MATCH (n:%s) WHERE offset(id(n)) >= %d AND offset(id(n)) < %d RETURN %s",
				l, lo, lo+packReadRows, ret))
			if err != nil {
				send(nodeChunk{err: fmt.Errorf("pack: read %s: %w", l, err)})
				return
			}
			rows := make([]nodeRow, len(res.Rows))
			for i, r := range res.Rows {
				if l == schema.LabelFile {
					rows[i] = nodeRow{ID: str(r[0]), Name: str(r[1]), Path: str(r[2]), Lines: num(r[3]), Language: str(r[4]),
						IsTest: boolean(r[5]), Unresolved: num(r[6])}
					continue
				}
				rows[i] = nodeRow{ID: str(r[0]), Name: str(r[1]), Kind: str(r[2]), FilePath: str(r[3]), StartLine: num(r[4]),
					EndLine: num(r[5]), Language: str(r[6]), IsTest: boolean(r[7]), SearchText: str(r[8]), Signature: str(r[9]),
					DocComment: str(r[10]), QualifiedName: str(r[11])}
			}
			// After a full load the database's order is the row files'
			// (a graph.Build is read through EachNode all the same).
			for i := range rows {
				if lo+i < len(hashes) {
					rows[i].hash = hashes[lo+i]
				}
			}
			if !send(nodeChunk{label: l, rows: rows, last: lo+packReadRows >= n, total: n}) {
				return
			}
		}
	}
}

// packBuilder accumulates a pack's nodes and their indexed text.
type packBuilder struct {
	g                      *graphCopy
	ident, doc, file, body *indexBuilder
	// base is the pack reused (nil: none); hashed: the rows' hashes are
	// known, and g.rows holds them.
	base   *packBase
	hashed bool
	// ixs is the indexes once ended, laid the wait for their sections
	// once being laid out (startEncodeIndexes): readPackRows ends them
	// as soon as the nodes are read, and starts their layout then for a
	// small pack (earlyLayoutNodes). Both nil: not ended.
	ixs  map[string]*bm25Index
	laid func() map[string][]byte
	// bodies feeds the body index's goroutines (startBodies), a batch of
	// documents at a time, in turn (batch holds the next, sent the count
	// sent); nil: bodies are indexed in the caller, into body. Each
	// goroutine indexes into a shard of its own (bodyShards, body the
	// first), merged when the index is done.
	bodies     []chan []bodyDoc
	batch      []bodyDoc
	sent       int
	bodyShards []*indexBuilder
	bodiesDone sync.WaitGroup
	// src is the source section, a text per node added (packsource.go).
	src *sourceWriter
	err error // the first error of adding a node (a damaged base)
}

// newPackBuilder is a builder whose source section is laid out in memory
// (readPackRows gives it a file instead where the pack goes to one).
func newPackBuilder() *packBuilder {
	return &packBuilder{g: &graphCopy{index: map[string]int32{}},
		ident: newIndexBuilder(), doc: newIndexBuilder(), file: newIndexBuilder(), body: newIndexBuilder(),
		src: &sourceWriter{}}
}

// bodyDoc is one symbol's source text for the body index.
type bodyDoc struct {
	doc  int32
	text string
}

// startBodies indexes the bodies on goroutines of their own from now on,
// shards of them (at most shards goroutines): tokenizing source text is
// most of a pack's work (the Linux kernel: 59 of 85 CPU seconds, when it
// had one goroutine), and the other fields and the reading go on beside
// it. Each shard gets whole batches of bodyBatch documents in turn, so
// that its postings, too, are in increasing document order; indexes
// merges them (mergeShards) into the index one goroutine would have
// built. waitBodies must be called before the body index is read.
func (b *packBuilder) startBodies(shards int) {
	shards = max(shards, 1)
	b.bodyShards = []*indexBuilder{b.body}
	for len(b.bodyShards) < shards {
		b.bodyShards = append(b.bodyShards, newIndexBuilder())
	}
	b.bodies = make([]chan []bodyDoc, shards)
	for k, ix := range b.bodyShards {
		ch := make(chan []bodyDoc, 8)
		b.bodies[k] = ch
		b.bodiesDone.Add(1)
		go func() {
			defer b.bodiesDone.Done()
			for batch := range ch {
				for _, d := range batch {
					ix.add(d.doc, d.text)
				}
			}
		}()
	}
}

// bodyBatch is how many documents startBodies' goroutines take at a time.
const bodyBatch = 64

// bodyShards is how many goroutines index the bodies of a pack: two
// where there are two cores. A tenth of the Linux kernel, its pack built
// alone after the load, 3 alternated runs (session 30): one goroutine
// 5.05, 5.08, 5.04 s, two 4.92, 4.45, 4.31 s, the pack byte-identical.
// Each shard holds its own map of the words it saw, so more of them
// hold more memory for less.
var bodyShards = min(runtime.GOMAXPROCS(0), 2)

// flushBodies sends the batch of bodies being gathered to the next shard.
func (b *packBuilder) flushBodies() {
	if len(b.batch) == 0 {
		return
	}
	b.bodies[b.sent%len(b.bodies)] <- b.batch
	b.sent++
	b.batch = make([]bodyDoc, 0, bodyBatch)
}

// waitBodies waits until every body sent is indexed; safe to call twice
// and without startBodies.
func (b *packBuilder) waitBodies() {
	if b.bodies == nil {
		return
	}
	b.flushBodies()
	for _, ch := range b.bodies {
		close(ch)
	}
	b.bodiesDone.Wait()
	b.bodies = nil
}

// addSymbol adds a symbol, indexed by its name as one word and its
// searchText (ident: each word of the name counts once, from searchText,
// and the whole name twice, as before this engine), by its signature and
// doc comment (doc) and by its source text (body: every word of its
// identifiers, string literals and comments, as text.Words splits them),
// which the source section keeps. A repeated id is ignored.
func (b *packBuilder) addSymbol(h Hit, searchText, signature, docComment, qualifiedName, content string) {
	i, ok := b.g.addNode(h)
	if !ok {
		return
	}
	b.ident.add(i, strings.Join(text.SplitIdentifier(h.Name), ""), searchText)
	b.doc.add(i, signature, docComment)
	b.g.details = append(b.g.details, nodeDetails{qualifiedName: qualifiedName, signature: signature, docComment: docComment})
	b.src.add(content)
	switch {
	case content == "":
	case b.bodies != nil:
		b.batch = append(b.batch, bodyDoc{i, content})
		if len(b.batch) == bodyBatch {
			b.flushBodies()
		}
	default:
		b.body.add(i, content)
	}
}

// addReused adds the base's node j, whose row has not changed: its Hit
// and details as the base has them (not its community: readCommunities
// sets it), and its documents in the indexes at finish.
func (b *packBuilder) addReused(j int32) {
	h := b.base.nodes[j].hit()
	if i, ok := b.g.addNode(h); ok {
		d := b.base.details[j]
		d.community = 0
		b.g.details = append(b.g.details, d)
		b.base.remap[j] = i
		b.base.reused++
		text, err := b.base.sourceText(j)
		if err != nil && b.err == nil {
			b.err = fmt.Errorf("pack: the base's source text: %w", err)
		}
		b.src.add(text)
	}
}

// noteRow records the row hash of the node just added (a repeated id
// added none).
func (b *packBuilder) noteRow(hash uint64) {
	if b.hashed && len(b.g.rows) < len(b.g.nodes) {
		b.g.rows = append(b.g.rows, hash)
	}
}

// addFile adds a file (a fileHit) with its count of unresolved call
// sites, indexed by its name and path.
func (b *packBuilder) addFile(h Hit, unresolved int) {
	if i, ok := b.g.addNode(h); ok {
		b.file.add(i, h.Name, h.FilePath)
		b.g.details = append(b.g.details, nodeDetails{unresolved: int32(min(max(unresolved, 0), math.MaxInt32))})
		b.src.add("")
	}
}

// parts lays the pack out (edges and processes must have been read): the
// pack file's parts, in order (encodePackParts), but for its last
// section, the source, which b.src.writeTo writes after them.
func (b *packBuilder) parts() ([][]byte, error) {
	indexes, laid := b.ixs, b.laid
	b.ixs, b.laid = nil, nil
	if indexes == nil && laid == nil {
		var err error
		if indexes, err = b.indexes(); err != nil {
			return nil, err
		}
	}
	if b.g.adj == nil { // no edges read
		b.g.adj = make([][2][]builtEdge, len(b.g.nodes))
	}
	n, crcs, err := b.src.finish(len(b.g.nodes))
	if err != nil {
		return nil, err
	}
	return encodePackParts(b.g, indexes, laid, n, crcs)
}

// earlyLayoutNodes: the indexes of a pack of at most this many nodes are
// laid out as soon as they are ended (readPackRows).
const earlyLayoutNodes = 200_000

// indexes ends the builder's indexes, merged with the base's when there
// is one: what encodePackParts lays out beside the graph.
func (b *packBuilder) indexes() (map[string]*bm25Index, error) {
	b.waitBodies()
	n := len(b.g.nodes)
	var body *bm25Index
	if len(b.bodyShards) > 1 {
		body = mergeShards(b.bodyShards, n)
		b.bodyShards = nil
	} else {
		body = b.body.done(n)
	}
	indexes := map[string]*bm25Index{secIdent: b.ident.done(n), secDoc: b.doc.done(n), secFile: b.file.done(n), secBody: body}
	if b.base != nil {
		for name, ix := range indexes {
			merged, err := mergeIndex(ix, b.base.indexes[name], b.base.remap)
			if err != nil {
				return nil, err
			}
			indexes[name] = merged
		}
		b.base = nil
	}
	return indexes, nil
}

// finish lays the pack out (edges and processes must have been read) and
// opens it.
func (b *packBuilder) finish() (*Pack, error) {
	parts, err := b.parts()
	if err != nil {
		return nil, err
	}
	image := joinParts(append(parts, b.src.buf)) // in memory (newPackBuilder)
	// image is never written again: the pack's strings may alias it
	// instead of a copy (as ReadPack's do the file it read).
	p, err := openPack(unsafe.String(unsafe.SliceData(image), len(image)))
	if err != nil {
		return nil, fmt.Errorf("pack: read back: %w", err)
	}
	return p, nil
}

// indexHit is one document of one index with its BM25 score.
type indexHit struct {
	doc  int32
	bm25 float64
}

// topHits is the top documents of docs by score (higher first, then by
// node id), at most top of them. It keeps a bounded heap of the best seen
// instead of sorting every match: on the Linux kernel a common word
// matches hundreds of thousands of bodies.
func topHits(docs []int32, score []float64, top int, idOf func(int32) (string, error)) ([]indexHit, error) {
	var err error
	ids := map[int32]string{}
	id := func(d int32) string {
		v, ok := ids[d]
		if !ok {
			var e error
			if v, e = idOf(d); e != nil && err == nil {
				err = e
			}
			ids[d] = v
		}
		return v
	}
	worse := func(a, b indexHit) bool { // a ranks below b
		if a.bm25 != b.bm25 {
			return a.bm25 < b.bm25
		}
		return id(a.doc) > id(b.doc)
	}
	if top <= 0 {
		return nil, nil
	}
	h := make([]indexHit, 0, min(top, len(docs)))
	// h is a min-heap by rank: h[0] is the worst kept.
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && worse(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[m]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, d := range docs {
		ih := indexHit{d, score[d]}
		if len(h) < top {
			h = append(h, ih)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if worse(h[0], ih) {
			h[0] = ih
			down(0)
		}
	}
	sort.Slice(h, func(a, b int) bool { return worse(h[b], h[a]) })
	return h, err
}

// field is one index a keyword search reads, with its weight.
type field struct {
	name   string
	weight float64
}

// keyword is the keyword retriever: the terms of q scored in each field
// (best first, ties by id, at most top each), combined (Ranking.Combine),
// completed by a name-prefix match (prefixSearch), filtered, at most
// opts.TopK.
func (p *Pack) keyword(q *Query, opts Options) ([]Hit, error) {
	r := opts.Ranking
	terms := q.terms(min(r.Phrases, MaxPhraseWords))
	if len(terms) == 0 {
		return nil, nil
	}
	nodes, err := p.nodeCount()
	if err != nil {
		return nil, err
	}
	top := opts.TopK
	if opts.filtered() {
		top = min(opts.TopK*8, MaxTopK)
	}
	long := bodyScale(len(q.Words), r.BodyWords) // 0 for a name, 1 for a task in prose
	weightDoc := r.WeightDoc
	if r.WeightDocLong > 0 {
		weightDoc += (r.WeightDocLong - r.WeightDoc) * long * long // barely moves for a few words
	}
	fields := []field{{secIdent, r.WeightIdent}, {secDoc, weightDoc}, {secBody, r.WeightBody * long}}
	if opts.Files {
		fields = append(fields, field{secFile, r.WeightFile})
	}
	// Code-shaped terms (an identifier of several words kept whole:
	// getUserById, user_repository) say more than prose words.
	var termWeights map[string]float64
	if r.IdentTermWeight > 0 && r.IdentTermWeight != 1 {
		termWeights = map[string]float64{}
		for _, id := range q.Idents {
			termWeights[id] = r.IdentTermWeight
		}
	}
	if r.LeadTermWeight > 0 && r.LeadTermWeight != 1 && len(q.Lead) > 0 {
		if termWeights == nil {
			termWeights = map[string]float64{}
		}
		for _, w := range q.Lead {
			termWeights[w] = max(termWeights[w], 1) * r.LeadTermWeight
		}
	}
	p.prefetch(fields)
	byDoc := map[int32]float64{}
	var order []int32
	for _, f := range fields {
		if f.weight <= 0 {
			continue
		}
		ix, err := p.index(f.name)
		if err != nil {
			return nil, err
		}
		docs, scores, err := ix.scoreWeighted(terms, termWeights, nodes)
		if err != nil {
			return nil, err
		}
		list, err := topHits(docs, scores, top, p.nodeID)
		putScores(docs, scores)
		if err != nil {
			return nil, err
		}
		for rank, ih := range list {
			s := f.weight * ih.bm25
			if r.Combine == "rrf" {
				s = f.weight / float64(RRFK+rank+1)
			}
			if _, ok := byDoc[ih.doc]; !ok {
				order = append(order, ih.doc)
			}
			byDoc[ih.doc] += s
		}
	}
	// Boosts by file and by mention read every node: the table is
	// decoded for them only.
	if r.FileBoost > 0 || (r.MentionWeight > 0 && !q.Mentions.empty()) {
		nt, err := p.nodeTable()
		if err != nil {
			return nil, err
		}
		if r.FileBoost > 0 {
			boostByFile(nt.nodes, byDoc, r.FileBoost)
		}
		if r.MentionWeight > 0 {
			order = append(order, mentionBoost(nt.nodes, q.Mentions, byDoc, r.MentionWeight)...)
		}
	}
	hits := make([]*Hit, len(order))
	for i, d := range order {
		h, err := p.hitAt(d)
		if err != nil {
			return nil, err
		}
		h.Score = byDoc[d]
		hits[i] = &h
	}
	out := derefSorted(hits)
	if q.Prefix != "" && r.PrefixWeight > 0 && r.PrefixMin > 0 && utf8.RuneCountInString(q.Prefix) >= r.PrefixMin {
		matches, err := p.src.prefixed(q.Prefix)
		if err != nil {
			return nil, err
		}
		cands := make([]Hit, len(matches))
		for i, d := range matches {
			if cands[i], err = p.hitAt(d); err != nil {
				return nil, err
			}
		}
		out = prefixSearch(cands, q.Prefix, out, r.PrefixWeight)
	}
	kept := out[:0]
	for _, h := range out {
		if opts.keep(&h) {
			h.Matched = "keyword"
			kept = append(kept, h)
		}
	}
	if len(kept) > opts.TopK {
		kept = kept[:opts.TopK]
	}
	return kept, nil
}

// bodyScale is the share of WeightBody a query of n words uses: none for
// one or two words (a name is being looked up: bodies mentioning it would
// crowd out its definition), growing to all of it at full words (a task
// described in prose, whose quoted messages and option names live in
// bodies).
func bodyScale(n, full int) float64 {
	if full <= 2 {
		return 1
	}
	return min(1, max(0, float64(n-2)/float64(full-2)))
}

// boostByFile adds to each document's score boost × its file's score: the
// sum of the file's three best document scores, weighted 1, 1/2, 1/4.
func boostByFile(nodes []node, byDoc map[int32]float64, boost float64) {
	perFile := map[string][]float64{}
	for d, s := range byDoc {
		fp := nodes[d].FilePath
		perFile[fp] = append(perFile[fp], s)
	}
	agg := make(map[string]float64, len(perFile))
	for fp, ss := range perFile {
		sort.Sort(sort.Reverse(sort.Float64Slice(ss)))
		a, w := 0.0, 1.0
		for _, s := range ss[:min(len(ss), 3)] {
			a += w * s
			w /= 2
		}
		agg[fp] = a
	}
	for d := range byDoc {
		byDoc[d] += boost * agg[nodes[d].FilePath]
	}
}

// prefixMatches bounds the symbols a name prefix may match.
const prefixMatches = 50

// prefixSearch completes a partial identifier: symbols whose lower-cased
// name starts with prefix (the query as one identifier, joined:
// "validatePass" → "validatepass") gain weight × the best keyword score, so
// that the symbol being typed ranks near the top; shorter names first (then
// by id) when more than prefixMatches match. nodes are the candidates (the
// names section's range for prefix, packData.prefixed).
func prefixSearch(nodes []Hit, prefix string, hits []Hit, weight float64) []Hit {
	var matches []Hit
	for _, h := range nodes {
		if schema.Label(h.Label).IsSymbol() && hasLowerPrefix(h.Name, prefix) {
			matches = append(matches, h)
		}
	}
	sort.Slice(matches, func(a, b int) bool {
		la, lb := utf8.RuneCountInString(matches[a].Name), utf8.RuneCountInString(matches[b].Name)
		if la != lb {
			return la < lb
		}
		return matches[a].ID < matches[b].ID
	})
	if len(matches) > prefixMatches {
		matches = matches[:prefixMatches]
	}
	best := 1.0
	if len(hits) > 0 {
		best = hits[0].Score
	}
	byID := map[string]int{}
	for i, h := range hits {
		byID[h.ID] = i
	}
	for _, h := range matches {
		if i, ok := byID[h.ID]; ok {
			hits[i].Score += weight * best
			continue
		}
		byID[h.ID] = len(hits)
		h.Score = weight * best
		hits = append(hits, h)
	}
	return derefSorted(ptrs(hits))
}

// hasLowerPrefix reports whether name, lower-cased rune by rune, starts
// with prefix (lower-case), without allocating.
func hasLowerPrefix(name, prefix string) bool {
	for _, pr := range prefix {
		if name == "" {
			return false
		}
		r, n := utf8.DecodeRuneInString(name)
		if r != pr && unicode.ToLower(r) != pr {
			return false
		}
		name = name[n:]
	}
	return true
}
