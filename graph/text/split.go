package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxInput is the most bytes of any one query-side input that the
// functions of this package read; the rest is ignored. It bounds the work
// a hostile query or a minified one-line file can cause. Index-side text
// (Words) is bounded by MaxIndexInput instead.
const MaxInput = 4096

// MaxIndexInput is the most bytes of one indexed text (a doc comment, a
// signature) that Words reads.
const MaxIndexInput = 1 << 16

// rune classes of the splitter.
const (
	sep   = iota // not part of a word
	upper        // an upper-case (or title-case) letter
	lower        // a lower-case letter, a letter without case (CJK), a mark
	digit        // a decimal digit
)

func class(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z':
			return lower
		case 'A' <= r && r <= 'Z':
			return upper
		case '0' <= r && r <= '9':
			return digit
		}
		return sep
	case r == utf8.RuneError:
		return sep
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return upper
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return lower
	case unicode.IsDigit(r):
		return digit
	}
	return sep
}

// SplitIdentifier splits an identifier (or any string) into lower-case
// words of Unicode letters and digits.
//
// Rules, in order:
//   - Every rune that is not a letter, a mark or a decimal digit separates
//     words: '_', '-', '.', '/', ':', spaces, newlines, punctuation, symbols.
//   - A lower-case letter followed by an upper-case one starts a word:
//     getUserById → get user by id, İstanbulParser → istanbul parser.
//   - In a run of capitals, the last one starts a word when a lower-case
//     letter follows it: HTTPServer → http server, parseJSON → parse json,
//     XMLHttpRequest → xml http request.
//   - Digits stay with the letters before them (they name one thing):
//     http2Server → http2 server, sha256 → sha256, int64 → int64,
//     base64Encode → base64 encode. A letter after digits starts a word:
//     "2fa" → 2 fa, "x509Cert" → x509 cert.
//   - Letters without case (路由器) are lower-case letters: a run of them
//     is one word (no dictionary segmentation).
//
// Lower-casing is Unicode's (strings.ToLower: GRÜSSE → grüsse, İ → i).
// The result is nil for input with no letters or digits.
func SplitIdentifier(s string) []string {
	if len(s) > MaxInput {
		s = s[:MaxInput]
	}
	var words []string
	splitWords(s, func(w string) { words = append(words, lowerWord(w)) })
	return words
}

// SplitIdentifierCase splits s as SplitIdentifier does but keeps each
// word as written: handleHTTPRequest → handle HTTP Request. For prose
// made of names (flow descriptions), where acronyms keep their capitals.
func SplitIdentifierCase(s string) []string {
	if len(s) > MaxInput {
		s = s[:MaxInput]
	}
	var words []string
	splitWords(s, func(w string) { words = append(words, w) })
	return words
}

// splitWords calls emit with each word of s as written, where
// SplitIdentifier splits it.
func splitWords(s string, emit func(string)) {
	start := -1 // byte offset of the current word, -1 between words
	prev := sep
	flush := func(end int) {
		if start >= 0 && end > start {
			emit(s[start:end])
		}
		start = -1
	}
	for i := 0; i < len(s); {
		var r rune
		var c, n int
		if b := s[i]; b < utf8.RuneSelf {
			r, c, n = rune(b), asciiClass[b], 1
		} else {
			r, n = utf8.DecodeRuneInString(s[i:])
			c = class(r)
		}
		if c == sep {
			flush(i)
			prev = sep
			i += n
			continue
		}
		if start < 0 {
			start = i
		} else {
			switch {
			case c == upper && (prev == lower || prev == digit):
				flush(i) // getUser, http2Server
				start = i
			case c == upper && prev == upper && i+n < len(s):
				if nr, _ := utf8.DecodeRuneInString(s[i+n:]); class(nr) == lower && unicode.IsLower(nr) {
					flush(i) // HTTPServer: the S starts "Server"
					start = i
				}
			case (c == lower || c == upper) && prev == digit && unicode.IsLetter(r):
				flush(i) // 2fa, x509cert
				start = i
			}
		}
		prev = c
		i += n
	}
	flush(len(s))
}

