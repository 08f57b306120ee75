package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/ingest/resolve"
	"github.com/gitnexus/gitnexus/processes"
	"github.com/gitnexus/gitnexus/query"
)

// Options say what to index and how. The zero value indexes the repository
// with the default discovery rules, one parse worker per core, and
// embeddings when the default model is present.
type Options struct {
	// Discover chooses the files (size cap, excludes, includes, default
	// excludes); zero fields take discover's defaults.
	Discover discover.Options
	// Workers is the number of parse workers (0: one per core).
	Workers int
	// SkipEmbeddings builds a keyword-only index without trying the model.
	SkipEmbeddings bool
	// Embed chooses the embedding model and device (ModelDir "" is the
	// default model directory, Device "" is auto).
	Embed embed.Options
	// Name is the repository's name in meta.json (default: the directory
	// name). Build does not register it: that is the caller's choice
	// (graph.LoadRegistry, graph.EntryFromMeta(Summary.Meta)).
	Name string
	// ToolVersion is recorded in meta.json.
	ToolVersion string
	// Force parses every file: the live index's fact cache (the parse
	// results of the last analyze, by content hash) is not read. The index
	// built is the same either way; Force only costs time.
	Force bool
	// Graph tunes the database build (threads, buffer pool); zero fields
	// take graph's defaults.
	Graph graph.BuildOptions
	// Progress, when set, is called as work advances: stage ("discover",
	// "parse", "resolve", "processes", "embed", "schema", "nodes", "edges",
	// "search"), and done of total (total 0 when unknown).
	Progress func(stage string, done, total int)
	// Warn receives one-line warnings (a missing model, a registry that
	// cannot be updated); default slog.Warn.
	Warn func(msg string)
}

// Summary is what a build did: counts, phase durations and what each
// optional step did. Its JSON is `gitnexus analyze --json`.
type Summary struct {
	Repo        string         `json:"repo"`
	Name        string         `json:"name"`
	Path        string         `json:"path"`
	Commit      string         `json:"commit,omitempty"`
	Git         bool           `json:"git"`
	Files       int            `json:"files"`
	Folders     int            `json:"folders"`
	Symbols     int            `json:"symbols"`
	Languages   map[string]int `json:"languages"`
	Kinds       map[string]int `json:"kinds"`
	Nodes       map[string]int `json:"nodes"`
	Edges       map[string]int `json:"edges"`
	ParseStatus map[string]int `json:"parse_status"`
	Skipped     map[string]int `json:"skipped"`
	// Parsed counts the files parsed; Reused those whose parse result came
	// from the last analyze's fact cache (content unchanged).
	Parsed int `json:"parsed"`
	Reused int `json:"reused"`
	// Unread counts the files whose content was not even read: the last
	// analyze's stat cache knew their hash (inode, size and times as
	// they were when it read them).
	Unread int `json:"unread"`
	// Changes compares the indexed files with the index this build
	// replaced (nil when there was none).
	Changes *FileChanges `json:"changes,omitempty"`
	// UpToDate is set when nothing changed since the last analyze (the
	// same gitnexus, files and options): the live index was kept, not
	// rebuilt, and only meta.json's commit and time were brought forward.
	// Processes is then zero (not traced again); Nodes counts the flows.
	UpToDate bool `json:"up_to_date,omitempty"`
	// Load says how the database was filled: every row loaded, or the live
	// database updated in place with the rows that changed.
	Load graph.LoadStats `json:"load"`
	// Pack says how the search pack was built: how many nodes it took
	// from the live index's pack instead of indexing them again.
	Pack   query.PackStats    `json:"pack"`
	Phases map[string]float64 `json:"phases"`
	// PeakRSS is the process's peak resident memory in MiB during each
	// stage: "ingest" (discover, parse, resolve), "processes", "load" (the
	// graph COPYs), "pack" (the search pack), "embed" and "commit"; absent
	// where /proc is not available.
	PeakRSS    map[string]int  `json:"peak_rss_mib,omitempty"`
	Seconds    float64         `json:"seconds"`
	Embeddings string          `json:"embeddings"`
	Resolution *resolve.Stats  `json:"resolution,omitempty"`
	Unresolved []string        `json:"unresolved_samples,omitempty"`
	Processes  processes.Stats `json:"processes"`

	// Discovery is what file discovery saw (skip examples by reason).
	Discovery *discover.Result `json:"-"`
	// Meta is what was committed as the index's meta.json.
	Meta *graph.Meta `json:"-"`
}

