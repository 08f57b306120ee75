package graph

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonScanner reads the JSON this package writes itself, by hand, where
// encoding/json's reflection costs too much (edge rows, meta.json's
// per-file maps): literals, strings without escapes, numbers, and flat
// objects of them. Anything else makes a read fail (ok false), and the
// caller then reads the whole input with encoding/json.
type jsonScanner struct{ b []byte }

func (s *jsonScanner) ws() {
	for len(s.b) > 0 && (s.b[0] == ' ' || s.b[0] == '\n' || s.b[0] == '\t' || s.b[0] == '\r') {
		s.b = s.b[1:]
	}
}

func (s *jsonScanner) eat(c byte) bool {
	if len(s.b) > 0 && s.b[0] == c {
		s.b = s.b[1:]
		return true
	}
	return false
}

func (s *jsonScanner) lit(l string) bool {
	if bytes.HasPrefix(s.b, []byte(l)) {
		s.b = s.b[len(l):]
		return true
	}
	return false
}

func (s *jsonScanner) end() bool { return len(s.b) == 0 }

// str reads a string without escapes or control characters, valid UTF-8.
func (s *jsonScanner) str() (string, bool) {
	v, ok := s.rawStr()
	if !ok {
		return "", false
	}
	return string(v), true
}

// rawStr is str's value as a slice of the input, not copied.
func (s *jsonScanner) rawStr() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	for i, c := range s.b {
		if c == '"' {
			v := s.b[:i]
			s.b = s.b[i+1:]
			if !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		}
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return nil, false
}

// strEsc is str for a string that may hold escapes: those encoding/json
// and appendJSONString write (\" \\ \/ \b \f \n \r \t), and \uXXXX
// outside the surrogates (a pair would need joining: the caller falls
// back instead), decoded. Its bytes must be valid UTF-8, as str's. A
// string without escapes is rawStr's.
func (s *jsonScanner) strEsc() (string, bool) {
	rest := s.b
	if v, ok := s.rawStr(); ok {
		return string(v), true
	}
	s.b = rest
	if !s.eat('"') {
		return "", false
	}
	return s.unescape()
}

// unescape is strEsc after the opening quote, for a string rawStr did not
// take.
func (s *jsonScanner) unescape() (string, bool) {
	out := make([]byte, 0, len(s.b))
	for j := 0; j < len(s.b); {
		c := s.b[j]
		switch {
		case c == '"':
			s.b = s.b[j+1:]
			if !utf8.Valid(out) {
				return "", false
			}
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(s.b) {
			return "", false
		}
		switch e := s.b[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if j+6 > len(s.b) {
				return "", false
			}
			r, err := strconv.ParseUint(string(s.b[j+2:j+6]), 16, 16)
			if err != nil || (r >= 0xd800 && r <= 0xdfff) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			j += 6
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

// skipStr reads past a string as str would read it, without making it.
func (s *jsonScanner) skipStr() bool {
	_, ok := s.rawStr()
	return ok
}

// object reads {"key": value, ...} or null, value read by val.
func (s *jsonScanner) object(val func(key string) bool) (null, ok bool) {
	if s.lit("null") {
		return true, true
	}
	if !s.eat('{') {
		return false, false
	}
	s.ws()
	if s.eat('}') {
		return false, true
	}
	for {
		s.ws()
		k, ok := s.str()
		if !ok || !s.eat(':') {
			return false, false
		}
		s.ws()
		if !val(k) {
			return false, false
		}
		s.ws()
		if s.eat('}') {
			return false, true
		}
		if !s.eat(',') {
			return false, false
		}
	}
}

func (s *jsonScanner) stringMap(hint int) (map[string]string, bool) {
	return scanMap(s, s.str, hint)
}
func (s *jsonScanner) intMap(hint int) (map[string]int, bool) { return scanMap(s, s.integer, hint) }

// scanMap reads an object (or null: a nil map) whose values value reads,
// sized for hint entries (growing a map of the Linux kernel's 86k files
// entry by entry was a third of reading them).
func scanMap[V any](s *jsonScanner, value func() (V, bool), hint int) (map[string]V, bool) {
	m := make(map[string]V, max(hint, 0))
	null, ok := s.object(func(k string) bool {
		v, ok := value()
		m[k] = v
		return ok
	})
	if null {
		m = nil
	}
	return m, ok
}

// number reads a JSON number (strconv alone would also take inf, 0x1p3
// or 00) and returns its text.
func (s *jsonScanner) number() ([]byte, bool) {
	j := 0
	for j < len(s.b) && strings.IndexByte("+-.0123456789eE", s.b[j]) >= 0 {
		j++
	}
	if j == 0 || !jsonNumber(s.b[:j]) {
		return nil, false
	}
	v := s.b[:j]
	s.b = s.b[j:]
	return v, true
}

// integer reads a JSON number that is an int (as encoding/json reads one
// into an int: no fraction, no exponent).
func (s *jsonScanner) integer() (int, bool) {
	v, ok := s.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// float reads a JSON number as a float64.
func (s *jsonScanner) float() (float64, bool) {
	v, ok := s.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// jsonNumber reports whether b is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
