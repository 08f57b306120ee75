package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/ingest/resolve"
	"github.com/gitnexus/gitnexus/internal/ordered"
)

// Sink receives the graph records as they are produced. graph.Build
// implements it. Calls come from one goroutine.
type Sink interface {
	AddFolder(schema.Folder) error
	AddFile(schema.File) error
	AddSymbol(schema.Symbol) error
	AddEdge(schema.Edge) error
}

// Progress is told how a phase advances: total is 0 while unknown.
type Progress func(phase string, done, total int)

// Options tune a run. The zero value is usable.
type Options struct {
	Discover discover.Options
	// Workers is the number of parse workers, and of call resolution's;
	// 0 means one per core.
	Workers int
	// Progress, when set, is called as phases advance.
	Progress Progress
	// SkipResolve leaves out cross-file resolution (IMPORTS, CALLS,
	// EXTENDS, IMPLEMENTS); File.Unresolved stays -1 ("not computed").
	SkipResolve bool
	// Cache, when set, holds an earlier run's parse results (see
	// factcache.go): a file whose path, language and content hash it holds
	// is not parsed again.
	Cache *FactCache
	// CacheOut, when set, is where this run writes the parse result of
	// every file (reused or parsed) for the next run, stamped CacheStamp.
	CacheOut   string
	CacheStamp string
	// Sites and SitesOut are the paths of resolution's site cache, read
	// and written (resolve.Input): with a live index's, a file whose
	// content did not change keeps its call sites' outcomes when no file's
	// facts but their call sites changed.
	Sites    string
	SitesOut string
	// StatCache, when set with a fact cache, is the last run's stat cache
	// (statcache.go): a file whose stat it trusts and still has is not read
	// to be hashed. StatOut, when set, is where this run writes its own,
	// of every file it read or trusted (also when UpToDate ends the run).
	StatCache *StatCache
	StatOut   string
	// Resolved, when set, is called once resolution is done, while every
	// raw reference is still held: the run's memory peak (for profiling).
	Resolved func()
	// Seen, when set, is called with each file's path and content hash
	// (Stats.FileHashes) in path order: once every file is hashed, before
	// the parse, when a fact cache is given (the files are then hashed
	// first); else as the parse reaches the file.
	Seen func(path, hash string)
	// UpToDate, when set with a fact cache, is asked once every file is
	// hashed and before any is parsed, with each readable file's content
	// hash by path and the files left out by reason (discovery's skips and
	// the unreadable): true ends the run there (Result.Unchanged and
	// Result.UpToDate), for a caller whose index was built from exactly
	// these files by the same build — the parse would only confirm it
	// (kubernetes: 2.1-2.5 s of decoding every file's facts again).
	UpToDate func(hashes map[string]string, skipped map[string]int) bool
	// Unchanged, when set, is asked once every file is parsed, with the
	// Stats the parse filled (files and their hashes, parse outcomes,
	// skips, languages, kinds): true ends the run there, before structure
	// and resolution (Result.Unchanged), for a caller that keeps what it
	// built before from the same files (resolution being a function of
	// them).
	Unchanged func(*Stats) bool
}

// Result is what a run produced besides the records it streamed.
type Result struct {
	Discovery *discover.Result
	Stats     Stats
	// Index is the light, content-free view of the repository the later
	// phases (processes, embeddings) work from.
	Index *Index
	// Edges are the resolved CALLS, EXTENDS and IMPLEMENTS edges (already
	// streamed to the sink), kept for the processes phase.
	Edges []schema.Edge
	// Resolution counts call sites by outcome; nil when skipped.
	Resolution *resolve.Stats
	// Samples are a few unresolved call sites ("file:line name").
	Samples []string
	// Unresolved counts unresolved call sites per file (files with none
	// are absent).
	Unresolved map[string]int
	// Unchanged: Options.Unchanged ended the run after the parse; only
	// Discovery, Stats and Index are set, and not every row was streamed.
	Unchanged bool
	// UpToDate: Options.UpToDate ended the run before the parse (Unchanged
	// is set too); Stats holds the folders, the skips, the file hashes and
	// the phases only: its counts of files, symbols and parse outcomes are
	// the caller's index's.
	UpToDate bool
}

