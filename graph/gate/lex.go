package gate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is what a token is.
type kind int

const (
	kWord   kind = iota // bare identifier or keyword: MATCH, n, show_tables
	kName               // backquoted name: `x\`
	kString             // 'x' or "x"
	kNumber             // 1, 1.5, .5, 1e-3
	kOp                 // punctuation and operators: ( ) . .. <= $ ...
	kSemi               // ;
)

// token is one lexical token of a statement; whitespace and comments are
// dropped. text is the source text; pos and end are byte offsets.
type token struct {
	kind      kind
	text      string
	pos, end  int
	upperWord string // kWord only: text with ASCII letters upper-cased
}

// lexError is a statement the lexer refuses.
type lexError struct {
	pos int
	msg string
}

func (e *lexError) Error() string { return fmt.Sprintf("at byte %d: %s", e.pos, e.msg) }

// multiOps are Kuzu's two-character operator tokens (the lexer takes the
// longest match, as ANTLR does).
var multiOps = []string{"..", "<>", "<=", ">=", "<<", ">>", "=~", "!="}

// singleOps are Kuzu's one-character tokens, including the Unicode arrow
// heads and dashes its grammar accepts in relationship patterns.
const singleOps = "()[]{},=:.$|&+-*/%^<>!" +
	"\u27e8\u3008\ufe64\uff1c\u27e9\u3009\ufe65\uff1e" +
	"\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

// isSpace reports whether r is one of Kuzu's WHITESPACE characters
// (Cypher.g4: SPACE TAB LF VT FF CR FS GS RS US and the listed Unicode
// spaces). U+200B, U+0085 and U+FEFF are not among them.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f,
		0x1680, 0x180e, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
		0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x205f, 0x3000, 0x00a0, 0x2007, 0x202f:
		return true
	}
	return false
}

// idStart is Unicode ID_Start: letters, letter numbers and Other_ID_Start,
// less Pattern_Syntax and Pattern_White_Space.
func idStart(r rune) bool {
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

// idContinue is Unicode ID_Continue.
func idContinue(r rune) bool {
	if idStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// identStart and identPart are Kuzu's IdentifierStart (ID_Start | Pc) and
// IdentifierPart (ID_Continue | Sc): "a$b" is one identifier.
func identStart(r rune) bool { return idStart(r) || unicode.Is(unicode.Pc, r) }
func identPart(r rune) bool  { return idContinue(r) || unicode.Is(unicode.Sc, r) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// upperASCII upper-cases ASCII letters only: Kuzu's keywords are ASCII, so
// "ſet" (long s) or "ＳＥＴ" (full width) are names, not SET.
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// lex splits s into tokens exactly as Kuzu 0.11.3's ANTLR lexer does
// (src/antlr4/Cypher.g4), and refuses where Kuzu's lexer would fall back
// to its catch-all Unknown token (which its parser never accepts) or where
// Kuzu would read a different string than Go holds:
//   - invalid UTF-8, and NUL bytes (the C API stops at the first NUL, so
//     Kuzu would run only the part before it);
//   - unterminated strings, backquoted names and comments;
//   - string escapes other than \\ \' \" \b \f \n \r \t \uHHHH
//     \UHHHHHHHH (newer grammars add \xHH; Kuzu 0.11.3 refuses it);
//   - a "//" comment ended by a lone CR (Kuzu's ends only at LF or EOF);
//   - any character that is not whitespace, part of a name, number or
//     one of Kuzu's operators.
//
// Brackets (), [] and {} must balance, and nest at most maxDepth deep; the
// check runs while lexing, so deep nesting fails after maxDepth+1 brackets.
func lex(s string, maxDepth int) ([]token, error) {
	if !utf8.ValidString(s) {
		i := 0
		for i < len(s) {
			r, w := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && w == 1 {
				break
			}
			i += w
		}
		return nil, &lexError{i, "not valid UTF-8"}
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, &lexError{i, "NUL byte (Kuzu would stop reading the statement there)"}
	}
	var toks []token
	var stack []byte
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		start := i
		switch {
		case isSpace(r):
			i += w
			continue
		case r == '/' && i+1 < len(s) && s[i+1] == '*':
			// Cypher.g4: '/*' ( ~[*] | '*' ~[/] )* '*/'. A '*' always
			// takes the next character with it, so "/* **/" does not end
			// at "**/" and "/***/" never ends.
			j := i + 2
			for {
				if j >= len(s) {
					return nil, &lexError{i, "unterminated /* comment (Kuzu reads a '*' followed by any character but '/' as two comment characters, so \"**/\" does not close it)"}
				}
				if s[j] != '*' {
					j++
					continue
				}
				if j+1 < len(s) && s[j+1] == '/' {
					j += 2
					break
				}
				if j+1 >= len(s) {
					return nil, &lexError{i, "unterminated /* comment"}
				}
				j += 2
			}
			i = j
			continue
		case r == '/' && i+1 < len(s) && s[i+1] == '/':
			// Cypher.g4: '//' ~[\n\r]* CR? ( LF | EOF ).
			j := i + 2
			for j < len(s) && s[j] != '\n' && s[j] != '\r' {
				j++
			}
			switch {
			case j >= len(s):
			case s[j] == '\n':
				j++
			case j+1 >= len(s):
				j++
			case s[j+1] == '\n':
				j += 2
			default:
				return nil, &lexError{j, "a // comment must end at a line feed (Kuzu does not end it at a lone carriage return)"}
			}
			i = j
			continue
		case r == '\'' || r == '"':
			j, err := lexString(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: kString, text: s[i:j], pos: i, end: j})
			i = j
			continue
		case r == '`':
			// Cypher.g4: ( '`' ~[`]* '`' )+ : no escapes; a doubled
			// backquote continues the name. A backslash is an ordinary
			// character.
			j := i
			for j < len(s) && s[j] == '`' {
				k := strings.IndexByte(s[j+1:], '`')
				if k < 0 {
					return nil, &lexError{i, "unterminated backquoted name"}
				}
				j = j + 1 + k + 1
			}
			if j-i == 2 {
				return nil, &lexError{i, "empty backquoted name"}
			}
			toks = append(toks, token{kind: kName, text: s[i:j], pos: i, end: j})
			i = j
			continue
		case r < utf8.RuneSelf && (isDigit(byte(r)) || (r == '.' && i+1 < len(s) && isDigit(s[i+1]))):
			j := lexNumber(s, i)
			toks = append(toks, token{kind: kNumber, text: s[i:j], pos: i, end: j})
			i = j
			continue
		case identStart(r):
			j := i + w
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if !identPart(r2) {
					break
				}
				j += w2
			}
			t := s[i:j]
			toks = append(toks, token{kind: kWord, text: t, pos: i, end: j, upperWord: upperASCII(t)})
			i = j
			continue
		case r == ';':
			toks = append(toks, token{kind: kSemi, text: ";", pos: i, end: i + 1})
			i++
			continue
		}
		op := ""
		for _, m := range multiOps {
			if strings.HasPrefix(s[i:], m) {
				op = m
				break
			}
		}
		if op == "" && strings.ContainsRune(singleOps, r) {
			op = s[i : i+w]
		}
		if op == "" {
			return nil, &lexError{i, fmt.Sprintf("unexpected character %q (U+%04X)", r, r)}
		}
		switch op {
		case "(", "[", "{":
			stack = append(stack, op[0])
			if len(stack) > maxDepth {
				return nil, &lexError{i, fmt.Sprintf("brackets nested deeper than %d", maxDepth)}
			}
		case ")", "]", "}":
			open := map[string]byte{")": '(', "]": '[', "}": '{'}[op]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return nil, &lexError{i, fmt.Sprintf("unbalanced %q", op)}
			}
			stack = stack[:len(stack)-1]
		}
		toks = append(toks, token{kind: kOp, text: op, pos: start, end: i + len(op)})
		i += len(op)
	}
	if len(stack) > 0 {
		return nil, &lexError{len(s), fmt.Sprintf("%d bracket(s) not closed", len(stack))}
	}
	return toks, nil
}

