package text

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// FirstSentence is a doc comment's first sentence on one line, without
// its period: up to the first ". " that does not end an abbreviation
// (e.g., i.e., etc.), or a blank line, or the end; at most limit bytes (Clip).
// "" for an empty doc. It is what an index keeps of a doc comment for
// prose built from names (flow descriptions).
func FirstSentence(doc string, limit int) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	if len(doc) > 4*limit {
		doc = doc[:4*limit]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	doc = plainMarkup(doc)
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && doc[i+1] == ' ' && !abbreviationEnd(doc[:i]) {
			doc = doc[:i]
			break
		}
	}
	return Clip(strings.TrimSuffix(doc, "."), limit)
}

// abbreviationEnd reports whether a period after s ends an abbreviation
// ("e.g", "i.e", "etc", "vs") rather than a sentence.
func abbreviationEnd(s string) bool {
	i := strings.LastIndexByte(s, ' ')
	w := strings.ToLower(strings.TrimLeft(s[i+1:], "(["))
	switch w {
	case "e.g", "i.e", "etc", "vs", "cf", "approx":
		return true
	}
	return false
}

// Clip cuts s to at most n bytes at a word boundary (when one lies in
// the second half), ending it with "…"; s itself when it fits.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// reRole matches a reStructuredText role (:meth:`~flask.Flask.route`) or
// inline literal (methods=["GET"] between double backquotes).
var reRole = regexp.MustCompile("(?::[a-z][a-z:]*:)?`(`?)([^`]+)`?`")

// plainMarkup drops Sphinx roles and literal quotes from a docstring
// sentence: ":meth:`route`" → "route", ":class:`~flask.Blueprint`" →
// "Blueprint", a literal in double backquotes → its text. Markdown's
// `code` stays as written.
func plainMarkup(s string) string {
	if !strings.Contains(s, "``") && !strings.Contains(s, ":`") {
		return s
	}
	return reRole.ReplaceAllStringFunc(s, func(m string) string {
		sub := reRole.FindStringSubmatch(m)
		role := !strings.HasPrefix(m, "`")
		if !role && sub[1] == "" { // plain `code`
			return m
		}
		t := sub[2]
		if strings.HasPrefix(t, "~") { // ~a.b.C shows C
			t = t[strings.LastIndexByte(t, '.')+1:]
		}
		return t
	})
}
