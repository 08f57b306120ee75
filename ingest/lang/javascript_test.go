package lang

import (
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

type symWant struct {
	qn       string
	kind     schema.Kind
	start    int
	end      int
	exported bool
	parent   string
	sig      string
	doc      string
}

func checkSymbols(t *testing.T, facts Facts, want []symWant) {
	t.Helper()
	for _, c := range want {
		s := symbol(t, facts, c.qn, c.kind)
		if s.StartLine != c.start || s.EndLine != c.end || s.IsExported != c.exported || s.ParentID != c.parent ||
			s.Signature != c.sig || s.DocComment != c.doc || s.Label != schema.LabelOf(c.kind) {
			t.Errorf("%s: got lines %d-%d exported %v parent %q sig %q doc %q", c.qn, s.StartLine, s.EndLine, s.IsExported, s.ParentID, s.Signature, s.DocComment)
		}
	}
}

func checkCalls(t *testing.T, facts Facts, want []CallSite) {
	t.Helper()
	for _, w := range want {
		if !hasCall(facts, w) {
			t.Errorf("missing call %+v; have:\n%s", w, callsString(facts))
		}
	}
}

func checkTypes(t *testing.T, facts Facts, want []TypeFact) {
	t.Helper()
	for _, w := range want {
		if !hasType(facts, w) {
			t.Errorf("missing type fact %+v; have:\n%s", w, typesString(facts))
		}
	}
}

func checkHeritage(t *testing.T, facts Facts, want []Heritage) {
	t.Helper()
	if len(facts.Heritage) != len(want) {
		t.Fatalf("heritage = %+v, want %+v", facts.Heritage, want)
	}
	for i, w := range want {
		if facts.Heritage[i] != w {
			t.Errorf("heritage %d = %+v, want %+v", i, facts.Heritage[i], w)
		}
	}
}

func TestJavaScript(t *testing.T) {
	const path = "javascript/app.js"
	const p = path + "#"
	facts := parseFixture(t, path)
	checkSymbols(t, facts, []symWant{
		{"greet", schema.KindFunction, 13, 16, true, "", "function greet(name)", "Greets someone.\n@param {string} name"},
		{"Base", schema.KindClass, 19, 19, false, "", "class Base", "Base of all things."},
		{"Widget", schema.KindClass, 21, 39, true, "", "class Widget extends Base", ""},
		{"Widget.constructor", schema.KindConstructor, 22, 26, true, p + "Widget:class", "constructor(el)", ""},
		{"Widget.render", schema.KindMethod, 28, 32, true, p + "Widget:class", "render()", ""},
		{"Widget.onClick", schema.KindMethod, 34, 36, true, p + "Widget:class", "onClick = (e) =>", ""},
		{"Widget.#secret", schema.KindMethod, 38, 38, false, p + "Widget:class", "#secret()", ""},
		{"handler", schema.KindFunction, 41, 43, true, "", "const handler = async (req, res) =>", ""},
		{"api.get", schema.KindFunction, 46, 46, true, "", "get(url)", ""},
		{"api.post", schema.KindFunction, 47, 47, true, "", "post: (url, body) =>", ""},
		{"outer", schema.KindFunction, 50, 53, true, "", "function outer()", ""},
		{"outer.inner", schema.KindFunction, 51, 51, false, "", "function inner()", ""},
		{"legacy", schema.KindFunction, 55, 55, true, "", "exports.legacy = function ()", ""},
		{"Widget.extra", schema.KindMethod, 56, 56, true, "", "Widget.prototype.extra = function ()", ""},
		{"lazy", schema.KindFunction, 58, 61, false, "", "async function lazy()", ""},
		{"SelectFilter.init", schema.KindFunction, 67, 67, true, "", "init: function (id)", ""},
		{"start", schema.KindFunction, 69, 69, true, "", "start()", ""},
	})
	checkImports(t, facts, []Import{
		{Spec: "react", Names: []string{"default as React", "useState as useS", "useEffect"}, Line: 1},
		{Spec: "node:path", Alias: "path", Line: 2},
		{Spec: "./side-effect.css", Line: 3},
		{Spec: "./util.js", Names: []string{"helper as util"}, Kind: "reexport", Line: 4},
		{Spec: "./all.js", Names: []string{"*"}, Kind: "reexport", Line: 5},
		{Spec: "fs", Alias: "fs", Kind: "require", Line: 6},
		{Spec: "path", Names: []string{"join", "resolve as res"}, Kind: "require", Line: 7},
		{Spec: "./lazy.js", Kind: "dynamic", Line: 59},
	})
	checkCalls(t, facts, []CallSite{
		{CallerID: p + "greet:function", Name: "log", Receiver: "console", Kind: "call", Args: 1, Line: 14},
		{CallerID: p + "greet:function", Name: "format", Kind: "call", Args: 1, Line: 14},
		{CallerID: p + "Widget.constructor:constructor", Name: "constructor", Receiver: "super", Kind: "call", Args: 1, Line: 23},
		{CallerID: p + "Widget.constructor:constructor", Name: "Store", Kind: "new", Args: 1, Line: 24},
		{CallerID: p + "Widget.render:method", Name: "then", Receiver: "this.store.load()", Kind: "call", Args: 1, Line: 29},
		{CallerID: p + "Widget.render:method", Name: "load", Receiver: "this.store", Kind: "call", Args: 0, Line: 29},
		{CallerID: p + "Widget.render:method", Name: "onLoad", Receiver: "this", Kind: "reference", Args: -1, Line: 29},
		{CallerID: p + "Widget.render:method", Name: "handleItem", Kind: "reference", Args: -1, Line: 30},
		{CallerID: p + "Widget.onClick:method", Name: "render", Receiver: "this", Kind: "call", Args: 0, Line: 35},
		{CallerID: p + "handler:function", Name: "greet", Kind: "call", Args: 1, Line: 42},
		{CallerID: p + "api.post:function", Name: "send", Kind: "call", Args: 2, Line: 47},
		{CallerID: p + "outer.inner:function", Name: "deep", Kind: "call", Args: 0, Line: 51},
		{CallerID: p + "outer:function", Name: "inner", Kind: "call", Args: 0, Line: 52},
		{CallerID: p + "legacy:function", Name: "oldThing", Kind: "call", Args: 0, Line: 55},
		{CallerID: p + "Widget.extra:method", Name: "render", Receiver: "this", Kind: "call", Args: 0, Line: 56},
		{CallerID: "", Name: "greet", Kind: "call", Args: 1, Line: 63},
		{CallerID: p + "SelectFilter.init:function", Name: "quickElement", Kind: "call", Args: 1, Line: 67},
		{CallerID: p + "start:function", Name: "boot", Kind: "call", Args: 0, Line: 69},
	})
	for _, c := range facts.Calls {
		if c.Name == "require" || c.Name == "import" || c.Name == "req" || c.Name == "url" {
			t.Errorf("import or local recorded as call: %+v", c)
		}
	}
	checkHeritage(t, facts, []Heritage{{ChildID: p + "Widget:class", Parent: "Base", Kind: "extends", Line: 21}})
	checkTypes(t, facts, []TypeFact{
		{Scope: p + "Widget:class", Name: "store", Type: "Store", Kind: "field"},
		{Scope: p + "Widget:class", Name: "id", Type: "call:makeId", Kind: "field"},
		{Scope: p + "Widget.render:method", Name: "this", Type: "Widget", Kind: "param"},
	})
}

func TestTypeScript(t *testing.T) {
	const path = "typescript/service.ts"
	const p = path + "#"
	facts := parseFixture(t, path)
	checkSymbols(t, facts, []symWant{
		{"Saveable", schema.KindInterface, 6, 9, true, "", "interface Saveable<T> extends Base, Other.Thing", "A thing that can be saved."},
		{"Saveable.save", schema.KindMethod, 7, 7, true, p + "Saveable:interface", "save(item: T): Promise<Result>", ""},
		{"ID", schema.KindTypeAlias, 11, 11, true, "", "type ID = string | number;", ""},
		{"Color", schema.KindEnum, 13, 13, true, "", "enum Color", ""},
		{"UserService", schema.KindClass, 16, 39, true, "", "class UserService extends BaseService<User> implements Saveable<User>, Logger", ""},
		{"UserService.constructor", schema.KindConstructor, 20, 22, true, p + "UserService:class", "constructor(private readonly db: Database, name?: string)", ""},
		{"UserService.find", schema.KindMethod, 25, 30, true, p + "UserService:class", "public async find(id: ID): Promise<User | null>", "Finds a user."},
		{"UserService.find2", schema.KindMethod, 34, 34, true, p + "UserService:class", "find2(id: any): User", ""},
		{"UserService.log", schema.KindMethod, 36, 38, false, p + "UserService:class", "protected log(msg: string): void", ""},
		{"Shape", schema.KindClass, 41, 43, true, "", "abstract class Shape", ""},
		{"Shape.area", schema.KindMethod, 42, 42, true, p + "Shape:class", "abstract area(): number", ""},
		{"Util.clamp", schema.KindFunction, 46, 46, true, "", "function clamp(n: number): number", ""},
		{"makeService", schema.KindFunction, 49, 51, true, "", "function makeService(db: Database): UserService", ""},
	})
	n := 0
	for _, s := range facts.Symbols {
		if s.Name == "find2" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("overload signatures became symbols: %d find2", n)
	}
	checkImports(t, facts, []Import{
		{Spec: "@angular/core", Names: []string{"Injectable"}, Line: 1},
		{Spec: "./repo", Names: []string{"Repo"}, Line: 2},
		{Spec: "fs", Alias: "fs", Kind: "require", Line: 3},
	})
	checkCalls(t, facts, []CallSite{
		{CallerID: "", Name: "Injectable", Kind: "call", Args: 0, Line: 15},
		{CallerID: p + "UserService.find:method", Name: "get", Receiver: "this.db", Kind: "call", Args: 1, Line: 26},
		{CallerID: p + "UserService.find:method", Name: "log", Receiver: "this", Kind: "call", Args: 1, Line: 28},
		{CallerID: p + "UserService.find2:method", Name: "load", Receiver: "this.repo", Kind: "call", Args: 1, Line: 34},
		{CallerID: p + "makeService:function", Name: "UserService", Kind: "new", Args: 1, Line: 50},
	})
	checkHeritage(t, facts, []Heritage{
		{ChildID: p + "Saveable:interface", Parent: "Base", Kind: "extends", Line: 6},
		{ChildID: p + "Saveable:interface", Parent: "Other.Thing", Kind: "extends", Line: 6},
		{ChildID: p + "UserService:class", Parent: "BaseService", Kind: "extends", Line: 16},
		{ChildID: p + "UserService:class", Parent: "Saveable", Kind: "implements", Line: 16},
		{ChildID: p + "UserService:class", Parent: "Logger", Kind: "implements", Line: 16},
	})
	checkTypes(t, facts, []TypeFact{
		{Scope: p + "Saveable.save:method", Name: "return", Type: "Result", Kind: "return"},
		{Scope: p + "Saveable:interface", Name: "id", Type: "string", Kind: "field"},
		{Scope: p + "UserService:class", Name: "cache", Type: "Map", Kind: "field"},
		{Scope: p + "UserService:class", Name: "repo", Type: "UserRepo", Kind: "field"},
		{Scope: p + "UserService:class", Name: "db", Type: "Database", Kind: "field"},
		{Scope: p + "UserService.constructor:constructor", Name: "db", Type: "Database", Kind: "param"},
		{Scope: p + "UserService.find:method", Name: "return", Type: "User", Kind: "return"},
		{Scope: p + "UserService.find:method", Name: "u", Type: "User", Kind: "local"},
		{Scope: p + "UserService.find:method", Name: "r", Type: "call:createReport", Kind: "local"},
		{Scope: p + "makeService:function", Name: "return", Type: "UserService", Kind: "return"},
	})
	if hasType(facts, TypeFact{Scope: p + "UserService:class", Name: "name", Type: "string", Kind: "field"}) {
		t.Error("plain constructor parameter recorded as a field")
	}
}

func TestTSX(t *testing.T) {
	const path = "typescript/view.tsx"
	const p = path + "#"
	facts := parseFixture(t, path)
	if facts.Language != "tsx" {
		t.Errorf("language = %s", facts.Language)
	}
	checkSymbols(t, facts, []symWant{
		{"Props", schema.KindTypeAlias, 4, 4, false, "", "type Props = { label: string };", ""},
		{"Panel", schema.KindFunction, 6, 14, true, "", "function Panel({ label }: Props)", ""},
		{"Panel.onClick", schema.KindFunction, 7, 7, false, "", "const onClick = () =>", ""},
		{"Header", schema.KindFunction, 16, 16, true, "", "const Header = (props: Props): JSX.Element =>", ""},
		{"Fancy", schema.KindFunction, 18, 20, true, "", "const Fancy = React.memo(({ label }: Props) =>", ""},
	})
	checkCalls(t, facts, []CallSite{
		{CallerID: p + "Panel.onClick:function", Name: "track", Kind: "call", Args: 1, Line: 7},
		{CallerID: p + "Panel:function", Name: "Button", Kind: "call", Args: -1, Line: 10},
		{CallerID: p + "Panel:function", Name: "onClick", Kind: "reference", Args: -1, Line: 10},
		{CallerID: p + "Panel:function", Name: "hover", Receiver: "handlers", Kind: "reference", Args: -1, Line: 10},
		{CallerID: p + "Panel:function", Name: "Star", Receiver: "Icons", Kind: "call", Args: -1, Line: 11},
		{CallerID: p + "Header:function", Name: "format", Kind: "call", Args: 1, Line: 16},
		{CallerID: "", Name: "memo", Receiver: "React", Kind: "call", Args: 1, Line: 18},
		{CallerID: p + "Fancy:function", Name: "shout", Kind: "call", Args: 1, Line: 19}, // wrapped component
	})
	for _, c := range facts.Calls {
		if c.Name == "div" || c.Name == "h1" || (c.Name == "label" && c.Receiver == "") {
			t.Errorf("intrinsic element or local recorded: %+v", c)
		}
	}
	checkTypes(t, facts, []TypeFact{{Scope: p + "Header:function", Name: "props", Type: "Props", Kind: "param"}})
}