// lexString returns the end of the string literal starting at s[i] (a
// quote), following Cypher.g4's StringLiteral and EscapedChar as Kuzu
// 0.11.3 parses them (checked against it: \x41 is a parser error).
func lexString(s string, i int) (int, error) {
	q := s[i]
	j := i + 1
	for {
		if j >= len(s) {
			return 0, &lexError{i, "unterminated string literal"}
		}
		c := s[j]
		if c == q {
			return j + 1, nil
		}
		if c != '\\' {
			j++
			continue
		}
		if j+1 >= len(s) {
			return 0, &lexError{i, "unterminated string literal"}
		}
		e := s[j+1]
		n := 0 // hex digits the escape needs
		switch e {
		case '\\', '\'', '"', 'b', 'B', 'f', 'F', 'n', 'N', 'r', 'R', 't', 'T':
		case 'u', 'U':
			n = 4
		default:
			return 0, &lexError{j, fmt.Sprintf("invalid escape \\%c in string literal (Kuzu 0.11.3 accepts \\\\ \\' \\\" \\b \\f \\n \\r \\t \\uHHHH \\UHHHHHHHH)", rune(e))}
		}
		k := j + 2
		for m := 0; m < n; m++ {
			if k >= len(s) || !isHex(s[k]) {
				return 0, &lexError{j, "invalid \\u escape in string literal (needs 4 or 8 hex digits)"}
			}
			k++
		}
		j = k
	}
}

// lexNumber returns the end of the longest number token at s[i]
// (DecimalInteger, RegularDecimalReal or ExponentDecimalReal). "0123"
// is two tokens, "0" and "123", as in Kuzu.
func lexNumber(s string, i int) int {
	digits := func(j int) int {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return j
	}
	d := digits(i)
	best := i
	if d > i {
		best = d
		if s[i] == '0' {
			best = i + 1
		}
	}
	real := -1
	if d < len(s) && s[d] == '.' {
		if f := digits(d + 1); f > d+1 {
			real = f
			best = max(best, f)
		}
	}
	for _, base := range []int{d, real} {
		if base <= i || base >= len(s) || (s[base] != 'e' && s[base] != 'E') {
			continue
		}
		k := base + 1
		if k < len(s) && s[k] == '-' {
			k++
		}
		if e := digits(k); e > k {
			best = max(best, e)
		}
	}
	return best
}
