package embed

import (
	"strings"
	"unicode"
)

// This file is the BERT normalizer and pre-tokenizer, written to give the
// same output as Hugging Face tokenizers' BertNormalizer (clean_text,
// handle_chinese_chars, strip_accents, lowercase, in that order) and
// BertPreTokenizer (split on whitespace, isolate each punctuation mark).

// normalize applies the BERT normalizer to text, appending to b.
func (t *Tokenizer) normalize(b *strings.Builder, text string) {
	for _, r := range text {
		// clean_text: drop NUL, U+FFFD and control characters; every kind
		// of whitespace becomes a plain space.
		if r == 0 || r == 0xFFFD || isControl(r) {
			continue
		}
		if isWhitespace(r) {
			b.WriteByte(' ')
			continue
		}
		if r < 0x80 { // fast path: ASCII needs only lowercasing
			if t.lowercase && 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		// handle_chinese_chars: a CJK ideograph is a word of its own.
		cjk := isChineseChar(r)
		if cjk {
			b.WriteByte(' ')
		}
		if t.stripAccents {
			t.writeStripped(b, r)
		} else {
			t.writeLower(b, r)
		}
		if cjk {
			b.WriteByte(' ')
		}
	}
}

// writeStripped writes r after canonical decomposition with nonspacing
// marks removed (NFD + drop Mn), then lowercased.
func (t *Tokenizer) writeStripped(b *strings.Builder, r rune) {
	if unicode.Is(unicode.Mn, r) {
		return
	}
	if s, ok := hangulDecompose(r); ok {
		b.WriteString(s) // jamo are caseless and not marks
		return
	}
	if s, ok := accentFold[r]; ok {
		for _, c := range s {
			t.writeLower(b, c)
		}
		return
	}
	t.writeLower(b, r)
}

func (t *Tokenizer) writeLower(b *strings.Builder, r rune) {
	if t.lowercase {
		if r == 0x130 { // the one unconditional multi-rune lowercase mapping
			b.WriteString("i\u0307")
			return
		}
		r = unicode.ToLower(r)
	}
	b.WriteRune(r)
}

// Hangul syllable decomposition (Unicode 3.12), which NFD applies
// algorithmically rather than from a table.
const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = 11172
)

func hangulDecompose(r rune) (string, bool) {
	s := r - hangulSBase
	if s < 0 || s >= hangulSCount {
		return "", false
	}
	l := hangulLBase + s/hangulNCount
	v := hangulVBase + (s%hangulNCount)/hangulTCount
	tt := hangulTBase + s%hangulTCount
	if tt == hangulTBase {
		return string([]rune{l, v}), true
	}
	return string([]rune{l, v, tt}), true
}

// isWhitespace is Unicode's White_Space property (Rust's char::is_whitespace).
func isWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || (r > 0x7F && unicode.IsSpace(r)) || r == '\v' || r == '\f'
}

// isControl is the BERT notion of a control character: general category
// Cc, Cf, Co, Cs or unassigned, except tab, newline and carriage return
// (which are whitespace).
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < 0x80 {
		return r < 0x20 || r == 0x7F
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Zl, unicode.Zp)
}

// isPunct is BERT punctuation: any ASCII punctuation (which includes
// symbols such as $ + < = > ^ ` | ~) or a Unicode punctuation character.
func isPunct(r rune) bool {
	if r < 0x80 {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	return unicode.IsPunct(r)
}

// isChineseChar reports whether r is in a CJK Unified Ideographs block
// (the ranges BERT's handle_chinese_chars uses).
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// preTokenize splits normalized text into words: runs of non-space,
// non-punctuation characters, and each punctuation mark alone. It calls
// emit for each word in order.
func preTokenize(s string, emit func(word string)) {
	start := -1
	for i, r := range s {
		switch {
		case r == ' ': // the normalizer turned every whitespace into ' '
			if start >= 0 {
				emit(s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				emit(s[start:i])
				start = -1
			}
			emit(s[i : i+runeLen(s[i:])])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

func runeLen(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}
