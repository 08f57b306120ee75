package graph

// This file reads meta.json's per-file maps (Files, Unresolved: on the
// Linux kernel 86k entries, 11 of its 11.5 MB) by hand: encoding/json took
// a quarter of a second over them, on the path of every command that
// checks staleness. The head before them goes through encoding/json; a
// file this reader does not recognize goes through encoding/json whole.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// filesKey starts the per-file maps as writeMeta lays them out.
var filesKey = []byte("\n  \"files\": ")

// decodeMetaFast decodes meta.json as writeMeta writes it; ok is false
// for anything else (the caller then uses encoding/json).
func decodeMetaFast(data []byte) (m *Meta, ok bool) {
	i := bytes.Index(data, filesKey)
	if i < 1 || data[i-1] != ',' { // the head's last field, then the maps
		return nil, false
	}
	if h := bytes.TrimRight(data[:i-1], " \n\t\r"); len(h) == 0 || h[len(h)-1] == '{' {
		return nil, false // "{," is no object
	}
	head := append(append([]byte(nil), data[:i-1]...), "\n}"...)
	m = &Meta{}
	if err := json.Unmarshal(head, m); err != nil || m.Files != nil || m.Unresolved != nil {
		return nil, false
	}
	s := &mapScanner{b: data[i+len(filesKey):]}
	files, ok := s.stringMap()
	if !ok {
		return nil, false
	}
	m.Files = files
	s.ws()
	if s.eat('}') {
		s.ws()
		return m, s.end()
	}
	if !s.eat(',') {
		return nil, false
	}
	s.ws()
	if !s.lit(`"unresolved": `) {
		return nil, false
	}
	unresolved, ok := s.intMap()
	if !ok {
		return nil, false
	}
	m.Unresolved = unresolved
	s.ws()
	if !s.eat('}') {
		return nil, false
	}
	s.ws()
	return m, s.end()
}

// mapScanner reads flat JSON objects of plain strings (no escapes).
type mapScanner struct{ b []byte }

func (s *mapScanner) ws() {
	for len(s.b) > 0 && (s.b[0] == ' ' || s.b[0] == '\n' || s.b[0] == '\t' || s.b[0] == '\r') {
		s.b = s.b[1:]
	}
}

func (s *mapScanner) eat(c byte) bool {
	if len(s.b) > 0 && s.b[0] == c {
		s.b = s.b[1:]
		return true
	}
	return false
}

func (s *mapScanner) lit(l string) bool {
	if bytes.HasPrefix(s.b, []byte(l)) {
		s.b = s.b[len(l):]
		return true
	}
	return false
}

func (s *mapScanner) end() bool { return len(s.b) == 0 }

// str reads a string without escapes or control characters, valid UTF-8.
func (s *mapScanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	for i, c := range s.b {
		if c == '"' {
			v := s.b[:i]
			s.b = s.b[i+1:]
			if !utf8.Valid(v) {
				return "", false
			}
			return string(v), true
		}
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	return "", false
}

// object reads {"key": value, ...} or null, value read by val.
func (s *mapScanner) object(val func(key string) bool) (null, ok bool) {
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

func (s *mapScanner) stringMap() (map[string]string, bool) {
	m := map[string]string{}
	null, ok := s.object(func(k string) bool {
		v, ok := s.str()
		m[k] = v
		return ok
	})
	if null {
		m = nil
	}
	return m, ok
}

func (s *mapScanner) intMap() (map[string]int, bool) {
	m := map[string]int{}
	null, ok := s.object(func(k string) bool {
		j := 0
		if j < len(s.b) && s.b[j] == '-' {
			j++
		}
		d := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		if j == d || (s.b[d] == '0' && j > d+1) {
			return false
		}
		n, err := strconv.Atoi(string(s.b[:j]))
		if err != nil {
			return false
		}
		s.b = s.b[j:]
		m[k] = n
		return true
	})
	if null {
		m = nil
	}
	return m, ok
}
