package mcp

import (
	"fmt"
	"testing"

	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

func TestQueryCache(t *testing.T) {
	c := newQueryCache()
	in := tools.QueryInput{SearchQuery: "save order", Limit: 3, Repo: "shop"}
	k1 := cacheKey("/r\x00db-1.kuzu", in)
	c.put(k1, &query.Result{Query: "one"})
	if r, ok := c.get(cacheKey("/r\x00db-1.kuzu", tools.QueryInput{SearchQuery: "save order", Limit: 3})); !ok || r.Query != "one" {
		t.Errorf("same input (repo given or not) on the same database must hit: %v %v", r, ok)
	}
	if _, ok := c.get(cacheKey("/r\x00db-2.kuzu", in)); ok {
		t.Error("a re-analyzed index (new database file) must miss")
	}
	if _, ok := c.get(cacheKey("/r\x00db-1.kuzu", tools.QueryInput{SearchQuery: "save order", Limit: 4})); ok {
		t.Error("a different input must miss")
	}
	for i := 0; i < queryCacheSize; i++ {
		c.put(fmt.Sprint("k", i), &query.Result{})
	}
	if _, ok := c.get(k1); ok {
		t.Error("the oldest entry must be evicted past the bound")
	}
	if c.order.Len() != queryCacheSize || len(c.byKey) != queryCacheSize {
		t.Errorf("size %d/%d, want %d", c.order.Len(), len(c.byKey), queryCacheSize)
	}
}
