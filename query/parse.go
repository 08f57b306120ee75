package query

import (
	"strings"

	"github.com/gitnexus/gitnexus/graph/text"
)

// MaxTerms bounds the words and the phrases of a parsed query (each): a
// longer query keeps its first MaxTerms distinct ones.
const MaxTerms = 32

// MaxPhraseWords is the longest run of query words Parse joins into a
// phrase; Ranking.Phrases picks how many of them a search uses.
const MaxPhraseWords = 3

// Query is a search query parsed once (Parse): every retriever reads this
// tree, none splits the text again. Filters stay in Options.
type Query struct {
	// Raw is the query as given (the vector retriever embeds it).
	Raw string
	// Words are the terms searched for, in query order, each once: every
	// word of every segment (split like an identifier, lower-cased, stop
	// words dropped), each followed by its aliases (k8s → kubernetes), and
	// after a segment of several words its whole form (Idents).
	Words []string
	// Idents are the code-shaped terms: segments of several words kept
	// whole ("getUserById" → getuserbyid, "user_repository" →
	// userrepository). They are also in Words.
	Idents []string
	// Phrases are the identifiers a multi-word query may be spelling: runs
	// of 2 to MaxPhraseWords consecutive words that span at least two
	// segments, joined ("user repository" → userrepository). Stop words
	// count (identifiers contain them); phrases already in Words are left
	// out.
	Phrases []Phrase
	// Prefix is the query as one identifier perhaps being typed
	// ("validatePass" → validatepass): its words joined, when the query is
	// one segment; "" otherwise (completing the last of several words
	// rewards names that merely start with a common word).
	Prefix string
	// Mentions are the files and qualified names the query names outright
	// (a path, a traceback frame, `Header.fromstring`).
	Mentions Mentions
	// Lead are the Words of the query's first line when the query has more
	// than one (an issue's title above its body): what the task is about
	// before the details.
	Lead []string
}

// Phrase is one joined run of query words.
type Phrase struct {
	Text  string
	Words int // how many query words it joins
}

// Parse parses a search query: the text is cut into segments
// (text.Segments) and each segment split into words (text.SplitIdentifier)
// once; everything else is built from those words. At most text.MaxInput
// bytes are read.
//
//	Parse("where is getUserById").Words = [is get user by id getuserbyid]
//	Parse("k8s auth").Words             = [k8s kubernetes auth authentication authorization]
//	Parse("user repository").Phrases    = [{userrepository 2}]
func Parse(q string) *Query {
	out := &Query{Raw: q, Mentions: parseMentions(q)}
	type seg struct{ words []string }
	var segs []seg
	nwords := 0
	for _, s := range text.Segments(q) {
		ws := text.SplitIdentifier(s)
		if len(ws) == 0 {
			continue
		}
		segs = append(segs, seg{ws})
		if nwords += len(ws); nwords > 4*MaxTerms {
			break
		}
	}
	seen := map[string]bool{}
	add := func(w string) {
		if w == "" || seen[w] || len(out.Words) >= MaxTerms {
			return
		}
		seen[w] = true
		out.Words = append(out.Words, w)
	}
	addWithAliases := func(w string) {
		add(w)
		for _, a := range text.Aliases[w] {
			add(a)
		}
	}
	for _, s := range segs {
		whole := text.Joined(s.words)
		// A segment that is itself an alias key ("k8s", "i18n", "oauth2")
		// would otherwise be split before it could be looked up.
		if whole != "" && text.Aliases[whole] != nil {
			addWithAliases(whole)
			continue
		}
		for _, w := range s.words {
			if !text.StopWords[w] {
				addWithAliases(w)
			}
		}
		if whole != "" {
			add(whole)
			if seen[whole] && len(out.Idents) < MaxTerms && !contains(out.Idents, whole) {
				out.Idents = append(out.Idents, whole)
			}
		}
	}
	if len(segs) == 1 {
		out.Prefix = strings.Join(segs[0].words, "")
	}
	if first, rest, ok := strings.Cut(strings.TrimSpace(q), "\n"); ok && strings.TrimSpace(rest) != "" {
		lead := Parse(first)
		for _, w := range lead.Words {
			if seen[w] {
				out.Lead = append(out.Lead, w)
			}
		}
	}
	// Phrases: runs over all words, stop words included.
	var words []string
	var segOf []int
	for si, s := range segs {
		for _, w := range s.words {
			words = append(words, w)
			segOf = append(segOf, si)
		}
	}
	for n := 2; n <= MaxPhraseWords; n++ {
		for i := 0; i+n <= len(words); i++ {
			if segOf[i] == segOf[i+n-1] {
				continue // inside one identifier: a fragment of it
			}
			p := strings.Join(words[i:i+n], "")
			if !seen[p] && len(out.Phrases) < MaxTerms {
				seen[p] = true
				out.Phrases = append(out.Phrases, Phrase{Text: p, Words: n})
			}
		}
	}
	return out
}

// terms are the words a keyword search looks up: Words, then the phrases
// of at most maxPhrase words (none below 2).
func (q *Query) terms(maxPhrase int) []string {
	out := append([]string(nil), q.Words...)
	if len(out) == 0 {
		return nil // phrases alone (stop words only) are no query
	}
	for _, p := range q.Phrases {
		if p.Words <= maxPhrase && maxPhrase >= 2 {
			out = append(out, p.Text)
		}
	}
	return out
}
