package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

func TestPHPExtract(t *testing.T) {
	fx := lxParseFixture(t, "php", "php/src/UserController.php")
	if fx.Package != `App\Http\Controllers` {
		t.Errorf("package %q, want App\\Http\\Controllers", fx.Package)
	}
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "UserController", kind: schema.KindClass, line: 15, endLine: 40, exported: true, doc: "Handles users.",
			sig: `final class UserController extends Controller implements Responsable, \JsonSerializable`},
		{qname: "UserController.__construct", kind: schema.KindConstructor, line: 21, exported: true, parent: "UserController"},
		{qname: "UserController.show", kind: schema.KindMethod, line: 28, endLine: 37, exported: true, parent: "UserController",
			doc: "Show a user.", sig: "public function show(int $id): User"},
		{qname: "UserController.fmt", kind: schema.KindMethod, line: 39, exported: false, parent: "UserController"},
		{qname: "Responsable", kind: schema.KindInterface, line: 42, exported: true},
		{qname: "Responsable.toResponse", kind: schema.KindMethod, line: 42, exported: true, parent: "Responsable"},
		{qname: "Loggable", kind: schema.KindTrait, line: 44, exported: true},
		{qname: "Loggable.log", kind: schema.KindMethod, line: 44, exported: false, parent: "Loggable"},
		{qname: "Suit", kind: schema.KindEnum, line: 46, exported: true},
		{qname: "boot", kind: schema.KindFunction, line: 48, exported: true, sig: "function boot(): void"},
	})
	lxContains(t, "imports", lxImports(fx), []string{
		`|App\Models\User|User||6`,
		`|App\Services\Mailer|Mailer||7`,
		`|App\Services\Logger|Logger|Log|7`,
		`function|App\Support\helper|helper||8`,
		`relative|../bootstrap.php|||9`,
		`|config.php|||10`,
	})
	lxContains(t, "calls", lxCalls(fx), []string{
		"UserController.__construct|parent|__construct|call|23",
		"UserController.show|User|find|call|30",
		"UserController.show|$this->mailer|send|call|31",
		"UserController.show||Log|new|32",
		"UserController.show|static|boot|call|33",
		"UserController.show||helper|call|34",
		"UserController.fmt||strtoupper|call|39",
	})
	lxContains(t, "heritage", lxHeritage(fx), []string{
		"UserController|extends|Controller|15",
		"UserController|implements|Responsable|15",
		"UserController|implements|JsonSerializable|15",
		"UserController|include|HasEvents|17",
		"UserController|include|Loggable|17",
	})
	lxContains(t, "types", lxTypes(fx), []string{
		"UserController|field|mailer|Mailer",
		"UserController.__construct|param|$mailer|Mailer",
		"UserController.show|return|return|User",
		"UserController.show|local|$log|Log",
		"UserController.fmt|param|$u|User",
	})
}

func TestPHPUseKindsAndBracedNamespace(t *testing.T) {
	src := []byte(`<html><?php
namespace Lib\Util {
use function A\{x, y as z};
use const A\C;
class Box { public function __construct(private ?Store $store) {} function get() { return \Lib\Make::it(new \Lib\Item()); } }
}
`)
	p := NewParser()
	defer p.Close()
	fx, status, err := p.Parse(t.Context(), "lib/Box.php", ByName("php"), src)
	if err != nil || status != schema.ParseOK {
		t.Fatalf("parse: %v %s", err, status)
	}
	if fx.Package != `Lib\Util` {
		t.Errorf("package %q", fx.Package)
	}
	lxContains(t, "imports", lxImports(fx), []string{`function|A\x|x||3`, `function|A\y|y|z|3`, `const|A\C|C||4`})
	lxCheckSymbols(t, fx, []lxSymWant{
		{qname: "Box.get", kind: schema.KindMethod, line: 5, exported: true, parent: "Box"},
	})
	lxContains(t, "types", lxTypes(fx), []string{"Box|field|store|Store", "Box.__construct|param|$store|Store"})
	lxContains(t, "calls", lxCalls(fx), []string{`Box.get|Lib\Make|it|call|5`, `Box.get|Lib|Item|new|5`})
}
