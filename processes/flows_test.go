package processes_test

// Expected flows on small repositories: an HTTP handler, a CLI command and
// a class hierarchy in Go, Python and TypeScript, through the whole
// pipeline (discovery, parsing, resolution, processes).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/processes"
)

type nopSink struct{}

func (nopSink) AddFolder(schema.Folder) error { return nil }
func (nopSink) AddFile(schema.File) error     { return nil }
func (nopSink) AddSymbol(schema.Symbol) error { return nil }
func (nopSink) AddEdge(schema.Edge) error     { return nil }

func flows(t *testing.T, files map[string]string) (*processes.Result, []string) {
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
	res, err := ingest.Run(context.Background(), dir, nopSink{}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pr := processes.Run(processes.FromIndex(res.Index, res.Edges), processes.Options{})
	var labels []string
	for _, p := range pr.Processes {
		labels = append(labels, p.Label)
	}
	return pr, labels
}

func wantFlow(t *testing.T, labels []string, want string) {
	t.Helper()
	for _, l := range labels {
		if l == want {
			return
		}
	}
	t.Errorf("no flow %q; have %q", want, labels)
}

func TestGoFlows(t *testing.T) {
	pr, labels := flows(t, map[string]string{
		"go.mod": "module example.com/app\n",
		"server/login.go": `package server

import "net/http"

type Server struct{ store *Store }

func (s *Server) HandleLogin(w http.ResponseWriter, r *http.Request) {
	u := s.validateUser(r)
	s.createSession(u)
}

func (s *Server) validateUser(r *http.Request) string { return checkPassword(r.FormValue("p")) }

func checkPassword(p string) string { return p }

func (s *Server) createSession(u string) { s.store.Save(u) }

type Store struct{}

func (st *Store) Save(u string) { writeRow(u) }

func writeRow(u string) {}
`,
		"cmd/serve.go": `package cmd

import "github.com/spf13/cobra"

func runServe(cmd *cobra.Command, args []string) error {
	cfg := loadConfig(args)
	return startServer(cfg)
}

func loadConfig(args []string) string { return "" }

func startServer(cfg string) error { return listen(cfg) }

func listen(addr string) error { return nil }
`,
		"server/login_test.go": `package server

import "testing"

func TestLogin(t *testing.T) { (&Server{}).HandleLogin(nil, nil); checkPassword("x") }
`,
	})
	wantFlow(t, labels, "HandleLogin → validateUser → checkPassword")
	wantFlow(t, labels, "HandleLogin → createSession → Save → writeRow")
	wantFlow(t, labels, "runServe → startServer → listen")
	for _, l := range labels {
		if strings.HasPrefix(l, "TestLogin") {
			t.Errorf("a test is an entry point: %s", l)
		}
	}
	for _, p := range pr.Processes {
		if p.EntryPointID == "" || p.TerminalID == "" || p.StepCount < 3 || p.ProcessType == "" {
			t.Errorf("incomplete process %+v", p)
		}
	}
	for _, c := range pr.Communities {
		if strings.HasPrefix(c.Label, "Cluster") || c.Label == "" {
			t.Errorf("community label %q", c.Label)
		}
	}
}

func TestPythonFlows(t *testing.T) {
	_, labels := flows(t, map[string]string{
		"app/__init__.py": "",
		"app/views.py": `from flask import Flask
from .auth import authenticate, create_session

app = Flask(__name__)


@app.route("/login", methods=["POST"])
def login():
    user = authenticate()
    return create_session(user)
`,
		"app/auth.py": `def authenticate():
    return check_password("x")


def check_password(p):
    return p


def create_session(user):
    return user
`,
		"app/cli.py": `import sys


def main():
    args = parse_args(sys.argv)
    run(args)


def parse_args(argv):
    return argv


def run(args):
    process_files(args)


def process_files(args):
    return args
`,
		"app/models.py": `class Model:
    def save(self):
        self.validate()
        self.write()

    def validate(self):
        pass

    def write(self):
        pass


class User(Model):
    def register(self):
        self.save()
`,
	})
	wantFlow(t, labels, "login → authenticate → check_password")
	wantFlow(t, labels, "main → run → process_files")
	wantFlow(t, labels, "register → save → validate")
}

func TestTypeScriptFlows(t *testing.T) {
	_, labels := flows(t, map[string]string{
		"app/api/login/route.ts": `import { validateUser, createSession } from "../../../lib/auth";

export async function POST(req: Request) {
  const user = validateUser(req);
  return createSession(user);
}
`,
		"lib/auth.ts": `export function validateUser(req: Request): string {
  return checkPassword(req.url);
}

function checkPassword(p: string): string {
  return p;
}

export function createSession(user: string): string {
  return user;
}
`,
		"lib/controllers.ts": `export class BaseController {
  handle(req: string) {
    this.authorize(req);
    return this.render(req);
  }
  authorize(req: string) {
    return audit(req);
  }
  render(req: string) {
    return req;
  }
}

function audit(req: string) { return req; }

export class UserController extends BaseController {
  show(req: string) {
    return this.handle(req);
  }
}
`,
	})
	wantFlow(t, labels, "POST → validateUser → checkPassword")
	wantFlow(t, labels, "show → handle → authorize → audit")
}

func TestProcessIDsStableAcrossRuns(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/app\n",
		"a.go":   "package app\n\nfunc Run() { load(); serve() }\nfunc load() { parse() }\nfunc parse() {}\nfunc serve() { handle() }\nfunc handle() { parse() }\n",
	}
	a, _ := flows(t, files)
	b, _ := flows(t, files)
	if len(a.Processes) == 0 || len(a.Processes) != len(b.Processes) {
		t.Fatalf("processes: %d vs %d", len(a.Processes), len(b.Processes))
	}
	for i := range a.Processes {
		if a.Processes[i].ID != b.Processes[i].ID || a.Processes[i].Label != b.Processes[i].Label {
			t.Errorf("process %d differs: %+v vs %+v", i, a.Processes[i], b.Processes[i])
		}
	}
	for i := range a.Communities {
		if a.Communities[i].ID != b.Communities[i].ID {
			t.Errorf("community %d differs", i)
		}
	}
}

