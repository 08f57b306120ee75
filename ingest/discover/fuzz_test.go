package discover

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// refPattern translates a pattern made only of a, b, /, * and ? into a
// regular expression with wildmatch's meaning: the reference the fuzz
// target compares the port of git's wildmatch.c against. ok is false for a
// pattern using anything else. In pathname mode "*" and "?" stay inside a
// component; "**" as a whole component crosses them ("**/" matching zero
// or more leading directories, a trailing "/**" everything below); "**"
// inside a component is "*".
func refPattern(p string, pathname bool) (re string, ok bool) {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case 'a', 'b', '/':
			b.WriteByte(c)
			i++
		case '?':
			if pathname {
				b.WriteString(`[^/]`)
			} else {
				b.WriteString(`.`)
			}
			i++
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			switch {
			case !pathname:
				b.WriteString(`.*`)
			case j-i >= 2 && (i == 0 || p[i-1] == '/') && j == len(p):
				b.WriteString(`.*`)
			case j-i >= 2 && (i == 0 || p[i-1] == '/') && p[j] == '/':
				b.WriteString(`(?:.*/)?`)
				j++ // the slash is part of "**/"
			default:
				b.WriteString(`[^/]*`)
			}
			i = j
		default:
			return "", false
		}
	}
	b.WriteString(`$`)
	return b.String(), true
}

func onlyBytes(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// slowMatch is how long one wildmatch call may take in the fuzz targets
// (bounded pattern and text): far above any honest match, far below a
// pathological backtracking one.
const slowMatch = time.Second

// timedMatch runs wildmatch and returns its answer and the shortest time
// of up to three runs: one slow run on a loaded machine (the fuzzer shares
// it) is a scheduling hiccup, three are the matcher.
func timedMatch(p, text string, pathname bool) (bool, time.Duration) {
	var got bool
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		got = wildmatch(p, text, pathname)
		best = min(best, time.Since(start))
		if best <= slowMatch {
			break
		}
	}
	return got, best
}

// FuzzWildmatch runs the matcher on any pattern and text: no panic, no
// pathological time, and on the a/b/"/"/*/? alphabet the same answer as the
// regular-expression reference.
//
//	go test -run='^$' -fuzz=FuzzWildmatch -fuzztime=10m ./ingest/discover/
func FuzzWildmatch(f *testing.F) {
	seeds := []struct {
		p, t string
		pn   bool
	}{
		{"*.log", "x.log", false}, {"doc/**/*.pdf", "doc/a/b/c.pdf", true},
		{"a/**/b", "a/b", true}, {"**/", "a/", true}, {"foo**/bar", "foox/y/bar", true},
		{"[[:digit:]]z", "1z", false}, {"[a-c-e]", "-", false}, {"\\", "a", false},
		{"*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 200), true},
		{"**/a/**/a/**/a/**/a/**/b", strings.Repeat("a/", 100) + "c", true},
		{"*/*/*/*/*/*/*/*/x", strings.Repeat("a/", 100), true},
		{"***/a***b**", strings.Repeat("ab/", 50), true},
		{"a?b*/**/?", "a/b/c", true}, {"[!]]", "]", false}, {"[", "[", false},
	}
	for _, s := range seeds {
		f.Add(s.p, s.t, s.pn)
	}
	f.Fuzz(func(t *testing.T, p, text string, pathname bool) {
		if len(p) > 512 || len(text) > 4096 {
			return // a .gitignore line and a path are bounded (see below)
		}
		got, d := timedMatch(p, text, pathname)
		if d > slowMatch {
			t.Fatalf("wildmatch(%q, %q, %v) took %v", p, text, pathname, d)
		}
		if !onlyBytes(text, "ab/") {
			return
		}
		re, ok := refPattern(p, pathname)
		if !ok {
			return
		}
		if want := regexp.MustCompile(re).MatchString(text); got != want {
			t.Fatalf("wildmatch(%q, %q, pathname=%v) = %v, reference %s says %v", p, text, pathname, got, re, want)
		}
	})
}

// FuzzIgnoreRules parses any .gitignore content and matches its rules
// against a path: no panic, no pathological time.
func FuzzIgnoreRules(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\n"), "build/keep.log", "sub", false)
	f.Add([]byte("\xef\xbb\xbf#c\n\\#x\nesc\\  \n**/a/**\n"), "sub/a/b/c", "", true)
	f.Add([]byte("/*\n!/src/\n"), "src/x.go", "", false)
	f.Add([]byte("a\x00b\n[[:alpha:]\n[\n\\"), "a\x00b", "a", false)
	f.Fuzz(func(t *testing.T, content []byte, path, base string, isDir bool) {
		if len(content) > 64<<10 || len(path) > 4096 || len(base) > 4096 {
			return
		}
		rules := parseRules(content, base, "ignored", ".gitignore")
		for _, r := range rules {
			if r.pattern == "" {
				t.Fatalf("empty pattern from %q", content)
			}
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		start := time.Now()
		_ = lastMatch(rules, path, name, isDir)
		if d := time.Since(start); d > time.Duration(1+len(rules))*slowMatch {
			t.Fatalf("%d rules on %q took %v", len(rules), path, d)
		}
	})
}

// TestWildmatchAdversarialTime runs patterns made to backtrack (many "*"
// and "**" against long paths that almost match) and requires each to
// finish fast. git's abort rules alone do not: "**/a/" 20 times against a
// 2000-deep path ran for minutes before the memo (0.1 s now on an idle
// machine; the bound leaves room for a loaded one).
func TestWildmatchAdversarialTime(t *testing.T) {
	deep := strings.Repeat("a/", 2000) + "c"
	flat := strings.Repeat("a", 4000)
	cases := []struct {
		p, text string
		pn      bool
	}{
		{strings.Repeat("*a", 30) + "b", flat, true},
		{strings.Repeat("*a", 30) + "b", flat, false},
		{strings.Repeat("**/a/", 20) + "b", deep, true},
		{strings.Repeat("**/a", 20) + "/**/b", deep, true},
		{strings.Repeat("*/", 40) + "b", deep, true},
		{strings.Repeat("**a", 30) + "b", deep, true},
		{strings.Repeat("*?", 30) + "b", flat, false},
		{strings.Repeat("a*", 60) + "[b]", flat, false},
	}
	for _, c := range cases {
		got, d := timedMatch(c.p, c.text, c.pn)
		if got {
			t.Errorf("%q matched a text without b", c.p)
		}
		if d > slowMatch {
			t.Errorf("wildmatch(%q, <%d bytes>, %v) took %v", c.p, len(c.text), c.pn, d)
		}
	}
}