// Build indexes the repository at root (an absolute, symlink-free
// directory path) into root/.gitnexus and returns what it did.
//
// It is the whole analyze pipeline, the one every caller runs (the CLI,
// query/eval, the benchmarks, the tests), so what they measure is what
// users get. The build driver (graph.Build: lock, staging directory,
// commit/abort swap, durability) brackets the stages; the format writers
// (the graph load, the search pack, the vectors) write into its staging
// directory. On any error, or when ctx is cancelled, the build is aborted
// and the previous index, if any, is left as it was; a lock held by
// another analyze returns graph.ErrLocked, a device that cannot load
// embed.ErrDeviceUnavailable.
func Build(ctx context.Context, root string, opts Options) (sum *Summary, err error) {
	start := time.Now()
	peak := newPeakRSS()
	defer peak.close()
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	warn := opts.Warn
	if warn == nil {
		warn = func(msg string) { slog.Warn(msg) }
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("index %s: %w", root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("index %s: not a directory", root)
	}

	b, err := graph.NewBuild(ctx, root, opts.Graph)
	if err != nil {
		return nil, fmt.Errorf("start index build: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			b.Abort()
		}
	}()
	// The index this build replaces (nil when there is none or it cannot
	// be read), read once under the lock: its vectors, its fact cache and
	// its file list serve this build.
	live, err := graph.ReadMeta(root)
	if err != nil {
		live = nil
	}

	// 1. Embedding stage, started first: it embeds symbols as ingest
	// streams them.
	var emb *embedStage
	embeddings := "skipped (--skip-embeddings)"
	if !opts.SkipEmbeddings {
		var msg string
		if emb, msg, err = startEmbedding(ctx, root, live, b, opts.Embed, warn); err != nil {
			return nil, err
		}
		if emb == nil {
			embeddings = msg
		} else {
			defer emb.close()
		}
	}

	// 2. Discover, parse, resolve: rows stream into the build's NDJSON
	// files. Files whose content the live index's fact cache holds are not
	// parsed again; every file's parse result goes to the new cache.
	stamp := ingest.FactStamp()
	var cache *ingest.FactCache
	if !opts.Force {
		cache = openFactCache(root, live, stamp)
		defer cache.Close()
	}
	factsPath := filepath.Join(b.StagingDir(), "facts")
	sitesPath := filepath.Join(b.StagingDir(), "sites")
	statPath := filepath.Join(b.StagingDir(), "stat")
	var stats *ingest.StatCache // the live index's: files it need not read
	if cache != nil {
		stats = openStatCache(root, live)
	}
	if stamp == "" {
		factsPath, sitesPath = "", ""
	}
	var sites string // the live index's site cache, read with its fact cache
	if cache != nil {
		sites = graph.CompanionPath(root, live, graph.SitesSuffix)
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(root)
	}

	// A keyword-only build over a keyword-only index by the same gitnexus
	// updates a copy of the live database in place (graph.Build.UpdateFrom:
	// the same rows, loaded as a difference); vectors are never updated in
	// place. The live database is copied, and the copy synced, while the
	// tree is parsed and processes are worked out: from the first file
	// whose content the live index does not have (a tree where nothing
	// changed costs no copy), else once ingest is done.
	// reuse: the live index was written by this gitnexus, so what it
	// derived (its database, processes and search pack) can serve this
	// build where the rows are the same.
	reuse := !opts.Force && sameBuild(live, stamp)
	inPlace := reuse && emb == nil && live.Embeddings.Count == 0
	var seen func(path, hash string)
	var changed atomic.Int64 // files whose content the live index does not have
	fewChanged := func() bool { return changed.Load() <= earlyOpenFiles }
	if inPlace && os.Getenv("GOGC") == "" && liveRows(live) <= sidePackRows {
		defer debug.SetGCPercent(debug.SetGCPercent(updateGCPercent))
	}
	if inPlace {
		b.UpdateFrom(live)
		seen = func(path, hash string) {
			if live.Files[path] != hash {
				changed.Add(1)
				b.StartInPlace(fewChanged) // once: later calls do nothing
			}
		}
	}
	res, err := ingest.Run(ctx, root, emb.sink(b), ingest.Options{
		Seen: seen,
		// Nothing changed: the live index is what the rest would build
		// (resolution and all after it are functions of the files). Known
		// once the files are hashed (UpToDate), when the fact cache is
		// this build's; else after the parse (Unchanged).
		UpToDate: func(hashes map[string]string, skipped map[string]int) bool {
			return !opts.Force && sameInputs(live, hashes, skipped, emb == nil, opts.ToolVersion, stamp, name) && verifies(root, live)
		},
		Unchanged: func(st *ingest.Stats) bool {
			return !opts.Force && sameFiles(live, st, emb == nil, opts.ToolVersion, stamp, name) && verifies(root, live)
		},
		Discover:   opts.Discover,
		Workers:    opts.Workers,
		Progress:   progress,
		Cache:      cache,
		CacheOut:   factsPath,
		CacheStamp: stamp,
		Sites:      sites,
		SitesOut:   sitesPath,
		StatCache:  stats,
		StatOut:    statPath,
		Resolved:   func() { writeHeapProfile("resolve") },
	})
	if err != nil {
		return nil, fmt.Errorf("analyze %s: %w", root, err)
	}
	cache.Close()
	if factsPath != "" {
		if err := b.Attach(graph.FactsSuffix, factsPath); err != nil {
			return nil, err
		}
	}
	if sitesPath != "" && !res.Unchanged {
		if err := b.Attach(graph.SitesSuffix, sitesPath); err != nil {
			return nil, err
		}
	}
	// The stat cache goes with a new index; an up-to-date run that read
	// files to learn they had not changed (touched, checked out again)
	// replaces the live index's with it (graph.Build.KeepLive), which
	// trusts them from the next analyze on.
	if !res.Unchanged || (res.UpToDate && res.Stats.Unread < len(res.Stats.FileHashes)) {
		if err := b.Attach(graph.StatSuffix, statPath); err != nil {
			return nil, err
		}
	}
	peak.mark("ingest")
	writeHeapProfile("ingest")
	if res.Unchanged { // the live index, committed with files, stays
		return keepLive(b, live, res, start, peak, embeddings)
	}
	st := res.Stats
	if err := nothingIndexed(st.Files, res.Discovery); err != nil {
		return nil, err
	}

	if inPlace {
		b.StartInPlace(fewChanged) // a no-op when ingest started it
	}

	// The search pack is built from the row files, beside the steps after
	// ingest. The live index's pack, when this gitnexus wrote it, lends
	// what it derived from every row that did not change
	// (query.BuildPackFrom).
	var basePack string
	if reuse {
		basePack = graph.CompanionPath(root, live, graph.PackSuffix)
	}
	side := &sidePack{}
	defer side.stop() // before the build's abort removes its staging
	if inPlace {
		// An update of a small build starts the pack on the symbols' and
		// files' rows now, which ingest has written: it reads them beside
		// the processes and the preparation of the rows, and the edges,
		// processes and communities once prepared (graph.Build.EarlyRows).
		early, err := b.EarlyRows(query.PackNodeLabels())
		if err != nil {
			return nil, fmt.Errorf("search pack: %w", err)
		}
		if early.Total() <= earlyPackRows {
			side.start(ctx, early, basePack, b.StagingDir())
		}
	}

	// 3. Communities and processes over the call graph ingest kept (the
	// live index's when it was found on the same graph).
	t0 := time.Now()
	progress("processes", 0, 0)
	var savedProcs string
	if reuse {
		savedProcs = graph.CompanionPath(root, live, graph.ProcsSuffix)
	}
	g := processes.FromIndex(res.Index, res.Edges)
	// The graph holds what the processes need of the index and the edges:
	// dropped here, they are garbage while the processes run, not after
	// (the Linux kernel: the symbols' and call sites' facts and 3.3M edges,
	// about 1 GB the collector would otherwise mark again each cycle).
	res.Index, res.Edges = nil, nil
	pres, attachProcs, err := runProcesses(g, savedProcs, b)
	if err != nil {
		return nil, err
	}
	// The result's rows are written while it is saved; the save is waited
	// for on every way out, as it writes into the staging directory an
	// error removes.
	err = func() error {
		for _, cm := range pres.Communities {
			if err := b.AddCommunity(cm); err != nil {
				return fmt.Errorf("write community: %w", err)
			}
		}
		for _, p := range pres.Processes {
			if err := b.AddProcess(p); err != nil {
				return fmt.Errorf("write process: %w", err)
			}
		}
		return pres.EachEdge(func(e schema.Edge) error {
			if err := b.AddEdge(e); err != nil {
				return fmt.Errorf("write %s edge: %w", e.Type, err)
			}
			st.Edges[string(e.Type)]++
			return nil
		})
	}()
	if aerr := attachProcs(); err == nil {
		err = aerr
	}
	if err != nil {
		return nil, err
	}
	st.Labels["Community"] = len(pres.Communities)
	st.Labels["Process"] = len(pres.Processes)
	st.Phases["processes"] = time.Since(t0).Seconds()
	peak.mark("processes")

	// The last symbols are embedded and the model closed before the load
	// (see embedStage.drain).
	var embWait time.Duration
	if emb != nil {
		t1 := time.Now()
		progress("embed", 0, 0)
		if err := emb.drain(); err != nil {
			return nil, err
		}
		embWait = time.Since(t1)
	}

	// The index and edges are in the NDJSON files now: give their memory
	// back before Kuzu needs its own. An update in place whose heap is
	// small keeps it for the pack beside the load to reuse: on this 2-core
	// VM a page the process touches fresh costs about 14 µs, and
	// prometheus's one-function edit faulted 45-46k of them, 6k fewer
	// without the release, its peak RSS unchanged. A larger heap is given
	// back all the same: kept, kubernetes's updates peaked 30-75 MiB
	// higher, a 50-file one above its cold analyze's peak.
	samples, resolution, procStats, discovery := res.Samples, res.Resolution, pres.Stats, res.Discovery
	unresolvedByFile := res.Unresolved
	res, pres = nil, nil
	if !inPlace || heapHeld() > keepHeapMax {
		slog.Debug("before release", "heap", heapMiB())
		ingest.ReleaseMemory()
		slog.Debug("after release", "heap", heapMiB())
	}

	// 4. The format writers: graph load (in place when UpdateFrom was
	// called above), search pack, vectors.
	// A build of at most sidePackRows rows builds its pack beside the load
	// (when not started already), on the rows view, whether the load goes
	// in place (a few statements on a copy of the live database, mostly
	// Kuzu's own time) or whole; a larger one's load has both cores and
	// most of the memory to itself, so the pack waits for it (see
	// sidePack).
	t0 = time.Now()
	if err := b.Prepare(ctx); err != nil {
		return nil, fmt.Errorf("load graph: %w", err)
	}
	rows, staging := b.Rows(), b.StagingDir()
	switch small := rows != nil && rows.Total() <= sidePackRows; {
	case side.started():
		if small {
			b.ShareLoad() // should the load go whole (see graph.Build.ShareLoad)
		}
	case small:
		b.ShareLoad() // the pack's (see graph.Build.ShareLoad)
		side.start(ctx, rows, basePack, staging)
	}
	if err := b.Load(ctx, progress); err != nil {
		return nil, fmt.Errorf("load graph: %w", err)
	}
	st.Phases["load"] = time.Since(t0).Seconds()
	peak.mark("load")
	progress("search", 0, 0)
	packed, err := side.result(b.Counts())
	if err != nil {
		return nil, fmt.Errorf("build search pack: %w", err)
	}
	noBase := ""
	if basePack != "" && rows != nil && rows.Total() > sidePackRows {
		// A pack built from the live one holds the live one's node table,
		// details and row hashes beside its own: on the Linux kernel (958k
		// nodes) a one-line edit's pack reached 3.43 GB, 44 s, against a
		// full run's 3.16-3.20 GB, 62 s (session 32). Past sidePackRows the
		// pack is built as a cold run's, the same bytes.
		basePack, noBase = "", fmt.Sprintf("not read for a build of more than %d rows (memory)", sidePackRows)
	}
	if packed != nil {
		packed.stats.BesideLoad = true
	} else if packed, err = buildPack(ctx, b, basePack, b.StagingDir()); err != nil {
		return nil, fmt.Errorf("build search pack: %w", err)
	} else if noBase != "" {
		packed.stats.NoBase = noBase
	}
	if err := b.Attach(graph.PackSuffix, packed.path); err != nil {
		return nil, err
	}
	st.Phases["pack"] = packed.seconds
	packStats := packed.stats
	peak.mark("pack")
	var embInfo graph.EmbeddingInfo
	if emb != nil {
		t1 := time.Now()
		progress("embed", 0, 0)
		if embInfo, err = emb.finish(ctx, b); err != nil {
			return nil, err
		}
		embeddings = emb.status
		st.Phases["embed"] = (embWait + time.Since(t1)).Seconds()
		peak.mark("embed")
	}

	// 5. Commit: meta.json names the new database and its pack.
	counts := map[string]int{}
	for k, v := range st.Labels {
		counts[k] = v
	}
	for k, v := range st.Edges {
		counts[k] = v
	}
	meta := &graph.Meta{
		SchemaVersion: schema.Version,
		ToolVersion:   opts.ToolVersion,
		RepoRoot:      root,
		RepoName:      name,
		Commit:        discovery.Commit,
		Branch:        discovery.Branch,
		IndexedAt:     start.UTC(),
		Build:         stamp,
		Counts:        counts,
		Files:         st.FileHashes,
		ParseStatus:   st.ParseStatus,
		Skipped:       st.Skipped,
		Languages:     st.Languages,
		Kinds:         st.Kinds,
		Phases:        st.Phases,
		Embeddings:    embInfo,
	}
	if resolution != nil {
		meta.Calls = callCounts(resolution)
		meta.Unresolved = unresolvedByFile
	}
	st.Phases["total"] = time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.Commit(meta); err != nil {
		return nil, fmt.Errorf("swap in the new index: %w", err)
	}
	committed = true
	peak.mark("commit")

	if err := discover.EnsureGitExclude(root, ".gitnexus/"); err != nil {
		warn(fmt.Sprintf("could not add .gitnexus/ to .git/info/exclude: %v", err))
	}
	return &Summary{
		Repo: name, Name: name, Path: root, Commit: meta.Commit, Git: discovery.Git,
		Files: st.Files, Folders: st.Folders, Symbols: st.Symbols,
		Languages: st.Languages, Kinds: st.Kinds, Nodes: st.Labels, Edges: st.Edges,
		ParseStatus: st.ParseStatus, Skipped: st.Skipped, Parsed: st.Parsed, Reused: st.Reused, Unread: st.Unread,
		Changes: compareFiles(live, st.FileHashes), Load: b.LoadStats(), Pack: packStats,
		Phases: st.Phases, PeakRSS: peak.close(),
		Seconds: time.Since(start).Seconds(), Embeddings: embeddings,
		Resolution: resolution, Unresolved: samples, Processes: procStats,
		Discovery: discovery, Meta: meta,
	}, nil
}

// runProcesses is processes.Run on g, or the result saved at saved (the
// live index's, "" for none) when its graph had g's key: Run's result for
// g, without the work (after a body edit that changed no call: kubernetes
// 0.6-0.7 s). The result is saved for the next analyze, on a goroutine
// of its own, unless its community search ran out of time (such a result
// may not repeat); attach waits for the save and attaches the file to b:
// the caller calls it once it has written the result's rows. With no
// saved result to check it against, g's key (only the save needs it) is
// hashed beside Run, which reads g as the key does: on a large graph
// Run's community search holds one core (the Linux kernel: 12-14 s).
func runProcesses(g *processes.Graph, saved string, b *graph.Build) (_ *processes.Result, attach func() error, _ error) {
	var opts processes.Options
	var key string
	var res *processes.Result
	if saved != "" {
		key = g.Key(opts)
		var err error
		if res, err = processes.LoadSaved(saved, g, key); err != nil {
			slog.Debug("processes: the live index's are not reused", "err", err)
		}
	}
	if res == nil && key == "" {
		keyc := make(chan string, 1)
		go func() { keyc <- g.Key(opts) }()
		res = processes.Run(g, opts)
		key = <-keyc
	} else if res == nil {
		res = processes.Run(g, opts)
	}
	if res.Stats.CommunityTimedOut {
		return res, func() error { return nil }, nil
	}
	path := filepath.Join(b.StagingDir(), "procs")
	// A reused result is the saved file's: linked, not written again
	// (kubernetes: 4 MB encoded), unless the file system refuses.
	if res.Stats.Reused && os.Link(saved, path) == nil {
		return res, func() error { return b.Attach(graph.ProcsSuffix, path) }, nil
	}
	// Saved beside the caller's writing of the result's rows (both only
	// read it): the Linux kernel's 103 MB of JSON had taken 3 s of the phase.
	done := make(chan error, 1)
	go func() { done <- res.Save(path, key) }()
	return res, func() error {
		if err := <-done; err != nil {
			return err
		}
		return b.Attach(graph.ProcsSuffix, path)
	}, nil
}

// updateGCPercent is the collector's GOGC while a build that may update
// the live index in place runs, when that index has at most sidePackRows
// rows: 100 against the 50 that analyze otherwise runs with (main.go).
// Such an update's peak is not its heap's: the cold analyze it updates
// peaked in Kuzu's COPY (prometheus 205 MiB, kubernetes 408 MiB), and
// the update holds the same heap of facts with far less of Kuzu's
// memory beside it (156-167 and 360-369 MiB at 50; 174-184 and 377-394
// at 100). Collecting half as often took kubernetes' one-body update
// from 4.27 to 3.70 s and its user CPU from 5.4-6.1 to 4.0-4.5 s, and
// prometheus' from 0.99 to 0.85 s (medians of 4 and 5 alternated edits,
// session 33). The Linux kernel's update keeps 50: its peak is the full
// run's (both near the 3 GiB soft limit). GOGC, when set, wins. The
// setting is the process's: Build restores it as it returns, which two
// Builds running at once in one process would do out of order (analyze
// and its --watch run one at a time).
const updateGCPercent = 100

// liveRows is the number of rows (nodes and edges) the live index holds.
func liveRows(live *graph.Meta) int {
	n := 0
	for _, c := range live.Counts {
		n += c
	}
	return n
}

// sameBuild reports whether the live index (nil: none) was written by this
// very gitnexus: its executable's stamp (ingest.FactStamp, "" when it has
// none) and the schema. Only then can a build reuse what the live index
// derived (its database in place, its search pack) or keep it whole.
func sameBuild(live *graph.Meta, stamp string) bool {
	return live != nil && stamp != "" && live.Build == stamp && live.SchemaVersion == schema.Version
}

// sameFiles reports whether the live index (nil: none) is what this
// build would commit, as far as the parse tells (st): built by the same
// gitnexus (schema, version and executable, stamp) under the same name,
// of the same files with the same content, parse outcomes and skips, and
// keyword-only as this build (noVectors: no embedding stage) would be.
// The graph, resolution, the processes and the search pack are functions
// of these (the equivalence tests compare re-analyzed indexes with cold
// builds), so such a build stops after the parse (ingest.Options.Unchanged).
func sameFiles(live *graph.Meta, st *ingest.Stats, noVectors bool, version, stamp, name string) bool {
	return sameInputs(live, st.FileHashes, st.Skipped, noVectors, version, stamp, name) &&
		maps.Equal(live.ParseStatus, st.ParseStatus) && maps.Equal(live.Languages, st.Languages) &&
		maps.Equal(live.Kinds, st.Kinds)
}

// sameInputs is what sameFiles asks before the parse: the same build
// under the same name, keyword-only as this build, of the same files
// (hashes by path) with the same skips. The parse outcomes, languages and
// kinds are then the same too — functions of the files' content under
// one build — so a build that finds this stops before the parse
// (ingest.Options.UpToDate).
func sameInputs(live *graph.Meta, hashes map[string]string, skipped map[string]int, noVectors bool, version, stamp, name string) bool {
	if !sameBuild(live, stamp) || live.ToolVersion != version || live.RepoName != name || !noVectors || live.Embeddings.Count != 0 {
		return false
	}
	return maps.Equal(live.Files, hashes) && maps.Equal(live.Skipped, skipped)
}

// verifies reports whether the live index verifies (graph.Verify); one
// that does not is rebuilt.
func verifies(root string, live *graph.Meta) bool {
	if err := graph.Verify(root, live); err != nil {
		slog.Debug("the live index does not verify; rebuilding it", "err", err)
		return false
	}
	return true
}

// liveCalls is the resolution stats Meta.Calls keeps (nil for nil).
func liveCalls(c map[string]int) *resolve.Stats {
	if c == nil {
		return nil
	}
	return &resolve.Stats{CallSites: c["callSites"], Resolved: c["resolved"], External: c["external"],
		Dynamic: c["dynamic"], Unresolved: c["unresolved"]}
}

// callCounts is Meta.Calls for resolution stats r (nil for nil).
func callCounts(r *resolve.Stats) map[string]int {
	if r == nil {
		return nil
	}
	return map[string]int{"callSites": r.CallSites, "resolved": r.Resolved,
		"external": r.External, "dynamic": r.Dynamic, "unresolved": r.Unresolved}
}

// keepLive ends a build that found nothing changed (sameFiles): the live
// index stays, meta.json records this analyze's commit, branch and time
// (so that answers no longer call touched-but-unchanged files stale), and
// the summary is the live index's counts with UpToDate set (its call
// counts too: resolution did not run; no reasons, no samples).
func keepLive(b *graph.Build, live *graph.Meta, res *ingest.Result, start time.Time, peak *peakRSS, embeddings string) (*Summary, error) {
	st, d := res.Stats, res.Discovery
	if res.UpToDate {
		// Nothing was parsed: the counts are the live index's (the same
		// files under the same build).
		st.Languages, st.Kinds, st.ParseStatus = live.Languages, live.Kinds, live.ParseStatus
		st.Files, st.Symbols = 0, 0
		for _, n := range live.ParseStatus {
			st.Files += n
		}
		for _, n := range live.Kinds {
			st.Symbols += n
		}
		st.Parsed, st.Reused = 0, st.Files-live.ParseStatus[string(schema.ParseNoGrammar)]
	}
	meta, err := b.KeepLive(live, func(m *graph.Meta) {
		m.Commit, m.Branch, m.IndexedAt = d.Commit, d.Branch, start.UTC()
	})
	if err != nil {
		return nil, fmt.Errorf("keep the live index: %w", err)
	}
	nodes, edges := map[string]int{}, map[string]int{}
	for _, t := range schema.NodeTables() {
		nodes[string(t.Label)] = meta.Counts[string(t.Label)]
	}
	for _, r := range schema.Rels {
		edges[string(r.Type)] = meta.Counts[string(r.Type)]
	}
	st.Phases["total"] = time.Since(start).Seconds()
	peak.mark("commit")
	return &Summary{
		Repo: meta.RepoName, Name: meta.RepoName, Path: meta.RepoRoot, Commit: meta.Commit, Git: d.Git,
		Files: st.Files, Folders: st.Folders, Symbols: st.Symbols,
		Languages: st.Languages, Kinds: st.Kinds, Nodes: nodes, Edges: edges,
		ParseStatus: st.ParseStatus, Skipped: st.Skipped, Parsed: st.Parsed, Reused: st.Reused, Unread: st.Unread,
		Changes: &FileChanges{}, UpToDate: true,
		Phases: st.Phases, PeakRSS: peak.close(),
		Seconds: time.Since(start).Seconds(), Embeddings: embeddings,
		Resolution: liveCalls(meta.Calls), Unresolved: res.Samples,
		Discovery: d, Meta: meta,
	}, nil
}

// ErrNothingIndexed is returned when discovery found files but every one of
// them was excluded or skipped: an index of nothing is never committed.
var ErrNothingIndexed = errors.New("no file indexed")

// nothingIndexed says which rule kept the files out when discovery found
// some and none was indexed, and how to bring them back.
func nothingIndexed(files int, d *discover.Result) error {
	if files > 0 || d == nil {
		return nil
	}
	skipped := 0
	for _, n := range d.Skipped {
		skipped += n
	}
	if d.Ignored+skipped == 0 {
		return nil // an empty directory: an empty index is its true answer
	}
	msg := fmt.Sprintf("%d files were left out", d.Ignored+skipped)
	if len(d.TopRules) > 0 {
		r := d.TopRules[0]
		msg += fmt.Sprintf(", most of them (%d) by %s (%s)", r.Files, r.Rule, r.Reason)
	}
	return fmt.Errorf("%w: %s; to index them, pass --include PATTERN (repeatable), add a !PATTERN line to .gitnexusignore, or use --no-default-excludes", ErrNothingIndexed, msg)
}

// FileChanges counts how the indexed files differ from the previous
// index's: added, changed (another content hash) and deleted. A renamed
// file is one deleted and one added.
type FileChanges struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Deleted int `json:"deleted"`
}

