package query

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseWords(t *testing.T) {
	cases := map[string][]string{
		"getUserById":                      {"get", "user", "by", "id", "getuserbyid"},
		"where is the auth middleware?":    {"is", "auth", "authentication", "authorization", "middleware"},
		"k8s":                              {"k8s", "kubernetes"},
		"K8S pods":                         {"k8s", "kubernetes", "pods"},
		"db connection":                    {"db", "database", "connection"},
		"user_repository":                  {"user", "repository", "userrepository"},
		"for if not is has can":            {"for", "if", "not", "is", "has", "can"},
		"İstanbulParser":                   {"istanbul", "parser", "istanbulparser"},
		"路由器":                              {"路由器"},
		"GRÜSSE an grüße":                  {"grüsse", "grüße"}, // "an" is a stop word
		"the a an":                         nil,
		"":                                 nil,
		"   \t\n":                          nil,
		"'); MATCH (n) DETACH DELETE n;//": {"match", "n", "detach", "delete"},
		`"quoted" \back\slash`:             {"quoted", "back", "slash"},
	}
	for in, want := range cases {
		if got := Parse(in).Words; !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q).Words = %q, want %q", in, got, want)
		}
	}
	if got := Parse("getUserById and user_repository").Idents; !reflect.DeepEqual(got, []string{"getuserbyid", "userrepository"}) {
		t.Errorf("Idents %q", got)
	}
}

func TestParsePhrasesAndPrefix(t *testing.T) {
	cases := []struct {
		q      string
		want   []Phrase
		prefix string
	}{
		{"user repository", []Phrase{{"userrepository", 2}}, ""},
		{"get object or 404", []Phrase{{"getobject", 2}, {"objector", 2}, {"or404", 2}, {"getobjector", 3}, {"objector404", 3}}, ""},
		{"getUserById", nil, "getuserbyid"}, // one segment: its whole form is already a word
		{"validatePass", nil, "validatepass"},
		{"single", nil, "single"},
		{"", nil, ""},
	}
	for _, c := range cases {
		p := Parse(c.q)
		if !reflect.DeepEqual(p.Phrases, c.want) || p.Prefix != c.prefix {
			t.Errorf("Parse(%q): phrases %v prefix %q, want %v %q", c.q, p.Phrases, p.Prefix, c.want, c.prefix)
		}
	}
	if got := Parse("parse config file").terms(2); !reflect.DeepEqual(got, []string{"parse", "config", "configuration", "file", "parseconfig", "configfile"}) {
		t.Errorf("terms(2) = %q", got)
	}
	if got := Parse("the a").terms(3); got != nil {
		t.Errorf("stop words only: terms %q", got)
	}
}

func TestParseBounded(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 700) // ~12k chars
	if got := Parse(long).Words; !reflect.DeepEqual(got, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("repeated words: %q", got)
	}
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		sb.WriteString("w")
		sb.WriteByte(byte('a' + i%26))
		sb.WriteByte(byte('a' + i/26%26))
		sb.WriteString(" ")
	}
	p := Parse(sb.String())
	if len(p.Words) != MaxTerms || len(p.Phrases) > MaxTerms {
		t.Errorf("got %d words, %d phrases, want at most MaxTerms=%d", len(p.Words), len(p.Phrases), MaxTerms)
	}
	if got := Parse(strings.Repeat("a", 10000)).Words; len(got) != 1 {
		t.Errorf("10k-letter word: %d words", len(got))
	}
}
