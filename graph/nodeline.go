package graph

// This file owns the symbol and file rows' lines, the node rows a build
// writes most of (the Linux kernel: 1.4 million symbols, 86 thousand
// files): they are appended by hand, as edge rows are (edgeline.go),
// instead of through encoding/json's reflection. Each line holds the
// values encodeRow's line for the same struct holds, field for field and
// in the same order (TestNodeLinesAreEncodeRows).

import (
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
