package text

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
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
		"café":                 {"café"},
		"İstanbulParser":       {"istanbul", "parser"},
		"GRÜSSE":               {"grüsse"},
		"grüßeWelt":            {"grüße", "welt"},
		"路由器":                  {"路由器"},
		"new路由器":               {"new路由器"},
		"ÄrgerMitÖl":           {"ärger", "mit", "öl"},
		"line\nbreak":          {"line", "break"},
		"tab\tsep":             {"tab", "sep"},
		"\xffbad\xfe":          {"bad"},
		"":                     nil,
		"___":                  nil,
	}
	for in, want := range cases {
		if got := SplitIdentifier(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSegments(t *testing.T) {
	cases := map[string][]string{
		"pkg.mod.Class.method": {"pkg", "mod", "Class", "method"},
		"src/user_repo.py":     {"src", "user_repo", "py"},
		"grüße welt":           {"grüße", "welt"},
		"路由器.route()":          {"路由器", "route"},
		"a\nb":                 {"a", "b"},
	}
	for in, want := range cases {
		if got := Segments(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Segments(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	cases := map[string][]string{
		"ParseConfig reads a\nYAML file":         {"parse", "config", "parseconfig", "reads", "a", "yaml", "file"},
		"config\nparser":                         {"config", "parser"}, // no glued "config\nparser"
		"func (r *UserRepo) Get(id int64) error": {"func", "r", "user", "repo", "userrepo", "get", "id", "int64", "error"},
		"Der Parser für İstanbul, grüße":         {"der", "parser", "für", "istanbul", "grüße"},
		"路由器 把请求":                                {"路由器", "把请求"},
		"user_repository user":                   {"user", "repository", "userrepository", "user"},
		"":                                       nil,
	}
	for in, want := range cases {
		var got []string
		Words(in, func(w []byte) { got = append(got, string(w)) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchText(t *testing.T) {
	cases := []struct{ name, qn, path, want string }{
		{"getUserById", "UserService.getUserById", "src/user_service.ts",
			"get user by id getuserbyid service userservice src ts"},
		{"user_repository", "", "", "user repository userrepository"},
		{"validate.ts", "", "src/auth/validate.ts", "validate ts src auth"},
		{"http2Server", "", "", "http2 server http2server"},
		{"handle404", "", "", "handle404"},
		{"", "", "a/404.html", "a 404 html"},
		{"İstanbulParser", "", "", "istanbul parser istanbulparser"},
		{"", "", "", ""},
	}
	for _, c := range cases {
		if got := SearchText(c.name, c.qn, c.path); got != c.want {
			t.Errorf("SearchText(%q, %q, %q)\n got %q\nwant %q", c.name, c.qn, c.path, got, c.want)
		}
	}
}

func TestStopWordsAndAliases(t *testing.T) {
	for _, keep := range []string{"for", "if", "not", "is", "has", "can", "get", "new", "value", "name"} {
		if StopWords[keep] {
			t.Errorf("%q must not be a stop word", keep)
		}
	}
	if !StopWords["the"] {
		t.Error(`"the" is not a stop word`)
	}
	for k, vs := range Aliases {
		for _, w := range append([]string{k}, vs...) {
			if !isWord(w) {
				t.Errorf("alias %q → %q: %q is not one lower-case word", k, vs, w)
			}
		}
		for _, v := range vs {
			if StopWords[v] {
				t.Errorf("alias %q expands to stop word %q", k, v)
			}
		}
	}
}

// isWord reports whether w is a non-empty run of lower-case letters,
// caseless letters, marks and digits.
func isWord(w string) bool {
	if w == "" || !utf8.ValidString(w) {
		return false
	}
	for _, r := range w {
		if unicode.IsUpper(r) || unicode.IsTitle(r) || !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// checkOutputs asserts the output contracts for any input.
func checkOutputs(t *testing.T, s string) {
	for _, w := range SplitIdentifier(s) {
		if !isWord(w) {
			t.Fatalf("SplitIdentifier(%q) gave %q", s, w)
		}
	}
	Words(s, func(b []byte) {
		if w := string(b); !isWord(w) {
			t.Fatalf("Words(%q) gave %q", s, w)
		}
	})
	if st := SearchText(s, s, s); st != "" {
		for _, w := range strings.Split(st, " ") {
			if !isWord(w) {
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
	one := strings.Repeat("a", 10000)
	if got := SplitIdentifier(one); len(got) != 1 || len(got[0]) != MaxInput {
		t.Errorf("10k-letter word: %d words", len(got))
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"getUserById", "HTTPServer", "k8s auth", `'); MATCH (n) DETACH DELETE n;//`, "日本", "a_b-c.d/e", "x509Cert2fa", "İstanbulParser grüße"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkOutputs(t, s)
	})
}

func TestFirstSentence(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"", ""},
		{"Run attaches the router to a http.Server and starts listening.\nIt blocks.", "Run attaches the router to a http.Server and starts listening"},
		{"Decorate a view function to register it\nwith the given URL rule.\n\nMore.", "Decorate a view function to register it with the given URL rule"},
		{"Summary line without a period\n\nDetails. More.", "Summary line without a period"},
		{"Serves files (e.g. images) through the router. Then stops.", "Serves files (e.g. images) through the router"},
		{"Listens on a unix socket (i.e. a file). Blocks.", "Listens on a unix socket (i.e. a file)"},
		{"vfs_read - read from a file", "vfs_read - read from a file"},
		{"Like :meth:`Flask.errorhandler` but for a :class:`~flask.Blueprint`.", "Like Flask.errorhandler but for a Blueprint"},
		{"Shortcut for ``route`` with `code` kept.", "Shortcut for route with `code` kept"},
		{strings.Repeat("word ", 100), strings.TrimSpace(strings.Repeat("word ", 15)) + "…"}, // 77 bytes of 80
	}
	for _, c := range cases {
		if got := FirstSentence(c.doc, 80); got != c.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", c.doc, got, c.want)
		}
	}
	if got := Clip("héllo wörld", 8); got != "héll…" { // 5 bytes and "…": é is two

		t.Errorf("Clip = %q", got)
	}
}

// wordsBefore is Words as it was written before the Tokenizer (segments by
// strings.IndexFunc, words collected, the whole form joined): the
// reference the Tokenizer must agree with.
func wordsBefore(s string, emit func(w string)) {
	if len(s) > MaxIndexInput {
		s = s[:MaxIndexInput]
	}
	var words []string
	for len(s) > 0 {
		i := strings.IndexFunc(s, isSegmentRune)
		if i < 0 {
			return
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isSegmentRune(r) })
		if j < 0 {
			j = len(s)
		}
		words = words[:0]
		splitWordsBefore(s[:j], func(w string) { words = append(words, strings.ToLower(w)) })
		for _, w := range words {
			emit(w)
		}
		if len(words) > 1 {
			emit(strings.Join(words, ""))
		}
		s = s[j:]
	}
}

// tokenizerAgrees fails t when one Tokenizer (reused) and wordsBefore give
// different words for s.
func tokenizerAgrees(t *testing.T, tok *Tokenizer, s string) {
	t.Helper()
	var want, got []string
	wordsBefore(s, func(w string) { want = append(want, w) })
	tok.Words(s, func(w []byte) { got = append(got, string(w)) })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tokenizer.Words(%q)\n got %q\nwant %q", s, got, want)
	}
}

// TestTokenizerAgrees: the Tokenizer gives the words the earlier Words
// gave, on code, prose, Unicode, invalid UTF-8 and text past MaxIndexInput.
func TestTokenizerAgrees(t *testing.T) {
	var tok Tokenizer
	for _, s := range []string{
		"func (r *UserRepo) Get(id int64) error { return r.db.QueryRow(ctx, getUserByID, id) }",
		"HTTPServer parseJSON XMLHttpRequest http2Server x509Cert 2fa __init__ foo-bar --flag",
		"Der Parser für İstanbul, grüße; 路由器 把请求 ÀÉÎ straße ǅemal",
		"bad\xffutf8\xc3 mixed\x80Words", "", "   ", "a", "_", "-_-",
		strings.Repeat("someIdentifier_with_parts ", MaxIndexInput/20),
	} {
		tokenizerAgrees(t, &tok, s)
	}
}

// FuzzTokenizer: the Tokenizer and the earlier Words agree on any input.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"ParseConfig reads a\nYAML file", "İstanbulParser_x9", "a\xffb", "路由器Router"} {
		f.Add(s)
	}
	var tok Tokenizer
	f.Fuzz(func(t *testing.T, s string) { tokenizerAgrees(t, &tok, s) })
}

// splitWordsBefore is splitWords as it was written before its ASCII fast
// path (a rune at a time through class).
func splitWordsBefore(s string, emit func(string)) {
	start := -1
	prev := sep
	flush := func(end int) {
		if start >= 0 && end > start {
			emit(s[start:end])
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		c := class(r)
		if c == sep {
			flush(i)
			prev = sep
			i += n
			continue
		}
		if start < 0 {
			start = i
		} else {
			switch {
			case c == upper && (prev == lower || prev == digit):
				flush(i)
				start = i
			case c == upper && prev == upper && i+n < len(s):
				if nr, _ := utf8.DecodeRuneInString(s[i+n:]); class(nr) == lower && unicode.IsLower(nr) {
					flush(i)
					start = i
				}
			case (c == lower || c == upper) && prev == digit && unicode.IsLetter(r):
				flush(i)
				start = i
			}
		}
		prev = c
		i += n
	}
	flush(len(s))
}

// FuzzSplitIdentifier: SplitIdentifier splits as the rune-at-a-time
// splitter did.
func FuzzSplitIdentifier(f *testing.F) {
	for _, s := range []string{"HTTPServer", "parseJSON", "x509Cert2fa", "İstanbulParser", "ǅemalÀb", "a\xffB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		splitWordsBefore(s, func(w string) { want = append(want, w) })
		var got []string
		splitWords(s, func(w string) { got = append(got, w) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("splitWords(%q) = %q, want %q", s, got, want)
		}
	})
}
