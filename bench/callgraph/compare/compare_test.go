package compare

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/bench/callgraph/oracle"
)

// testOracle: A a.go:1, B a.go:5, C a.go:9, D b.go:3.
// static: A->B (func), A->C (method-on-field), B->D (pkg-qualified).
// CHA: static plus C->D and D->A.
func testOracle() *Oracle {
	return NewOracle(&oracle.Graph{
		Version: oracle.FormatVersion,
		Module:  "example.com/m",
		Files:   []string{"a.go", "b.go"},
		Funcs: []oracle.Func{
			{File: "a.go", Line: 1, Name: "A"},
			{File: "a.go", Line: 5, Name: "B"},
			{File: "a.go", Line: 9, Name: "C"},
			{File: "b.go", Line: 3, Name: "D"},
		},
		Static: []oracle.StaticEdge{
			{Caller: 0, Callee: 1, Kind: oracle.KindFunc, Site: "a.go:2", XTools: true},
			{Caller: 0, Callee: 2, Kind: oracle.KindMethodOnField, Site: "a.go:3", InClosure: true},
			{Caller: 1, Callee: 3, Kind: oracle.KindPkgFunc, Site: "a.go:6", XTools: true},
		},
		CHA: [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 0}},
	})
}

// ours is this project's cypher --json output: 1-based lines.
const ours = `{"columns": ["a.filePath", "a.startLine", "b.filePath", "b.startLine", "r.confidence", "r.reason"],
"rows": [
 ["a.go", 1, "a.go", 5, 0.9, "local"],
 ["a.go", 1, "a.go", 5, 0.5, "fuzzy"],
 ["a.go", 1, "a.go", 9, 0.6, "field"],
 ["a.go", 9, "b.go", 3, 0.9, "iface"],
 ["a.go", 5, "a.go", 1, 0.4, "guess"],
 ["a.go", 1, "a.go", 1, 1, "self"],
 ["a_test.go", 3, "a.go", 1, 1, "test"],
 ["a.go", null, "a.go", 5, 1, "file-level"],
 ["c.go", 4, "a.go", 1, 1, "other platform"],
 ["a.go", 2, "a.go", 5, 1, "off by one"],
 ["a.go", 7, "a.go", 5, 1, "a type"]
]}`

