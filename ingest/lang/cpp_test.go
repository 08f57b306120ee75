package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestCppExtract(t *testing.T) {
	fx := lxParseFixture(t, "cpp", "cpp/shapes.cpp")
	if fx.Package != "geo" {
		t.Errorf("package %q, want geo", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "geo.Shape", kind: schema.KindClass, name: "Shape", line: 7, endLine: 16, exported: true, doc: "A drawable shape.",
			sig: "class Shape : public Base, private Noncopyable"},
		{qname: "geo.Shape.area", kind: schema.KindMethod, line: 11, exported: true, parent: "geo.Shape"},
		{qname: "geo.Shape.sides", kind: schema.KindMethod, line: 12, exported: true, parent: "geo.Shape", sig: "int sides() const"},
		{qname: "geo.Circle", kind: schema.KindStruct, line: 18, exported: true},
		{qname: "geo.Circle.area", kind: schema.KindMethod, line: 20, exported: true, parent: "geo.Circle"},
		{qname: "geo.max_of", kind: schema.KindFunction, line: 24, exported: true, sig: "T max_of(T a, T b)"},
		{qname: "geo.Shape.Shape", kind: schema.KindConstructor, name: "Shape", line: 26, endLine: 28, exported: true, parent: "geo.Shape",
			sig: "Shape::Shape(int sides)"},
		{qname: "geo.Shape.~Shape", kind: schema.KindConstructor, line: 30, exported: true, parent: "geo.Shape"},
		{qname: "geo.render", kind: schema.KindFunction, line: 33, exported: true, doc: "Render all shapes."},
		{qname: "geo.helper", kind: schema.KindFunction, line: 44, exported: false},
		{qname: "geo.Color", kind: schema.KindEnum, line: 46, exported: true},
		{qname: "geo.Id", kind: schema.KindTypeAlias, line: 48, exported: true},
		{qname: "geo.uint", kind: schema.KindTypeAlias, line: 49, exported: true},
		{qname: "main", kind: schema.KindFunction, line: 53, exported: true},
	})
	// The in-class prototypes Shape(int) and ~Shape() are not symbols: the
	// out-of-line definitions are.
	n := 0
	for _, s := range fx.Symbols {
		if s.Kind == schema.KindConstructor {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d constructors, want 2", n)
	}
	lxContains(t, "imports", lxImports(fx), []string{"system|vector|||1", "quoted|shapes/base.hpp|||2"})
	calls := lxCalls(fx)
	lxContains(t, "calls", calls, []string{
		"geo.Circle.area||compute|call|20",
		"geo.Shape.Shape||init|call|27",
		"geo.render||Circle|new|34",
		"geo.render|std|make_unique|call|35",
		"geo.render|canvas|draw|call|36",
		"geo.render|c|area|call|37",
		"geo.render|s|reset|call|38",
		"geo.render|geo::util|log|call|39",
		"geo.render|std|sort|call|40",
		"geo.render|shapes|begin|call|40",
		"geo.render||compare|reference|40",
		"main|geo|render|call|54",
	})
	// r is a data member of Circle, not a function passed by name.
	lxLacks(t, "calls", calls, []string{"geo.Circle.area||r|reference|20"})
	lxContains(t, "heritage", lxHeritage(fx), []string{
		"geo.Shape|extends|Base|7", "geo.Shape|extends|Noncopyable|7", "geo.Circle|extends|Shape|18",
	})
	// T is a template parameter, not a type to resolve.
	lxLacks(t, "types", lxTypes(fx), []string{"geo.max_of|param|a|T", "geo.max_of|return|return|T"})
	lxContains(t, "types", lxTypes(fx), []string{
		"geo.Shape|field|points_|std::vector",
		"geo.render|param|shapes|std::vector",
		"geo.render|param|canvas|Canvas",
		"geo.render|local|c|Circle",
	})
}

func TestCppUsingImports(t *testing.T) {
	src := []byte("using namespace std;\nusing std::vector;\nnamespace fs = std::filesystem;\nusing Id = long;\n")
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "a.cpp", ByName("cpp"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	have := lxImports(fx)
	lxContains(t, "imports", have, []string{"using|std|||1", "using|std|vector||2", "using|std::filesystem||fs|3"})
	if len(have) != 3 {
		t.Errorf("imports %v: the alias declaration `using Id = long` is not an import", have)
	}
}
