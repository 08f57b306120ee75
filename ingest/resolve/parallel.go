package resolve

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/internal/ordered"
	"github.com/gitnexus/gitnexus/internal/recfile"
)

// This file owns resolving call sites on several cores. Resolving a call
// site only reads the resolver's tables (built before, one file after
// another) and some scratch state: the extHit flag, the memo caches and
// the C include-closure walks. Each worker is a copy of the resolver with
// scratch of its own (worker), the caches it would share filled first
// (prepareWorkers), and what it resolves is counted and turned into edges
// by the resolver itself, file by file in order (calls): the output is
// the one a single worker gives.

// callWindow is how many files the workers may resolve ahead of the one
// the resolver applies next: the sites of at most that many wait in
// memory. Files are taken one at a time, so a file with thousands of call
// sites keeps one worker busy while the others go on.
const callWindow = 512

// maxCallWorkers bounds the workers (each keeps caches of its own).
const maxCallWorkers = 8

// resolveCalls resolves the call sites of files on workers and applies
// them (calls) in file order.
func (r *resolver) resolveCalls(ctx context.Context, files []*lang.Facts) error {
	r.prepareWorkers(files)
	workers := r.in.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, maxCallWorkers, max(len(files), 1))
	// The copies are made here, before calls (on this goroutine) writes
	// the resolver's output.
	ws := make(chan *resolver, workers)
	for range workers {
		ws <- r.worker()
	}
	// The site cache: read where its key is this resolution's, written
	// when asked for (sites.go).
	var cache *recfile.Reader
	var out *recfile.Writer
	var fsums map[string][16]byte
	var redo map[string]bool // files the cache holds that are resolved again (staleSites)
	if r.keyed != nil {
		k := <-r.keyed
		key := k.key
		fsums = k.fsums
		if r.in.Sites != "" {
			cache, r.out.SitesMiss = openSites(r.in.Sites, key)
			defer cache.Close()
		}
		if cache != nil {
			var why string
			redo, r.out.SitesFuncs, why = r.staleSites(cache, fsums)
			if why != "" {
				cache.Close()
				cache, redo, r.out.SitesMiss = nil, nil, why
			}
		}
		if r.in.SitesOut != "" {
			var err error
			if out, err = recfile.Create(r.in.SitesOut, sitesMagic, siteStamp(key)); err != nil {
				return fmt.Errorf("site cache: %w", err)
			}
			defer func() { out.Abort() }()
		}
	}
	var enc siteEncoder // the blocks of the files resolved, made as they are written
	type resolved struct {
		sites  []site
		block  []byte
		reused bool
		funcs  []byte // the record of the file's functions, when the cache is written
	}
	err := ordered.Run(ctx, len(files), workers, callWindow, func(context.Context) (func(int) resolved, func()) {
		w := <-ws
		return func(i int) resolved {
			f := files[i]
			var res resolved
			if out != nil {
				res.funcs = funcsRecord(cache, f, fsums[f.Path])
			}
			if cache != nil && !redo[f.Path] {
				if b := readSites(cache, f.Path, r.in.Hashes[f.Path]); b != nil {
					if sites, ok := w.decodeSites(f, b); ok {
						res.sites, res.block, res.reused = sites, b, true
						return res
					}
				}
			}
			res.sites = w.resolveSites(f)
			return res
		}, nil
	}, func(i int, res resolved) error {
		r.calls(files[i], res.sites)
		if res.reused {
			r.out.Stats.SitesReused++
		}
		if out != nil {
			block := res.block
			if !res.reused {
				block = enc.encode(res.sites)
			}
			if err := out.Add(siteKey(files[i].Path, r.in.Hashes[files[i].Path]), block); err != nil {
				return fmt.Errorf("site cache: %w", err)
			}
			if err := out.Add(funcsKey(files[i].Path), res.funcs); err != nil {
				return fmt.Errorf("site cache: %w", err)
			}
		}
		if r.in.Resolved != nil {
			r.in.Resolved(files[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if out != nil {
		err = out.Close()
		out = nil
		if err != nil {
			return fmt.Errorf("site cache: %w", err)
		}
	}
	return nil
}

// prepareWorkers fills what workers would otherwise build lazily in shared
// state: byBase, an include-closure id for every C file, and the parents of
// every type with heritage clauses (in id order, so that a cycle of
// clauses resolves the same whichever worker meets it first).
func (r *resolver) prepareWorkers(files []*lang.Facts) {
	r.buildByBase()
	if r.ctab.ids != nil {
		for _, f := range files {
			if f.Language == "c" { // the files cBareCall makes closures of
				r.ctab.id(f.Path)
			}
		}
	}
	ids := make([]string, 0, len(r.heritage))
	for id := range r.heritage {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if t := r.syms[id]; t != nil {
			r.parents(t)
		}
	}
}

// worker is a copy of the resolver that shares its tables and has scratch
// state of its own; it must only resolve (resolveSites), never emit: its
// Output has no maps, so a write panics instead of racing.
func (r *resolver) worker() *resolver {
	w := *r
	w.extHit = false
	w.parentLocal = map[string][]*sym{}
	w.reasons = map[string]string{}
	w.pkgCache = map[string][]string{}
	w.ctab.sees = map[uint64]bool{}
	w.ctab.mark, w.ctab.markGen = nil, 0
	w.ctab.stamp = make([]uint32, len(r.ctab.stamp))
	w.ctab.cur, w.ctab.closureOf = 0, ""
	w.out, w.edges = Output{}, edgeBlocks{}
	return &w
}
