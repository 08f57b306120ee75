package query

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// The pack BuildPack reads from a database answers as the file it writes.
func TestPackFileRoundTrip(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "x.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	n1, e1, p1, err := fx.pack.Stats()
	if err != nil {
		t.Fatal(err)
	}
	n2, e2, p2, err := back.Stats()
	if err != nil || n1 != n2 || e1 != e2 || p1 != p2 || n1 != 15 || p1 != 1 || e1 == 0 {
		t.Fatalf("stats %d/%d/%d vs %d/%d/%d (%v)", n1, e1, p1, n2, e2, p2, err)
	}
	for _, q := range []string{"login session password", "user repository", "config"} {
		a, err1 := Search(context.Background(), fx.pack, q, Options{Mode: ModeKeyword, Files: true})
		b, err2 := Search(context.Background(), back, q, Options{Mode: ModeKeyword, Files: true})
		if err1 != nil || err2 != nil || strings.Join(ids(a), " ") != strings.Join(ids(b), " ") {
			t.Errorf("%q: %v %v\n%v\n%v", q, err1, err2, ids(a), ids(b))
		}
	}
	// A file is one hit everywhere: its line count is its end line.
	h, ok, err := back.node("auth/login.go")
	if err != nil || !ok || h.Kind != "file" || h.StartLine != 1 || h.EndLine != 100 || h.FilePath != "auth/login.go" {
		t.Errorf("file hit %+v %v %v", h, ok, err)
	}
}

// packImage is the golden pack's bytes and its table of contents.
func packImage(t *testing.T) (string, []byte, map[string]*section) {
	t.Helper()
	p := goldenPack(t)
	path := filepath.Join(t.TempDir(), "g.pack")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data, p.src.sections
}