// TestGoroutineStartsAFlow: a method started with `go` begins a flow of its
// own even though it has a caller.
func TestGoroutineStartsAFlow(t *testing.T) {
	pr, labels := flows(t, map[string]string{
		"go.mod": "module example.com/q\n",
		"q/queue.go": `package q

type shards struct{}

func (s *shards) start() {
	for i := 0; i < 4; i++ {
		go s.runShard(i)
	}
}

func (s *shards) runShard(i int) { s.sendSamples(i) }

func (s *shards) sendSamples(i int) { s.sendWithBackoff(i) }

func (s *shards) sendWithBackoff(i int) {}
`,
	})
	wantFlow(t, labels, "runShard → sendSamples → sendWithBackoff")
	for _, ep := range pr.Entries {
		if strings.HasSuffix(strings.Join(ep.Reasons, ","), "framework:go:goroutine") {
			return
		}
	}
	t.Errorf("no entry point has the goroutine reason: %+v", pr.Entries)
}

// TestReturnedClosureStartsAFlow: a middleware constructor's returned func
// runs per request: its calls are a flow of their own, labelled as the
// returned func's, and no flow of the constructor's set-up takes them.
func TestReturnedClosureStartsAFlow(t *testing.T) {
	pr, labels := flows(t, map[string]string{
		"go.mod": "module example.com/mw\n",
		"mw/logger.go": `package mw

type Context struct{}

type HandlerFunc func(*Context)

func Logger() HandlerFunc { return LoggerWithConfig(defaultConfig()) }

func LoggerWithConfig(conf string) HandlerFunc {
	out := newWriter(conf)
	return func(c *Context) {
		start := now()
		c.Next()
		record(out, start)
	}
}

func defaultConfig() string { return checkConfig("") }
func checkConfig(s string) string { return s }
func newWriter(conf string) string { return checkConfig(conf) }
func now() int { return 0 }
func (c *Context) Next() { c.dispatch() }
func (c *Context) dispatch() { c.abort() }
func (c *Context) abort() {}
func record(out string, start int) { format(out) }
func format(s string) { write(s) }
func write(s string) {}
`,
	})
	t.Logf("flows: %q", labels)
	wantFlow(t, labels, "LoggerWithConfig (returned func) → Next → dispatch → abort")
	closure := 0
	for _, ep := range pr.Entries {
		if ep.Closure {
			closure++
			if len(ep.Reasons) != 1 || ep.Reasons[0] != "closure" {
				t.Errorf("closure entry without its reason: %+v", ep)
			}
		}
	}
	if closure != 1 {
		t.Errorf("%d closure entries, want 1 (LoggerWithConfig): %+v", closure, pr.Entries)
	}
	for _, l := range labels {
		if strings.HasPrefix(l, "Logger → LoggerWithConfig → Next") || strings.HasPrefix(l, "LoggerWithConfig → record") || strings.HasPrefix(l, "LoggerWithConfig → Next") {
			t.Errorf("a set-up flow runs into the returned func: %q", l)
		}
	}
}

