package graph

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// edgeLineCases are edges whose strings and numbers stress the line:
// quotes, backslashes, control characters, NUL, invalid UTF-8, runes
// encoding/json escapes, and floats in both of its formats.
func edgeLineCases(n int) []schema.Edge {
	out := []schema.Edge{
		{From: "Function:a.go:f", To: "Method:b.go:T.m", Confidence: 0.95, Reason: "import-resolved", Line: 12},
		{From: "p", To: "q", Confidence: 1, Step: 3},
		{From: "", To: "", Confidence: 0},
		{From: `a"b\c`, To: "tab\there\nnl\r", Confidence: 0.5, Reason: "x\x01y\x1f"},
		{From: "nul\x00inside", To: "bad\xffutf8\xc3", Confidence: 1e-7, Reason: "\u2028\u2029<>&"},
		{From: "grüße/路由器.go", To: "x", Confidence: 1e22, Step: -1, Line: -5},
		{From: "y", To: "z", Confidence: -0.3, Line: math.MaxInt32},
	}
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "Z", "9", `"`, `\`, "\x00", "\n", "\x07", "\xff", "é", "路", "\u2028", "/", ":", " ", "{", "}", ","}
	word := func() string {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	confs := []float64{0, 1, 0.5, 0.123456789, 1e-9, 3e21, 0.7000000000000001}
	for range n {
		out = append(out, schema.Edge{From: word(), To: word(), Reason: word(),
			Confidence: confs[rng.Intn(len(confs))], Step: rng.Intn(50), Line: rng.Intn(100000)})
	}
	return out
}

// TestEdgeLineIsEncodeRows: the hand-written edge line reads back, through
// encoding/json and through parseEdgeLine, as the values encodeRow's line
// does; lines without escapes take the hand-written reader.
func TestEdgeLineIsEncodeRows(t *testing.T) {
	fast := 0
	for i, e := range edgeLineCases(2000) {
		line, ok := appendEdgeLine(nil, e)
		if !ok {
			t.Fatalf("case %d: appendEdgeLine refused %+v", i, e)
		}
		ref, err := encodeRow(e)
		if err != nil {
			t.Fatal(err)
		}
		var want, got EdgeRow
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("case %d: %q is not JSON: %v", i, line, err)
		}
		if got != want {
			t.Fatalf("case %d: line %q reads %+v, encodeRow's %q reads %+v", i, line, got, ref, want)
		}
		parsed, err := parseEdgeLine(line)
		if err != nil || parsed != want {
			t.Fatalf("case %d: parseEdgeLine(%q) = %+v, %v; want %+v", i, line, parsed, err, want)
		}
		if _, ok := scanEdgeLine(line); ok {
			fast++
		}
		if plainASCII(e.From + e.To + e.Reason) {
			if _, ok := scanEdgeLine(line); !ok {
				t.Errorf("case %d: a line without escapes went to encoding/json: %q", i, line)
			}
		}
	}
	if fast == 0 {
		t.Fatal("no line took the hand-written reader")
	}
	if _, ok := appendEdgeLine(nil, schema.Edge{Confidence: math.NaN()}); ok {
		t.Error("appendEdgeLine wrote a NaN confidence")
	}
}

// FuzzParseEdgeLine: whatever line the hand-written reader accepts,
// encoding/json reads the same values from it.
func FuzzParseEdgeLine(f *testing.F) {
	for _, e := range edgeLineCases(20) {
		line, _ := appendEdgeLine(nil, e)
		f.Add(line)
	}
	f.Add([]byte(`{"from":"a","to":"b","confidence":inf,"reason":"","step":0,"line":0}`))
	f.Add([]byte(`{"from":"a","to":"b","confidence":1,"reason":"","step":+1,"line":0}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := scanEdgeLine(line)
		if !ok {
			return
		}
		var want EdgeRow
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("scanEdgeLine accepted %q, which encoding/json refuses: %v", line, err)
		}
		if got != want {
			t.Fatalf("scanEdgeLine(%q) = %+v, encoding/json %+v", line, got, want)
		}
	})
}

// plainASCII reports whether s is printable ASCII without '"' or '\\':
// a string the edge line holds unescaped.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// TestEdgeEndsReadsWhatParseReads: on the lines appendEdgeLine writes,
// edgeEnds gives parseEdgeLine's endpoints; on others it declines, for
// parseEdgeLine to read them.
func TestEdgeEndsReadsWhatParseReads(t *testing.T) {
	for _, e := range []schema.Edge{
		{Type: schema.RelCalls, From: "a.go#f:function", To: "b.go#g:function", Confidence: 0.9, Reason: "same-file", Line: 3},
		{Type: schema.RelDefines, From: "dir/ü.go", To: "dir/ü.go#T:struct", Confidence: 1},
		{Type: schema.RelCalls, From: "", To: "x", Confidence: 0.5},
	} {
		line, ok := appendEdgeLine(nil, e)
		if !ok {
			t.Fatalf("appendEdgeLine refused %+v", e)
		}
		from, to, ok := edgeEnds(line)
		want, err := parseEdgeLine(line)
		if !ok || err != nil || string(from) != want.From || string(to) != want.To {
			t.Errorf("%s: edgeEnds = %q %q %v, parseEdgeLine = %q %q %v", line, from, to, ok, want.From, want.To, err)
		}
	}
	for _, line := range []string{
		`{"to":"b","from":"a","confidence":1,"reason":"","step":0,"line":0}`,
		`{"from":"a\"b","to":"c","confidence":1,"reason":"","step":0,"line":0}`,
		"{\"from\":\"a\xff\",\"to\":\"c\",\"confidence\":1,\"reason\":\"\",\"step\":0,\"line\":0}",
		`{"from":"a"}`,
	} {
		if from, to, ok := edgeEnds([]byte(line)); ok {
			t.Errorf("edgeEnds(%s) = %q %q, want a refusal", line, from, to)
		}
	}
}

// TestEachLineLongAndUnterminated: eachLine gives every line whole, one
// longer than its buffer and a last one without a newline included.
func TestEachLineLongAndUnterminated(t *testing.T) {
	long := strings.Repeat("x", 600<<10) + "\n"
	want := []string{"a\n", long, "\n", "b\n", long[:1000], "end"}
	content := want[0] + want[1] + want[2] + want[3] + want[4] + "\n" + want[5]
	want[4] += "\n"
	path := filepath.Join(t.TempDir(), "rows.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := eachLine(path, func(line []byte) error { got = append(got, string(line)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %d bytes %.20q, want %d bytes %.20q", i, len(got[i]), got[i], len(want[i]), want[i])
		}
	}
}
