package processes

import (
	"math"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/gitnexus/gitnexus/graph/text"
)

// labelStopWords are name words too common to say what a community does.
var labelStopWords = map[string]bool{
	"get": true, "set": true, "new": true, "init": true, "the": true, "a": true, "an": true,
	"to": true, "from": true, "of": true, "is": true, "with": true, "by": true, "and": true,
	"or": true, "do": true, "func": true, "fn": true, "impl": true, "self": true, "this": true,
	"string": true, "str": true, "int": true, "err": true, "error": true, "test": true, "main": true,
}

// labeller names communities from their members' paths and names.
type labeller struct {
	df    map[string]int // words → number of symbols whose name has it
	total int
}

func newLabeller(g *Graph) *labeller {
	l := &labeller{df: map[string]int{}, total: g.Len()}
	for i := range g.Nodes {
		seen := map[string]bool{}
		for _, w := range text.SplitIdentifier(g.Nodes[i].Name) {
			if !seen[w] {
				seen[w] = true
				l.df[w]++
			}
		}
	}
	return l
}

// keywords returns the member-name words most particular to the community
// by TF-IDF, best first.
func (l *labeller) keywords(g *Graph, members []int, k int) []string {
	tf := map[string]int{}
	for _, m := range members {
		for _, w := range text.SplitIdentifier(g.Nodes[m].Name) {
			if len(w) < 2 || labelStopWords[w] || isNumber(w) {
				continue
			}
			tf[w]++
		}
	}
	type scored struct {
		w string
		s float64
	}
	var ws []scored
	for w, n := range tf {
		idf := math.Log(float64(1+l.total) / float64(1+l.df[w]))
		ws = append(ws, scored{w, float64(n) * idf})
	}
	sort.Slice(ws, func(a, b int) bool {
		if ws[a].s != ws[b].s {
			return ws[a].s > ws[b].s
		}
		return ws[a].w < ws[b].w
	})
	var out []string
	for i := 0; i < len(ws) && i < k; i++ {
		out = append(out, ws[i].w)
	}
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// commonDir is the longest directory shared by the members' files ("" when
// they share none).
func commonDir(g *Graph, members []int) string {
	var parts []string
	for i, m := range members {
		d := path.Dir(g.Nodes[m].FilePath)
		if d == "." {
			return ""
		}
		segs := strings.Split(d, "/")
		if i == 0 {
			parts = segs
			continue
		}
		n := 0
		for n < len(parts) && n < len(segs) && parts[n] == segs[n] {
			n++
		}
		parts = parts[:n]
		if n == 0 {
			return ""
		}
	}
	return strings.Join(parts, "/")
}

// label builds "dir: kw1, kw2" (or just the keywords, or the dir, or — for
// a community whose members share neither — the names of its two most
// connected members). Never "Cluster_N".
func (l *labeller) label(g *Graph, members []int, keywords []string) string {
	dir := commonDir(g, members)
	kw := keywords
	if len(kw) > 3 {
		kw = kw[:3]
	}
	switch {
	case dir != "" && len(kw) > 0:
		return dir + ": " + strings.Join(kw, ", ")
	case len(kw) > 0:
		return strings.Join(kw, ", ")
	case dir != "":
		return dir
	}
	best := append([]int(nil), members...)
	sort.Slice(best, func(a, b int) bool {
		da, db := len(g.und[best[a]]), len(g.und[best[b]])
		if da != db {
			return da > db
		}
		return g.Nodes[best[a]].ID < g.Nodes[best[b]].ID
	})
	if len(best) > 2 {
		best = best[:2]
	}
	names := make([]string, len(best))
	for i, m := range best {
		names[i] = g.Nodes[m].Name
	}
	return strings.Join(names, " + ")
}

// cohesion is the share of the members' edge weight that stays inside the
// community (1: self-contained, near 0: mostly talks to others).
func cohesion(g *Graph, members []int) float64 {
	in := make(map[int]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	var inside, all float64
	for _, m := range members {
		for _, e := range g.und[m] {
			all += e.w
			if in[e.to] {
				inside += e.w
			}
		}
	}
	if all == 0 {
		return 0
	}
	return inside / all
}
