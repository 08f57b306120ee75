package discover

import "strings"

// This file is a port of git's wildmatch.c (the matcher behind .gitignore),
// kept close to the original so its corner cases stay git's corner cases:
// "**" is special only as a whole path component, a lone "*" or "?" never
// crosses "/" in pathname mode, "[...]" takes ranges, "!" or "^" negation
// and [:class:] names, and "\" quotes the next character.

// Results of dowild, as in git. wmAbortAll and wmAbortToStarStar let a
// failing "*" stop its callers early; they both mean "no match" to a caller.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the glob pattern. With pathname
// set, wildcards do not match '/' except in a "**" component (git's
// WM_PATHNAME).
func wildmatch(pattern, text string, pathname bool) bool {
	var m memo
	return dowild(pattern, text, pathname, &m) == wmMatch
}

// memo remembers the result of every recursive dowild call and of every
// star loop (starLoop) by the lengths of its pattern and text suffixes
// (which identify them: both are always suffixes of the originals). git's
// abort rules alone leave patterns with many "**/" exponential
// ("**/a/**/a/…/b" against a deep path of a/a/… runs for minutes); with
// the memo each (pattern, text) position is solved once.
type memo struct {
	m     map[uint64]int8
	calls int // recursive calls before the memo was started
}

// memoAfter is how many recursive calls a match makes before it starts its
// memo: the patterns of real ignore files finish well within it without
// allocating.
const memoAfter = 256

// starLoop is the loop of dowild after a "*" (or "**" when matchSlash):
// it tries the rest of the pattern, p, at every position of text in turn.
// Its result from a position is the first decisive result found from
// there on, so it is remembered for every position it passed through and
// a later loop reaching one of them stops: each (pattern, text) position
// is looped over once, which keeps the whole match polynomial.
func (m *memo) starLoop(p, text string, pathname, matchSlash bool) int {
	key := func(ti int) uint64 { return 1<<63 | uint64(len(p))<<32 | uint64(len(text)-ti) }
	// Positions are remembered only once the memo has started (call).
	var visited []int
	res := wmAbortAll
	ti := 0
	tch := at(text, ti)
	for {
		if r, ok := m.m[key(ti)]; ok {
			res = int(r)
			break
		}
		if m.m != nil {
			visited = append(visited, ti)
		}
		if tch == 0 {
			res = wmAbortAll
			break
		}
		// Advance fast to the next occurrence of a literal that follows
		// the star; without matchSlash never past '/'.
		if !isGlobSpecial(p[0]) {
			lit := p[0]
			for {
				tch = at(text, ti)
				if tch == 0 || (!matchSlash && tch == '/') || tch == lit {
					break
				}
				ti++
			}
			if tch != lit {
				res = wmNoMatch
				break
			}
		}
		if r := m.call(p, text[ti:], pathname); r != wmNoMatch {
			if !matchSlash || r != wmAbortToStarStar {
				res = r
				break
			}
		} else if !matchSlash && tch == '/' {
			res = wmAbortToStarStar
			break
		}
		ti++
		tch = at(text, ti)
	}
	for _, v := range visited {
		m.m[key(v)] = int8(res)
	}
	return res
}

// call is dowild through the memo.
func (m *memo) call(p, text string, pathname bool) int {
	if m.m == nil {
		if m.calls++; m.calls <= memoAfter {
			return dowild(p, text, pathname, m)
		}
		m.m = make(map[uint64]int8)
	}
	k := uint64(len(p))<<32 | uint64(len(text))
	if r, ok := m.m[k]; ok {
		return int(r)
	}
	r := dowild(p, text, pathname, m)
	m.m[k] = int8(r)
	return r
}

// at returns s[i], or 0 past the end: wildmatch.c walks NUL-terminated
// strings and its logic leans on reading that 0.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func dowild(p, text string, pathname bool, m *memo) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pch := p[pi]
		tch := at(text, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			// Literal match with the next pattern character; a trailing
			// backslash matches nothing.
			pi++
			if at(p, pi) != tch {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			pi++
			if at(p, pi) == '*' {
				prev := pi - 2 // the character before the first '*'
				for at(p, pi) == '*' {
					pi++
				}
				if !pathname {
					matchSlash = true
				} else if (prev < 0 || p[prev] == '/') &&
					(pi >= len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
					// "**/" may match nothing at all: foo/**/bar
					// matches foo/bar as well as foo/a/bar.
					if at(p, pi) == '/' && m.call(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					// "**" inside a component is just "*".
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if pi >= len(p) {
				// A trailing "**" matches everything, a trailing "*"
				// only what has no more slashes.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			} else if !matchSlash && p[pi] == '/' {
				// One "*" then "/": skip to the next slash, which the
				// loop's increment then consumes on both sides.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue
			}
			return m.starLoop(p[pi:], text[ti:], pathname, matchSlash)
		case '[':
			pi++
			pch = at(p, pi)
			if pch == '^' {
				pch = '!'
			}
			negated := pch == '!'
			if negated {
				pi++
				pch = at(p, pi)
			}
			var prev byte
			matched := false
			for {
				if pch == 0 {
					return wmAbortAll
				}
				switch {
				case pch == '\\':
					pi++
					pch = at(p, pi)
					if pch == 0 {
						return wmAbortAll
					}
					if tch == pch {
						matched = true
					}
				case pch == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
					pi++
					pch = p[pi]
					if pch == '\\' {
						pi++
						pch = at(p, pi)
						if pch == 0 {
							return wmAbortAll
						}
					}
					if tch <= pch && tch >= prev {
						matched = true
					}
					pch = 0 // so that prev becomes 0: no range may chain on
				case pch == '[' && at(p, pi+1) == ':':
					s := pi + 2
					pi = s
					for pi < len(p) && p[pi] != ']' {
						pi++
					}
					if pi >= len(p) {
						return wmAbortAll
					}
					name := p[s:pi]
					if !strings.HasSuffix(name, ":") {
						// No ":]": an ordinary '[' in the set.
						pi = s - 2
						pch = '['
						if tch == pch {
							matched = true
						}
						break
					}
					ok, known := charClass(name[:len(name)-1], tch)
					if !known {
						return wmAbortAll // malformed [:class:]
					}
					if ok {
						matched = true
					}
					pch = 0
				default:
					if tch == pch {
						matched = true
					}
				}
				prev = pch
				pi++
				pch = at(p, pi)
				if pch == ']' {
					break
				}
			}
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
			continue
		default:
			if tch != pch {
				return wmNoMatch
			}
			continue
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// charClass tests c against a POSIX class name; known is false for a name
// git does not know.
func charClass(name string, c byte) (ok, known bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	isPrint := c >= 0x20 && c < 0x7f
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
