package graph

// This file owns the symbol and file rows' lines, the node rows a build
// writes most of (the Linux kernel: 1.4 million symbols, 86 thousand
// files): they are appended by hand, as edge rows are (edgeline.go),
// instead of through encoding/json's reflection. Each line holds the
// values encodeRow's line for the same struct holds, field for field and
// in the same order (TestNodeLinesAreEncodeRows).

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// appendSymbolLine appends s's row (newline included) with the fields and
// order of schema.Symbol's JSON tags.
func appendSymbolLine(dst []byte, s *schema.Symbol) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, s.ID)
	dst = append(dst, `,"kind":`...)
	dst = appendJSONString(dst, string(s.Kind))
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, s.Name)
	dst = append(dst, `,"qualifiedName":`...)
	dst = appendJSONString(dst, s.QualifiedName)
	dst = append(dst, `,"filePath":`...)
	dst = appendJSONString(dst, s.FilePath)
	dst = append(dst, `,"startLine":`...)
	dst = strconv.AppendInt(dst, int64(s.StartLine), 10)
	dst = append(dst, `,"endLine":`...)
	dst = strconv.AppendInt(dst, int64(s.EndLine), 10)
	dst = append(dst, `,"language":`...)
	dst = appendJSONString(dst, s.Language)
	dst = append(dst, `,"signature":`...)
	dst = appendJSONString(dst, s.Signature)
	dst = append(dst, `,"docComment":`...)
	dst = appendJSONString(dst, s.DocComment)
	dst = append(dst, `,"isExported":`...)
	dst = strconv.AppendBool(dst, s.IsExported)
	dst = append(dst, `,"contentHash":`...)
	dst = appendJSONString(dst, s.ContentHash)
	dst = append(dst, `,"searchText":`...)
	dst = appendJSONString(dst, s.SearchText)
	dst = append(dst, `,"isTest":`...)
	dst = strconv.AppendBool(dst, s.IsTest)
	return append(dst, "}\n"...)
}

// appendFileLine appends f's row (newline included) with the fields and
// order of schema.File's JSON tags.
func appendFileLine(dst []byte, f *schema.File) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, f.ID)
	dst = append(dst, `,"path":`...)
	dst = appendJSONString(dst, f.Path)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, f.Name)
	dst = append(dst, `,"language":`...)
	dst = appendJSONString(dst, f.Language)
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, f.Size, 10)
	dst = append(dst, `,"lines":`...)
	dst = strconv.AppendInt(dst, int64(f.Lines), 10)
	dst = append(dst, `,"parseStatus":`...)
	dst = appendJSONString(dst, string(f.ParseStatus))
	dst = append(dst, `,"contentHash":`...)
	dst = appendJSONString(dst, f.ContentHash)
	dst = append(dst, `,"unresolved":`...)
	dst = strconv.AppendInt(dst, int64(f.Unresolved), 10)
	dst = append(dst, `,"searchText":`...)
	dst = appendJSONString(dst, f.SearchText)
	dst = append(dst, `,"isTest":`...)
	dst = strconv.AppendBool(dst, f.IsTest)
	return append(dst, "}\n"...)
}

// ParseSymbolLine reads a symbol table's row line (as Rows.EachNode hands
// it): by hand where it has appendSymbolLine's form (scanSymbolLine: any
// line appendSymbolLine writes), else with encoding/json. The line holds no
// Label, Content or ParentID. The search pack reads every symbol row of a
// build through it: encoding/json took 7.4 CPU-s of the Linux kernel's
// 958k nodes (BenchmarkParseSymbolLine: about a fifth of that by hand).
func ParseSymbolLine(line []byte) (schema.Symbol, error) { return parseNodeLine(line, scanSymbolLine) }

// ParseFileLine is ParseSymbolLine for the File table's lines
// (appendFileLine's form).
func ParseFileLine(line []byte) (schema.File, error) { return parseNodeLine(line, scanFileLine) }

// parseNodeLine reads line with scan, or with encoding/json where scan
// does not take it.
func parseNodeLine[T any](line []byte, scan func([]byte) (T, bool)) (T, error) {
	if v, ok := scan(line); ok {
		return v, nil
	}
	var v T
	err := json.Unmarshal(line, &v)
	return v, err
}

// nodeLineScanner reads a node line's fields in the order its append
// function writes them; the first field that does not match fails the
// line (ok false), and every later read does nothing.
type nodeLineScanner struct {
	jsonScanner
	ok bool
}

func newNodeLineScanner(line []byte) *nodeLineScanner {
	return &nodeLineScanner{jsonScanner: jsonScanner{b: bytes.TrimRight(line, "\r\n")}, ok: true}
}

// key reads the field's opening: `{"key":` for the first, `,"key":` after.
func (s *nodeLineScanner) key(k string) bool {
	if s.ok && len(s.b) > len(k)+3 && (s.b[0] == '{' || s.b[0] == ',') && s.b[1] == '"' &&
		string(s.b[2:2+len(k)]) == k && s.b[2+len(k)] == '"' && s.b[3+len(k)] == ':' {
		s.b = s.b[4+len(k):]
		return true
	}
	s.ok = false
	return false
}

func (s *nodeLineScanner) str(k string, dst *string) {
	if s.key(k) {
		*dst, s.ok = s.strEsc()
	}
}

func (s *nodeLineScanner) integer(k string, dst *int) {
	if s.key(k) {
		*dst, s.ok = s.jsonScanner.integer()
	}
}

func (s *nodeLineScanner) boolean(k string, dst *bool) {
	if !s.key(k) {
		return
	}
	switch {
	case s.lit("true"):
		*dst = true
	case s.lit("false"):
		*dst = false
	default:
		s.ok = false
	}
}

// done reads the line's closing brace: ok once the whole line was read.
func (s *nodeLineScanner) done() bool { return s.ok && s.eat('}') && s.end() }

// scanSymbolLine reads a line of appendSymbolLine's form (its strings'
// escapes as jsonScanner.strEsc reads them); ok is false for any other
// line.
func scanSymbolLine(line []byte) (v schema.Symbol, ok bool) {
	s := newNodeLineScanner(line)
	var kind string
	s.str("id", &v.ID)
	s.str("kind", &kind)
	s.str("name", &v.Name)
	s.str("qualifiedName", &v.QualifiedName)
	s.str("filePath", &v.FilePath)
	s.integer("startLine", &v.StartLine)
	s.integer("endLine", &v.EndLine)
	s.str("language", &v.Language)
	s.str("signature", &v.Signature)
	s.str("docComment", &v.DocComment)
	s.boolean("isExported", &v.IsExported)
	s.str("contentHash", &v.ContentHash)
	s.str("searchText", &v.SearchText)
	s.boolean("isTest", &v.IsTest)
	v.Kind = schema.Kind(kind)
	return v, s.done()
}

// scanFileLine is scanSymbolLine for appendFileLine's form.
func scanFileLine(line []byte) (v schema.File, ok bool) {
	s := newNodeLineScanner(line)
	var status string
	var size int
	s.str("id", &v.ID)
	s.str("path", &v.Path)
	s.str("name", &v.Name)
	s.str("language", &v.Language)
	s.integer("size", &size)
	s.integer("lines", &v.Lines)
	s.str("parseStatus", &status)
	s.str("contentHash", &v.ContentHash)
	s.integer("unresolved", &v.Unresolved)
	s.str("searchText", &v.SearchText)
	s.boolean("isTest", &v.IsTest)
	v.Size, v.ParseStatus = int64(size), schema.ParseStatus(status)
	return v, s.done()
}
