package mcp

import (
	clist "container/list"
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

// queryCacheSize bounds the exact-match result cache of the query tool.
const queryCacheSize = 256

// queryCache is an LRU of query tool answers keyed by the database file
// they were computed on and the exact input. A re-analyze swaps in a new
// database file, so every old entry stops matching (and ages out): the
// cache never answers from a stale index.
type queryCache struct {
	mu    sync.Mutex
	order *clist.List // front: most recent; values are *cacheEntry
	byKey map[string]*clist.Element
}

type cacheEntry struct {
	key string
	res *query.Result
}

func newQueryCache() *queryCache {
	return &queryCache{order: clist.New(), byKey: map[string]*clist.Element{}}
}

func cacheKey(dbFile string, in tools.QueryInput) string {
	in.Repo = "" // the database file already names the repository
	b, _ := json.Marshal(in)
	return dbFile + "\x00" + string(b)
}

func (c *queryCache) get(key string) (*query.Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).res, true
	}
	return nil, false
}

func (c *queryCache) put(key string, res *query.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		el.Value.(*cacheEntry).res = res
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key, res})
	for c.order.Len() > queryCacheSize {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byKey, old.Value.(*cacheEntry).key)
	}
}

// embedder is the server's one embedding model, opened on the first query
// over an index that has vectors; nil (keyword-only search) when the model
// is not here or is not the one the index was built with.
type embedder struct {
	once sync.Once
	emb  *embed.Embedder
	err  error
}

func (s *Server) vectorsFor(r *Repo) (query.VectorFunc, string) {
	m := r.DB.Meta()
	if m == nil || m.Embeddings.Count == 0 {
		return nil, ""
	}
	s.emb.once.Do(func() {
		s.emb.emb, s.emb.err = embed.New(embed.Options{})
		if s.emb.err != nil {
			slog.Info("mcp: vector search off", "err", s.emb.err)
		}
	})
	return query.IndexVectors(r.DB, m, s.emb.emb, s.emb.err)
}

// query answers the query tool from the cache or by searching.
func (s *Server) query(ctx context.Context, r *Repo, in tools.QueryInput) (*query.Result, error) {
	dbFile := ""
	if m := r.DB.Meta(); m != nil {
		dbFile = m.DBFile
	}
	key := cacheKey(r.Entry.Path+"\x00"+dbFile, in)
	if res, ok := s.cache.get(key); ok {
		cp := *res // the caller marks staleness on its own copy
		return &cp, nil
	}
	pack, err := r.Pack()
	if err != nil {
		return nil, err
	}
	vf, notice := s.vectorsFor(r)
	res, err := tools.Query(ctx, pack, in, vf)
	if err != nil {
		return nil, err
	}
	if notice != "" {
		res.Notices = append(res.Notices, notice)
	}
	tools.NameRepo(res, r.Entry) // before it is shared through the cache
	s.cache.put(key, res)
	cp := *res
	return &cp, nil
}
