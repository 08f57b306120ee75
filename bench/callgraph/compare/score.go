package compare

import (
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/bench/callgraph/oracle"
)

// Oracle is an oracle graph indexed for scoring.
type Oracle struct {
	Graph  *oracle.Graph
	index  map[Key]int
	files  map[string]bool
	static map[[2]int]oracle.StaticEdge
	cha    map[[2]int]bool
}

// NewOracle indexes g.
func NewOracle(g *oracle.Graph) *Oracle {
	o := &Oracle{
		Graph:  g,
		index:  make(map[Key]int, len(g.Funcs)),
		files:  make(map[string]bool, len(g.Files)),
		static: make(map[[2]int]oracle.StaticEdge, len(g.Static)),
		cha:    make(map[[2]int]bool, len(g.CHA)),
	}
	for i, f := range g.Funcs {
		o.index[Key{f.File, f.Line}] = i
	}
	for _, f := range g.Files {
		o.files[f] = true
	}
	for _, e := range g.Static {
		o.static[[2]int{e.Caller, e.Callee}] = e
	}
	for _, e := range g.CHA {
		o.cha[e] = true
	}
	return o
}

func (o *Oracle) name(i int) string { return o.Graph.Funcs[i].Name }

// Outside counts a tool's distinct edges that cannot be scored because an
// endpoint is not an oracle function, by the first reason that applies.
type Outside struct {
	Total int `json:"total"`
	// TestFile: an endpoint is in a _test.go file (the oracle excludes tests).
	TestFile int `json:"testFile"`
	// NoLine: an endpoint has no line (a file-level caller, say).
	NoLine int `json:"noLine"`
	// FileNotLoaded: an endpoint is in a file the oracle did not load: a
	// file for another platform or Go version (build constraints), a nested
	// module, testdata, or not a Go file.
	FileNotLoaded int `json:"fileNotLoaded"`
	// OffByOne: every unknown endpoint has an oracle function one line away:
	// a line-numbering mismatch rather than a wrong edge.
	OffByOne int `json:"offByOne"`
	// Other: an endpoint in a loaded file at a line that starts no
	// function: a type, a variable, a field.
	Other int `json:"other"`
	// CallerOutside and CalleeOutside count the edges whose caller
	// (resp. callee) is outside; an edge may count in both.
	CallerOutside int `json:"callerOutside"`
	CalleeOutside int `json:"calleeOutside"`
	// Examples are a few of the FileNotLoaded and Other edges.
	Examples []Edge `json:"examples,omitempty"`
}

// KindScore is the recall on the static edges of one call-site kind.
type KindScore struct {
	Kind  oracle.Kind `json:"kind"`
	Total int         `json:"total"`
	Found int         `json:"found"`
}

// ReasonScore is the precision on a tool's scored edges of one reason.
type ReasonScore struct {
	Reason  string `json:"reason"`
	Edges   int    `json:"edges"`
	Correct int    `json:"correct"`
}

// Miss is a static edge the tool did not report.
type Miss struct {
	Caller, Callee string // oracle names
	Kind           oracle.Kind
	Site           string
	InClosure      bool
}

// Wrong is a scored edge of the tool that CHA does not have.
type Wrong struct {
	Caller, Callee string
	Reason         string
	Confidence     float64
}

// Score is a tool's accuracy against the oracle.
type Score struct {
	Tool          string  `json:"tool"`
	MinConfidence float64 `json:"minConfidence"`
	Rows          int     `json:"rows"`      // rows at or above MinConfidence
	Edges         int     `json:"edges"`     // distinct (caller, callee) pairs among them
	SelfEdges     int     `json:"selfEdges"` // dropped
	Outside       Outside `json:"outside"`
	Scored        int     `json:"scored"` // distinct edges with both ends oracle functions, not self
	StaticTotal   int     `json:"staticTotal"`
	StaticFound   int     `json:"staticFound"`
	CHACorrect    int     `json:"chaCorrect"`
	Recall        float64 `json:"recall"`
	// The same over the static edges that go/callgraph/static itself finds
	// (oracle.StaticEdge.XTools), for comparison with figures measured
	// that way.
	XToolsTotal  int           `json:"xtoolsTotal"`
	XToolsFound  int           `json:"xtoolsFound"`
	RecallXTools float64       `json:"recallXTools"`
	Precision    float64       `json:"precision"`
	ByKind       []KindScore   `json:"byKind"`
	ByReason     []ReasonScore `json:"byReason"`
	Misses       []Miss        `json:"-"`
	Wrong        []Wrong       `json:"-"`
}

const maxOutsideExamples = 10

