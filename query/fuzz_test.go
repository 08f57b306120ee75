package query

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/graph/text"
)

// FuzzParse checks that Parse takes any input: no panic, output bounded by
// MaxTerms whatever the input's size, every term valid UTF-8, non-empty,
// no longer than the input it came from (at most text.MaxInput bytes read;
// lower-casing may grow a rune, hence the factor) unless it is an alias
// (k8s → kubernetes), and never repeated.
//
//	go test -run='^$' -fuzz=FuzzParse -fuzztime=10m ./query/
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "getUserById", "where is the auth middleware?", "k8s auth",
		"user repository", "路由器", "GRÜSSE an grüße", "İstanbulParser",
		"'); MATCH (n) DETACH DELETE n;//", "\xff\xfe\x00abc", "a\x00b",
		strings.Repeat("aB", 3000), strings.Repeat("x ", 3000),
		strings.Repeat("\u0130", 2000), "ǅungla ǈ ǋ", "ΣΑΣ σας", "ﬃ ﬀ",
	} {
		f.Add(s)
	}
	aliases := map[string]bool{}
	for _, as := range text.Aliases {
		for _, a := range as {
			aliases[a] = true
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		if q.Raw != s {
			t.Fatalf("Raw = %q, want the input", q.Raw)
		}
		if len(q.Words) > MaxTerms || len(q.Idents) > MaxTerms || len(q.Phrases) > MaxTerms {
			t.Fatalf("unbounded: %d words, %d idents, %d phrases", len(q.Words), len(q.Idents), len(q.Phrases))
		}
		// Lower-casing can grow a rune (İ is 2 bytes, its lower form 3), so
		// the bound is a small multiple of the bytes read.
		maxLen := 3 * min(len(s), text.MaxInput)
		seen := map[string]bool{}
		check := func(kind, w string) {
			if w == "" {
				t.Fatalf("empty %s in %q", kind, s)
			}
			if !utf8.ValidString(w) {
				t.Fatalf("%s %q is not valid UTF-8 (input %q)", kind, w, s)
			}
			if len(w) > maxLen && !aliases[w] {
				t.Fatalf("%s of %d bytes from %d input bytes", kind, len(w), len(s))
			}
		}
		for _, w := range q.Words {
			check("word", w)
			if seen[w] {
				t.Fatalf("word %q twice", w)
			}
			seen[w] = true
		}
		for _, w := range q.Idents {
			check("ident", w)
			if !seen[w] {
				t.Fatalf("ident %q not among the words %q", w, q.Words)
			}
		}
		for _, p := range q.Phrases {
			check("phrase", p.Text)
			if p.Words < 2 || p.Words > MaxPhraseWords {
				t.Fatalf("phrase %q joins %d words", p.Text, p.Words)
			}
			if seen[p.Text] {
				t.Fatalf("phrase %q repeats a word", p.Text)
			}
		}
		if q.Prefix != "" && !utf8.ValidString(q.Prefix) {
			t.Fatalf("prefix %q is not valid UTF-8", q.Prefix)
		}
		_ = q.terms(MaxPhraseWords)
	})
}
