package embed

import (
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TemplateVersion changes whenever DocumentText, DocumentHeader or
// FileSummaryText change what they produce, so that stored vectors keyed by
// Chunk.Hash are recomputed.
const TemplateVersion = 1

// DocumentHeader is the part of a symbol's document that every chunk
// repeats:
//
//	<kind> <qualified name>
//	file: <path>
//	<signature>            (when known)
//	<doc comment>          (when present)
//
// Lines with nothing to say are left out.
func DocumentHeader(s schema.Symbol) string {
	var b strings.Builder
	name := s.QualifiedName
	if name == "" {
		name = s.Name
	}
	b.WriteString(string(s.Kind))
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteString("\nfile: ")
	b.WriteString(s.FilePath)
	if sig := strings.TrimSpace(s.Signature); sig != "" {
		b.WriteByte('\n')
		b.WriteString(sig)
	}
	if doc := strings.TrimSpace(s.DocComment); doc != "" {
		b.WriteByte('\n')
		b.WriteString(doc)
	}
	return b.String()
}

// DocumentText is the text embedded for a Function, Method, Class or
// Interface: DocumentHeader, a blank line, then the body (Symbol.Content).
// Long texts are not embedded whole: SymbolChunks splits them.
func DocumentText(s schema.Symbol) string {
	h := DocumentHeader(s)
	if body := strings.TrimSpace(s.Content); body != "" {
		return h + "\n\n" + body
	}
	return h
}

// FileSummaryText is the text embedded for a file: its path and language,
// then the symbols it defines in source order ("kind name" each), so a
// query about a file's purpose can find it. It is truncated like any
// document (512 tokens).
func FileSummaryText(f schema.File, defined []schema.Symbol) string {
	var b strings.Builder
	b.WriteString("file ")
	b.WriteString(f.Path)
	if f.Language != "" {
		b.WriteString(" (")
		b.WriteString(f.Language)
		b.WriteByte(')')
	}
	if len(defined) > 0 {
		b.WriteString("\ndefines:")
		for _, s := range defined {
			b.WriteString("\n")
			b.WriteString(string(s.Kind))
			b.WriteByte(' ')
			if s.QualifiedName != "" {
				b.WriteString(s.QualifiedName)
			} else {
				b.WriteString(s.Name)
			}
		}
	}
	return b.String()
}