// compareFiles compares the file hashes of the index live (nil when there
// was none: then nil) with after, by path.
func compareFiles(live *graph.Meta, after map[string]string) *FileChanges {
	if live == nil {
		return nil
	}
	before := live.Files
	c := &FileChanges{}
	for p, h := range after {
		switch old, ok := before[p]; {
		case !ok:
			c.Added++
		case old != h:
			c.Changed++
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			c.Deleted++
		}
	}
	return c
}

// openFactCache opens the fact cache of the live index (meta live), or
// returns nil (with a debug line saying why) when there is none or it
// cannot serve this build.
func openFactCache(root string, live *graph.Meta, stamp string) *ingest.FactCache {
	if live == nil {
		return nil
	}
	c, err := ingest.OpenFactCache(graph.CompanionPath(root, live, graph.FactsSuffix), stamp)
	if err != nil {
		slog.Debug("fact cache not used: every file is parsed", "err", err)
		return nil
	}
	return c
}

// openStatCache reads the stat cache of the live index (meta live), or
// returns nil (with a debug line saying why) when there is none or it
// cannot be read: then every file is read to be hashed.
func openStatCache(root string, live *graph.Meta) *ingest.StatCache {
	if live == nil {
		return nil
	}
	c, err := ingest.OpenStatCache(graph.CompanionPath(root, live, graph.StatSuffix))
	if err != nil {
		slog.Debug("stat cache not used: every file is read", "err", err)
		return nil
	}
	return c
}

