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

// ParseSymbolLine and ParseFileLine read back what appendSymbolLine and
// appendFileLine wrote, as encoding/json reads it, and the hand-written
// reader takes every such line, escapes and all; lines of another form
// (fields reordered, missing or added, spaces, trailing garbage, a
// surrogate or an unknown escape) are left to encoding/json, which reads
// them or fails.
func TestParseNodeLines(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	plain := []string{"a", "Z", "9", "é", "路", "/", "#", " ", "<>&", "_", ".", ":"}
	escaped := []string{`"`, `\`, "\x00", "\n", "\t", "\xff", "\u2028"}
	word := func(escapes bool) string {
		var b strings.Builder
		for range rng.Intn(12) {
			if escapes && rng.Intn(8) == 0 {
				b.WriteString(escaped[rng.Intn(len(escaped))])
			} else {
				b.WriteString(plain[rng.Intn(len(plain))])
			}
		}
		return b.String()
	}
	num := func() int { return rng.Intn(400000) - 5 }
	escapes := 0
	for i := range 4000 {
		esc := i%2 == 1
		s := schema.Symbol{ID: word(esc), Kind: schema.Kind(word(esc)), Name: word(esc), QualifiedName: word(esc),
			FilePath: word(esc), StartLine: num(), EndLine: num(), Language: word(esc), Signature: word(esc),
			DocComment: word(esc), IsExported: rng.Intn(2) == 0, ContentHash: word(esc), SearchText: word(esc), IsTest: rng.Intn(2) == 0}
		if checkParse(t, i, appendSymbolLine(nil, &s), ParseSymbolLine, scanSymbolLine) {
			escapes++
		}
		f := schema.File{ID: word(esc), Path: word(esc), Name: word(esc), Language: word(esc), Size: int64(num()) << 12,
			Lines: num(), ParseStatus: schema.ParseStatus(word(esc)), ContentHash: word(esc), Unresolved: num(),
			SearchText: word(esc), IsTest: rng.Intn(2) == 0}
		checkParse(t, i, appendFileLine(nil, &f), ParseFileLine, scanFileLine)
	}
	if escapes < 1000 {
		t.Errorf("%d of 4000 symbol lines held an escape: the test does not exercise them", escapes)
	}

	// Other forms: encoding/json's answer, never a half-read line.
	for _, line := range []string{
		`{"kind":"function","id":"a","name":"f","startLine":3}`,
		`{"id":"a","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false,"extra":1}`,
		`{"id":"a", "kind":"function"}`,
		`{"id":"a","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1.5,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}x`,
		`{"id":"a","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":1,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a"`,
		``,
		`{"id":"a\ud83d\ude00","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a\ud800","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a\x41","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a\u00e9\/\b\f","kind":"function","name":"f","qualifiedName":"f","filePath":"x.go","startLine":1,"endLine":2,"language":"go","signature":"","docComment":"","isExported":true,"contentHash":"h","searchText":"f","isTest":false}`,
		`{"id":"a\u00","kind":"function"}`,
		"{\"id\":\"a\xff\",\"kind\":\"function\",\"name\":\"f\",\"qualifiedName\":\"f\",\"filePath\":\"x.go\",\"startLine\":1,\"endLine\":2,\"language\":\"go\",\"signature\":\"\",\"docComment\":\"\",\"isExported\":true,\"contentHash\":\"h\",\"searchText\":\"f\",\"isTest\":false}",
	} {
		var want schema.Symbol
		wantErr := json.Unmarshal([]byte(line), &want)
		got, err := ParseSymbolLine([]byte(line))
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q reads %+v (%v), encoding/json %+v (%v)", line, got, err, want, wantErr)
		}
	}
}

// checkParse checks that parse reads line as encoding/json does and that
// the hand reader scan takes it, and reports whether the line held an
// escape.
func checkParse[T any](t *testing.T, i int, line []byte, parse func([]byte) (T, error), scan func([]byte) (T, bool)) bool {
	t.Helper()
	var want T
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatal(err)
	}
	got, err := parse(line)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("line %d: %q reads %+v (%v), encoding/json %+v", i, line, got, err, want)
	}
	if _, ok := scan(line); !ok {
		t.Fatalf("line %d: the hand reader refused %q", i, line)
	}
	return bytes.IndexByte(line, '\\') >= 0
}

// BenchmarkParseSymbolLine: a kernel-like function row, read by hand and
// with encoding/json.
func BenchmarkParseSymbolLine(b *testing.B) {
	s := schema.Symbol{ID: "drivers/net/ethernet/intel/ice/ice_main.c#ice_probe:function", Kind: "function", Name: "ice_probe",
		QualifiedName: "ice_probe", FilePath: "drivers/net/ethernet/intel/ice/ice_main.c", StartLine: 5123, EndLine: 5301,
		Language: "c", Signature: "static int ice_probe(struct pci_dev *pdev, const struct pci_device_id __always_unused *ent)",
		DocComment: "ice_probe - Device initialization routine", ContentHash: "9f2c4e1a0b7d3c5e8f6a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e",
		SearchText: "ice probe ice main", IsExported: false}
	line := appendSymbolLine(nil, &s)
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			if _, err := ParseSymbolLine(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var v schema.Symbol
			if err := json.Unmarshal(line, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
