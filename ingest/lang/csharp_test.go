package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestCSharpExtract(t *testing.T) {
	fx := lxParseFixture(t, "csharp", "csharp/Service.cs")
	if fx.Package != "Acme.Orders" {
		t.Errorf("package %q, want Acme.Orders", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "OrderService", kind: schema.KindClass, line: 11, endLine: 37, exported: true, doc: "Handles orders.",
			sig: "public class OrderService : BaseService, IOrderService, IDisposable"},
		{qname: "OrderService.OrderService", kind: schema.KindConstructor, line: 16, exported: true, parent: "OrderService",
			sig: "public OrderService(IRepository<Order> repo)"},
		{qname: "OrderService.Place", kind: schema.KindMethod, line: 22, endLine: 32, exported: true, parent: "OrderService",
			doc: "Places an order.", sig: "public async Task<Order> Place(Order order, int qty)"},
		{qname: "OrderService.Process", kind: schema.KindMethod, line: 34, exported: false, parent: "OrderService"},
		{qname: "OrderService.Dispose", kind: schema.KindMethod, line: 36, exported: true, parent: "OrderService"},
		{qname: "IOrderService", kind: schema.KindInterface, line: 39, exported: true},
		{qname: "IOrderService.Place", kind: schema.KindMethod, line: 41, exported: true, parent: "IOrderService"},
		{qname: "Point", kind: schema.KindStruct, line: 44, exported: true},
		{qname: "Money", kind: schema.KindRecord, line: 46, exported: true},
		{qname: "Status", kind: schema.KindEnum, line: 48, exported: true},
		{qname: "Internal", kind: schema.KindClass, line: 50, exported: false},
	})
	if len(fx.Symbols) != 11 {
		t.Errorf("%d symbols, want 11 (properties and fields are not symbols)", len(fx.Symbols))
	}
	lxContains(t, "imports", lxImports(fx), []string{
		"|System|||1", "|System.Collections.Generic|||2", "|System.IO||IO|3", "static|System.Math|||4",
	})
	calls := lxCalls(fx)
	lxContains(t, "calls", calls, []string{
		"OrderService.Place||Validator|new|24",
		"OrderService.Place||Validator|new|25",
		"OrderService.Place|validator|Check|call|26",
		"OrderService.Place|this|Log|call|27",
		"OrderService.Place|_repo|Save|call|28",
		"OrderService.Place|Helpers|Audit|call|29",
		"OrderService.Place|items|ForEach|call|30",
		"OrderService.Place||Process|reference|30",
		"OrderService.Place|Task|FromResult|call|31",
		"OrderService.Process|Console|WriteLine|call|34",
	})
	lxContains(t, "heritage", lxHeritage(fx), []string{
		"OrderService|extends|BaseService|11",
		"OrderService|implements|IOrderService|11",
		"OrderService|implements|IDisposable|11",
		"Internal|extends|List|50",
	})
	lxContains(t, "types", lxTypes(fx), []string{
		"OrderService|field|_repo|IRepository",
		"OrderService.OrderService|param|repo|IRepository",
		"OrderService.Place|return|return|Task",
		"OrderService.Place|param|order|Order",
		"OrderService.Place|local|validator|Validator",
		"OrderService.Place|local|v2|Validator",
	})
}

// A base declared in the same file decides extends/implements by its kind,
// whatever its name looks like.
func TestCSharpHeritageUsesLocalKinds(t *testing.T) {
	src := []byte(`namespace N;
interface Runner { void Run(); }
class Impl : Runner { public void Run() { } }
class ICounter { }
class Sub : ICounter, IThing { }
interface IA : IB { }
`)
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "x.cs", ByName("csharp"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	if fx.Package != "N" {
		t.Errorf("file-scoped namespace: package %q, want N", fx.Package)
	}
	lxContains(t, "heritage", lxHeritage(fx), []string{
		"Impl|implements|Runner|3",
		"Sub|extends|ICounter|5",
		"Sub|implements|IThing|5",
		"IA|extends|IB|6",
	})
}