// packed is a search pack written into the staging directory.
type packed struct {
	path    string
	seconds float64 // its build's wall time
	stats   query.PackStats
}

// buildPack builds the search pack of q's rows (the build after Load, or
// its rows view) into dir, reusing base (the live pack's path, "" for
// none) where it can.
func buildPack(ctx context.Context, q query.Querier, base, dir string) (*packed, error) {
	t0 := time.Now()
	var bp *query.Pack
	var noBase string
	if base != "" {
		var err error
		if bp, err = query.ReadPack(base); err != nil {
			noBase = err.Error()
			slog.Debug("pack: the live pack is not reused", "err", err)
		}
	}
	path := filepath.Join(dir, "search.pack")
	stats, err := query.BuildPackFileFrom(ctx, q, bp, path)
	if err != nil {
		return nil, err
	}
	if noBase != "" {
		stats.NoBase = noBase
	}
	slog.Debug("search pack written", "took", time.Since(t0), "nodes", stats.Nodes, "reused", stats.Reused, "rss_MiB", graph.RSS)
	return &packed{path: path, seconds: time.Since(t0).Seconds(), stats: stats}, nil
}

// sidePack is the search pack built beside the load (an in-place load,
// or a full load of at most sidePackRows rows), from the build's rows
// view (graph.Rows): the pack reads only the row files, so
// it is the pack the build would give after the load, as long as the
// database ends up holding every row of them. result checks that (the
// build's counts after Load equal the view's; a COPY that skipped rows
// would break it) and answers nil, for the caller to build the pack after
// the load as before, when it does not hold or when the pack needed the
// database (graph.ErrRowsOnly: the rows could not serve).
// On prometheus a one-function edit's load takes 0.6-1.0 s and the pack
// 0.3 s; on kubernetes 1.4-2.7 s and 1.4-1.9 s.
type sidePack struct {
	// counts is the rows the pack read, by table, once it has read them
	// (graph.Rows.Counts: an early view's are the prepared view's by then).
	counts func() map[string]int
	cancel context.CancelFunc
	done   chan struct{}
	p      *packed
	err    error
}

