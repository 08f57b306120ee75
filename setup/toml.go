package setup

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A text-preserving TOML editor for one table: setup owns the table
// [mcp_servers.NAME] (and its sub-tables [mcp_servers.NAME.*]) of Codex's
// config.toml and nothing else. The table is found by its header line,
// replaced or removed as a block of lines, or appended at the end; every
// other line stays as it was. A file that defines the same server another
// way (an inline table, dotted keys) is refused rather than rewritten.

// tomlLine is one line of the file with its header key, if it is one.
type tomlLine struct {
	start, end int      // span including the newline
	header     []string // the table's key path for a [table] or [[array]] line
	array      bool     // [[array of tables]]
	text       string   // trimmed
}

// tomlLines splits src into lines, recognizing table headers outside
// multi-line strings.
func tomlLines(src []byte) ([]tomlLine, error) {
	var out []tomlLine
	inMulti := "" // the delimiter of an open multi-line string
	for pos := 0; pos < len(src); {
		e := bytes.IndexByte(src[pos:], '\n')
		end := len(src)
		if e >= 0 {
			end = pos + e + 1
		}
		l := tomlLine{start: pos, end: end, text: strings.TrimSpace(string(src[pos:end]))}
		pos = end
		if inMulti != "" {
			if strings.Count(l.text, inMulti)%2 == 1 {
				inMulti = ""
			}
			out = append(out, l)
			continue
		}
		for _, d := range []string{`"""`, `'''`} {
			if strings.Count(l.text, d)%2 == 1 {
				inMulti = d
			}
		}
		if strings.HasPrefix(l.text, "[") {
			key, array, err := tomlHeader(l.text)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", errSyntax, len(out)+1, err)
			}
			l.header, l.array = key, array
		}
		out = append(out, l)
	}
	return out, nil
}

// tomlHeader parses "[a.b."c"]  # comment" into its key path.
func tomlHeader(s string) ([]string, bool, error) {
	array := strings.HasPrefix(s, "[[")
	s = strings.TrimPrefix(s, "[")
	if array {
		s = strings.TrimPrefix(s, "[")
	}
	var key []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, false, fmt.Errorf("unterminated quoted key in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			quoted = true
			i += j + 1
		case c == '.':
			key = append(key, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ']':
			if cur.Len() > 0 || quoted {
				key = append(key, strings.TrimSpace(cur.String()))
			}
			rest := strings.TrimSpace(s[i+1:])
			if array {
				rest = strings.TrimSpace(strings.TrimPrefix(rest, "]"))
			}
			if rest != "" && !strings.HasPrefix(rest, "#") {
				return nil, false, fmt.Errorf("text after the header %q", s)
			}
			return key, array, nil
		default:
			cur.WriteByte(c)
		}
	}
	return nil, false, fmt.Errorf("unterminated table header %q", s)
}

func hasPrefix(key, prefix []string) bool {
	if len(key) < len(prefix) {
		return false
	}
	for i := range prefix {
		if key[i] != prefix[i] {
			return false
		}
	}
	return true
}