func readOurs(t *testing.T) []ToolEdge {
	t.Helper()
	es, err := ReadCypher(strings.NewReader(ours), 1)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestReadCypherColumnsRows(t *testing.T) {
	es := readOurs(t)
	if len(es) != 11 {
		t.Fatalf("%d edges, want 11", len(es))
	}
	if want := (ToolEdge{Edge{Key{"a.go", 1}, Key{"a.go", 5}}, 0.9, "local"}); es[0] != want {
		t.Errorf("row 1 = %+v, want %+v", es[0], want)
	}
	if es[7].From.Line != 0 {
		t.Errorf("a null line reads as %d, want 0", es[7].From.Line)
	}
}

func TestReadCypherMarkdown(t *testing.T) {
	// The reference tool: a banner, 0-based lines, empty cells, a pipe in a cell.
	in := "  GitNexus Cypher\n" + `{
  "markdown": "| a.filePath | a.startLine | b.filePath | b.startLine | r.confidence | r.reason |\n| --- | --- | --- | --- | --- | --- |\n| a.go | 0 | a.go | 4 | 0.85 | local-call |\n| a.go |  | b.go | 2 | 0.7 | a\\|b |",
  "row_count": 2
}`
	es, err := ReadCypher(strings.NewReader(in), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolEdge{
		{Edge{Key{"a.go", 1}, Key{"a.go", 5}}, 0.85, "local-call"},
		{Edge{Key{"a.go", 0}, Key{"b.go", 3}}, 0.7, "a|b"},
	}
	// An empty line cell stays 0 (no function), not 0+1.
	want[1].From.Line = 0
	if !reflect.DeepEqual(es, want) {
		t.Errorf("got %+v\nwant %+v", es, want)
	}
}

func TestReadCypherErrors(t *testing.T) {
	for name, in := range map[string]string{
		"truncated":    `{"markdown": "| a | b | c | d |\n| --- | --- | --- | --- |\n| x | 1 | y | 2 |", "row_count": 5}`,
		"few columns":  `{"columns": ["a", "b"], "rows": [["x", 1]]}`,
		"bad conf":     `{"columns": ["a", "b", "c", "d", "e"], "rows": [["x", 1, "y", 2, "high"]]}`,
		"query error":  `{"error": "Binder exception"}`,
		"not cypher":   `{"foo": 1}`,
		"no separator": `{"markdown": "| a | b | c | d |\n| x | 1 | y | 2 |"}`,
		"ragged":       `{"markdown": "| a | b | c | d |\n| --- | --- | --- | --- |\n| x | 1 | y |"}`,
		"not json":     `hello`,
	} {
		if _, err := ReadCypher(strings.NewReader(in), 1); err == nil {
			t.Errorf("%s: ReadCypher accepted %s", name, in)
		}
	}
}

func TestCompute(t *testing.T) {
	o := testOracle()
	s := Compute(o, "ours", readOurs(t), 0)
	if s.Rows != 11 || s.Edges != 10 || s.SelfEdges != 1 {
		t.Errorf("rows %d edges %d self %d, want 11 10 1", s.Rows, s.Edges, s.SelfEdges)
	}
	wantOut := Outside{Total: 5, TestFile: 1, NoLine: 1, FileNotLoaded: 1, OffByOne: 1, Other: 1, CallerOutside: 5, CalleeOutside: 0}
	gotOut := s.Outside
	gotOut.Examples = nil
	if !reflect.DeepEqual(gotOut, wantOut) {
		t.Errorf("outside = %+v, want %+v", gotOut, wantOut)
	}
	if len(s.Outside.Examples) != 2 {
		t.Errorf("outside examples %v, want the not-loaded and the not-a-function edge", s.Outside.Examples)
	}
	if s.Scored != 4 || s.StaticFound != 2 || s.CHACorrect != 3 {
		t.Errorf("scored %d static found %d cha correct %d, want 4 2 3", s.Scored, s.StaticFound, s.CHACorrect)
	}
	if s.XToolsTotal != 2 || s.XToolsFound != 1 || !near(s.RecallXTools, 0.5) {
		t.Errorf("x/tools recall %d/%d = %.3f, want 1/2", s.XToolsFound, s.XToolsTotal, s.RecallXTools)
	}
	if !near(s.Recall, 2.0/3) || !near(s.Precision, 0.75) {
		t.Errorf("recall %.3f precision %.3f, want 0.667 0.750", s.Recall, s.Precision)
	}
	wantKinds := []KindScore{
		{oracle.KindFunc, 1, 1},
		{oracle.KindMethodOnField, 1, 1},
		{oracle.KindPkgFunc, 1, 0},
	}
	if !reflect.DeepEqual(s.ByKind, wantKinds) {
		t.Errorf("by kind %+v, want %+v", s.ByKind, wantKinds)
	}
	if len(s.Misses) != 1 || s.Misses[0].Caller != "B" || s.Misses[0].Callee != "D" {
		t.Errorf("misses %+v, want B -> D", s.Misses)
	}
	if len(s.Wrong) != 1 || s.Wrong[0].Caller != "B" || s.Wrong[0].Callee != "A" || s.Wrong[0].Reason != "guess" {
		t.Errorf("wrong %+v, want B -> A (guess)", s.Wrong)
	}
	reasons := map[string]ReasonScore{}
	for _, r := range s.ByReason {
		reasons[r.Reason] = r
	}
	// The duplicate A -> B row keeps the reason of its most confident row.
	if reasons["local"].Edges != 1 || reasons["fuzzy"].Edges != 0 || reasons["guess"].Correct != 0 || reasons["iface"].Correct != 1 {
		t.Errorf("by reason %+v", s.ByReason)
	}
}

func TestComputeMinConfidence(t *testing.T) {
	o := testOracle()
	for _, c := range []struct {
		min               float64
		scored            int
		recall, precision float64
	}{
		{0.5, 3, 2.0 / 3, 1},
		{0.7, 2, 1.0 / 3, 1},
		{0.95, 0, 0, 0},
	} {
		s := Compute(o, "ours", readOurs(t), c.min)
		if s.Scored != c.scored || !near(s.Recall, c.recall) || !near(s.Precision, c.precision) {
			t.Errorf("min %.2f: scored %d recall %.3f precision %.3f, want %d %.3f %.3f",
				c.min, s.Scored, s.Recall, s.Precision, c.scored, c.recall, c.precision)
		}
	}
}

func TestCurve(t *testing.T) {
	curve := Curve(testOracle(), "ours", readOurs(t))
	var ts []float64
	for _, s := range curve {
		ts = append(ts, s.MinConfidence)
	}
	if want := []float64{0.4, 0.5, 0.6, 0.9, 1}; !reflect.DeepEqual(ts, want) {
		t.Fatalf("thresholds %v, want %v", ts, want)
	}
	for i := 1; i < len(curve); i++ {
		if curve[i].Scored > curve[i-1].Scored {
			t.Errorf("scored edges grow with the threshold: %d then %d", curve[i-1].Scored, curve[i].Scored)
		}
	}
}

func TestWriteReport(t *testing.T) {
	o := testOracle()
	peer := `{"markdown": "| f | l | f | l | c | r |\n| --- | --- | --- | --- | --- | --- |\n| a.go | 0 | a.go | 4 | 0.85 | local-call |", "row_count": 1}`
	pe, err := ReadCypher(strings.NewReader(peer), 0)
	if err != nil {
		t.Fatal(err)
	}
	scores := []Score{Compute(o, "ours", readOurs(t), 0), Compute(o, "peer", pe, 0)}
	var buf bytes.Buffer
	if err := WriteReport(&buf, o, scores, 5); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"0.667 (2/3)", // ours recall
		"0.750 (3/4)", // ours precision
		"0.333 (1/3)", // peer recall
		"1.000 (1/1)", // peer precision
		"0.500 (1/2)", // ours and peer recall over static.CallGraph's edges
		"B -> D",      // a miss
		"B -> A",      // a wrong edge
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