// sidePackRows: a build of at most this many rows (prometheus: about
// 60k, kubernetes: about 330k) builds its pack beside a full load too; a
// larger one (the Linux kernel: millions) after its load, even in place.
// Kuzu's COPY leaves a core idle much of a load, and the pack's memory is
// below the peak the processes phase has already reached: kubernetes'
// cold analyze went 29.6/28.0 → 27.4/23.9 s (alternated runs, 2 cores),
// its peak RSS staying at 440-455 MiB, the load's own peak 334-352 →
// 409-422 MiB under the processes phase's 430-443 (session 21). On the
// kernel the pack alone reaches 3.15 GiB: beside a load of 1.6 GiB it
// would pass the 4 GiB the issue allows; beside an update in place (whose
// statements took Kuzu's memory from 0.6 to 2.2 GB) a one-line edit
// peaked at 3.39-3.49 GB, above the 3.18-3.38 GB of a full run (session
// 32).
const sidePackRows = 500_000

// earlyOpenFiles: an update of at most this many changed files lets
// graph.Build.StartInPlace open a small live database's copy beside the
// parse. The files are counted as they are hashed, all before the parse,
// so the count is whole by the time the copy is made (a copy made sooner
// sees a lower count, and only opens for nothing). A change of more files
// (prometheus' 50-file edit) is usually loaded whole, and the open would be
// about 0.4 s of a core taken from the parse for nothing: that edit took
// 3.61 s with the open kept to the load and 3.74 s with every copy opened
// early (bench/incremental.py, medians of 5, session 31).
const earlyOpenFiles = 8

