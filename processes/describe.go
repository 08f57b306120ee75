package processes

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/graph/text"
)

// A flow's Description says in words what it does, for a reader who does
// not know the names yet. The label ("ServeHTTP → handleHTTPRequest → …
// → Next") shows the path; the description says what the path is for,
// from what the code's authors wrote about it: the first sentence of the
// entry's doc comment, its own name dropped ("Run attaches the router to a
// http.Server and starts listening and serving HTTP requests" → "Attaches
// the router to a http.Server and starts listening and serving HTTP
// requests"). An entry without a doc comment is named by its words and
// owner ("Handle HTTP request (Engine)"), and the flow's end says the
// rest: the terminal step's sentence when it has one ("…, reaching
// getValue: returns the handle registered with the given path"). A flow
// that stands for a leaf fan-out says how many other last steps it stands
// for ("reaching setIntField (or 5 others like it)"). A
// returned func's flow says so ("Per call of the func BasicAuth returns
// (a Basic HTTP Authorization middleware), reaching …").
//
// Nothing here knows a framework's vocabulary: the words are the
// repository's own, so a flow reads the way its code is documented.

// maxDescription bounds a description, in bytes (cut at a word, "…").
const maxDescription = 200

// maxPurpose bounds the entry's part, leaving room for where it ends.
const maxPurpose = 130

// describe builds the description of flow t: its steps (node indexes of
// g, entry first), whether it is the flow of the func the entry returns,
// the other last steps it stands for (Alike) and the entry's flows left
// out as another entry's (SharedMore).
func describe(g *Graph, t Trace) string {
	steps, closure, alike := t.Steps, t.Closure, t.Alike
	entry := &g.Nodes[steps[0]]
	var b strings.Builder
	purpose := docPurpose(entry)
	switch {
	case closure:
		// what runs is the returned func, not the entry: name the entry, and
		// what it returns when its doc says ("Returns a Basic HTTP
		// Authorization middleware" → "(a Basic HTTP Authorization
		// middleware)"), else what its doc says it is for
		b.WriteString("Per call of the func " + entry.Name + " returns")
		if purpose != "" {
			if rest, ok := cutReturns(purpose); ok {
				purpose = rest
			} else {
				purpose = entry.Name + ": " + lowerFirst(purpose)
			}
			b.WriteString(" (" + text.Clip(purpose, maxPurpose) + ")")
		}
	case purpose != "":
		b.WriteString(text.Clip(purpose, maxPurpose))
	default:
		b.WriteString(namePhrase(entry))
	}
	if len(steps) > 1 {
		last := &g.Nodes[steps[len(steps)-1]]
		b.WriteString(", reaching ")
		b.WriteString(last.Name)
		switch {
		case alike == 1:
			b.WriteString(" (or 1 other like it)")
		case alike > 1:
			fmt.Fprintf(&b, " (or %d others like it)", alike)
		}
		if entry.Doc == "" { // the end says what the entry's name alone does not
			if p := docPurpose(last); p != "" {
				b.WriteString(": ")
				b.WriteString(lowerFirst(p))
			}
		}
	}
	if t.SharedWith >= 0 || t.SharedWith == SharedSeveral {
		whose := "other entries'"
		if t.SharedWith >= 0 {
			whose = qualified(&g.Nodes[t.SharedWith]) + "'s"
		}
		fmt.Fprintf(&b, "; after its first step, the same as %s", whose)
		switch t.SharedMore {
		case 0:
		case 1:
			b.WriteString(", as is its other flow")
		default:
			fmt.Fprintf(&b, ", as are its %d other flows", t.SharedMore)
		}
	}
	return text.Clip(b.String(), maxDescription)
}

// docPurpose is the first sentence of n's doc comment without n's own
// name in front (Go's "Name does …" convention, also "Name (JSON) does
// …" and "Owner.Name does …"), capitalized; "" without a doc comment.
func docPurpose(n *Node) string {
	s := n.Doc
	if s == "" {
		return ""
	}
	first, rest, _ := strings.Cut(s, " ")
	if w := strings.TrimRight(first, ":,"); w == n.Name || strings.HasSuffix(w, "."+n.Name) || w == n.Name+"()" {
		s = strings.TrimSpace(rest)
		if strings.HasPrefix(s, "(") { // "Render (JSON) writes …"
			if i := strings.IndexByte(s, ')'); i > 0 {
				s = strings.TrimSpace(s[i+1:])
			}
		}
		s = strings.TrimLeft(s, "-–—: ") // kernel-doc "vfs_read - read from a file"
	}
	if s == "" {
		return ""
	}
	return upperFirst(s)
}

// namePhrase names a symbol without a doc comment by its words: "Handle
// HTTP request (Engine)" for Engine.handleHTTPRequest, "Load app" for
// load_app; acronyms keep their case.
func namePhrase(n *Node) string {
	words := text.SplitIdentifierCase(n.Name)
	for i, w := range words {
		if !isUpperWord(w) {
			words[i] = strings.ToLower(w)
		}
	}
	phrase := upperFirst(strings.Join(words, " "))
	if phrase == "" {
		phrase = n.Name
	}
	if owner := ownerOf(n); owner != "" {
		phrase += " (" + owner + ")"
	}
	return phrase
}

// cutReturns is a purpose that starts "Returns …" without that verb.
func cutReturns(purpose string) (string, bool) {
	for _, v := range []string{"Returns ", "Return "} {
		if rest, ok := strings.CutPrefix(purpose, v); ok && rest != "" {
			return rest, true
		}
	}
	return "", false
}

// qualified is a symbol's name with its owner: "formBinding.Bind".
func qualified(n *Node) string {
	if o := ownerOf(n); o != "" {
		return o + "." + n.Name
	}
	return n.Name
}

// ownerOf is the type or enclosing function a symbol is declared in
// ("Engine" for Engine.handleHTTPRequest), "" at top level.
func ownerOf(n *Node) string {
	q := strings.TrimSuffix(n.QualifiedName, "."+n.Name)
	if q == n.QualifiedName || q == "" {
		return ""
	}
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		q = q[i+1:]
	}
	return q
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// lowerFirst lowercases a leading capital unless it starts an acronym or
// a name ("HTTP", "JSON", "GetValue").
func lowerFirst(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if isUpperWord(first) || strings.IndexFunc(first[1:], unicode.IsUpper) >= 0 {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

// isUpperWord reports whether w is all capitals (an acronym) and longer
// than one letter.
func isUpperWord(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n > 1
}
