package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/discover"
	"github.com/gitnexus/gitnexus/ingest/lang"
	"github.com/gitnexus/gitnexus/ingest/resolve"
)

// memSink keeps what the pipeline streams.
type memSink struct {
	folders []schema.Folder
	files   []schema.File
	symbols []schema.Symbol
	edges   []schema.Edge
}

func (m *memSink) AddFolder(f schema.Folder) error { m.folders = append(m.folders, f); return nil }
func (m *memSink) AddFile(f schema.File) error     { m.files = append(m.files, f); return nil }
func (m *memSink) AddSymbol(s schema.Symbol) error { m.symbols = append(m.symbols, s); return nil }
func (m *memSink) AddEdge(e schema.Edge) error     { m.edges = append(m.edges, e); return nil }

// run writes files into a temp dir (no git: the walk discovers them) and
// runs the pipeline on it.
func run(t *testing.T, files map[string]string) (*memSink, *Result) {
	t.Helper()
	dir := t.TempDir()
	for p, src := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sink := &memSink{}
	res, err := Run(context.Background(), dir, sink, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sink, res
}

// edgeSet renders edges of one type as "from -> to (reason)", with symbol
// ids shortened to file#name.
func edgeSet(s *memSink, t schema.RelType) map[string]bool {
	out := map[string]bool{}
	for _, e := range s.edges {
		if e.Type == t {
			out[fmt.Sprintf("%s -> %s (%s)", short(e.From), short(e.To), e.Reason)] = true
		}
	}
	return out
}

func short(id string) string {
	if i := strings.LastIndexByte(id, ':'); i > 0 && strings.Contains(id, "#") {
		return id[:i]
	}
	return id
}

func want(t *testing.T, got map[string]bool, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !got[w] {
			t.Errorf("missing edge %q", w)
		}
	}
	if t.Failed() {
		var ks []string
		for k := range got {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		t.Logf("have:\n  %s", strings.Join(ks, "\n  "))
	}
}

func wantNot(t *testing.T, got map[string]bool, nots ...string) {
	t.Helper()
	for _, n := range nots {
		if got[n] {
			t.Errorf("unexpected edge %q", n)
		}
	}
}

func TestGoResolution(t *testing.T) {
	sink, res := run(t, map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"main.go": `package main

import (
	"net/http"

	"example.com/shop/server"
	st "example.com/shop/store"
)

func main() {
	db := st.Open("x")
	s := server.New(db)
	http.HandleFunc("/orders", s.HandleOrder)
	s.Run()
}
`,
		"server/server.go": `package server

import (
	"net/http"

	"example.com/shop/store"
)

type Server struct {
	db    store.Store
	local *store.DB
	Base
}

type Base struct{}

func (b *Base) Close() {}

func New(db store.Store) *Server { return &Server{db: db} }

func (s *Server) HandleOrder(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	_ = q
	s.db.SaveOrder(store.Order{})
	s.local.Flush()
	s.audit()
	s.Close()
	go s.background()
	apply(s.audit)
}

func (s *Server) Run() { s.HandleOrder(nil, nil) }

func apply(f func()) { f() }
`,
		"server/audit.go": `package server

func (s *Server) audit() { helper() }

func (s *Server) background() {}

func helper() {}
`,
		"store/store.go": `package store

type Order struct{ ID string }

type Store interface {
	SaveOrder(o Order) error
}

type DB struct{}

func Open(path string) *DB { return &DB{} }

func (d *DB) SaveOrder(o Order) error { return nil }

func (d *DB) Flush() {}
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"main.go#main -> store/store.go#Open (import-scoped)",                                  // aliased package import
		"main.go#main -> server/server.go#New (import-scoped)",                                 // package-qualified call
		"main.go#main -> server/server.go#Server.Run (receiver-typed)",                         // local typed from New's result
		"main.go#main -> server/server.go#Server.HandleOrder (reference)",                      // method value passed as a callback
		"server/server.go#Server.HandleOrder -> store/store.go#DB.Flush (receiver-typed)",      // field of a pointer type
		"server/server.go#Server.HandleOrder -> server/audit.go#Server.audit (receiver-typed)", // method in another file
		"server/server.go#Server.HandleOrder -> server/server.go#Base.Close (receiver-typed)",  // promoted through embedding
		"server/server.go#Server.HandleOrder -> server/audit.go#Server.background (receiver-typed)",
		"server/server.go#Server.HandleOrder -> server/server.go#apply (same-file)",
		"server/audit.go#Server.audit -> server/audit.go#helper (same-file)",
		"server/server.go#Server.Run -> server/server.go#Server.HandleOrder (receiver-typed)",
	)
	// s.db is an interface value: no edge to a concrete method.
	wantNot(t, calls, "server/server.go#Server.HandleOrder -> store/store.go#DB.SaveOrder (receiver-typed)")

	impl := edgeSet(sink, schema.RelImplements)
	want(t, impl, "store/store.go#DB -> store/store.go#Store (method-set)")
	ext := edgeSet(sink, schema.RelExtends)
	want(t, ext, "server/server.go#Server -> server/server.go#Base (declared)")

	imps := edgeSet(sink, schema.RelImports)
	want(t, imps, "main.go -> server/server.go (module-rule)", "main.go -> server/audit.go (module-rule)", "main.go -> store/store.go (module-rule)")

	// net/http calls are external, not unresolved.
	if res.Resolution == nil || res.Resolution.External == 0 {
		t.Errorf("resolution stats: %+v", res.Resolution)
	}
	for _, f := range sink.files {
		if f.Unresolved != 0 && strings.HasSuffix(f.Path, ".go") {
			t.Errorf("%s: %d unresolved calls", f.Path, f.Unresolved)
		}
	}
}

// TestGoResolutionScopes covers the Go mistakes found reading gin's flows:
// a local that shadows a function only from the line after its
// declaration, a local typed by a field chain through an index, a chain
// through a method of an external embedded interface (nothing called on
// its result is ours), and calls on an interface value with few
// implementations.
func TestGoResolutionScopes(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"go.mod": "module example.com/web\n\ngo 1.22\n",
		"web.go": `package web

import "net/http"

type Writer interface {
	http.ResponseWriter
	Status() int
}

type Ctx struct {
	W     Writer
	trees []tree
}

type tree struct{ root *node }

type node struct{}

func (n *node) getValue(path string) int { return 0 }

// Set is the only method named Set in the repository.
func (c *Ctx) Set(k string, v any) {}

func (c *Ctx) Header(k, v string) {
	c.W.Header().Set(k, v)
}

func (c *Ctx) dispatch(path string) int {
	t := c.trees
	for i := range t {
		root := t[i].root
		return root.getValue(path)
	}
	return 0
}

func recovery() {
	stack := stack(3)
	_ = stack
}

func stack(skip int) []byte { return nil }

type Validator interface{ ValidateStruct(obj any) error }

type defaultValidator struct{}

func (v *defaultValidator) ValidateStruct(obj any) error { return nil }

var validator Validator = &defaultValidator{}

func validate(obj any) error { return validator.ValidateStruct(obj) }
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"web.go#recovery -> web.go#stack (same-file)",                                // the local exists only after the call
		"web.go#Ctx.dispatch -> web.go#node.getValue (receiver-typed)",               // root := t[i].root
		"web.go#validate -> web.go#defaultValidator.ValidateStruct (interface-impl)", // the interface's only implementation
	)
	wantNot(t, calls, "web.go#Ctx.Header -> web.go#Ctx.Set (global-name)") // it is http.Header.Set
	for _, e := range sink.edges {
		if e.Type == schema.RelCalls && e.Reason == schema.ReasonInterface && e.Confidence >= 0.55 {
			t.Errorf("interface-impl edge %s -> %s has confidence %v: it must stay below every static reason", e.From, e.To, e.Confidence)
		}
	}
}

func TestPythonResolution(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"app/__init__.py": "",
		"app/db.py": `class Database:
    def save(self, x):
        return x
`,
		"app/service.py": `from .db import Database


class Base:
    def close(self):
        pass


class Service(Base):
    def __init__(self, db: Database):
        self.db = db

    def do_work(self, order):
        self._check(order)
        self.close()
        return self.db.save(order)

    def _check(self, order):
        pass
`,
		"app/main.py": `import os
from app.service import Service
from . import db as dbmod


def run(order):
    Service(dbmod.Database()).do_work(order)
    os.path.join("a", "b")
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"app/main.py#run -> app/service.py#Service.__init__ (import-scoped)", // constructor call
		"app/main.py#run -> app/service.py#Service.do_work (receiver-typed)", // Service(db).do_work()
		"app/service.py#Service.do_work -> app/service.py#Service._check (receiver-typed)",
		"app/service.py#Service.do_work -> app/service.py#Base.close (receiver-typed)", // inherited
		"app/service.py#Service.do_work -> app/db.py#Database.save (receiver-typed)",   // self.db typed by the annotated param
	)
	want(t, edgeSet(sink, schema.RelExtends), "app/service.py#Service -> app/service.py#Base (declared)")
	want(t, edgeSet(sink, schema.RelImports), "app/main.py -> app/service.py (module-rule)", "app/service.py -> app/db.py (module-rule)", "app/main.py -> app/db.py (module-rule)")
}

func TestTypeScriptResolution(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"tsconfig.json": `{
  // comments are allowed
  "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"] }, },
}`,
		"src/lib/validate.ts": `export interface IAuth { login(u: string): boolean }
