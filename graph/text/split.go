package text

import "strings"

// MaxInput is the most bytes of any one input that the functions of this
// package read; the rest is ignored. It bounds the work a hostile query or a
// minified one-line file can cause.
const MaxInput = 4096

// SplitIdentifier splits an identifier (or any string) into lowercase words
// made of [a-z0-9].
//
// Rules, in order:
//   - Every byte that is not an ASCII letter or digit separates words: '_',
//     '-', '.', '/', ':', spaces, punctuation and all non-ASCII text.
//   - A lower-case letter followed by an upper-case one starts a word:
//     getUserById → get user by id.
//   - In a run of capitals, the last one starts a word when a lower-case
//     letter follows it: HTTPServer → http server, parseJSON → parse json,
//     XMLHttpRequest → xml http request.
//   - Digits stay with the letters before them (they name one thing):
//     http2Server → http2 server, sha256 → sha256, int64 → int64,
//     base64Encode → base64 encode. A letter after digits starts a word:
//     "2fa" → 2 fa, "x509Cert" → x509 cert.
//
// The result is nil for input with no letters or digits.
func SplitIdentifier(s string) []string {
	if len(s) > MaxInput {
		s = s[:MaxInput]
	}
	var words []string
	start := -1 // start of the current word in s, -1 when between words
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := s[i-1]
		switch {
		case isUpper(c) && (isLower(p) || isDigit(p)):
			// getUser, http2Server
			flush(i)
			start = i
		case isUpper(c) && isUpper(p) && i+1 < len(s) && isLower(s[i+1]):
			// HTTPServer: the S starts "Server"
			flush(i)
			start = i
		case isLetter(c) && isDigit(p):
			// 2fa, x509cert (lower-case after digits)
			flush(i)
			start = i
		}
	}
	flush(len(s))
	return words
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

func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }
func isLetter(c byte) bool { return isLower(c) || isUpper(c) }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
