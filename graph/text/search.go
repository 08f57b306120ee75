package text

import "strings"

// MaxTokens is the most tokens Tokens returns; a longer query keeps its
// first MaxTokens distinct tokens.
const MaxTokens = 32

// SearchText is the searchText column of a symbol or file: the words of its
// name, qualified name and path, each multi-word identifier also kept whole,
// in that order, each word once, separated by single spaces. Words with
// digits also appear digit-spelled (see the package doc).
//
//	SearchText("getUserById", "UserService.getUserById", "src/user_service.ts")
//	  = "get user by id getuserbyid service userservice src ts"
//
// Aliases are a query-side expansion only and never appear here. A file
// passes its base name as name, "" as qualifiedName and its path as path.
func SearchText(name, qualifiedName, path string) string {
	var b builder
	b.segments(name)
	b.segments(qualifiedName)
	b.segments(path)
	return strings.Join(b.out, " ")
}

// builder collects distinct index terms in order.
type builder struct {
	out  []string
	seen map[string]bool
}

func (b *builder) add(term string) {
	if term == "" {
		return
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if b.seen[term] {
		return
	}
	b.seen[term] = true
	b.out = append(b.out, term)
}

// addForms adds w and, when w has digits, its digit-spelled form.
func (b *builder) addForms(w string) {
	b.add(w)
	if enc := spellDigits(w); enc != w {
		b.add(enc)
	}
}

// segments adds the words of every segment of s (an identifier, a dotted or
// '::'-qualified name, a path) and each segment's whole form.
func (b *builder) segments(s string) {
	for _, seg := range Segments(s) {
		words := SplitIdentifier(seg)
		for _, w := range words {
			b.addForms(w)
		}
		if j := Joined(words); j != "" {
			b.addForms(j)
		}
	}
}

// Segments splits s into identifier-shaped pieces: at every byte that is not
// an ASCII letter, digit, '_' or '-'. "pkg.mod.Class.method" →
// pkg mod Class method; "src/user_repo.py" → src user_repo py.
func Segments(s string) []string {
	if len(s) > MaxInput {
		s = s[:MaxInput]
	}
	return strings.FieldsFunc(s, func(r rune) bool {
		return r >= 0x80 || !(r == '_' || r == '-' || isAlnum(byte(r)))
	})
}

// Tokens turns a search query into index words: each segment split like an
// identifier and lowercased, multi-word segments also kept whole, stop words
// dropped, aliases added after the word they expand. Every token matches
// [a-z0-9]+; there are at most MaxTokens, each once. Digits are kept as
// written ("http2"); FTSQuery spells them for Kuzu.
//
//	Tokens("where is getUserById")   = [is get user by id getuserbyid]
//	Tokens("k8s auth")               = [k8s kubernetes auth authentication authorization]
//	Tokens("'); MATCH (n) DELETE n") = [match n delete]
func Tokens(query string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w == "" || seen[w] || len(out) >= MaxTokens {
			return
		}
		seen[w] = true
		out = append(out, w)
	}
	addWithAliases := func(w string) {
		add(w)
		for _, a := range Aliases[w] {
			add(a)
		}
	}
	for _, seg := range Segments(query) {
		words := SplitIdentifier(seg)
		whole := strings.Join(words, "")
		// A segment that is itself an alias key ("k8s", "i18n", "oauth2")
		// would otherwise be split before it could be looked up.
		if len(words) > 1 && Aliases[whole] != nil {
			addWithAliases(whole)
			continue
		}
		for _, w := range words {
			if isStop(w) {
				continue
			}
			addWithAliases(w)
		}
		if len(words) > 1 {
			add(whole)
		}
	}
	return out
}

// Phrases are the identifiers a multi-word query may be spelling: each run
// of 2 to maxN consecutive query words joined ("user repository" →
// userrepository; "get object or 404" → getobject objector or404
// getobjector objector404). They match the whole-identifier words that
// SearchText indexes, so a query that spells a name in words finds that
// name first. Words are taken as split by Tokens but before stop-word
// removal (identifiers contain stop words); a run must span at least two
// of the query's segments (fragments of one identifier are not phrases);
// tokens already in Tokens are left out. At most MaxTokens.
func Phrases(query string, maxN int) []string {
	var words []string
	var segOf []int
	for si, seg := range Segments(query) {
		for _, w := range SplitIdentifier(seg) {
			words = append(words, w)
			segOf = append(segOf, si)
		}
		if len(words) > 4*MaxTokens {
			break
		}
	}
	have := map[string]bool{}
	for _, t := range Tokens(query) {
		have[t] = true
	}
	var out []string
	for n := 2; n <= maxN; n++ {
		for i := 0; i+n <= len(words); i++ {
			if segOf[i] == segOf[i+n-1] {
				continue // inside one identifier: a fragment of it
			}
			p := strings.Join(words[i:i+n], "")
			if !have[p] && len(out) < MaxTokens {
				have[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// FTSQuery renders tokens as the query string of QUERY_FTS_INDEX. Each
// token appears as itself and, when it has digits, digit-spelled.
//
// The result contains only [a-z] and spaces: no quote, backslash or other
// character that could end a Cypher string literal, and no "*": Kuzu
// 0.11.3 treats "term*" as a prefix wildcard, and wildcard queries crash it
// (double free, segmentation fault) or hang it after a few hundred
// queries on a real index (reproduced on prometheus; exact terms ran
// thousands of times cleanly). Prefix matching is done outside the
// full-text index (query package). It is "" when tokens has nothing to
// search for.
func FTSQuery(tokens []string) string {
	var b builder
	for _, t := range tokens {
		if t = clean(t); t != "" {
			b.addForms(t)
		}
	}
	// Kuzu strips digits from each term; a term of digits only would
	// become empty, and its letters-only forms are already present.
	var terms []string
	for _, t := range b.out {
		if lettersOnly(t) {
			terms = append(terms, t)
		}
	}
	return strings.Join(terms, " ")
}

// clean keeps the [a-z0-9] bytes of t, lowercasing ASCII capitals.
func clean(t string) string {
	var sb strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case isLower(c) || isDigit(c):
			sb.WriteByte(c)
		case isUpper(c):
			sb.WriteByte(c + 'a' - 'A')
		}
	}
	return sb.String()
}

func lettersOnly(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isLower(t[i]) {
			return false
		}
	}
	return true
}

var digitNames = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// spellDigits spells the digits of w out ("http2" → "httptwo"); a word of
// digits only gets the prefix "num" ("404" → "numfourzerofour") so that it
// does not collide with the English number words. Words without digits are
// returned unchanged.
func spellDigits(w string) string {
	if strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return w
	}
	var sb strings.Builder
	letters := false
	for i := 0; i < len(w); i++ {
		if isLetter(w[i]) {
			letters = true
			break
		}
	}
	if !letters {
		sb.WriteString("num")
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; isDigit(c) {
			sb.WriteString(digitNames[c-'0'])
		} else {
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