export function validateUser(u: string): boolean { return u.length > 0 }
export class AuthService implements IAuth {
  login(u: string): boolean { return validateUser(u) }
}
`,
		"src/index.ts": `import { AuthService } from "@lib/validate";
import * as v from "./lib/validate";

export function handleLogin(u: string): boolean {
  const svc = new AuthService();
  v.validateUser(u);
  return svc.login(u);
}
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"src/lib/validate.ts#AuthService.login -> src/lib/validate.ts#validateUser (same-file)",
		"src/index.ts#handleLogin -> src/lib/validate.ts#validateUser (import-scoped)",
		"src/index.ts#handleLogin -> src/lib/validate.ts#AuthService.login (receiver-typed)",
	)
	want(t, edgeSet(sink, schema.RelImplements), "src/lib/validate.ts#AuthService -> src/lib/validate.ts#IAuth (declared)")
	want(t, edgeSet(sink, schema.RelImports), "src/index.ts -> src/lib/validate.ts (module-rule)")
}

func TestJavaAndCppResolution(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"src/com/ex/Base.java": `package com.ex;

public class Base {
    public Base(int x) {}
    protected void log(String m) {}
}
`,
		"src/com/ex/Service.java": `package com.ex;

import com.ex.util.Helper;

public class Service extends Base implements Runnable {
    private final Helper helper = new Helper();

    public Service() {
        super(1);
    }

    public void run() {
        log("start");
        helper.assist();
        Helper.create().assist();
    }
}
`,
		"src/com/ex/util/Helper.java": `package com.ex.util;

public class Helper {
    public static Helper create() { return new Helper(); }
    public void assist() {}
}
`,
		"geo/shape.h": `namespace geo {
class Shape {
public:
    double area() const;
    double twice() const;
};
}
`,
		"geo/shape.cpp": `#include "shape.h"
namespace geo {
double Shape::area() const { return 1.0; }
double Shape::twice() const { return area() * 2; }
}
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"src/com/ex/Service.java#Service.Service -> src/com/ex/Base.java#Base.Base (receiver-typed)",        // super(1)
		"src/com/ex/Service.java#Service.run -> src/com/ex/Base.java#Base.log (receiver-typed)",             // inherited, implicit this
		"src/com/ex/Service.java#Service.run -> src/com/ex/util/Helper.java#Helper.assist (receiver-typed)", // field type through an import
		"src/com/ex/Service.java#Service.run -> src/com/ex/util/Helper.java#Helper.create (receiver-typed)", // static call on a class name
		"geo/shape.cpp#geo.Shape.twice -> geo/shape.cpp#geo.Shape.area (receiver-typed)",
	)
	want(t, edgeSet(sink, schema.RelExtends), "src/com/ex/Service.java#Service -> src/com/ex/Base.java#Base (declared)")
	want(t, edgeSet(sink, schema.RelHasMethod), "geo/shape.h#geo.Shape -> geo/shape.cpp#geo.Shape.area (structural)")
	want(t, edgeSet(sink, schema.RelImports), "geo/shape.cpp -> geo/shape.h (module-rule)", "src/com/ex/Service.java -> src/com/ex/util/Helper.java (module-rule)")
}

func TestRustRubyPHPCSharpCResolution(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"src/lib.rs": `mod greet;
use crate::greet::{Greet, English};

pub fn run(g: &dyn Greet) -> String {
    g.greet()
}

pub fn main_entry() {
    let e = English::new();
    run(&e);
}
`,
		"src/greet.rs": `pub trait Greet {
    fn greet(&self) -> String;
}

pub struct English;

impl English {
    pub fn new() -> English { English }
}

impl Greet for English {
    fn greet(&self) -> String { "hello".to_string() }
}
`,
		"lib/greeter.rb": `require_relative "formatter"

class Greeter
  def initialize
    @fmt = Formatter.new
  end

  def greet(name)
    shout(name)
  end

  def shout(name)
    name.upcase
  end
end
`,
		"lib/formatter.rb": `class Formatter
  def initialize; end
end
`,
		"app/Page.php": `<?php
namespace App;

use App\Models\User;

class Page {
    public function render(): string {
        $u = new User();
        return $this->title() . $u->name();
    }
    private function title(): string { return "t"; }
}
`,
		"app/Models/User.php": `<?php
namespace App\Models;

class User {
    public function __construct() {}
    public function name(): string { return "n"; }
}
`,
		"cs/Repo.cs": `namespace Demo
{
    public interface IRepo { void Save(); }

    public class Repo : IRepo
    {
        public void Save() { Flush(); }
        private void Flush() { }
    }
}
`,
		"cs/Service.cs": `using Demo;

namespace Demo.App
{
    public class Service
    {
        private readonly Repo repo = new Repo();
        public void Run() { repo.Save(); }
    }
}
`,
		"c/util.c": `#include "util.h"
int add(int a, int b) { return a + b; }
`,
		"c/util.h": `int add(int a, int b);
`,
		"c/main.c": `#include "util.h"
int main(void) { return add(1, 2); }
`,
	})
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		"src/lib.rs#run -> src/greet.rs#Greet.greet (receiver-typed)",        // dyn Trait call: the trait method
		"src/lib.rs#main_entry -> src/greet.rs#English.new (receiver-typed)", // Type::new()
		"src/lib.rs#main_entry -> src/lib.rs#run (same-file)",
		"lib/greeter.rb#Greeter.greet -> lib/greeter.rb#Greeter.shout (receiver-typed)",               // implicit self
		"lib/greeter.rb#Greeter.initialize -> lib/formatter.rb#Formatter.initialize (receiver-typed)", // Foo.new
		"app/Page.php#Page.render -> app/Page.php#Page.title (receiver-typed)",                        // $this->
		"app/Page.php#Page.render -> app/Models/User.php#User.__construct (receiver-typed)",           // new through use
		"app/Page.php#Page.render -> app/Models/User.php#User.name (receiver-typed)",                  // typed local
		"cs/Repo.cs#Repo.Save -> cs/Repo.cs#Repo.Flush (receiver-typed)",
		"cs/Service.cs#Service.Run -> cs/Repo.cs#Repo.Save (receiver-typed)", // field through using
		"c/main.c#main -> c/util.c#add (import-scoped)",                      // the prototype in util.h lands on the definition
	)
	impl := edgeSet(sink, schema.RelImplements)
	want(t, impl, "src/greet.rs#English -> src/greet.rs#Greet (declared)", "cs/Repo.cs#Repo -> cs/Repo.cs#IRepo (declared)")
	want(t, edgeSet(sink, schema.RelImports),
		"src/lib.rs -> src/greet.rs (module-rule)", "lib/greeter.rb -> lib/formatter.rb (module-rule)",
		"app/Page.php -> app/Models/User.php (module-rule)", "c/main.c -> c/util.h (module-rule)")
}

func TestPHPComposerPSR4(t *testing.T) {
	sink, _ := run(t, map[string]string{
		"composer.json": `{"autoload": {"psr-4": {"Acme\\": "src/"}}}`,
		"src/Billing/Invoice.php": `<?php
class Invoice {
    public function total(): int { return 1; }
}
`,
		"web/index.php": `<?php
use Acme\Billing\Invoice;

function show() {
    $i = new Invoice();
    return $i->total();
}
`,
	})
	want(t, edgeSet(sink, schema.RelImports), "web/index.php -> src/Billing/Invoice.php (module-rule)")
	want(t, edgeSet(sink, schema.RelCalls), "web/index.php#show -> src/Billing/Invoice.php#Invoice.total (receiver-typed)")
}

// TestParseSortsTypeFacts: the parse leaves each file's type facts in the
// resolver's order (resolve.SortFacts), so that they are cached in it and
// the resolution, on one goroutine, only checks it.
func TestParseSortsTypeFacts(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\ntype X int\ntype Y int\ntype Z int\n\nfunc b(y Y, x X) {}\n\nfunc a(z Z) {}\n"
	abs := filepath.Join(dir, "p.go")
	if err := os.WriteFile(abs, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := lang.NewParser()
	defer p.Close()
	var buf []byte
	r := parseOne(context.Background(), p, discover.File{Path: "p.go", Abs: abs, Language: "go"}, nil, nil, false, &buf)
	if r.err != nil {
		t.Fatal(r.err)
	}
	types := r.facts.Types
	if len(types) < 3 {
		t.Fatalf("type facts %v; the fixture has three parameters", types)
	}
	sorted := &lang.Facts{Types: slices.Clone(types)}
	resolve.SortFacts(sorted)
	if !slices.Equal(sorted.Types, types) {
		t.Errorf("type facts %v, not in the resolver's order %v", types, sorted.Types)
	}
}