// Stats are the counts of a run, for the summary and meta.json.
type Stats struct {
	Files       int            `json:"files"`
	Folders     int            `json:"folders"`
	Symbols     int            `json:"symbols"`
	Languages   map[string]int `json:"languages"`   // files by language ("" → "other")
	Kinds       map[string]int `json:"kinds"`       // symbols by kind
	Labels      map[string]int `json:"labels"`      // nodes by table
	Edges       map[string]int `json:"edges"`       // edges by type
	ParseStatus map[string]int `json:"parseStatus"` // files by parse status
	Skipped     map[string]int `json:"skipped"`     // files left out, by reason
	// Parsed counts the files parsed by this run, Reused those whose parse
	// result came from the fact cache (Options.Cache).
	Parsed int `json:"parsed"`
	Reused int `json:"reused"`
	// Unread counts the files whose content was not read at all: the
	// stat cache (Options.StatCache) knew their hash.
	Unread int `json:"unread"`
	// FileHashes maps each file's path to the sha256 of its content.
	FileHashes map[string]string  `json:"-"`
	Phases     map[string]float64 `json:"phases"` // seconds per phase
}

// Index is the light view of a parsed repository: every file's facts with
// symbol Content removed. Once Run returns it holds the files' symbols
// only: the raw references (imports, calls, heritage, type facts) are
// dropped after resolution, their only reader — except the call sites of
// kinds "go" (goroutine starts) and "closure" (calls in returned func
// literals), which processes reads.
type Index struct {
	Root  string
	Files []*lang.Facts // sorted by path
	// byID finds a symbol by id; filled by Run.
	byID map[string]*schema.Symbol
}

// Symbol returns the symbol with the given id, or nil.
func (ix *Index) Symbol(id string) *schema.Symbol { return ix.byID[id] }

