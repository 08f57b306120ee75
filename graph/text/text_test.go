package text

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitIdentifier(t *testing.T) {
	cases := map[string][]string{
		"getUserById":          {"get", "user", "by", "id"},
		"GetUserByID":          {"get", "user", "by", "id"},
		"user_repository":      {"user", "repository"},
		"USER_REPOSITORY":      {"user", "repository"},
		"kebab-case-name":      {"kebab", "case", "name"},
		"HTTPServer":           {"http", "server"},
		"parseJSON":            {"parse", "json"},
		"XMLHttpRequest":       {"xml", "http", "request"},
		"http2Server":          {"http2", "server"},
		"sha256":               {"sha256"},
		"int64":                {"int64"},
		"base64Encode":         {"base64", "encode"},
		"x509Cert":             {"x509", "cert"},
		"2fa":                  {"2", "fa"},
		"ServeHTTP":            {"serve", "http"},
		"__init__":             {"init"},
		"src/auth/validate.ts": {"src", "auth", "validate", "ts"},
		"Engine.ServeHTTP":     {"engine", "serve", "http"},
		"a":                    {"a"},
		"A":                    {"a"},
		"IOError":              {"io", "error"},
		"café":                 {"caf"},
		"日本語":                  nil,
		"":                     nil,
		"___":                  nil,
	}
	for in, want := range cases {
		if got := SplitIdentifier(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchText(t *testing.T) {
	cases := []struct{ name, qn, path, want string }{
		{"getUserById", "UserService.getUserById", "src/user_service.ts",
			"get user by id getuserbyid service userservice src ts"},
		{"user_repository", "", "", "user repository userrepository"},
		{"validate.ts", "", "src/auth/validate.ts", "validate ts src auth"},
		{"http2Server", "", "", "http2 httptwo server http2server httptwoserver"},
		{"handle404", "", "", "handle404 handlefourzerofour"},
		{"", "", "a/404.html", "a 404 numfourzerofour html"},
		{"", "", "", ""},
	}
	for _, c := range cases {
		if got := SearchText(c.name, c.qn, c.path); got != c.want {
			t.Errorf("SearchText(%q, %q, %q)\n got %q\nwant %q", c.name, c.qn, c.path, got, c.want)
		}
	}
}

func TestTokens(t *testing.T) {
	cases := map[string][]string{
		"getUserById":                      {"get", "user", "by", "id", "getuserbyid"},
		"where is the auth middleware?":    {"is", "auth", "authentication", "authorization", "middleware"},
		"k8s":                              {"k8s", "kubernetes"},
		"K8S pods":                         {"k8s", "kubernetes", "pods"},
		"db connection":                    {"db", "database", "connection"},
		"user_repository":                  {"user", "repository", "userrepository"},
		"for if not is has can":            {"for", "if", "not", "is", "has", "can"},
		"the a an":                         nil,
		"":                                 nil,
		"   \t\n":                          nil,
		"日本語":                              nil,
		"'); MATCH (n) DETACH DELETE n;//": {"match", "n", "detach", "delete"},
		`"quoted" \back\slash`:             {"quoted", "back", "slash"},
	}
	for in, want := range cases {
		if got := Tokens(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokensBounded(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 700) // ~12k chars
	if got := Tokens(long); !reflect.DeepEqual(got, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("repeated words: %q", got)
	}
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		sb.WriteString("w")
		sb.WriteByte(byte('a' + i%26))
		sb.WriteByte(byte('a' + i/26%26))
		sb.WriteString(" ")
	}
	if got := Tokens(sb.String()); len(got) != MaxTokens {
		t.Errorf("got %d tokens, want MaxTokens=%d", len(got), MaxTokens)
	}
	one := strings.Repeat("a", 10000)
	if got := Tokens(one); len(got) != 1 || len(got[0]) != MaxInput {
		t.Errorf("10k-letter word: %d tokens", len(got))
	}
}

func TestFTSQuery(t *testing.T) {
	cases := []struct {
		toks []string
		want string
	}{
		{[]string{"get", "user", "getuser"}, "get user getuser"},
		{[]string{"http2", "sha256"}, "httptwo shatwofivesix"},
		{[]string{"404"}, "numfourzerofour"},
		{[]string{"k8s", "kubernetes"}, "keights kubernetes"},
		{[]string{"repo*", "*"}, "repo"},
		{[]string{"'", `\`, ""}, ""},
		{[]string{"Mixed'Case"}, "mixedcase"},
		{nil, ""},
	}
	for _, c := range cases {
		if got := FTSQuery(c.toks); got != c.want {
			t.Errorf("FTSQuery(%q) = %q, want %q", c.toks, got, c.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	cases := []struct {
		q    string
		n    int
		want []string
	}{
		{"user repository", 3, []string{"userrepository"}},
		{"get object or 404", 3, []string{"getobject", "objector", "or404", "getobjector", "objector404"}},
		{"getUserById", 3, nil}, // one segment: its whole form is already a token
		{"parse config file", 2, []string{"parseconfig", "configfile"}},
		{"single", 3, nil},
		{"", 3, nil},
	}
	for _, c := range cases {
		if got := Phrases(c.q, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Phrases(%q, %d) = %q, want %q", c.q, c.n, got, c.want)
		}
	}
	if got := Phrases(strings.Repeat("w ", 5000), 3); len(got) > MaxTokens {
		t.Errorf("%d phrases", len(got))
	}
}

func TestStopWordsCSV(t *testing.T) {
	csv := StopWordsCSV()
	for _, keep := range []string{"for", "if", "not", "is", "has", "can", "get", "new", "value", "name"} {
		if StopWords[keep] || strings.Contains("\n"+csv, "\n"+keep+"\n") {
			t.Errorf("%q must not be a stop word", keep)
		}
	}
	if !strings.Contains(csv, "\nthe\n") {
		t.Errorf("\"the\" missing from %q", csv)
	}
	for k, vs := range Aliases {
		for _, w := range append([]string{k}, vs...) {
			if !tokenRE.MatchString(w) {
				t.Errorf("alias %q → %q: %q is not a [a-z0-9]+ word", k, vs, w)
			}
		}
		for _, v := range vs {
			if StopWords[v] {
				t.Errorf("alias %q expands to stop word %q", k, v)
			}
		}
	}
}

var (
	tokenRE = regexp.MustCompile(`^[a-z0-9]+$`)
	ftsRE   = regexp.MustCompile(`^([a-z]+ )*[a-z]+$`)
)

// checkOutputs asserts the output contracts for any input.
func checkOutputs(t *testing.T, s string) {
	for _, w := range SplitIdentifier(s) {
		if !tokenRE.MatchString(w) {
			t.Fatalf("SplitIdentifier(%q) gave %q", s, w)
		}
	}
	for _, w := range Phrases(s, 3) {
		if !tokenRE.MatchString(w) {
			t.Fatalf("Phrases(%q) gave %q", s, w)
		}
	}
	toks := Tokens(s)
	if len(toks) > MaxTokens {
		t.Fatalf("Tokens(%q): %d tokens", s, len(toks))
	}
	for _, w := range toks {
		if !tokenRE.MatchString(w) {
			t.Fatalf("Tokens(%q) gave %q", s, w)
		}
	}
	if q := FTSQuery(append(toks, Phrases(s, 3)...)); q != "" && !ftsRE.MatchString(q) {
		t.Fatalf("FTSQuery(Tokens(%q)) = %q", s, q)
	}
	if q := FTSQuery([]string{s}); q != "" && !ftsRE.MatchString(q) {
		t.Fatalf("FTSQuery([%q]) = %q", s, q)
	}
	if st := SearchText(s, s, s); st != "" {
		for _, w := range strings.Split(st, " ") {
			if !tokenRE.MatchString(w) {
				t.Fatalf("SearchText(%q) gave %q", s, w)
			}
		}
	}
}

func TestHostile(t *testing.T) {
	for _, s := range []string{
		`'); MATCH (n) DETACH DELETE n;//`,
		`\' OR 1=1 --`, `"`, `'`, `\`, `\\\\`, "`", `*`, `**`, `a*`, `%`, `?`,
		"\x00\x01\xff\xfe", "\u202e", "日本語のコード", "🙂🙂", "ǅungla", "İstanbul",
		strings.Repeat("'", 10000), strings.Repeat("aB1_", 2500),
		"", " ",
	} {
		checkOutputs(t, s)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"getUserById", "HTTPServer", "k8s auth", `'); MATCH (n) DETACH DELETE n;//`, "日本", "a_b-c.d/e", "x509Cert2fa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkOutputs(t, s)
		if utf8.ValidString(s) {
			// Splitting is idempotent on its own output.
			words := SplitIdentifier(s)
			again := SplitIdentifier(strings.Join(words, " "))
			if !reflect.DeepEqual(words, again) && len(s) <= MaxInput {
				t.Fatalf("not idempotent: %q → %q → %q", s, words, again)
			}
		}
	})
}