// TestReturnedFunctionStartsAFlowJS: an Express-style middleware factory
// returns a function; what that function calls runs per request.
func TestReturnedFunctionStartsAFlowJS(t *testing.T) {
	_, labels := flows(t, map[string]string{
		"package.json": `{"name": "mw"}`,
		"lib/logger.js": `function logger(opts) {
  const fmt = compile(opts);
  return function (req, res, next) {
    record(req, fmt);
    next();
  };
}
const timing = (opts) => (req, res, next) => { measure(req); next(); };
function compile(o) { return check(o); }
function check(o) { return o; }
function record(req, fmt) { write(format(req, fmt)); }
function format(r, f) { return pad(r); }
function pad(r) { return r; }
function write(s) { flush(s); }
function flush(s) {}
function measure(r) { stamp(r); }
function stamp(r) { now(r); }
function now(r) {}
module.exports = { logger, timing, compile, record };
`,
	})
	t.Logf("flows: %q", labels)
	wantFlow(t, labels, "logger (returned func) → record → format → pad")
	wantFlow(t, labels, "timing (returned func) → measure → stamp → now")
	for _, l := range labels {
		if strings.HasPrefix(l, "logger → record") {
			t.Errorf("a set-up flow runs into the returned function: %q", l)
		}
	}
}

// TestReturnedNestedDefStartsAFlowPython: a decorator's wrapper and a
// route decorator's inner def are nested defs their function returns;
// what they call runs when the result is called, so each starts its
// enclosing function's closure flow — the inner def is no entry point of
// its own, and a flow through the enclosing function does not enter it.
// Inside a method, the inner def's self is the method's (a captured local).
func TestReturnedNestedDefStartsAFlowPython(t *testing.T) {
	_, labels := flows(t, map[string]string{
		"app/deco.py": `import functools

def timed(f):
    clock = start_clock()
    def wrapper(*a):
        stamp(clock)
        return f(*a)
    return functools.wraps(f)(wrapper)

def start_clock():
    return check_clock()

def check_clock():
    return 0

def stamp(c):
    record(c)

def record(c):
    write(c)

def write(c):
    pass

class Scaffold:
    def route(self, rule):
        def decorator(f):
            self.add_url_rule(rule, f)
            return f
        return decorator

    def add_url_rule(self, rule, f):
        self.endpoint_for(f)

    def endpoint_for(self, f):
        validate(f)

def validate(f):
    pass
`,
	})
	t.Logf("flows: %q", labels)
	wantFlow(t, labels, "timed (returned func) → wrapper → … → write")
	wantFlow(t, labels, "route (returned func) → decorator → … → validate")
	for _, l := range labels {
		if strings.HasPrefix(l, "wrapper") || strings.HasPrefix(l, "decorator") || strings.HasPrefix(l, "timed → wrapper") {
			t.Errorf("a returned def is a flow of its own or a step of its enclosing function's set-up: %q", l)
		}
	}
}

