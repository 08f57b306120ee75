package graph

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestNodeLinesAreEncodeRows: a hand-written symbol or file line holds the
// values encodeRow's line for the same struct holds, and is the very same
// bytes when no string holds U+2028 or U+2029 (which encoding/json escapes
// and appendJSONString need not). Strings are drawn to stress the line:
// quotes, backslashes, control characters, NUL, invalid UTF-8.
func TestNodeLinesAreEncodeRows(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	pieces := []string{"a", "Z", "9", `"`, `\`, "\x00", "\n", "\t", "\x07", "\xff", "é", "路", "\u2028", "/", "#", " ", "<>&"}
	word := func() string {
		var b strings.Builder
		for range rng.Intn(10) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	num := func() int { return rng.Intn(200000) - 5 }
	same := func(i int, kind string, line, ref []byte, got, want any) {
		t.Helper()
		if err := json.Unmarshal(line, got); err != nil {
			t.Fatalf("%s %d: %q is not JSON: %v", kind, i, line, err)
		}
		if err := json.Unmarshal(ref, want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %d: line %q reads %+v, encodeRow's %q reads %+v", kind, i, line, got, ref, want)
		}
		if !bytes.Contains(ref, []byte(`\u2028`)) && !bytes.Contains(ref, []byte(`\u2029`)) && !bytes.Equal(line, ref) {
			t.Fatalf("%s %d: line\n%q\nencodeRow's\n%q", kind, i, line, ref)
		}
	}
	for i := range 3000 {
		s := schema.Symbol{ID: word(), Label: schema.LabelFunction, Kind: schema.Kind(word()), Name: word(),
			QualifiedName: word(), FilePath: word(), StartLine: num(), EndLine: num(), Language: word(),
			Signature: word(), DocComment: word(), IsExported: rng.Intn(2) == 0, Content: word(),
			ContentHash: word(), ParentID: word(), SearchText: word(), IsTest: rng.Intn(2) == 0}
		ref, err := encodeRow(s)
		if err != nil {
			t.Fatal(err)
		}
		same(i, "symbol", appendSymbolLine(nil, &s), ref, &schema.Symbol{}, &schema.Symbol{})

		f := schema.File{ID: word(), Path: word(), Name: word(), Language: word(), Size: int64(num()) << 20,
			Lines: num(), ParseStatus: schema.ParseStatus(word()), ContentHash: word(), Unresolved: num(),
			SearchText: word(), IsTest: rng.Intn(2) == 0}
		if ref, err = encodeRow(f); err != nil {
			t.Fatal(err)
		}
		same(i, "file", appendFileLine(nil, &f), ref, &schema.File{}, &schema.File{})
	}
}
