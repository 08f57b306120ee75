package setup

import (
	"bytes"
	"fmt"
	"strings"
)

// A text-preserving editor for one entry of a top-level block mapping of
// a YAML file (Goose's config.yaml: extensions.gitnexus). Lines are
// classified by indentation; setup replaces the lines of the keys it sets
// inside the entry (a key's value may continue on deeper lines), adds the
// ones missing, or appends the entry (and the top-level key) when absent.
// Anything it does not understand — tabs for indentation, several
// documents, a flow mapping or an anchor where the mapping should be — is
// refused, never rewritten.

type yamlLine struct {
	start, end int
	indent     int
	text       string // trimmed, comment lines and blank lines included
	key        string // the mapping key this line starts, if any
	rest       string // what follows "key:" (comment stripped, trimmed)
}

// blankOrComment reports whether the line carries no content.
func (l yamlLine) blankOrComment() bool { return l.text == "" || strings.HasPrefix(l.text, "#") }

func yamlLines(src []byte) ([]yamlLine, error) {
	var out []yamlLine
	for pos := 0; pos < len(src); {
		e := bytes.IndexByte(src[pos:], '\n')
		end := len(src)
		if e >= 0 {
			end = pos + e + 1
		}
		raw := strings.TrimRight(string(src[pos:end]), "\r\n")
		l := yamlLine{start: pos, end: end, text: strings.TrimSpace(raw)}
		pos = end
		l.indent = len(raw) - len(strings.TrimLeft(raw, " "))
		if strings.HasPrefix(strings.TrimLeft(raw, " "), "\t") && l.text != "" {
			return nil, fmt.Errorf("%w: line %d is indented with a tab", errSyntax, len(out)+1)
		}
		if l.text == "---" && len(out) > 0 && !allBlank(out) || l.text == "..." {
			return nil, fmt.Errorf("%w: several YAML documents: edit the file by hand", errSyntax)
		}
		if !l.blankOrComment() {
			l.key, l.rest = yamlKey(l.text)
		}
		out = append(out, l)
	}
	return out, nil
}

func allBlank(ls []yamlLine) bool {
	for _, l := range ls {
		if !l.blankOrComment() {
			return false
		}
	}
	return true
}

// yamlKey splits "key: rest # comment" (key plain or quoted).
func yamlKey(t string) (key, rest string) {
	var k string
	if t == "" || strings.ContainsRune("!&*?|>%@`[{,", rune(t[0])) {
		return "", "" // tags, anchors, aliases, complex keys, flow collections: not read here
	}
	switch {
	case strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "'"):
		q := t[0]
		j := strings.IndexByte(t[1:], q)
		if j < 0 {
			return "", ""
		}
		k, t = t[1:1+j], t[2+j:]
		if !strings.HasPrefix(t, ":") {
			return "", ""
		}
		t = t[1:]
	default:
		i := strings.Index(t, ":")
		if i <= 0 || (i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t') || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "#") {
			return "", ""
		}
		k, t = strings.TrimSpace(t[:i]), t[i+1:]
	}
	if c := strings.Index(t, " #"); c >= 0 {
		t = t[:c]
	}
	return k, strings.TrimSpace(t)
}

// yamlBlock is the range of lines after line i that are deeper than its
// indent (its value), trailing blank and comment lines excluded.
func yamlBlock(lines []yamlLine, i int) int {
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		if lines[j].blankOrComment() {
			continue
		}
		if lines[j].indent <= lines[i].indent {
			break
		}
		end = j + 1
	}
	return end
}

// yamlFind finds the top-level key and, under it, the child: the line
// indexes (-1 when absent) and the child's indent.
func yamlFind(lines []yamlLine, top, child string) (topAt, childAt, childIndent int, err error) {
	topAt, childAt, childIndent = -1, -1, 2
	for i, l := range lines {
		if l.blankOrComment() || l.text == "---" && allBlank(lines[:i]) {
			continue
		}
		if (i == 0 || allBlank(lines[:i])) && l.indent != 0 || l.indent == 0 && l.key == "" {
			return 0, 0, 0, fmt.Errorf("%w: the top level is not a plain block mapping (%q): edit the file by hand", errSyntax, l.text)
		}
	}
	for i, l := range lines {
		if l.key == top && l.indent == 0 {
			if topAt >= 0 {
				return 0, 0, 0, fmt.Errorf("%q is defined twice: fix the file by hand", top)
			}
			topAt = i
		}
	}
	if topAt < 0 {
		return -1, -1, 2, nil
	}
	switch r := lines[topAt].rest; {
	case r == "" || r == "{}":
	default:
		return 0, 0, 0, fmt.Errorf("%q is not a block mapping (%q): edit it by hand", top, r)
	}
	end := yamlBlock(lines, topAt)
	first := true
	for j := topAt + 1; j < end; j++ {
		l := lines[j]
		if l.blankOrComment() {
			continue
		}
		if first {
			childIndent, first = l.indent, false
			if lines[topAt].rest == "{}" {
				return 0, 0, 0, fmt.Errorf("%q is {} with lines under it: fix the file by hand", top)
			}
		}
		if l.indent < childIndent {
			return 0, 0, 0, fmt.Errorf("%q holds a line setup does not read (%q): edit it by hand", top, l.text)
		}
		if l.indent != childIndent {
			continue
		}
		if l.key == "" {
			return 0, 0, 0, fmt.Errorf("%q holds a line setup does not read (%q): edit it by hand", top, l.text)
		}
		if l.key == child {
			if childAt >= 0 {
				return 0, 0, 0, fmt.Errorf("%s.%s is defined twice: fix the file by hand", top, child)
			}
			childAt = j
		}
	}
	return topAt, childAt, childIndent, nil
}

