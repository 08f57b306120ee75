package lang

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func init() {
	register(&Language{
		Name:       "typescript",
		Extensions: []string{".ts", ".mts", ".cts", ".d.ts"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsts.LanguageTypescript()) },
		Extract:    extractES,
	})
	register(&Language{
		Name:       "tsx",
		Extensions: []string{".tsx"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsts.LanguageTSX()) },
		Extract:    extractES,
	})
}

// TypeScript-only declarations, on the shared JS/TS extractor
// (javascript.go): interfaces (Interface; their method signatures are
// Methods of the interface, property signatures field facts, `extends`
// heritage), type aliases (type_alias) and enums (enum).

func (x *esExtractor) tsInterface(n, outer *sitter.Node, exported bool, c esCtx) {
	name := fieldText(x.f, n, "name")
	body := field(n, "body")
	id := x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          schema.KindInterface,
		Signature:     signatureOf(x.f, n, body),
		DocComment:    docComment(x.f, outer),
		IsExported:    exported,
	}, n)
	namedChildren(n, func(e *sitter.Node) {
		if kindOf(e) == "extends_type_clause" {
			namedChildren(e, func(t *sitter.Node) { x.heritage(id, t, "extends") })
		}
	})
	qual := schema.Qualify(c.qual, name)
	namedChildren(body, func(m *sitter.Node) {
		switch kindOf(m) {
		case "method_signature":
			mname := fieldText(x.f, m, "name")
			mid := x.f.AddSymbol(schema.Symbol{
				Name:          mname,
				QualifiedName: schema.Qualify(qual, mname),
				Kind:          schema.KindMethod,
				Signature:     signatureOf(x.f, m, nil),
				DocComment:    docComment(x.f, m),
				IsExported:    exported,
				ParentID:      id,
			}, m)
			x.typeFact(mid, "return", x.annotation(field(m, "return_type")), "return", m)
		case "property_signature":
			nm := field(m, "name")
			x.typeFact(id, x.f.Text(nm), x.annotation(field(m, "type")), "field", nm)
		}
	})
}

func (x *esExtractor) tsTypeAlias(n, outer *sitter.Node, exported bool, c esCtx) {
	name := fieldText(x.f, n, "name")
	x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          schema.KindTypeAlias,
		Signature:     signatureOf(x.f, n, nil),
		DocComment:    docComment(x.f, outer),
		IsExported:    exported,
	}, n)
}

func (x *esExtractor) tsEnum(n, outer *sitter.Node, exported bool, c esCtx) {
	name := fieldText(x.f, n, "name")
	x.f.AddSymbol(schema.Symbol{
		Name:          name,
		QualifiedName: schema.Qualify(c.qual, name),
		Kind:          schema.KindEnum,
		Signature:     signatureOf(x.f, n, field(n, "body")),
		DocComment:    docComment(x.f, outer),
		IsExported:    exported,
	}, n)
}