func TestReadPackDamaged(t *testing.T) {
	path, data, secs := packImage(t)
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Missing: ErrNoPack.
	if _, err := ReadPack(path + ".none"); !errors.Is(err, ErrNoPack) {
		t.Errorf("missing pack: %v", err)
	}
	// Another schema version: ErrNoPack.
	other := append([]byte(nil), data...)
	other = append(binary.AppendUvarint([]byte(packMagic), uint64(schema.Version+1)), other[len(packMagic)+len(binary.AppendUvarint(nil, uint64(schema.Version))):]...)
	write(other)
	if _, err := ReadPack(path); !errors.Is(err, ErrNoPack) {
		t.Errorf("other version: %v", err)
	}
	// A flipped header byte: damaged at once.
	bad := append([]byte(nil), data...)
	bad[len(packMagic)+3] ^= 0xff
	write(bad)
	if _, err := ReadPack(path); !errors.Is(err, ErrPackDamaged) {
		t.Errorf("damaged header: %v", err)
	}
	// A flipped byte in the edges section: the pack opens, a search that
	// needs no edges answers, one that expands fails with ErrPackDamaged
	// (sections are checked when first read).
	bad = append([]byte(nil), data...)
	bad[secs[secEdges].off+1] ^= 0xff
	write(bad)
	p, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	noExpand := DefaultRanking
	noExpand.ExpandSeeds = 0
	if r, err := Search(context.Background(), p, "router", Options{Mode: ModeKeyword, Ranking: &noExpand}); err != nil || len(ids(r)) == 0 {
		t.Errorf("search without expansion on a pack with damaged edges: %v %v", err, r)
	}
	expand := DefaultRanking
	expand.ExpandSeeds = 10
	if _, err := Search(context.Background(), p, "router", Options{Mode: ModeKeyword, Ranking: &expand}); !errors.Is(err, ErrPackDamaged) {
		t.Errorf("expansion over damaged edges: %v", err)
	}
	// A byte flipped in every block of a section a one-shot query reads in
	// place (the nodes, the strings, an index, the memberships, the names):
	// the blocks are checked as they are read, so the search fails with
	// ErrPackDamaged instead of answering from damaged bytes.
	for _, c := range []struct{ sec, q string }{
		{secNodes, "router"}, {secStrings, "router"}, {secIdent, "router"}, {secMembers, "router"}, {secNames, "handleRequest"},
	} {
		bad = append([]byte(nil), data...)
		s := secs[c.sec]
		for at := 0; at < len(s.data); at += packBlock {
			bad[s.off+at+min(len(s.data)-at, packBlock)/2] ^= 0xff
		}
		write(bad)
		p, err := MapPack(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Search(context.Background(), p, c.q, Options{Mode: ModeKeyword, Ranking: &noExpand}); !errors.Is(err, ErrPackDamaged) {
			t.Errorf("%s damaged, one-shot %q: %v, want ErrPackDamaged", c.sec, c.q, err)
		}
	}
	// Truncated anywhere: an error, never a panic or a wrong answer.
	for _, n := range []int{0, 5, len(packMagic), len(data) / 3, len(data) / 2, len(data) - 1} {
		write(data[:n])
		p, err := ReadPack(path)
		if err != nil {
			continue
		}
		if _, err := Search(context.Background(), p, "config parser", Options{Mode: ModeKeyword, Files: true}); err == nil {
			t.Errorf("pack cut at %d of %d bytes searched without error", n, len(data))
		}
	}
}

// Only what a query needs is decoded.
func TestPackLazy(t *testing.T) {
	path, _, _ := packImage(t)
	p, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	noExpand := DefaultRanking
	noExpand.ExpandSeeds = 0
	if _, err := Search(context.Background(), p, "grüße", Options{Mode: ModeKeyword, Ranking: &noExpand}); err != nil {
		t.Fatal(err)
	}
	done := func(l interface{ decoded() bool }) bool { return l.decoded() }
	if !done(&p.ident) || !done(&p.doc) {
		t.Error("a keyword search did not open the indexes it reads")
	}
	if done(&p.file) || done(&p.edgesL) || done(&p.nodesL) || done(&p.procsL) {
		t.Error("a keyword search without files, mentions or expansion decoded the file index, the edges, the node or the process table")
	}
}

// TestOneShotReadsInPlace: a one-shot reader (MapPack) answers as a
// long-lived one does, reading its hits, their flows and the prefix
// matches in place (no node or process table decoded).
func TestOneShotReadsInPlace(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "p.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"login session", "validatePass", "HandleLogin", "user repository by id", "config"} {
		one, err := MapPack(path)
		if err != nil {
			t.Fatal(err)
		}
		warm, err := ReadPack(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := warm.nodeTable(); err != nil { // as the server's tools have it
			t.Fatal(err)
		}
		a, err1 := Search(context.Background(), one, q, Options{Mode: ModeKeyword})
		b, err2 := Search(context.Background(), warm, q, Options{Mode: ModeKeyword})
		if err1 != nil || err2 != nil {
			t.Fatalf("%q: %v %v", q, err1, err2)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%q: one-shot and warm answers differ:\n%s\n%s", q, ja, jb)
		}
		if q == "login session" && len(a.Processes) == 0 {
			t.Errorf("%q: no process found", q)
		}
		if one.procsL.decoded() || one.nodesL.decoded() || one.edgesL.decoded() {
			t.Errorf("%q: a one-shot keyword search decoded the process or node table, or the edges", q)
		}
	}
}

// capped is a Querier that cuts every result at max rows, as graph.DB
// does with OpenOptions.MaxRows (the MCP server's cap).
type capped struct {
	q   Querier
	max int
}

func (c capped) Query(ctx context.Context, stmt string, params map[string]any) (*graph.Result, error) {
	r, err := c.q.Query(ctx, stmt, params)
	if err == nil && len(r.Rows) > c.max {
		r.Rows, r.Truncated = r.Rows[:c.max], true
	}
	return r, err
}

// uncappable is capped with QueryAll, as graph.DB has.
type uncappable struct{ capped }

func (u uncappable) QueryAll(ctx context.Context, stmt string, params map[string]any) (*graph.Result, error) {
	return u.q.Query(ctx, stmt, params)
}

// TestBuildPackRowCap: a pack is never built from results cut at a row cap
// (it would answer wrongly); through QueryAll it reads past the cap; and
// reading the tables a slice at a time gives the same pack.
func TestBuildPackRowCap(t *testing.T) {
	fx := newFixture(t, true)
	ctx := context.Background()
	if _, err := BuildPack(ctx, capped{fx.db, 2}); err == nil {
		t.Error("BuildPack accepted results cut at 2 rows")
	}
	defer func(n, e int) { packReadRows, packEdgeRows = n, e }(packReadRows, packEdgeRows)
	packReadRows, packEdgeRows = 2, 2
	p, err := BuildPack(ctx, uncappable{capped{fx.db, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if nodes, _, _, err := p.Stats(); err != nil || nodes != 15 {
		t.Errorf("pack through QueryAll in slices of 2 rows has %d nodes (%v), want 15", nodes, err)
	}
	if p.src.all != fx.pack.src.all {
		t.Error("reading in slices gave another pack")
	}
}

// TestPackCarriesStoredIsTest: the pack carries each node's stored isTest,
// written and read back, and ranking demotes by it (Ranking.TestFactor),
// not by the path: a node whose stored flag disagrees with its path ranks
// as its flag says.
func TestPackCarriesStoredIsTest(t *testing.T) {
	fx := newFixture(t, false)
	ctx := context.Background()
	kw := Options{Mode: ModeKeyword, Files: true}
	before, err := Search(ctx, fx.pack, "parse config", kw)
	if err != nil {
		t.Fatal(err)
	}
	// Mark a symbol and a file that are not under a test path as test
	// code, and a test file that is as not (as if the rule had changed).
	fx.db.file("config/parse_test.go", "go")
	fx.db.exec("MATCH (n:Function {id: "+schema.Quote(fx.parseConfig)+"}) SET n.isTest = true", nil)
	fx.db.exec("MATCH (n:File {id: 'config/parse.go'}) SET n.isTest = true", nil)
	fx.db.exec("MATCH (n:File {id: 'config/parse_test.go'}) SET n.isTest = false", nil)
	p, err := BuildPack(ctx, fx.db)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.pack")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{fx.parseConfig: true, "config/parse.go": true, "config/parse_test.go": false,
		fx.handleLogin: false, "auth/login.go": false} {
		for name, pk := range map[string]*Pack{"built": p, "read back": back} {
			h, ok, err := pk.node(id)
			if err != nil || !ok || h.IsTest != want {
				t.Errorf("%s pack: %s isTest %v (found %v, %v), want %v", name, id, h.IsTest, ok, err, want)
			}
		}
	}
	after, err := Search(ctx, back, "parse config", kw)
	if err != nil {
		t.Fatal(err)
	}
	score := func(r *Result, id string) float64 {
		for _, h := range append(append([]Hit(nil), r.Definitions...), hitsOf(r.ProcessSymbols)...) {
			if h.ID == id {
				return h.Score
			}
		}
		t.Fatalf("%q: no hit %s in %v", r.Query, id, ids(r))
		return 0
	}
	// ParseConfig was the best hit (score 1 before the factor); marked as
	// test code it is multiplied by TestFactor.
	if b, a := score(before, fx.parseConfig), score(after, fx.parseConfig); b != 1 || math.Abs(a-b*DefaultRanking.TestFactor) > 1e-9 {
		t.Errorf("ParseConfig scored %v before and %v after being marked test code, want %v then %v", b, a, 1.0, DefaultRanking.TestFactor)
	}
	// The file under a test path, stored as not test code, is not demoted:
	// it scores as a file (FileFactor) and nothing else.
	if s := score(after, "config/parse_test.go"); s <= score(after, "config/parse.go") {
		t.Errorf("config/parse_test.go (stored not test) scored %v, below config/parse.go (stored test) %v", s, score(after, "config/parse.go"))
	}
}

func hitsOf(ps []ProcessSymbol) []Hit {
	out := make([]Hit, len(ps))
	for i, p := range ps {
		out[i] = p.Hit
	}
	return out
}
