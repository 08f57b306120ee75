package query

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// goldenDoc is one symbol of the golden corpus.
type goldenDoc struct {
	kind       schema.Kind
	qn, path   string
	sig, doc   string
	line, endl int
}

// goldenCorpus is a small multilingual project: Unicode identifiers
// (Turkish dotted capital I, CJK, German sharp s), doc comments with
// newlines inside sentences, and ASCII neighbours that share words.
var goldenCorpus = []goldenDoc{
	{schema.KindClass, "İstanbulParser", "geo/istanbul.go", "type İstanbulParser struct", "İstanbulParser reads street addresses of Istanbul.", 3, 20},
	{schema.KindFunction, "parseAddress", "geo/address.go", "func parseAddress(s string) Address", "parseAddress splits an address line.", 5, 30},
	{schema.KindFunction, "路由器", "net/router.go", "func 路由器(请求 *Request)", "路由器 把请求分发到处理函数", 1, 9},
	{schema.KindFunction, "NewRouter", "net/router.go", "func NewRouter() *Router", "NewRouter returns an empty router.", 12, 20},
	{schema.KindFunction, "SendeGrüße", "de/gruss.go", "func SendeGrüße(an string)", "SendeGrüße sendet Grüße an alle Empfänger.", 1, 8},
	{schema.KindFunction, "SendGreeting", "en/greet.go", "func SendGreeting(to string)", "SendGreeting says hello.", 1, 8},
	{schema.KindFunction, "loadSettings", "app/settings.go", "func loadSettings(path string) error",
		"loadSettings runs the config\nparser over the file and\nvalidates what it returns.", 10, 40},
	{schema.KindClass, "ConfigParser", "config/parser.go", "type ConfigParser struct", "ConfigParser parses YAML configuration.", 4, 50},
	{schema.KindMethod, "ConfigParser.Parse", "config/parser.go", "func (p *ConfigParser) Parse(b []byte) error", "Parse reads b.", 52, 70},
	{schema.KindFunction, "TestConfigParser", "config/parser_test.go", "func TestConfigParser(t *testing.T)", "", 1, 30},
	{schema.KindFunction, "validatePassword", "auth/login.go", "func validatePassword(hash, pw string) bool", "", 40, 49},
	{schema.KindFunction, "http2Server", "net/h2.go", "func http2Server() *Server", "http2Server serves HTTP/2 over TLS.", 1, 20},
}

// goldenPack builds the pack of goldenCorpus (and one file per path)
// through the builder BuildPack uses, writes it and reads it back.
func goldenPack(t *testing.T) *Pack {
	t.Helper()
	b := newPackBuilder()
	files := map[string]bool{}
	for _, d := range goldenCorpus {
		name := d.qn[strings.LastIndex(d.qn, ".")+1:]
		b.addSymbol(Hit{ID: goldenID(d.qn), Label: string(schema.LabelOf(d.kind)), Name: name, Kind: string(d.kind),
			FilePath: d.path, StartLine: d.line, EndLine: d.endl, Language: "go", IsTest: schema.IsTestPath(d.path)},
			text.SearchText(name, d.qn, d.path), d.sig, d.doc, d.qn, "")
		files[d.path] = true
	}
	for _, d := range goldenCorpus {
		if files[d.path] {
			delete(files, d.path)
			b.addFile(fileHit(d.path, d.path[strings.LastIndex(d.path, "/")+1:], d.path, "go", 100, schema.IsTestPath(d.path)), 0)
		}
	}
	p, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/golden.pack"
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	p, err = ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func goldenID(qn string) string { return "sym:" + qn }

// TestGoldenRanking is the ranking of the shipped engine on the golden
// corpus: for each query, the ids of the first hits in order. A change of
// tokenizer, stemmer, weights or formula that moves any of them fails
// here; update the table only for a change measured with query/eval.
func TestGoldenRanking(t *testing.T) {
	p := goldenPack(t)
	cases := []struct {
		q     string
		files bool
		want  []string
	}{
		// Unicode capitals lower-case as Unicode does (İ → i), and the
		// name splits at the case change.
		{"İstanbulParser", false, []string{"İstanbulParser"}},
		{"istanbul parser", false, []string{"İstanbulParser", "ConfigParser.Parse", "ConfigParser", "parseAddress", "loadSettings"}},
		{"ISTANBUL", false, []string{"İstanbulParser"}},
		// Caseless scripts: a run of CJK letters is one word.
		{"路由器", false, []string{"路由器"}},
		{"路由器 router", false, []string{"路由器", "NewRouter"}},
		// Non-ASCII letters are letters, and upper case lowers (GRÜSSE
		// is not grüße: no case folding of ß, only lower-casing).
		{"grüße", false, []string{"SendeGrüße"}},
		{"Grüße senden", false, []string{"SendeGrüße"}},
		// A newline inside a doc comment separates words like a space.
		// (Kuzu's index glued "config\nparser" and "and\nvalidates" into
		// terms no query matched.)
		// ("parser" also meets "parse": an agent noun's "-er" is dropped.)
		{"parser over the file", false, []string{"ConfigParser.Parse", "loadSettings", "ConfigParser", "parseAddress", "İstanbulParser"}},
		{"validates", false, []string{"validatePassword", "loadSettings"}},
		// Identifier words, whole identifiers, phrases and prefixes.
		{"config parser", false, []string{"ConfigParser", "ConfigParser.Parse", "parseAddress", "İstanbulParser", "loadSettings"}},
		{"validatePass", false, []string{"validatePassword"}},
		{"http2", false, []string{"http2Server"}},
		// Files join with Files, below the definitions they hold.
		{"router", true, []string{"NewRouter", "路由器", "net/router.go"}},
	}
	for _, c := range cases {
		r, err := Search(context.Background(), p, c.q, Options{Mode: ModeKeyword, Files: c.files, Limit: len(c.want)})
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		var got []string
		for _, id := range ids(r) {
			got = append(got, strings.TrimPrefix(id, "sym:"))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.q, got, c.want)
		}
	}
}
