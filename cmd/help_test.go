package cmd

import (
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/index"
	"github.com/gitnexus/gitnexus/query"
	"github.com/spf13/cobra"
)

// TestEveryCommandHasAnExample: each command's --help shows an example
// that runs this command, and its flags are documented.
func TestEveryCommandHasAnExample(t *testing.T) {
	registerCompletions()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Hidden {
				continue
			}
			n++
			if !strings.Contains(sub.Example, "gitnexus "+strings.TrimPrefix(sub.CommandPath(), "gitnexus ")) && sub.Name() != "completion" {
				t.Errorf("%s: --help has no example running it (Example = %q)", sub.CommandPath(), sub.Example)
			}
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%s: --help has no example", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(rootCmd)
	if n < 20 {
		t.Errorf("walked %d commands; the tree is missing some", n)
	}
}

// TestFitAndWrap: cutting keeps escapes out of the count and never passes
// the width; messages wrap between words.
func TestFitAndWrap(t *testing.T) {
	for _, w := range []int{10, 20, 40} {
		s := fit("\x1b[1mServer.HandleOrder\x1b[0m  server/server.go:21 and more text beyond", w)
		if got := visibleWidth(s); got > w || !strings.HasSuffix(s, "…\x1b[0m") {
			t.Errorf("fit to %d = %q (%d columns)", w, s, got)
		}
	}
	if s := fit("short", 10); s != "short" {
		t.Errorf("fit cut a short line: %q", s)
	}
	var b strings.Builder
	scr := &screen{w: &b, width: 20}
	scr.message("gitnexus: callers are a LOWER BOUND: 1 call sites")
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if visibleWidth(l) > 20 || strings.HasSuffix(l, "…") {
			t.Errorf("message line %q passes 20 columns or was cut", l)
		}
	}
	if !strings.Contains(b.String(), "LOWER") || !strings.Contains(b.String(), "BOUND:") {
		t.Errorf("a word was split: %q", b.String())
	}
}

// TestAnalyzeSummaryInPlace: the database line of an update in place lists
// its counts once each, separated by one comma (it printed "added,,"), and
// the search line says how much of the last pack was reused.
func TestAnalyzeSummaryInPlace(t *testing.T) {
	var b strings.Builder
	s := index.Summary{Name: "r", Path: "/r"}
	s.Load = graph.LoadStats{InPlace: true, NodesAdded: 1, NodesChanged: 74, NodesRemoved: 2, EdgesCreated: 3, EdgesDeleted: 4, EdgesMoved: 82}
	s.Pack = query.PackStats{Nodes: 9, Reused: 7}
	printAnalyzeSummary(&screen{w: &b}, s, nil, nil)
	for _, want := range []string{
		"database    updated in place: 1 nodes added, 74 changed, 2 removed; 3 edges created, 4 deleted, 82 moved\n",
		"search      pack built from the last one: 7 of 9 nodes reused\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary:\n%s\nwants the line %q", b.String(), want)
		}
	}
}