// yamlSet sets top.child to hold body's lines ("key: value\n", unindented)
// and reports whether anything changed.
func yamlSet(src []byte, top, child, body string) ([]byte, bool, error) {
	lines, err := yamlLines(src)
	if err != nil {
		return nil, false, err
	}
	topAt, childAt, ci, err := yamlFind(lines, top, child)
	if err != nil {
		return nil, false, err
	}
	indentBody := func(ind int) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(body, "\n") {
			if l != "" {
				b.WriteString(strings.Repeat(" ", ind) + l)
			}
		}
		return b.String()
	}
	entry := strings.Repeat(" ", ci) + yamlScalarKey(child) + ":\n" + indentBody(2*ci)
	switch {
	case topAt < 0:
		prefix := ""
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			prefix = "\n"
		}
		return append(append([]byte{}, src...), prefix+yamlScalarKey(top)+":\n"+entry...), true, nil
	case childAt < 0:
		end := yamlBlock(lines, topAt)
		at := lines[end-1].end
		var edits []splice
		if lines[topAt].rest == "{}" {
			// "top: {}" becomes "top:" with the entry under it.
			l := lines[topAt]
			line := string(src[l.start:l.end])
			i := strings.Index(line, "{}")
			edits = append(edits, splice{l.start + i - 1, l.start + i + 2, ""})
		}
		if !bytes.HasSuffix(src[:at], []byte("\n")) {
			entry = "\n" + strings.TrimSuffix(entry, "\n")
		}
		return apply(src, append(edits, splice{at, at, entry})...), true, nil
	}
	// The entry exists: replace the lines of body's keys, add the others.
	end := yamlBlock(lines, childAt)
	keyIndent := -1
	for j := childAt + 1; j < end; j++ {
		if !lines[j].blankOrComment() {
			keyIndent = lines[j].indent
			break
		}
	}
	if keyIndent < 0 {
		keyIndent = lines[childAt].indent + ci
	}
	if r := lines[childAt].rest; r != "" {
		return nil, false, fmt.Errorf("%s.%s is not a block mapping (%q): edit it by hand", top, child, r)
	}
	for j := childAt + 1; j < end; j++ {
		if l := lines[j]; !l.blankOrComment() && (l.indent < keyIndent || l.indent == keyIndent && l.key == "") {
			return nil, false, fmt.Errorf("%s.%s holds a line setup does not read (%q): edit it by hand", top, child, l.text)
		}
	}
	var edits []splice
	var missing string
	for _, want := range strings.SplitAfter(body, "\n") {
		if want == "" {
			continue
		}
		key, _ := yamlKey(strings.TrimSpace(want))
		want = strings.Repeat(" ", keyIndent) + want
		found := false
		for j := childAt + 1; j < end; j++ {
			if lines[j].indent != keyIndent || lines[j].key != key {
				continue
			}
			found = true
			last := yamlBlock(lines, j)
			old := string(src[lines[j].start:lines[last-1].end])
			if strings.TrimRight(old, "\r\n") != strings.TrimRight(want, "\n") {
				if !strings.HasSuffix(old, "\n") {
					want = strings.TrimSuffix(want, "\n")
				}
				edits = append(edits, splice{lines[j].start, lines[last-1].end, want})
			}
			break
		}
		if !found {
			missing += want
		}
	}
	out := withMissing(src, edits, missing, func() int { return lines[childAt].end })
	return out, len(edits) > 0 || missing != "", nil
}

// yamlDelete removes top.child, and top itself when it is left empty;
// nil when nothing else remains in the file.
func yamlDelete(src []byte, top, child string) ([]byte, bool, error) {
	lines, err := yamlLines(src)
	if err != nil {
		return nil, false, err
	}
	topAt, childAt, _, err := yamlFind(lines, top, child)
	if err != nil || childAt < 0 {
		return src, false, err
	}
	start, end := lines[childAt].start, lines[yamlBlock(lines, childAt)-1].end
	// Is the entry all there is under top?
	only := true
	for j := topAt + 1; j < yamlBlock(lines, topAt); j++ {
		if !lines[j].blankOrComment() && (j < childAt || j >= yamlBlock(lines, childAt)) {
			only = false
		}
	}
	if only && yamlBlock(lines, topAt) == yamlBlock(lines, childAt) {
		start = lines[topAt].start
	}
	out := apply(src, splice{start, end, ""})
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, true, nil
	}
	return out, true, nil
}

// yamlScalarKey writes a key plain when it is safe to, else quoted.
func yamlScalarKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return yamlString(k)
		}
	}
	return k
}

// yamlString is s as a double-quoted YAML scalar (JSON's escapes are
// YAML's).
func yamlString(s string) string {
	return renderJSON(s, "", "")
}
