package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type refCase struct {
	Text     string   `json:"text"`
	InputIDs []int32  `json:"input_ids"`
	Tokens   []string `json:"tokens"`
}

func loadRefCases(t *testing.T, dir string) []refCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "reference_token_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("reference_token_ids.json has no cases")
	}
	return ref.Cases
}

// TestReferenceTokenIDs checks every case of reference_token_ids.json, with
// the tokenizer read from tokenizer.json and, separately, from vocab.txt.
func TestReferenceTokenIDs(t *testing.T) {
	dir := sharedModelDir(t)
	cases := loadRefCases(t, dir)
	fromJSON, err := LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fromVocab, err := ParseVocab(f)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]*Tokenizer{"tokenizer.json": fromJSON, "vocab.txt": fromVocab} {
		if tok.VocabSize() != 30522 {
			t.Errorf("%s: vocab size %d, want 30522", name, tok.VocabSize())
		}
		for _, c := range cases {
			got := tok.Encode(c.Text)
			if !slices.Equal(got, c.InputIDs) {
				var toks []string
				for _, id := range got {
					toks = append(toks, tok.Token(id))
				}
				t.Errorf("%s: %q\n got %v %q\nwant %v %q", name, c.Text, got, toks, c.InputIDs, c.Tokens)
				continue
			}
			for i, id := range got {
				if tok.Token(id) != c.Tokens[i] {
					t.Errorf("%s: %q token %d = %q, want %q", name, c.Text, i, tok.Token(id), c.Tokens[i])
				}
			}
		}
	}
}

func realTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(sharedModelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTokenizerEdgeCases(t *testing.T) {
	tok := realTokenizer(t)
	unk := tok.UNK()
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{" \t\n ", nil},
		{"a\x00b\u200bc\ufffd", []string{"abc"}}, // NUL, ZWSP (Cf), U+FFFD removed
		{"x\u00a0y\u3000z", []string{"x", "y", "z"}}, // Unicode spaces split
		{"ÉCOLE", []string{"ecole"}},
		{"camelCaseName", []string{"camel", "##case", "##name"}},
		{"foo_bar(x)", []string{"foo", "_", "bar", "(", "x", ")"}},
		{"a$b", []string{"a", "$", "b"}}, // ASCII symbols count as punctuation
		{"[CLS]", []string{"[CLS]"}},     // verbatim special token
		{"x[SEP]y", []string{"x", "[SEP]", "y"}},
		{"[cls]", []string{"[", "cl", "##s", "]"}},
		{"한", []string{"ᄒ", "##ᅡ", "##ᆫ"}}, // Hangul decomposes to jamo under NFD
	}
	for _, tc := range tests {
		var got []string
		for _, id := range tok.Tokenize(tc.text) {
			got = append(got, tok.Token(id))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// 100 runes is a word; 101 is [UNK].
	long := strings.Repeat("a", 100)
	if ids := tok.Tokenize(long); len(ids) == 0 || slices.Contains(ids, unk) {
		t.Errorf("100-char word: got %v, want pieces without [UNK]", ids)
	}
	if ids := tok.Tokenize(long + "a"); !slices.Equal(ids, []int32{unk}) {
		t.Errorf("101-char word: got %v, want [UNK]", ids)
	}
	// Truncation keeps [CLS] + 510 + [SEP].
	ids := tok.Encode(strings.Repeat("hello ", 600))
	if len(ids) != 512 || ids[0] != tok.CLS() || ids[511] != tok.SEP() {
		t.Errorf("truncated encoding: len %d first %d last %d", len(ids), ids[0], ids[len(ids)-1])
	}
}

func FuzzTokenize(f *testing.F) {
	tok := realTokenizer(f)
	for _, s := range []string{"hello world", "Héllo  Wörld\tcafé naïve 東京 don't", "\xff\xfe[SEP", "[CLS][SEP]",
		"func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {}", strings.Repeat("ab", 80), "\u0130stanbul", "ﬁ①⑴㍿"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Tokenize(s)
		for _, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("Tokenize(%q): id %d out of range", s, id)
			}
		}
		enc := tok.Encode(s)
		if len(enc) < 2 || len(enc) > tok.MaxLen() || enc[0] != tok.CLS() || enc[len(enc)-1] != tok.SEP() {
			t.Fatalf("Encode(%q) = %v: bad framing", s, enc)
		}
		if want := min(len(ids), tok.MaxLen()-2); !slices.Equal(enc[1:len(enc)-1], ids[:want]) {
			t.Fatalf("Encode(%q) is not [CLS]+Tokenize+[SEP]", s)
		}
	})
}

// BenchmarkTokenize measures the tokenizer on Go source (this package's
// own files), in MB/s.
func BenchmarkTokenize(b *testing.B) {
	tok := realTokenizer(b)
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		src.Write(data)
	}
	text := src.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		tok.Tokenize(text)
	}
}
