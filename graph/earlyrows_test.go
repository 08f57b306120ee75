package graph

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// An early view reads the node tables it was made for before Prepare, as
// the prepared view reads them; edges and other tables wait for Prepare
// and are then the prepared view's; a row of its tables added after it
// fails; an abort fails the wait.
func TestEarlyRows(t *testing.T) {
	ctx := context.Background()
	nodesOf := func(r *Rows, l schema.Label) []string {
		t.Helper()
		var out []string
		if err := r.EachNode(ctx, l, func(line, text []byte) error {
			out = append(out, string(line)+"|"+string(text))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	early := append(slices.Clone(schema.SymbolLabels), schema.LabelFile)

	b, err := NewBuild(ctx, newRepo(t), BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.AddFile(schema.File{ID: "a.go", Path: "a.go", Name: "a.go", Language: "go", Lines: 9, ParseStatus: schema.ParseOK, ContentHash: "h"}))
	for i := range 3 {
		must(b.AddSymbol(schema.Symbol{ID: fmt.Sprintf("a.go#f%d:function", i), Kind: schema.KindFunction, Name: fmt.Sprint("f", i), FilePath: "a.go", StartLine: i + 1, Content: fmt.Sprint("func f", i, "() {}")}))
	}
	er, err := b.EarlyRows(early)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.EarlyRows(early); err == nil {
		t.Error("a second EarlyRows succeeded")
	}
	if got := nodesOf(er, schema.LabelFunction); len(got) != 3 {
		t.Errorf("early view: %d functions before Prepare, want 3", len(got))
	}
	if n := er.Counts()[string(schema.LabelFunction)]; n != 3 {
		t.Errorf("early counts: %d functions, want 3", n)
	}
	if err := b.AddSymbol(schema.Symbol{ID: "a.go#late:function", Kind: schema.KindFunction, Name: "late", FilePath: "a.go"}); err == nil {
		t.Error("a function added after EarlyRows was taken")
	}
	// Rows of other tables still go in: the edges, a community.
	must(b.AddEdge(schema.Edge{Type: schema.RelDefines, From: "a.go", To: "a.go#f0:function", FromLabel: schema.LabelFile, ToLabel: schema.LabelFunction, Confidence: 1, Reason: schema.ReasonStructural}))
	must(b.AddEdge(schema.Edge{Type: schema.RelCalls, From: "a.go#f0:function", To: "a.go#f1:function", FromLabel: schema.LabelFunction, ToLabel: schema.LabelFunction, Confidence: 0.9, Line: 1}))
	must(b.AddCommunity(schema.Community{ID: "comm_1", Label: "F", SymbolCount: 3}))

	var prepared atomic.Bool
	type read struct {
		calls, comms int
		early        bool // read before Prepare
		err          error
	}
	got := make(chan read, 1)
	go func() {
		var r read
		r.err = er.EachEdge(ctx, schema.RelCalls, func(EdgeRow) error { r.calls++; return nil })
		r.early = !prepared.Load()
		if r.err == nil {
			r.err = er.EachNode(ctx, schema.LabelCommunity, func(_, _ []byte) error { r.comms++; return nil })
		}
		got <- r
	}()
	prepared.Store(true)
	must(b.Prepare(ctx))
	r := <-got
	if r.err != nil || r.early || r.calls != 1 || r.comms != 1 {
		t.Errorf("early view after Prepare: %+v, want 1 call and 1 community read after Prepare", r)
	}
	full := b.Rows()
	for _, l := range early {
		if a, b := nodesOf(er, l), nodesOf(full, l); !slices.Equal(a, b) {
			t.Errorf("%s: the early view read %q, the prepared one %q", l, a, b)
		}
		if a, b := er.NodeRowHashes(l), full.NodeRowHashes(l); !slices.Equal(a, b) {
			t.Errorf("%s: hashes %v early, %v prepared", l, a, b)
		}
	}
	if a, b := er.Counts(), full.Counts(); !maps.Equal(a, b) {
		t.Errorf("counts after Prepare: %v early, %v prepared", a, b)
	}

	// An abort before Prepare fails what waits.
	b2, err := NewBuild(ctx, newRepo(t), BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	must(b2.AddFile(schema.File{ID: "a.go", Path: "a.go", Name: "a.go", Language: "go", ParseStatus: schema.ParseOK, ContentHash: "h"}))
	er2, err := b2.EarlyRows(early)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- er2.EachEdge(ctx, schema.RelCalls, func(EdgeRow) error { return nil }) }()
	b2.Abort()
	if err := <-errc; err == nil {
		t.Error("a wait on an aborted build's early view succeeded")
	}
	// And a context's end does too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	b3, err := NewBuild(ctx, newRepo(t), BuildOptions{BufferPoolSize: 256 << 20, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer b3.Abort()
	er3, err := b3.EarlyRows(early)
	if err != nil {
		t.Fatal(err)
	}
	if err := er3.EachEdge(cctx, schema.RelCalls, func(EdgeRow) error { return nil }); err == nil {
		t.Error("a wait with an ended context succeeded")
	}
}