// Run discovers, parses and extracts the repository at root, streaming
// records to sink.
func Run(ctx context.Context, root string, sink Sink, opts Options) (*Result, error) {
	st := Stats{
		Languages: map[string]int{}, Kinds: map[string]int{}, Labels: map[string]int{},
		Edges: map[string]int{}, ParseStatus: map[string]int{}, Skipped: map[string]int{},
		FileHashes: map[string]string{}, Phases: map[string]float64{},
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	e := &emitter{sink: sink, st: &st}

	t0 := time.Now()
	// The stat cache this run writes holds what it learns from here on.
	sw := newStatWriter(opts.StatOut, t0)
	progress("discover", 0, 0)
	dopts := opts.Discover
	if opts.StatCache != nil && opts.Cache != nil {
		dopts.Known = opts.StatCache.known
	}
	disc, err := discover.Discover(ctx, root, dopts)
	if err != nil {
		return nil, fmt.Errorf("discover %s: %w", root, err)
	}
	for r, n := range disc.Skipped {
		st.Skipped[r] += n
	}
	st.Phases["discover"] = time.Since(t0).Seconds()

	t0 = time.Now()
	if err := e.folders(disc.Files); err != nil {
		return nil, err
	}

	ix := &Index{Root: disc.Root, byID: map[string]*schema.Symbol{}}
	var fw *factWriter
	if opts.CacheOut != "" {
		if fw, err = newFactWriter(opts.CacheOut, opts.CacheStamp); err != nil {
			return nil, err
		}
		defer fw.abort()
	}
	// With a fact cache most files are not parsed: each is read once for
	// its hash first, and the parse reads only the files the cache does
	// not hold (parseOne).
	var sums []fileSum
	if opts.Cache != nil {
		progress("hash", 0, 0)
		if sums, st.Unread, err = sumFiles(ctx, disc.Files, opts.Workers, opts.StatCache); err != nil {
			return nil, err
		}
		hashes := make(map[string]string, len(sums))
		skipped := maps.Clone(st.Skipped)
		for i, sum := range sums {
			if sum.err != nil {
				skipped[sum.reason]++
				continue
			}
			hashes[disc.Files[i].Path] = sum.hash
			if opts.Seen != nil {
				opts.Seen(disc.Files[i].Path, sum.hash)
			}
		}
		if opts.UpToDate != nil && opts.UpToDate(hashes, skipped) {
			for i, sum := range sums {
				if sum.err == nil {
					sw.add(disc.Files[i].Path, sum.hash, sum.lines, sum.stat, sum.statOK, disc.Files[i].Sniffed)
				}
			}
			if err := sw.write(); err != nil {
				return nil, err
			}
			st.FileHashes, st.Skipped = hashes, skipped
			st.Phases["parse"] = time.Since(t0).Seconds()
			return &Result{Discovery: disc, Index: ix, Stats: st, Unchanged: true, UpToDate: true}, nil
		}
	}
	if err := parseAll(ctx, disc.Files, sums, opts.Workers, opts.Cache, fw != nil, progress, func(r parsed) error {
		if r.reused {
			st.Reused++
		} else if r.err == nil && r.status != schema.ParseNoGrammar {
			st.Parsed++
		}
		if opts.Seen != nil && sums == nil {
			opts.Seen(r.node.Path, r.node.ContentHash)
		}
		if r.err == nil {
			sw.add(r.node.Path, r.node.ContentHash, r.node.Lines, r.stat, r.statOK, r.file.Sniffed)
		}
		if fw != nil && r.record != nil {
			if err := fw.add(r.node.Path, r.facts.Language, r.node.ContentHash, r.record); err != nil {
				return err
			}
		} else if fw != nil && r.reused {
			if err := fw.addFrom(opts.Cache, r.cached, r.node.Path, r.facts.Language, r.node.ContentHash); err != nil {
				return err
			}
		}
		return e.file(r, ix)
	}); err != nil {
		return nil, err
	}
	if fw != nil {
		if err := fw.close(); err != nil {
			return nil, err
		}
	}
	if err := sw.write(); err != nil {
		return nil, err
	}
	sort.Slice(ix.Files, func(i, j int) bool { return ix.Files[i].Path < ix.Files[j].Path })
	st.Phases["parse"] = time.Since(t0).Seconds()
	if opts.Unchanged != nil && opts.Unchanged(&st) {
		return &Result{Discovery: disc, Index: ix, Stats: st, Unchanged: true}, nil
	}

	t0 = time.Now()
	if err := e.crossFileMethods(ix); err != nil {
		return nil, err
	}
	st.Phases["structure"] = time.Since(t0).Seconds()

	res := &Result{Discovery: disc, Index: ix}
	var unresolved map[string]int
	if !opts.SkipResolve {
		t0 = time.Now()
		progress("resolve", 0, 0)
		paths := make([]string, len(disc.Files))
		for i, f := range disc.Files {
			paths[i] = f.Path
		}
		out, err := resolve.Resolve(ctx, resolve.Input{Root: disc.Root, Files: ix.Files, Paths: paths, Workers: opts.Workers, Resolved: keepLaterCalls,
			Sites: opts.Sites, SitesOut: opts.SitesOut, Hashes: st.FileHashes, Stamp: opts.CacheStamp})
		if err != nil {
			return nil, fmt.Errorf("resolve references: %w", err)
		}
		// res.Edges is out.Edges without IMPORTS, filtered in place: a
		// second slice would hold every edge twice at ingest's peak (the
		// kernel: 3.6 million edges of 120 bytes)
		kept := out.Edges[:0]
		for _, ed := range out.Edges {
			if err := e.edge(ed); err != nil {
				return nil, err
			}
			if ed.Type != schema.RelImports {
				kept = append(kept, ed)
			}
		}
		clear(out.Edges[len(kept):]) // the IMPORTS' strings
		res.Edges, out.Edges = kept, nil
		unresolved = out.Unresolved
		res.Unresolved = out.Unresolved
		rs := out.Stats // a copy: a pointer into out would keep the resolver's tables alive
		res.Resolution = &rs
		res.Samples = out.Samples
		if out.SitesMiss != "" {
			slog.Debug("resolve: the site cache is not used", "why", out.SitesMiss)
		} else if out.SitesFuncs > 0 {
			slog.Debug("resolve: functions changed since the site cache", "functions", out.SitesFuncs, "files_reused", out.Stats.SitesReused)
		}
		st.Phases["resolve"] = time.Since(t0).Seconds()
		if opts.Resolved != nil {
			opts.Resolved()
		}
	}
	// The raw references served resolution only: the later phases read the
	// symbols. On the Linux kernel the call sites alone are hundreds of MiB.
	// Goroutine starts (`go f()`, few) stay: processes makes their targets
	// entry points; so do calls inside returned func literals (few), which
	// start their callers' request-time flows.
	for _, f := range ix.Files {
		if opts.SkipResolve {
			keepLaterCalls(f) // else resolution did it, file by file (Input.Resolved)
		}
		f.Imports, f.Heritage, f.Types = nil, nil, nil
	}
	if err := e.flushFiles(unresolved); err != nil {
		return nil, err
	}
	res.Stats = st
	return res, nil
}

// keepLaterCalls drops the call sites of f that only resolution reads:
// goroutine starts and calls inside returned func literals stay (see Run).
func keepLaterCalls(f *lang.Facts) {
	var kept []lang.CallSite
	for _, c := range f.Calls {
		if c.Kind == "go" || c.Kind == "closure" {
			kept = append(kept, c)
		}
	}
	f.Calls = kept
}

// parsed is one worker's output for one file.
type parsed struct {
	file   discover.File
	node   schema.File
	facts  lang.Facts
	status schema.ParseStatus
	err    error // read error: the file is skipped with a reason
	reason string
	// record is the encoded parse result for the fact cache (nil when
	// none is written or the result is not cacheable); reused says it came
	// from the old cache, at cached (whence a new cache copies it).
	record []byte
	reused bool
	cached factLoc
	// stat is the file's stat under which node's content was read
	// (statOK false: not known), for the stat cache.
	stat   fileStat
	statOK bool
}

// parseWindow is how far parseAll's workers may run ahead of the file
// consume waits for: the results in between wait in memory.
const parseWindow = 256

// parseAll parses files on workers and hands each result to consume, on the
// calling goroutine, in the order of files: a build's rows are then in the
// same order whatever the workers' timing, so two builds of one tree write
// the same row files, database and search pack (and a re-analyze's pack
// is byte for byte a cold build's). Workers run at most parseWindow files
// ahead of the one consume waits for. A consume error stops the run.
func parseAll(ctx context.Context, files []discover.File, sums []fileSum, workers int, cache *FactCache, record bool, progress Progress, consume func(parsed) error) error {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return ordered.Run(ctx, len(files), workers, parseWindow, func(ctx context.Context) (func(int) parsed, func()) {
		p := lang.NewParser()
		var buf []byte // the worker's read buffer (parseOne)
		return func(i int) parsed {
			var sum *fileSum
			if sums != nil {
				sum = &sums[i]
			}
			return parseOne(ctx, p, files[i], sum, cache, record, &buf)
		}, p.Close
	}, func(i int, r parsed) error {
		if err := consume(r); err != nil {
			return err
		}
		progress("parse", i+1, len(files))
		return nil
	})
}

// parseOne reads and parses one file, or takes its parse result from the
// cache when the cache holds this content; with record it also encodes the
// result for the next run's cache. sum, when not nil, is what sumFiles
// read of the file: a file without a grammar, or one the cache holds, is
// then not read again (a file the cache misses is, and its node describes
// what this read finds).
func parseOne(ctx context.Context, p *lang.Parser, f discover.File, sum *fileSum, cache *FactCache, record bool, buf *[]byte) parsed {
	r := parsed{file: f}
	var src []byte
	// The source is read into the worker's buffer, kept from one file to
	// the next (nothing parsed keeps the source's memory: extractors copy
	// what they keep): a buffer a file had been the whole tree's size in
	// garbage (the Linux kernel: 1.1 GB).
	read := func() ([]byte, fileSum) {
		src, s := readSumInto(f.Abs, *buf)
		if src != nil && cap(src) <= maxReadBuffer {
			*buf = src
		}
		return src, s
	}
	if sum == nil || sum.err != nil {
		var s fileSum
		src, s = read()
		sum = &s
	}
	if sum.err != nil {
		r.err, r.reason = sum.err, sum.reason
		return r
	}
	r.node = fileNode(f, sum.size, sum.lines, sum.hash)
	r.stat, r.statOK = sum.stat, sum.statOK
	l := lang.ByName(f.Language)
	if l == nil {
		r.status = schema.ParseNoGrammar
		return r
	}
	if loc, rec, ok := cache.lookup(f.Path, l.Name, sum.hash); ok {
		r.facts, r.status, r.reused = rec.Facts, rec.Status, true
		r.cached = loc
		return r
	}
	if src == nil { // hashed by sumFiles: read again, described by this read
		var s fileSum
		if src, s = read(); s.err != nil {
			r.err, r.reason = s.err, s.reason
			return r
		}
		r.node = fileNode(f, s.size, s.lines, s.hash)
		r.stat, r.statOK = s.stat, s.statOK
	}
	facts, status, err := p.Parse(ctx, f.Path, l, src)
	if err != nil {
		slog.Debug("parse failed", "file", f.Path, "err", err)
	}
	// A symbol's search words are a function of its own fields: computed
	// here, they go into the fact cache with it, and a re-analyze that
	// reuses the file does not split them again (kubernetes: 0.35 s of
	// CPU). The emitter fills any left empty.
	for i := range facts.Symbols {
		if s := &facts.Symbols[i]; s.SearchText == "" {
			s.SearchText = text.SearchText(s.Name, s.QualifiedName, s.FilePath)
		}
	}
	// So are the type facts put in the resolver's order.
	resolve.SortFacts(&facts)
	r.facts, r.status = facts, status
	if record && cacheable(status) && facts.Path == f.Path && facts.Language == l.Name {
		r.record = encodeFacts(&cachedFacts{Status: status, Facts: facts})
	}
	return r
}

// fileNode is the File row of f with the given size, lines and content
// hash.
func fileNode(f discover.File, size int64, lines int, hash string) schema.File {
	return schema.File{
		ID: f.Path, Path: f.Path, Name: path.Base(f.Path), Language: f.Language,
		Size: size, Lines: lines, ContentHash: hash, Unresolved: -1,
	}
}

// fileSum is what readSumInto learns of one file: its content's sha256 (hex),
// size and line count, or why it could not be read (err, and the reason
// the run counts it under in Stats.Skipped).
type fileSum struct {
	hash   string
	size   int64
	lines  int
	err    error
	reason string
	// stat is the file's as it was opened for this read (statOK false:
	// not known), for the stat cache (statcache.go).
	stat   fileStat
	statOK bool
}

// sumFiles reads every file once for its fileSum, on workers goroutines
// (all cores when 0); no content is kept. A file the stat cache prev
// trusts (statcache.go) and whose stat is still the one it recorded is
// not read: its sum is prev's.
func sumFiles(ctx context.Context, files []discover.File, workers int, prev *StatCache) (_ []fileSum, unread int, _ error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	sums := make([]fileSum, len(files))
	t0 := time.Now()
	var next, trusted atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(1, len(files))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One buffer per worker: the content is only hashed here
			// (kubernetes: 79 MB read a re-analyze, all of it garbage).
			var buf, spare []byte
			for {
				spare = buf
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if sum, ok := statSum(prev, files[i]); ok {
					sums[i] = sum
					trusted.Add(1)
					continue
				}
				var sum fileSum
				if buf, sum = readSumInto(files[i].Abs, buf); buf == nil {
					buf = spare // an error gave no content: keep a buffer
				}
				sums[i] = sum
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	slog.Debug("files hashed", "files", len(files), "unread", trusted.Load(), "took", time.Since(t0))
	return sums, int(trusted.Load()), nil
}

// statSum is f's sum as the stat cache c has it, when c trusts its entry
// of f and f's stat is the entry's (StatCache.match).
func statSum(c *StatCache, f discover.File) (fileSum, bool) {
	if _, ok := c.trusted(f.Path); !ok {
		return fileSum{}, false // no stat taken for a file the cache cannot vouch for
	}
	fi := f.Info // discovery's Lstat
	if fi == nil {
		var err error
		if fi, err = os.Stat(f.Abs); err != nil {
			return fileSum{}, false
		}
	}
	e, ok := c.match(f.Path, fi)
	if !ok {
		return fileSum{}, false
	}
	return fileSum{hash: e.hash, size: e.stat.size, lines: e.lines, stat: e.stat, statOK: true}, true
}

// maxReadBuffer bounds the read buffer a parse worker keeps.
const maxReadBuffer = 4 << 20

// readSumInto reads the file at abs into buf (grown when too small; nil:
// a new one) and returns its content with its fileSum (nil content and
// the error, with parseOne's reason for it, when it cannot be read).
func readSumInto(abs string, buf []byte) ([]byte, fileSum) {
	src, fi, err := readFileInto(abs, buf)
	if err != nil {
		reason := "unreadable"
		if errors.Is(err, fs.ErrNotExist) {
			reason = "vanished"
		}
		return nil, fileSum{err: err, reason: reason}
	}
	h := sha256.Sum256(src)
	sum := fileSum{hash: hex.EncodeToString(h[:]), size: int64(len(src)), lines: countLines(src)}
	if fi != nil {
		sum.stat, sum.statOK = statOf(fi)
	}
	return src, sum
}

// readFileInto is os.ReadFile into buf's memory where it fits, with the
// file's FileInfo as it was opened (nil when it could not be had).
func readFileInto(name string, buf []byte) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		fi = nil
	} else if fi.Size() < math.MaxInt32 && int(fi.Size())+512 > cap(buf) {
		buf = make([]byte, 0, int(fi.Size())+512) // room to see the end
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}
