package schema

import "testing"

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/a_test.go":               true,
		"a.go":                        false,
		"tests/foo.py":                true,
		"src/test_x.py":               true,
		"web/test_x.js":               true,
		"lib/x_test.rb":               true,
		"spec/models/user_spec.rb":    true,
		"src/app.test.ts":             true,
		"src/app.spec.js":             true,
		"src/latest.ts":               false,
		"src/Latest.java":             false,
		"src/FooTest.java":            true,
		"src/FooTests.cs":             true,
		"src/FooTest.php":             true,
		"e2e/login.ts":                true,
		"web/e2e/login.ts":            true,
		"a/Testing/b.go":              true,
		"conftest.py":                 true,
		"pkg/testutil/x.go":           false,
		"contest/x.go":                false,
		"attest.go":                   false,
		"src/__tests__/a.js":          true,
		"internal/testdata/x/main.go": true,
		"django/test/client.py":       true,
		"src/main/java/FooTest.java":  true,
		"latest.py":                   false,
		"testing.md":                  false,
		"protest/x.go":                false,
		"contest/main.py":             false,
		"lib/contest.go":              false,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:       `'plain'`,
		`it's`:        `'it\'s'`,
		`a\`:          `'a\\'`,
		"l1\nl2\t\r":  "'l1\nl2\t\r'",
		"nul\x00here": `'nulhere'`,
		`\'; DROP`:    `'\\\'; DROP'`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := QuoteList([]string{"a", "b'"}); got != `['a','b\'']` {
		t.Errorf("QuoteList = %s", got)
	}
}

// TestSymbolPath: the path of an id SymbolID built comes back when the id
// holds one "#"; a "#" in the path or the name makes it unknown, never
// wrong.
func TestSymbolPath(t *testing.T) {
	for _, c := range []struct {
		path, qual string
		ok         bool
	}{
		{"pkg/a.go", "Engine.Run", true},
		{"a.py", "f", true},
		{"dir#1/a.go", "f", false},
		{"a.cs", "op#x", false},
	} {
		id := SymbolID(c.path, c.qual, KindFunction, 2)
		got, ok := SymbolPath(id)
		if ok != c.ok || (ok && got != c.path) {
			t.Errorf("SymbolPath(%q) = %q, %v; want %q, %v", id, got, ok, c.path, c.ok)
		}
	}
	for _, id := range []string{"", "a.go", "README.md"} {
		if p, ok := SymbolPath(id); ok {
			t.Errorf("SymbolPath(%q) = %q, true; want not ok", id, p)
		}
	}
}

// TestPlainRefusesWhatHasNoText: null and lists have no text form; a
// value that does not fit its type is an error; doubles come out in their
// shortest exact form.
func TestPlainRefusesWhatHasNoText(t *testing.T) {
	for _, c := range []struct{ typ, raw string }{{"STRING", "null"}, {"INT64", " null"}, {"STRING[]", `["a"]`}} {
		if _, ok, err := Plain(c.typ, []byte(c.raw)); ok || err != nil {
			t.Errorf("Plain(%s, %s): ok %v, err %v; want not ok, no error", c.typ, c.raw, ok, err)
		}
	}
	for _, c := range []struct{ typ, raw string }{{"INT64", "1.5"}, {"BOOLEAN", "1"}, {"STRING", "3"}, {"FLOAT[3]", "[1,2,3]"}} {
		if _, _, err := Plain(c.typ, []byte(c.raw)); err == nil {
			t.Errorf("Plain(%s, %s): no error", c.typ, c.raw)
		}
	}
	if s, ok, _ := Plain("DOUBLE", []byte("0.10000000000000000555")); !ok || s != "0.1" {
		t.Errorf("Plain(DOUBLE, 0.1...) = %q, %v", s, ok)
	}
	if s, ok, _ := Plain("STRING", []byte(`"a\u0000b"`)); !ok || s != "ab" {
		t.Errorf("Plain(STRING, a NUL b) = %q, %v", s, ok)
	}
}
