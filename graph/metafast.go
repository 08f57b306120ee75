package graph

// This file reads meta.json's per-file maps (Files, Unresolved: on the
// Linux kernel 86k entries, 11 of its 11.5 MB) by hand: encoding/json took
// a quarter of a second over them, on the path of every command that
// checks staleness. The head before them goes through encoding/json; a
// file this reader does not recognize goes through encoding/json whole.

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// filesKey starts the per-file maps as writeMeta lays them out.
var filesKey = []byte("\n  \"files\": ")

// decodeMetaFast decodes meta.json as writeMeta writes it; ok is false
// for anything else (the caller then uses encoding/json).
func decodeMetaFast(data []byte) (m *Meta, ok bool) { return decodeMetaLayout(data, nil) }

// decodeMetaLayout is decodeMetaFast; with paths set it builds no Files
// map but appends the indexed paths (its keys, in the file's order) to
// *paths, skipping their hashes, and reads nothing after it (Unresolved
// stays nil): what a staleness check needs (ReadMetaPaths).
func decodeMetaLayout(data []byte, paths *[]string) (m *Meta, ok bool) {
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
	s := &jsonScanner{b: data[i+len(filesKey):]}
	// Size the maps by the File count the head has, bounded by what the
	// bytes can hold (a path and a 64-digit hash: over 70 bytes an entry).
	hint := min(m.Counts[string(schema.LabelFile)], len(data)/70)
	if paths != nil {
		*paths = slices.Grow(*paths, hint)
		if _, ok := s.object(func(k string) bool {
			*paths = append(*paths, k)
			return s.skipStr()
		}); !ok {
			return nil, false
		}
		return m, true
	}
	files, ok := s.stringMap(hint)
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
	unresolved, ok := s.intMap(0)
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
