package query

import (
	"regexp"
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
	out := &Query{Raw: q}
	q = dropEnvListings(q)
	out.Mentions = parseMentions(q)
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
	// Two one-word pieces that are a phrase alias ("system call") become
	// the word they stand for (text.PhraseAliases); inside one identifier
	// (system_call) they are a name and stay.
	for i := 0; i+1 < len(segs); i++ {
		if len(segs[i].words) != 1 || len(segs[i+1].words) != 1 {
			continue
		}
		if a := text.PhraseAliases[segs[i].words[0]+" "+segs[i+1].words[0]]; a != nil {
			segs[i] = seg{a}
			segs = append(segs[:i+1], segs[i+2:]...)
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

// An environment listing is what an issue template asks a reporter to
// paste: versions of the interpreter, the OS and every dependency
// (`python: 3.6.8`, `numpy: 1.17.2`, `LC_ALL: None`, `requests==2.31.0`).
// It names nothing in the repository, and its tens of words took the
// query's MaxTerms budget before the words after it were read.
var (
	reKeyValue  = regexp.MustCompile(`^\s*[\w.\-]+\s*(?::\s*(\S.*)|[=~<>]=\s*(\S.*))$`)
	reVersionIs = regexp.MustCompile(`^(v?\d[\w.\-+]*|None|null|N/A|unknown|installed)\b`)
)

// minListing is the fewest consecutive key-value lines that can make a
// listing.
const minListing = 5

// dropEnvListings removes from q every run of at least minListing
// consecutive `key: value` (or `name==version`) lines, at least three
// and a third of which have a version, a number or None for value (one
// short other line among them is taken along): the environment
// listings of bug reports (pandas' and xarray's show_versions, pip freeze).
// A run of configuration keys with words for values stays. The result
// keeps the other lines in order; q is returned as is when nothing goes.
func dropEnvListings(q string) string {
	if !strings.Contains(q, "\n") {
		return q
	}
	lines := strings.Split(q, "\n")
	drop := make([]bool, len(lines))
	dropped := false
	for i := 0; i < len(lines); {
		j, n, versions := i, 0, 0
		for j < len(lines) && len(lines[j]) < 200 {
			m := reKeyValue.FindStringSubmatch(lines[j])
			if m == nil {
				// one short line inside a listing ("[GCC 7.3.0]" under the
				// python version) does not end it
				if n > 0 && j+1 < len(lines) && len(lines[j]) < 60 && reKeyValue.MatchString(lines[j+1]) {
					j++
					continue
				}
				break
			}
			n++
			if reVersionIs.MatchString(m[1] + m[2]) {
				versions++
			}
			j++
		}
		if n >= minListing && versions >= 3 && 3*versions >= n {
			for k := i; k < j; k++ {
				drop[k] = true
			}
			dropped = true
		}
		i = max(j, i+1)
	}
	if !dropped {
		return q
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
