package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/internal/testkit"
	"github.com/gitnexus/gitnexus/processes"
	"github.com/gitnexus/gitnexus/query"
)

// dbOnly hides graph.Build's row reading: BuildPack then reads every
// table back from the database. It hands over the row hashes (after a full
// load the database holds the rows in the row files' order), so that the
// packs compare byte for byte, their rows section included.
type dbOnly struct{ b *graph.Build }

func (d dbOnly) NodeRowHashes(l schema.Label) []uint64 { return d.b.NodeRowHashes(l) }

func (d dbOnly) Query(ctx context.Context, s string, p map[string]any) (*graph.Result, error) {
	return d.b.Query(ctx, s, p)
}

// noText is the build with every row's text left out (EachNode hands nil):
// what a pack read from the database alone sees, which stores no source
// text (graph's rowtext.go).
type noText struct{ *graph.Build }

func (n noText) EachNode(ctx context.Context, l schema.Label, fn func(line, text []byte) error) error {
	return n.Build.EachNode(ctx, l, func(line, _ []byte) error { return fn(line, nil) })
}

// TestPackFromRowsEqualsDatabase: the pack analyze builds (nodes and edges
// read from the row files the database was loaded from) is byte for byte
// the pack read wholly from the database, on fixtures in several languages
// and on prometheus (testkit.Corpus), but for the source text, which only
// the rows carry (compared with the texts left out of the rows too).
func TestPackFromRowsEqualsDatabase(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	ctx := context.Background()
	for _, name := range []string{"goshop", "mixed", "ckernel", "pyapp", "prometheus"} {
		t.Run(name, func(t *testing.T) {
			var root string
			if name == "prometheus" { // build beside a copy: the corpus stays as fetched
				root = filepath.Join(t.TempDir(), "prometheus")
				copyTree(t, testkit.Corpus(t, name), root)
			} else {
				root = fixture(t, name)
			}
			b, err := graph.NewBuild(ctx, root, graph.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Abort()
			res, err := ingest.Run(ctx, root, b, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pres := processes.Run(processes.FromIndex(res.Index, res.Edges), processes.Options{})
			for _, c := range pres.Communities {
				if err := b.AddCommunity(c); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range pres.Processes {
				if err := b.AddProcess(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := pres.EachEdge(b.AddEdge); err != nil {
				t.Fatal(err)
			}
			if err := b.Load(ctx, nil); err != nil {
				t.Fatal(err)
			}
			write := func(q query.Querier, file string) []byte {
				p, err := query.BuildPack(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), file)
				if err := p.WriteFile(path); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
			rows, db := write(b, "rows.pack"), write(dbOnly{b}, "db.pack")
			// analyze's own path: the rows view (graph.Rows, read beside an
			// in-place load) and the pack streamed to its file.
			streamed := filepath.Join(t.TempDir(), "streamed.pack")
			if _, err := query.BuildPackFileFrom(ctx, b.Rows(), nil, streamed); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(streamed); err != nil {
				t.Fatal(err)
			} else if !bytes.Equal(data, rows) {
				t.Fatalf("the pack streamed from the rows view (%d bytes) differs from the one built in memory (%d bytes)", len(data), len(rows))
			}
			if noTexts := write(noText{b}, "notext.pack"); bytes.Equal(noTexts, rows) {
				t.Fatal("the pack is the same without the rows' texts: the source section and body index are empty")
			} else {
				rows = noTexts
			}
			if !bytes.Equal(rows, db) {
				for i := range rows {
					if rows[i] != db[i] {
						t.Logf("first difference at byte %d: rows %q db %q", i, rows[max(0, i-40):min(len(rows), i+40)], db[max(0, i-40):min(len(db), i+40)])
						break
					}
				}
				t.Fatalf("the pack from the row files (%d bytes) differs from the pack read from the database (%d bytes)", len(rows), len(db))
			}
		})
	}
}
