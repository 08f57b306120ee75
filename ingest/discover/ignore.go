package discover

import (
	"bytes"
	"strconv"
	"strings"
)

// rule is one gitignore-syntax pattern, parsed the way git's dir.c parses
// a line of a .gitignore file.
type rule struct {
	pattern  string // without "!", the trailing "/" and a leading "/"
	prefix   int    // length of pattern's leading part free of wildcards
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	basename bool   // no "/" inside: matches the base name at any depth
	base     string // directory the rule is relative to: "" or "a/b"
	reason   string // the Skipped reason when this rule excludes
	source   string // "file:line" or the option it came from, for messages
}

// parseRules parses the content of an ignore file living in directory base
// (repo-relative, "" for the root). Each rule excludes with the given
// reason. source names the file in rule.source.
func parseRules(content []byte, base, reason, source string) []rule {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	var out []rule
	for i, line := range strings.Split(string(content), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if r, ok := parseRule(line, base, reason); ok {
			r.source = source + ":" + strconv.Itoa(i+1)
			out = append(out, r)
		}
	}
	return out
}

// parseRule parses one line; ok is false for blank lines, comments and
// lines that are empty once trimmed.
func parseRule(line, base, reason string) (r rule, ok bool) {
	if line == "" || line[0] == '#' {
		return r, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return r, false
	}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	r.basename = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/") // anchored: implied by the slash
	if line == "" {
		return r, false
	}
	r.pattern = line
	r.prefix = simpleLength(line)
	r.base = strings.Trim(base, "/")
	r.reason = reason
	return r, true
}

// trimTrailingSpaces drops trailing spaces unless the first of them is
// quoted with a backslash (git's trim_trailing_spaces; tabs stay).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// simpleLength is the length of s before its first glob special character.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// match reports whether the rule matches path (relative to the discovery
// root, '/'-separated, no trailing slash), whose base name is name.
func (r *rule) match(path, name string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.basename {
		if r.prefix == len(r.pattern) {
			return r.pattern == name
		}
		return wildmatch(r.pattern, name, false)
	}
	// Anchored: the pattern is relative to the rule's base directory.
	rel := path
	if r.base != "" {
		if len(path) <= len(r.base) || path[len(r.base)] != '/' || path[:len(r.base)] != r.base {
			return false
		}
		rel = path[len(r.base)+1:]
	}
	// Like git's match_pathname: compare the literal prefix, then glob the
	// rest with the prefix cut off (which makes "foo**/x" act like
	// "foo" + "**/x" — a git quirk kept on purpose).
	pat := r.pattern
	if r.prefix > 0 {
		if r.prefix > len(rel) || pat[:r.prefix] != rel[:r.prefix] {
			return false
		}
		pat, rel = pat[r.prefix:], rel[r.prefix:]
		if pat == "" && rel == "" {
			return true
		}
	}
	return wildmatch(pat, rel, true)
}

// lastMatch returns the last rule in rules that matches, or nil: in
// gitignore files a later line overrides an earlier one.
func lastMatch(rules []rule, path, name string, isDir bool) *rule {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].match(path, name, isDir) {
			return &rules[i]
		}
	}
	return nil
}
