package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
)

// kuzuOpened reports whether the server's current handle on root has
// opened its database.
func kuzuOpened(t *testing.T, srv *Server, root string) bool {
	t.Helper()
	srv.Repos.mu.Lock()
	st := srv.Repos.open[root]
	srv.Repos.mu.Unlock()
	if st == nil || st.cur == nil {
		t.Fatalf("no handle on %s", root)
	}
	return st.cur.db.Opened()
}

// TestPackToolsLeaveKuzuClosed: query, context, impact and trace read the
// search pack only, so the server never opens Kuzu for them — neither
// first nor after a re-analyze swapped the index; a call that reads
// source text opens it.
func TestPackToolsLeaveKuzuClosed(t *testing.T) {
	w := newWorld(t)
	root, err := filepath.EvalSymlinks(w.repo)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{Version: "test", Cwd: w.repo})
	cs := connect(context.Background(), t, srv)
	packOnly := func(when string) {
		t.Helper()
		call(t, cs, "query", map[string]any{"search_query": "handle order"})
		if c := call(t, cs, "context", map[string]any{"name": "HandleOrder"}); c["status"] != "found" {
			t.Fatalf("%s: context = %v", when, c)
		}
		call(t, cs, "impact", map[string]any{"target": "HandleOrder"})
		if kuzuOpened(t, srv, root) {
			t.Errorf("%s: pack-only tools opened Kuzu", when)
		}
	}
	packOnly("first")
	w.gitnexus("analyze", "--skip-embeddings", "--force", ".")
	packOnly("after a re-analyze")
	// The source text is the pack's too.
	c := call(t, cs, "context", map[string]any{"name": "HandleOrder", "include_content": true})
	if sym, _ := c["symbol"].(map[string]any); c["status"] != "found" || !strings.Contains(fmt.Sprint(sym["content"]), ") HandleOrder(") {
		t.Fatalf("context with source: %v", c)
	}
	if kuzuOpened(t, srv, root) {
		t.Error("context with include_content opened Kuzu")
	}
}

// TestSwappedCallRunsAgain: a call that fails with graph.ErrSwapped (its
// database retired before its first statement) runs once more on a fresh
// acquire; a second ErrSwapped is the caller's error, not a loop.
func TestSwappedCallRunsAgain(t *testing.T) {
	w := newWorld(t)
	srv := New(Options{Version: "test", Cwd: w.repo})
	defer srv.Close()
	swapped := fmt.Errorf("%w: test", graph.ErrSwapped)
	for _, tc := range []struct {
		fails     int
		wantCalls int
		wantErr   bool
	}{{0, 1, false}, {1, 2, false}, {5, 2, true}} {
		calls := 0
		_, out, err := withRepo(srv, context.Background(), "test", "", func(ctx context.Context, r *Repo) (string, error) {
			calls++
			if calls <= tc.fails {
				return "", swapped
			}
			return "answer", nil
		})
		if calls != tc.wantCalls || (err != nil) != tc.wantErr || (err == nil && out != "answer") {
			t.Errorf("%d swaps: %d calls, out %q, err %v; want %d calls, error %v", tc.fails, calls, out, err, tc.wantCalls, tc.wantErr)
		}
		if tc.wantErr && !errors.Is(err, graph.ErrSwapped) {
			t.Errorf("%d swaps: error %v does not wrap ErrSwapped", tc.fails, err)
		}
	}
}
