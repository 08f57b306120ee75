package query

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

var testMu sync.Mutex

func ids(r *Result) []string {
	var out []string
	for _, p := range r.ProcessSymbols {
		out = append(out, p.ID)
	}
	for _, d := range r.Definitions {
		out = append(out, d.ID)
	}
	return out
}

func first(t *testing.T, r *Result) Hit {
	t.Helper()
	var best Hit
	for _, h := range r.Definitions {
		if h.Score > best.Score {
			best = h
		}
	}
	for _, p := range r.ProcessSymbols {
		if p.Score > best.Score {
			best = p.Hit
		}
	}
	if best.ID == "" {
		t.Fatalf("no hits for %q", r.Query)
	}
	return best
}

func TestSearchKeyword(t *testing.T) {
	fx := newFixture(t, false)
	ctx := context.Background()
	kw := Options{Mode: ModeKeyword}
	for q, want := range map[string]string{
		"getUserById":          fx.getUser,
		"GetUserByID":          fx.getUser,
		"user repository":      fx.userRepo,
		"user_repository":      fx.userRepo,
		"handle login":         fx.handleLogin,
		"validatePass":         fx.validate, // prefix of a partial identifier
		"parse config":         fx.parseConfig,
		"create session store": fx.createSession,
	} {
		r, err := Search(ctx, fx.pack, q, kw)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if got := first(t, r); got.ID != want {
			t.Errorf("%q: first hit %s (%.3f), want %s; all %v", q, got.ID, got.Score, want, ids(r))
		}
		if len(r.Processes) != 0 || r.Processes == nil {
			t.Errorf("%q: processes %v, want []", q, r.Processes)
		}
	}
}

// withExpansion is the default ranking with graph expansion from the best
// 10 hits (off by default: see Ranking.ExpandSeeds).
func withExpansion() *Ranking {
	r := DefaultRanking
	r.ExpandSeeds = 10
	return &r
}

func TestSearchExpansionAndFilters(t *testing.T) {
	fx := newFixture(t, false)
	ctx := context.Background()
	r, err := Search(ctx, fx.pack, "HandleLogin", Options{Mode: ModeKeyword, Ranking: withExpansion()})
	if err != nil {
		t.Fatal(err)
	}
	var cs *Hit
	for i, h := range r.Definitions {
		if h.ID == fx.createSession {
			cs = &r.Definitions[i]
		}
	}
	if cs == nil || cs.Via == nil || cs.Via.Rel != "CALLS" || cs.Via.From != fx.handleLogin {
		t.Fatalf("CreateSession must be reached over CALLS from HandleLogin: %+v", r.Definitions)
	}
	if cs.Score > 0.8+1e-9 || cs.Matched != "keyword" {
		t.Errorf("expanded hit %+v", cs)
	}

	// Filters.
	for _, c := range []struct {
		opts Options
		ok   func(Hit) bool
	}{
		{Options{Lang: []string{"python"}}, func(h Hit) bool { return h.Language == "python" }},
		{Options{Kind: []string{"method"}}, func(h Hit) bool { return h.Kind == "method" }},
		{Options{Kind: []string{"class"}}, func(h Hit) bool { return h.Label == "Class" }},
		{Options{NameGlob: "*config"}, func(h Hit) bool { return strings.HasSuffix(strings.ToLower(h.Name), "config") }},
		{Options{PathPrefix: "db/"}, func(h Hit) bool { return strings.HasPrefix(h.FilePath, "db/") }},
	} {
		c.opts.Mode = ModeKeyword
		r, err := Search(ctx, fx.pack, "config user repository login session get", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Definitions) == 0 {
			t.Errorf("%+v: no hits", c.opts)
		}
		for _, h := range r.Definitions {
			if !c.ok(h) {
				t.Errorf("%+v let through %+v", c.opts, h)
			}
		}
	}

	// Files: off by default, on with Files, and ranked below a definition
	// with the same words.
	r, _ = Search(ctx, fx.pack, "session", Options{Mode: ModeKeyword})
	for _, h := range r.Definitions {
		if h.Label == "File" {
			t.Errorf("file hit without Files: %+v", h)
		}
	}
	r, _ = Search(ctx, fx.pack, "session", Options{Mode: ModeKeyword, Files: true})
	var fileScore, defScore float64
	for _, h := range r.Definitions {
		switch h.ID {
		case "auth/session.go":
			fileScore = h.Score
		case fx.createSession:
			defScore = h.Score
		}
	}
	if fileScore == 0 || defScore <= fileScore {
		t.Errorf("session: file %.3f, definition %.3f: %v", fileScore, defScore, ids(r))
	}

	// Content (a pack read from a database alone has no source text:
	// TestSourceSection has it) and limit and min-score.
	r, _ = Search(ctx, fx.pack, "parse config", Options{Mode: ModeKeyword, Content: true, Limit: 1})
	if len(r.Definitions) != 1 || r.Definitions[0].Content != "" || !strings.HasPrefix(r.Definitions[0].Signature, "func ParseConfig") {
		t.Errorf("content: %+v", r.Definitions)
	}
	r, _ = Search(ctx, fx.pack, "config", Options{Mode: ModeKeyword, MinScore: 0.99})
	for _, h := range r.Definitions {
		if h.Score < 0.99 {
			t.Errorf("min-score let %v through", h.Score)
		}
	}
}