// earlyPackRows: an update of a build of at most this many symbol and
// file rows starts its pack as ingest ends (graph.Build.EarlyRows), beside
// the processes, when its load will likely be in place; a larger one
// (the Linux kernel: 958k) waits for the load's choice, so that its pack
// never runs beside a full load (sidePackRows).
const earlyPackRows = 150_000

// started says start was called.
func (s *sidePack) started() bool { return s.done != nil }

// start builds the pack on its own goroutine. Called at most once.
func (s *sidePack) start(ctx context.Context, rows *graph.Rows, base, dir string) {
	if rows == nil {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.counts, s.done = rows.Counts, make(chan struct{})
	go func() {
		defer close(s.done)
		s.p, s.err = buildPack(ctx, rows, base, dir)
		// What the pack was built in is garbage once it is written: give
		// it back now rather than when the heap next doubles, which would
		// be while the update's statements and checkpoint hold Kuzu's
		// pages (prometheus: the peak 215 -> 170 MiB).
		debug.FreeOSMemory()
	}()
}

// stop cancels the pack, if one was started, and waits for it to end.
func (s *sidePack) stop() {
	if s.done != nil {
		s.cancel()
		<-s.done
	}
}

// result is the side pack once the build is loaded (loaded: its counts,
// graph.Build.Counts), or nil when there is none or it must be built
// again from the build; err only for ctx's end.
func (s *sidePack) result(loaded map[string]int) (*packed, error) {
	if s.done == nil {
		return nil, nil
	}
	<-s.done
	s.cancel()
	if s.err != nil {
		if errors.Is(s.err, context.Canceled) || errors.Is(s.err, context.DeadlineExceeded) {
			return nil, s.err
		}
		slog.Debug("pack: built again after the load", "err", s.err)
		return nil, nil
	}
	if !maps.Equal(loaded, s.counts()) {
		slog.Debug("pack: built again after the load: the database does not hold every row")
		return nil, nil
	}
	return s.p, nil
}

// writeHeapProfile writes the live Go heap after stage to
// $GITNEXUS_HEAPPROFILE.<stage> (a debugging aid beside main's
// GITNEXUS_CPUPROFILE), after a collection; nothing when unset.
func writeHeapProfile(stage string) {
	p := os.Getenv("GITNEXUS_HEAPPROFILE")
	if p == "" {
		return
	}
	p += "." + stage
	runtime.GC()
	f, err := os.Create(p)
	if err != nil {
		slog.Warn("heap profile", "err", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		slog.Warn("heap profile", "err", err)
	}
	slog.Debug("heap profile written", "stage", stage, "file", p, "heap", heapMiB())
}

// keepHeapMax is the most heap an update in place keeps for its pack
// instead of giving it back before the load (prometheus: about 58 MiB).
const keepHeapMax = 96 << 20

// heapHeld is the heap memory the process holds from the system.
func heapHeld() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapSys - m.HeapReleased
}

// heapMiB describes the Go heap and the process's resident memory, for the
// debug log around the release before the load.
func heapMiB() string {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("heapInuse=%dMiB sys=%dMiB rss=%sMiB", m.HeapInuse>>20, m.Sys>>20, graph.RSSMiB())
}
