package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestRubyExtract(t *testing.T) {
	fx := lxParseFixture(t, "ruby", "ruby/lib/billing.rb")
	if fx.Package != "" {
		t.Errorf("package %q, want empty", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "Billing", kind: schema.KindModule, line: 5, endLine: 35, exported: true, doc: "Billing namespace.", sig: "module Billing"},
		{qname: "Billing.Invoice", kind: schema.KindClass, name: "Invoice", line: 8, endLine: 34, exported: true,
			doc: "An invoice.\nHas lines.", sig: "class Invoice < Base::Record"},
		{qname: "Billing.Invoice.initialize", kind: schema.KindConstructor, line: 12, exported: true, parent: "Billing.Invoice"},
		{qname: "Billing.Invoice.total", kind: schema.KindMethod, line: 17, endLine: 23, exported: true, parent: "Billing.Invoice",
			doc: "Total amount.", sig: "def total"},
		{qname: "Billing.Invoice.build", kind: schema.KindMethod, line: 25, exported: true, parent: "Billing.Invoice", sig: "def self.build(*args)"},
		{qname: "Billing.Invoice.secret", kind: schema.KindMethod, line: 31, exported: false, parent: "Billing.Invoice"},
		{qname: "top_level", kind: schema.KindFunction, line: 37, exported: true},
	})
	lxContains(t, "imports", lxImports(fx), []string{"|json|||1", "relative|support/helpers|||2"})
	calls := lxCalls(fx)
	lxContains(t, "calls", calls, []string{
		"Billing.Invoice.total|@lines|sum|call|18",
		"Billing.Invoice.total|l|amount|call|18",
		"Billing.Invoice.total||compute|call|19",
		"Billing.Invoice.total||tax_rate|call|19",
		"Billing.Invoice.total|self.class|audit!|call|20",
		"Billing.Invoice.total||Formatter|new|21",
		"Billing.Invoice.total|Formatter.new(self)|render|call|21",
		"Billing.Invoice.total||print_line|reference|22",
		"Billing.Invoice.build||new|call|26",
		"Billing.Invoice.secret||helper|call|32",
		"top_level||puts|call|38",
		"top_level|Billing::Invoice|build|call|39",
	})
	// require is an import, block and method parameters are locals.
	lxLacks(t, "calls", calls, []string{"||require|call|1", "Billing.Invoice.total||l|call|18", "top_level||x|call|38"})
	lxContains(t, "heritage", lxHeritage(fx), []string{
		"Billing.Invoice|extends|Base::Record|8",
		"Billing.Invoice|include|Comparable|9",
		"Billing.Invoice|include|Forwardable|10",
	})
}

func TestRubyVisibilityAndTypes(t *testing.T) {
	src := []byte(`class Repo
  def find(id)
    conn = Db::Conn.new(id)
    @cache = Cache.new
    conn.query(id)
  end

  private def hidden; end

  def listed; end
  private :listed

  class << self
    def create; Repo.new; end
  end

  protected

  def prot; end
end
`)
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "app/repo.rb", ByName("ruby"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "Repo.find", kind: schema.KindMethod, line: 2, exported: true, parent: "Repo"},
		{qname: "Repo.hidden", kind: schema.KindMethod, line: 8, exported: false, parent: "Repo"},
		{qname: "Repo.listed", kind: schema.KindMethod, line: 10, exported: false, parent: "Repo"},
		{qname: "Repo.create", kind: schema.KindMethod, line: 14, exported: true, parent: "Repo"},
		{qname: "Repo.prot", kind: schema.KindMethod, line: 19, exported: false, parent: "Repo"},
	})
	lxContains(t, "types", lxTypes(fx), []string{"Repo.find|local|conn|Db::Conn", "Repo|field|@cache|Cache"})
	lxContains(t, "calls", lxCalls(fx), []string{
		"Repo.find|Db|Conn|new|3", "Repo.find|conn|query|call|5", "Repo.create||Repo|new|14",
	})
	lxLacks(t, "calls", lxCalls(fx), []string{"Repo.find||conn|call|5", "Repo.find||id|call|5"})
}