// tomlTable finds the lines of the table at path and its sub-tables:
// [first, last) line indexes, first = -1 when absent. It refuses a file
// that defines path other than by a [table] header.
func tomlTable(lines []tomlLine, path []string) (first, last int, err error) {
	first, last = -1, -1
	var table []string // the table the current line belongs to
	for i, l := range lines {
		if l.header != nil {
			if first >= 0 && last < 0 && !(hasPrefix(l.header, path) && len(l.header) > len(path)) {
				last = i
			}
			if hasPrefix(l.header, path) && len(l.header) == len(path) {
				if l.array {
					return 0, 0, fmt.Errorf("[[%s]] is an array of tables: edit it by hand", strings.Join(path, "."))
				}
				if first >= 0 {
					return 0, 0, fmt.Errorf("[%s] is defined twice: fix the file by hand", strings.Join(path, "."))
				}
				first = i
			}
			table = l.header
			continue
		}
		// A key line in a parent table defining our table by a dotted key
		// or an inline table (or defining a parent inline, which a
		// [table] header could not extend).
		if l.text == "" || strings.HasPrefix(l.text, "#") || len(table) >= len(path) || !hasPrefix(path, table) {
			continue
		}
		k, _, ok := strings.Cut(l.text, "=")
		if !ok {
			continue
		}
		kp, _, herr := tomlHeader("[" + strings.TrimSpace(k) + "]")
		if herr != nil {
			continue
		}
		full := append(append([]string{}, table...), kp...)
		if hasPrefix(full, path) || hasPrefix(path, full) {
			return 0, 0, fmt.Errorf("%s is defined by the line %q: move it to a [%s] table or edit the file by hand",
				strings.Join(path, "."), l.text, strings.Join(path, "."))
		}
	}
	if first >= 0 && last < 0 {
		last = len(lines)
	}
	// Comment and blank lines just before the next table belong to it.
	for first >= 0 && last > first+1 && (lines[last-1].text == "" || strings.HasPrefix(lines[last-1].text, "#")) {
		last--
	}
	return first, last, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		case r == utf8.RuneError:
			b.WriteString("\\uFFFD")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlBareKey quotes a key segment unless it is bare.
func tomlBareKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return tomlString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// tomlSet sets the table at path to hold body's key lines (each
// "key = value\n"), appending the table when missing, and reports whether
// anything changed. In an existing table only the lines of body's keys
// are replaced (or added after the header); its other keys, comments and
// sub-tables stay.
func tomlSet(src []byte, path []string, body string) ([]byte, bool, error) {
	lines, err := tomlLines(src)
	if err != nil {
		return nil, false, err
	}
	first, last, err := tomlTable(lines, path)
	if err != nil {
		return nil, false, err
	}
	segs := make([]string, len(path))
	for i, p := range path {
		segs[i] = tomlBareKey(p)
	}
	if first < 0 {
		var prefix string
		if len(src) > 0 {
			if !bytes.HasSuffix(src, []byte("\n")) {
				prefix = "\n"
			}
			prefix += "\n"
		}
		return append(append([]byte{}, src...), prefix+"["+strings.Join(segs, ".")+"]\n"+body...), true, nil
	}
	// The table's own key lines end at its first sub-table.
	own := first + 1
	for own < last && lines[own].header == nil {
		own++
	}
	var edits []splice
	var missing string
	for _, want := range strings.SplitAfter(body, "\n") {
		if want == "" {
			continue
		}
		key := strings.TrimSpace(want[:strings.IndexByte(want, '=')])
		found := false
		for i := first + 1; i < own; i++ {
			k, _, ok := strings.Cut(lines[i].text, "=")
			if !ok || strings.Trim(strings.TrimSpace(k), `"'`) != key {
				continue
			}
			found = true
			end := i
			// A value spanning lines (an array): up to its closing bracket.
			if v := strings.TrimSpace(lines[i].text[len(k)+1:]); strings.HasPrefix(v, "[") && strings.Count(v, "[") > strings.Count(v, "]") {
				depth := strings.Count(v, "[") - strings.Count(v, "]")
				for end+1 < own && depth > 0 {
					end++
					depth += strings.Count(lines[end].text, "[") - strings.Count(lines[end].text, "]")
				}
			}
			old := string(src[lines[i].start:lines[end].end])
			if strings.TrimRight(old, "\r\n") != strings.TrimRight(want, "\n") {
				if !strings.HasSuffix(old, "\n") {
					want = strings.TrimSuffix(want, "\n")
				}
				edits = append(edits, splice{lines[i].start, lines[end].end, want})
			}
			break
		}
		if !found {
			missing += want
		}
	}
	out := withMissing(src, edits, missing, func() int { return lines[first].end })
	return out, len(edits) > 0 || missing != "", nil
}

// tomlDelete removes the table at path and the blank line tomlSet put
// before it, and reports whether anything changed.
func tomlDelete(src []byte, path []string) ([]byte, bool, error) {
	lines, err := tomlLines(src)
	if err != nil {
		return nil, false, err
	}
	first, last, err := tomlTable(lines, path)
	if err != nil || first < 0 {
		return src, false, err
	}
	start, end := lines[first].start, lines[last-1].end
	if first > 0 && lines[first-1].text == "" {
		start = lines[first-1].start
	}
	out := apply(src, splice{start, end, ""})
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, true, nil // the file held only the table
	}
	return out, true, nil
}
