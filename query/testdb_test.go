package query

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// testDB is a Querier over a Kuzu database built by hand in a temp dir,
// with the real schema.
type testDB struct {
	t    *testing.T
	db   *kuzu.Database
	conn *kuzu.Connection
}

func newTestDB(t *testing.T) *testDB {
	t.Helper()
	cfg := kuzu.DefaultSystemConfig()
	cfg.BufferPoolSize = 128 << 20
	cfg.MaxNumThreads = 2
	db, err := kuzu.OpenDatabase(filepath.Join(t.TempDir(), "db.kuzu"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		t.Fatal(err)
	}
	d := &testDB{t: t, db: db, conn: conn}
	t.Cleanup(func() { conn.Close(); db.Close() })
	for _, stmt := range schema.DDL() {
		d.exec(stmt, nil)
	}
	return d
}

// Query serializes access: a kuzu.Connection is not safe for concurrent use.
func (d *testDB) Query(ctx context.Context, cypher string, params map[string]any) (*graph.Result, error) {
	testMu.Lock()
	defer testMu.Unlock()
	var res *kuzu.QueryResult
	var err error
	if len(params) == 0 {
		res, err = d.conn.Query(cypher)
	} else {
		var ps *kuzu.PreparedStatement
		if ps, err = d.conn.Prepare(cypher); err == nil {
			res, err = d.conn.Execute(ps, params)
			ps.Close()
		}
	}
	if err != nil {
		if res != nil {
			res.Close()
		}
		return nil, err
	}
	defer res.Close()
	out := &graph.Result{Columns: res.GetColumnNames()}
	for res.HasNext() {
		tup, err := res.Next()
		if err != nil {
			return nil, err
		}
		vals, err := tup.GetAsSlice()
		tup.Close()
		if err != nil {
			return nil, err
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			row[i] = graph.JSONValue(v)
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

func (d *testDB) exec(stmt string, params map[string]any) *graph.Result {
	d.t.Helper()
	r, err := d.Query(context.Background(), stmt, params)
	if err != nil {
		d.t.Fatalf("%s: %v", stmt, err)
	}
	return r
}

// file and sym store isTest as ingest decides it (schema.IsTestPath).
func (d *testDB) file(path, lang string) {
	name := path[strings.LastIndex(path, "/")+1:]
	d.exec("CREATE (:File {id: $id, path: $id, name: $name, language: $lang, lines: 100, searchText: $st, isTest: $test})",
		map[string]any{"id": path, "name": name, "lang": lang, "st": text.SearchText(name, "", path), "test": schema.IsTestPath(path)})
}

func (d *testDB) sym(kind schema.Kind, qn, path, sig, doc string, line int) string {
	name := qn[strings.LastIndex(qn, ".")+1:]
	id := schema.SymbolID(path, qn, kind, 1)
	l := schema.LabelOf(kind)
	lang := "go"
	if strings.HasSuffix(path, ".py") {
		lang = "python"
	}
	d.exec("CREATE (:"+string(l)+" {id: $id, kind: $kind, name: $name, qualifiedName: $qn, filePath: $path, startLine: $line, endLine: $endl, "+
		"language: $lang, signature: $sig, docComment: $doc, searchText: $st, isTest: $test})",
		map[string]any{"id": id, "kind": string(kind), "name": name, "qn": qn, "path": path, "line": int64(line), "endl": int64(line + 9),
			"lang": lang, "sig": sig, "doc": doc, "st": text.SearchText(name, qn, path),
			"test": schema.IsTestPath(path)})
	d.exec("MATCH (f:File {id: $path}), (s:"+string(l)+" {id: $id}) CREATE (f)-[:DEFINES {confidence: 1.0, reason: 'structural'}]->(s)",
		map[string]any{"path": path, "id": id})
	return id
}

func (d *testDB) edge(rt schema.RelType, fromLabel, from, toLabel, to string, step int) {
	d.exec("MATCH (a:"+fromLabel+" {id: $from}), (b:"+toLabel+" {id: $to}) CREATE (a)-[:"+string(rt)+" {confidence: 1.0, reason: 'test', step: $step}]->(b)",
		map[string]any{"from": from, "to": to, "step": int64(step)})
}

// fixture is a small Go+Python project: a login flow, a repository class
// with a method, an interface it implements, imports.
type fixture struct {
	db                                            *testDB
	pack                                          *Pack
	handleLogin, validate, createSession, getUser string
	userRepo, repoIface, parseConfig, pyLoad      string
}

func newFixture(t *testing.T, withProcess bool) *fixture {
	d := newTestDB(t)
	for _, f := range []string{"auth/login.go", "auth/session.go", "db/user_repository.go", "config/parse.go", "util/strings.go"} {
		d.file(f, "go")
	}
	d.file("scripts/load_config.py", "python")
	fx := &fixture{db: d}
	fx.handleLogin = d.sym(schema.KindFunction, "HandleLogin", "auth/login.go", "func HandleLogin(w http.ResponseWriter, r *http.Request)", "HandleLogin authenticates a user from the login form.", 10)
	fx.validate = d.sym(schema.KindFunction, "validatePassword", "auth/login.go", "func validatePassword(hash, pw string) bool", "", 40)
	fx.createSession = d.sym(schema.KindFunction, "CreateSession", "auth/session.go", "func CreateSession(u *User) (*Session, error)", "CreateSession stores a new session.", 5)
	fx.userRepo = d.sym(schema.KindStruct, "UserRepository", "db/user_repository.go", "type UserRepository struct", "UserRepository reads users from the database.", 3)
	fx.getUser = d.sym(schema.KindMethod, "UserRepository.GetUserByID", "db/user_repository.go", "func (r *UserRepository) GetUserByID(id int64) (*User, error)", "", 20)
	fx.repoIface = d.sym(schema.KindInterface, "Repository", "db/user_repository.go", "type Repository interface", "", 50)
	fx.parseConfig = d.sym(schema.KindFunction, "ParseConfig", "config/parse.go", "func ParseConfig(path string) (*Config, error)", "ParseConfig reads a YAML file.", 1)
	fx.pyLoad = d.sym(schema.KindFunction, "load_config", "scripts/load_config.py", "def load_config(path)", "Load the configuration file.", 1)
	d.sym(schema.KindFunction, "TrimSpace", "util/strings.go", "func TrimSpace(s string) string", "", 1)
	d.edge(schema.RelHasMethod, "Class", fx.userRepo, "Method", fx.getUser, 0)
	d.edge(schema.RelImplements, "Class", fx.userRepo, "Interface", fx.repoIface, 0)
	d.edge(schema.RelCalls, "Function", fx.handleLogin, "Function", fx.validate, 0)
	d.edge(schema.RelCalls, "Function", fx.handleLogin, "Function", fx.createSession, 0)
	d.edge(schema.RelImports, "File", "auth/login.go", "File", "db/user_repository.go", 0)
	d.edge(schema.RelImports, "File", "util/strings.go", "File", "auth/login.go", 0)
	if withProcess {
		d.exec("CREATE (:Process {id: 'proc:login', label: 'HandleLogin → CreateSession', processType: 'intra_community', stepCount: 3, priority: 0.9})", nil)
		for i, s := range []string{fx.handleLogin, fx.validate, fx.createSession} {
			d.edge(schema.RelStepInProcess, "Function", s, "Process", "proc:login", i+1)
		}
	}
	p, err := BuildPack(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	fx.pack = p
	return fx
}