// TestFlowDescriptions: a flow says what it does in the words of its
// entry's doc comment, the entry's own name dropped; an entry without one
// is named by its words and owner, and the terminal's sentence says the
// rest; a returned func's flow says it runs per call.
func TestFlowDescriptions(t *testing.T) {
	pr, _ := flows(t, map[string]string{
		"go.mod": "module example.com/srv\n",
		"srv/srv.go": `package srv

type Engine struct{}

// Run attaches the router to a server and starts serving requests. It blocks.
func (e *Engine) Run() { e.listen() }

func (e *Engine) listen() { e.accept() }
func (e *Engine) accept() { e.serve() }
func (e *Engine) serve()  {}

func (e *Engine) HandleContext() { e.handleHTTPRequest() }

func (e *Engine) handleHTTPRequest() { e.route() }
func (e *Engine) route() { e.getValue() }

// getValue returns the handle registered with the given path.
func (e *Engine) getValue() {}

// Logger returns a middleware that logs each request.
func Logger() func() {
	return func() { record(); flush() }
}

func record() { format() }
func format() { pad() }
func pad()    {}
func flush()  {}

// Load reads the settings.
func Load() { parse() }
func parse() { set() }
func set()   { setInt(); setBool(); setString() }
func setInt()    {}
func setBool()   {}
func setString() {}
`,
	})
	desc := map[string]string{}
	for _, p := range pr.Processes {
		desc[p.Label] = p.Description
	}
	t.Logf("%q", desc)
	want := map[string]string{
		"Run → listen → accept → serve":                        "Attaches the router to a server and starts serving requests, reaching serve",
		"HandleContext → handleHTTPRequest → route → getValue": "Handle context (Engine), reaching getValue: returns the handle registered with the given path",
		"Logger (returned func) → record → format → pad":       "Per call of the func Logger returns (a middleware that logs each request), reaching pad",
	}
	fanout := 0
	for label, d := range desc {
		if strings.HasPrefix(label, "Load → parse → set → set") {
			fanout++
			if !strings.HasPrefix(d, "Reads the settings, reaching set") || !strings.HasSuffix(d, " (or 2 others like it)") {
				t.Errorf("leaf fan-out %s: %q, want it to stand for 2 others", label, d)
			}
		}
	}
	if fanout != 1 {
		t.Errorf("%d flows through Load → parse → set, want 1 standing for the leaf fan-out", fanout)
	}
	for label, w := range want {
		if got, ok := desc[label]; !ok {
			t.Errorf("no flow %q", label)
		} else if got != w {
			t.Errorf("%s:\n got  %q\n want %q", label, got, w)
		}
	}
}

// TestSharedSubPathOnce: two entries whose flows are the same after the
// entry (ServeHTTP and Reenter both run handle → …) show the shared part
// once in full, under the better-scored entry (ServeHTTP: a run name); the
// other entry keeps one flow, which says where the rest are.
func TestSharedSubPathOnce(t *testing.T) {
	pr, labels := flows(t, map[string]string{
		"go.mod": "module example.com/srv\n",
		"srv/srv.go": `package srv

type Engine struct{}

// ServeHTTP conforms to the handler interface.
func (e *Engine) ServeHTTP() { e.handle() }

// Reenter re-enters a context that has been rewritten.
func (e *Engine) Reenter() { e.handle() }

func (e *Engine) handle()     { e.route(); e.serveError() }
func (e *Engine) route()      { e.getValue() }
func (e *Engine) getValue()   {}
func (e *Engine) serveError() { e.write() }
func (e *Engine) write()      {}
`,
	})
	t.Logf("flows: %q", labels)
	wantFlow(t, labels, "ServeHTTP → handle → route → getValue")
	wantFlow(t, labels, "ServeHTTP → handle → serveError → write")
	var other []schema.Process
	for _, p := range pr.Processes {
		if strings.HasPrefix(p.Label, "Reenter") {
			other = append(other, p)
		}
	}
	if len(other) != 1 {
		t.Fatalf("Reenter has %d flows, want 1 (the rest are ServeHTTP's): %q", len(other), labels)
	}
	if d := other[0].Description; !strings.HasSuffix(d, "; after its first step, the same as Engine.ServeHTTP's, as is its other flow") {
		t.Errorf("Reenter's flow does not say where its other flow is: %q", d)
	}
	if pr.Stats.Trace.SharedTails != 1 {
		t.Errorf("SharedTails = %d, want 1", pr.Stats.Trace.SharedTails)
	}
}
