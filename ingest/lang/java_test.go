package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestJava(t *testing.T) {
	const path = "java/com/acme/OrderService.java"
	const p = path + "#"
	facts := parseFixture(t, path)
	if facts.Package != "com.acme.orders" {
		t.Errorf("package = %q", facts.Package)
	}
	cls := p + "OrderService:class"
	checkSymbols(t, facts, []symWant{
		{"OrderService", schema.KindClass, 11, 63, true, "", "public class OrderService extends BaseService<Order> implements Service, Auditable", "Places and tracks orders."},
		{"OrderService.OrderService", schema.KindConstructor, 15, 18, true, cls, "public OrderService(OrderRepository repo)", ""},
		{"OrderService.place", schema.KindMethod, 25, 37, true, cls, "@Override public Order place(Order order, String... tags)", "Places one order."},
		{"OrderService.audit", schema.KindMethod, 43, 45, false, cls, "private void audit(Order o)", ""},
		{"OrderService.Inner", schema.KindClass, 47, 49, false, "", "static class Inner", ""},
		{"OrderService.Inner.deep", schema.KindMethod, 48, 48, false, p + "OrderService.Inner:class", "void deep()", ""},
		{"OrderService.Listener", schema.KindInterface, 51, 53, false, "", "interface Listener extends java.util.EventListener", ""},
		{"OrderService.Listener.onOrder", schema.KindMethod, 52, 52, true, p + "OrderService.Listener:interface", "void onOrder(Order o)", ""},
		{"OrderService.Status", schema.KindEnum, 55, 58, false, "", "enum Status implements Labeled", ""},
		{"OrderService.Status.label", schema.KindMethod, 57, 57, false, p + "OrderService.Status:enum", "String label()", ""},
		{"OrderService.Line", schema.KindRecord, 60, 60, false, "", "record Line(String sku, int qty)", ""},
		{"OrderService.Audited", schema.KindInterface, 62, 62, false, "", "@interface Audited", ""},
	})
	ids := map[string]bool{}
	for _, s := range facts.Symbols {
		ids[s.ID] = true
		if s.Name == "run" {
			t.Errorf("anonymous class method became a symbol: %s", s.ID)
		}
	}
	for _, id := range []string{p + "OrderService.place:method~2", p + "OrderService.OrderService:constructor~2"} {
		if !ids[id] {
			t.Errorf("overload %s missing", id)
		}
	}
	checkImports(t, facts, []Import{
		{Spec: "java.util.List", Line: 3},
		{Spec: "java.util", Names: []string{"*"}, Kind: "wildcard", Line: 4},
		{Spec: "java.util.Objects.requireNonNull", Kind: "static", Line: 5},
		{Spec: "org.junit.Assert", Names: []string{"*"}, Kind: "static", Line: 6},
	})
	ctor := p + "OrderService.OrderService:constructor"
	place := p + "OrderService.place:method"
	checkCalls(t, facts, []CallSite{
		{CallerID: "", Name: "ArrayList", Kind: "new", Args: 0, Line: 13},
		{CallerID: ctor, Name: "constructor", Receiver: "super", Kind: "call", Args: 1, Line: 16},
		{CallerID: ctor, Name: "requireNonNull", Kind: "call", Args: 1, Line: 17},
		{CallerID: ctor + "~2", Name: "constructor", Receiver: "this", Kind: "call", Args: 1, Line: 21},
		{CallerID: ctor + "~2", Name: "OrderRepository", Kind: "new", Args: 0, Line: 21},
		{CallerID: place, Name: "Validator", Kind: "new", Args: 1, Line: 27},
		{CallerID: place, Name: "check", Receiver: "validator", Kind: "call", Args: 0, Line: 28},
		{CallerID: place, Name: "save", Receiver: "repo", Kind: "call", Args: 1, Line: 29},
		{CallerID: place, Name: "audit", Receiver: "this", Kind: "reference", Args: -1, Line: 30},
		{CallerID: place, Name: "map", Receiver: "items.stream()", Kind: "call", Args: 1, Line: 31},
		{CallerID: place, Name: "Order", Kind: "new", Args: -1, Line: 31},
		{CallerID: place, Name: "println", Receiver: "System.out", Kind: "reference", Args: -1, Line: 31},
		{CallerID: place, Name: "notifyAll", Kind: "call", Args: 1, Line: 32}, // inside a lambda
		{CallerID: place, Name: "helper", Kind: "call", Args: 0, Line: 34},    // inside an anonymous class
		{CallerID: place + "~2", Name: "place", Kind: "call", Args: 1, Line: 40},
		{CallerID: p + "OrderService.audit:method", Name: "audit", Receiver: "super", Kind: "call", Args: 1, Line: 44},
		{CallerID: p + "OrderService.Inner.deep:method", Name: "util", Receiver: "OrderService", Kind: "call", Args: 0, Line: 48},
	})
	checkHeritage(t, facts, []Heritage{
		{ChildID: cls, Parent: "BaseService", Kind: "extends", Line: 11},
		{ChildID: cls, Parent: "Service", Kind: "implements", Line: 11},
		{ChildID: cls, Parent: "Auditable", Kind: "implements", Line: 11},
		{ChildID: p + "OrderService.Listener:interface", Parent: "java.util.EventListener", Kind: "extends", Line: 51},
		{ChildID: p + "OrderService.Status:enum", Parent: "Labeled", Kind: "implements", Line: 55},
	})
	checkTypes(t, facts, []TypeFact{
		{Scope: cls, Name: "repo", Type: "OrderRepository", Kind: "field"},
		{Scope: cls, Name: "cache", Type: "List", Kind: "field"},
		{Scope: place, Name: "this", Type: "OrderService", Kind: "param"},
		{Scope: place, Name: "order", Type: "Order", Kind: "param"},
		{Scope: place, Name: "tags", Type: "String", Kind: "param"},
		{Scope: place, Name: "return", Type: "Order", Kind: "return"},
		{Scope: place, Name: "validator", Type: "Validator", Kind: "local"},
		{Scope: place, Name: "saved", Type: "Order", Kind: "local"},
		{Scope: p + "OrderService.Line:record", Name: "qty", Type: "int", Kind: "field"},
	})
	if hasType(facts, TypeFact{Scope: p + "OrderService.audit:method", Name: "return", Type: "void", Kind: "return"}) {
		t.Error("void return recorded")
	}
}