func TestSearchGroupsByProcess(t *testing.T) {
	fx := newFixture(t, true)
	r, err := Search(context.Background(), fx.pack, "login session password", Options{Mode: ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Processes) != 1 || r.Processes[0].ID != "proc:login" || r.Processes[0].StepCount != 3 || len(r.Processes[0].Steps) != 3 {
		t.Fatalf("processes %+v", r.Processes)
	}
	if s := r.Processes[0].Steps; s[0].ID != fx.handleLogin || s[2].ID != fx.createSession || s[1].Index != 2 {
		t.Errorf("steps %+v", s)
	}
	steps := map[string]int{}
	for _, ps := range r.ProcessSymbols {
		if ps.ProcessID != "proc:login" {
			t.Errorf("process symbol %+v", ps)
		}
		steps[ps.ID] = ps.StepIndex
	}
	if steps[fx.handleLogin] != 1 || steps[fx.createSession] != 3 {
		t.Errorf("steps %v", steps)
	}
	for _, d := range r.Definitions {
		if _, ok := steps[d.ID]; ok {
			t.Errorf("%s is both a process symbol and a definition", d.ID)
		}
	}
	// JSON field names are the reference tool's.
	b, _ := json.Marshal(r)
	for _, f := range []string{`"processes"`, `"process_symbols"`, `"definitions"`, `"process_id"`, `"step_index"`, `"filePath"`, `"startLine"`, `"endLine"`, `"matched":"keyword"`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("JSON lacks %s: %s", f, b)
		}
	}
}

func TestSearchModes(t *testing.T) {
	fx := newFixture(t, false)
	ctx := context.Background()
	r, err := Search(ctx, fx.pack, "parse config", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "keyword search only") {
		t.Errorf("hybrid without vectors: notices %v", r.Notices)
	}
	if _, err := Search(ctx, fx.pack, "parse config", Options{Mode: ModeVector}); !errors.Is(err, ErrNoVectors) {
		t.Errorf("vector without vectors: %v", err)
	}
	// A vector retriever plugs in and is fused with keyword hits.
	vec := func(_ context.Context, _ string, k int) ([]Scored, error) {
		return []Scored{{ID: fx.pyLoad, Score: 0.9}, {ID: "not-in-the-pack", Score: 0.8}, {ID: fx.parseConfig, Score: 0.7}}, nil
	}
	r, err = Search(ctx, fx.pack, "parse config", Options{Vectors: vec})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, h := range r.Definitions {
		m[h.ID] = h.Matched
	}
	if m[fx.parseConfig] != "both" || m[fx.pyLoad] == "" {
		t.Errorf("hybrid matched %v", m)
	}
	if h := first(t, r); h.ID != fx.parseConfig || h.Score > 1 {
		t.Errorf("hybrid first %+v", h)
	}
	if _, err := Search(ctx, fx.pack, "   ", Options{Mode: ModeKeyword}); err == nil {
		t.Error("empty query accepted")
	}
	r, err = Search(ctx, fx.pack, "the a an", Options{Mode: ModeKeyword})
	if err != nil || len(r.Definitions) != 0 || len(r.Notices) == 0 {
		t.Errorf("stop words only: %v %+v", err, r)
	}
}

// Hostile queries neither fail the search nor touch the database (the
// search does not even have it).
func TestSearchHostile(t *testing.T) {
	fx := newFixture(t, false)
	ctx := context.Background()
	count := func() int64 {
		r := fx.db.exec("MATCH (n) RETURN count(n)", nil)
		return r.Rows[0][0].(int64)
	}
	before := count()
	for _, q := range []string{
		`'); MATCH (n) DETACH DELETE n;//`,
		`' }) RETURN node; MATCH (n) DETACH DELETE n //`,
		`\'; DROP TABLE Function; --`,
		`"`, `'`, `\`, `*`, `repo*`, `a*`, `%`, `?`, "\x00", "日本語のクエリ", "🙂",
		strings.Repeat("getUserById ", 1000),
		strings.Repeat("x", 10000),
		strings.Repeat(`\'`, 5000),
	} {
		r, err := Search(ctx, fx.pack, q, Options{Mode: ModeKeyword, Files: true})
		if err != nil {
			t.Errorf("%.40q: %v", q, err)
			continue
		}
		_ = r
	}
	if after := count(); after != before {
		t.Fatalf("node count %d → %d", before, after)
	}
	// The injection words are searched as words, harmlessly.
	r, _ := Search(ctx, fx.pack, `'); MATCH (n) DETACH DELETE n;//`, Options{Mode: ModeKeyword})
	if strings.Join(r.Tokens, " ") != "match n detach delete" {
		t.Errorf("tokens %v", r.Tokens)
	}
	if _, err := Search(ctx, nil, "x", Options{}); !errors.Is(err, ErrNoPack) {
		t.Errorf("nil pack: %v", err)
	}
}