// Compute scores edges, keeping those with Confidence >= minConf.
func Compute(o *Oracle, tool string, edges []ToolEdge, minConf float64) Score {
	s := Score{Tool: tool, MinConfidence: minConf, StaticTotal: len(o.Graph.Static)}
	type agg struct {
		conf   float64
		reason string
	}
	distinct := make(map[Edge]agg)
	for _, e := range edges {
		if e.Confidence < minConf {
			continue
		}
		s.Rows++
		// Several rows for one pair: keep the most confident one's reason.
		if a, ok := distinct[e.Edge]; !ok || e.Confidence > a.conf {
			distinct[e.Edge] = agg{e.Confidence, e.Reason}
		}
	}
	s.Edges = len(distinct)

	found := make(map[[2]int]bool)
	byReason := make(map[string]*ReasonScore)
	// Iterate in a fixed order so that examples are stable.
	keys := make([]Edge, 0, len(distinct))
	for e := range distinct {
		keys = append(keys, e)
	}
	sort.Slice(keys, func(i, j int) bool { return lessEdge(keys[i], keys[j]) })
	for _, e := range keys {
		a := distinct[e]
		if e.From == e.To {
			s.SelfEdges++
			continue
		}
		from, okFrom := o.index[e.From]
		to, okTo := o.index[e.To]
		if !okFrom || !okTo {
			o.classifyOutside(&s.Outside, e, okFrom, okTo)
			continue
		}
		if from == to {
			s.SelfEdges++
			continue
		}
		s.Scored++
		p := [2]int{from, to}
		r := byReason[a.reason]
		if r == nil {
			r = &ReasonScore{Reason: a.reason}
			byReason[a.reason] = r
		}
		r.Edges++
		if _, ok := o.static[p]; ok {
			found[p] = true
		}
		if o.cha[p] {
			s.CHACorrect++
			r.Correct++
		} else {
			s.Wrong = append(s.Wrong, Wrong{Caller: o.name(from), Callee: o.name(to), Reason: a.reason, Confidence: a.conf})
		}
	}
	s.StaticFound = len(found)
	if s.StaticTotal > 0 {
		s.Recall = float64(s.StaticFound) / float64(s.StaticTotal)
	}
	if s.Scored > 0 {
		s.Precision = float64(s.CHACorrect) / float64(s.Scored)
	}

	kinds := make(map[oracle.Kind]*KindScore)
	for _, e := range o.Graph.Static {
		k := kinds[e.Kind]
		if k == nil {
			k = &KindScore{Kind: e.Kind}
			kinds[e.Kind] = k
		}
		k.Total++
		hit := found[[2]int{e.Caller, e.Callee}]
		if e.XTools {
			s.XToolsTotal++
			if hit {
				s.XToolsFound++
			}
		}
		if hit {
			k.Found++
		} else {
			s.Misses = append(s.Misses, Miss{Caller: o.name(e.Caller), Callee: o.name(e.Callee), Kind: e.Kind, Site: e.Site, InClosure: e.InClosure})
		}
	}
	if s.XToolsTotal > 0 {
		s.RecallXTools = float64(s.XToolsFound) / float64(s.XToolsTotal)
	}
	for _, k := range kinds {
		s.ByKind = append(s.ByKind, *k)
	}
	sort.Slice(s.ByKind, func(i, j int) bool {
		if s.ByKind[i].Total != s.ByKind[j].Total {
			return s.ByKind[i].Total > s.ByKind[j].Total
		}
		return s.ByKind[i].Kind < s.ByKind[j].Kind
	})
	for _, r := range byReason {
		s.ByReason = append(s.ByReason, *r)
	}
	sort.Slice(s.ByReason, func(i, j int) bool {
		if s.ByReason[i].Edges != s.ByReason[j].Edges {
			return s.ByReason[i].Edges > s.ByReason[j].Edges
		}
		return s.ByReason[i].Reason < s.ByReason[j].Reason
	})
	return s
}

func lessEdge(a, b Edge) bool {
	if a.From != b.From {
		return lessKey(a.From, b.From)
	}
	return lessKey(a.To, b.To)
}

func lessKey(a, b Key) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

func (o *Oracle) classifyOutside(out *Outside, e Edge, okFrom, okTo bool) {
	out.Total++
	if !okFrom {
		out.CallerOutside++
	}
	if !okTo {
		out.CalleeOutside++
	}
	bad := make([]Key, 0, 2)
	if !okFrom {
		bad = append(bad, e.From)
	}
	if !okTo {
		bad = append(bad, e.To)
	}
	isTest, noLine, notLoaded, offByOne := false, false, false, true
	for _, k := range bad {
		if !o.files[k.File] {
			notLoaded = true
		}
		if strings.HasSuffix(k.File, "_test.go") {
			isTest = true
		}
		if k.Line <= 0 {
			noLine = true
		}
		_, below := o.index[Key{k.File, k.Line - 1}]
		_, above := o.index[Key{k.File, k.Line + 1}]
		if !below && !above {
			offByOne = false
		}
	}
	switch {
	case isTest:
		out.TestFile++
	case noLine:
		out.NoLine++
	case notLoaded:
		out.FileNotLoaded++
		if len(out.Examples) < maxOutsideExamples {
			out.Examples = append(out.Examples, e)
		}
	case offByOne:
		out.OffByOne++
	default:
		out.Other++
		if len(out.Examples) < maxOutsideExamples {
			out.Examples = append(out.Examples, e)
		}
	}
}

// Curve scores edges at each distinct confidence they carry, from the
// lowest (everything) to the highest.
func Curve(o *Oracle, tool string, edges []ToolEdge) []Score {
	seen := make(map[float64]bool)
	var ts []float64
	for _, e := range edges {
		if !seen[e.Confidence] {
			seen[e.Confidence] = true
			ts = append(ts, e.Confidence)
		}
	}
	sort.Float64s(ts)
	out := make([]Score, 0, len(ts))
	for _, t := range ts {
		out = append(out, Compute(o, tool, edges, t))
	}
	return out
}