// asciiClass is class for the ASCII runes.
var asciiClass = func() (t [utf8.RuneSelf]int) {
	for r := range t {
		t[r] = class(rune(r))
	}
	return t
}()

// lowerWord lower-cases w (appendLower), without allocating when it is
// lower-case ASCII.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return string(appendLower(nil, w))
		}
	}
	return w
}

// Joined is the whole form of a multi-word identifier: its words joined with
// no separator ("getuserbyid", "userrepository"). It is "" for fewer than
// two words, where the whole form is the word itself.
func Joined(words []string) string {
	if len(words) < 2 {
		return ""
	}
	return strings.Join(words, "")
}

// isSegmentRune reports whether r belongs to an identifier-shaped segment:
// a letter, mark or digit, '_' or '-'.
func isSegmentRune(r rune) bool {
	return r == '_' || r == '-' || class(r) != sep
}

// Segments splits s into identifier-shaped pieces: at every rune that is
// not a letter, mark, digit, '_' or '-'. "pkg.mod.Class.method" →
// pkg mod Class method; "src/user_repo.py" → src user_repo py;
// "grüße welt" → grüße welt.
func Segments(s string) []string {
	if len(s) > MaxInput {
		s = s[:MaxInput]
	}
	return strings.FieldsFunc(s, func(r rune) bool { return !isSegmentRune(r) })
}

// Words is the index-side analysis of a text (a name, a doc comment, a
// signature, a path): for each segment (see Segments) its words
// (SplitIdentifier) and, when it has several, its whole form (Joined), in
// order, repeats kept (they are term frequencies). Query words are made
// the same way (query.Parse), so both sides agree. At most MaxIndexInput
// bytes of s are read.
//
//	Words("ParseConfig reads a\nYAML file") = parse config parseconfig reads a yaml file
//
// Words is a Tokenizer's Words with a Tokenizer of its own.
func Words(s string, emit func(w []byte)) {
	var t Tokenizer
	t.Words(s, emit)
}

// Tokenizer makes Words with buffers it reuses from call to call: the
// search pack tokenizes every symbol's source text (the Linux kernel: most
// of its CPU time), and a word is handed over as bytes in these buffers,
// so that a caller can look it up (m[string(w)] does not allocate) before
// it keeps it. A Tokenizer is not safe for concurrent use.
type Tokenizer struct {
	word, whole []byte
}

// Words calls emit with each word of s, as the function Words does; w is
// valid only until emit returns.
func (t *Tokenizer) Words(s string, emit func(w []byte)) {
	if len(s) > MaxIndexInput {
		s = s[:MaxIndexInput]
	}
	for len(s) > 0 {
		i := segmentStart(s)
		if i < 0 {
			return
		}
		s = s[i:]
		j := segmentEnd(s)
		n := 0
		t.whole = t.whole[:0]
		splitWords(s[:j], func(w string) {
			t.word = appendLower(t.word[:0], w)
			t.whole = append(t.whole, t.word...)
			n++
			emit(t.word)
		})
		if n > 1 {
			emit(t.whole)
		}
		s = s[j:]
	}
}

// segmentStart is the offset of the first segment rune of s, -1 if none.
func segmentStart(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			if k := strings.IndexFunc(s[i:], isSegmentRune); k >= 0 {
				return i + k
			}
			return -1
		} else if asciiSegment[c] {
			return i
		}
	}
	return -1
}

// segmentEnd is the offset of the first rune of s that is not a segment
// rune, len(s) if none.
func segmentEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			if k := strings.IndexFunc(s[i:], func(r rune) bool { return !isSegmentRune(r) }); k >= 0 {
				return i + k
			}
			return len(s)
		} else if !asciiSegment[c] {
			return i
		}
	}
	return len(s)
}

// asciiSegment is isSegmentRune for the ASCII runes.
var asciiSegment = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isSegmentRune(rune(c))
	}
	return t
}()

// appendLower appends w lower-cased (lowerWord's result) to dst.
func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return append(dst, strings.ToLower(w)...)
		}
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
