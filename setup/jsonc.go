package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// A text-preserving JSONC editor: the file is parsed into values with
// their byte spans, and an edit splices new text between them, so every
// other byte (comments, trailing commas, key order, indentation, number
// spellings) stays as the user wrote it. JSONC is JSON plus // and /* */
// comments and trailing commas (VS Code's, Zed's and OpenCode's settings
// files); a strict JSON file is JSONC too, and the edits below never add
// a comment or a trailing comma to a file that had none.

// jval is a parsed value: its span [start, end) in the source and, for an
// object, its members.
type jval struct {
	kind    byte // '{' object, '[' array, '"' string, 'v' other literal
	start   int
	end     int
	members []jmember
}

// jmember is one "key": value of an object.
type jmember struct {
	key      string
	keyStart int
	val      *jval
	comma    int // offset of the comma after the value, -1 if none
}

// errSyntax marks a file that is not JSONC: setup refuses to edit it.
var errSyntax = errors.New("not valid JSON or JSONC")

// maxDepth bounds nesting (a hostile file cannot exhaust the stack).
const maxDepth = 200

type jparser struct {
	src   []byte
	pos   int
	depth int
}

// parseJSONC parses src; a file of only whitespace and comments gives a
// nil value.
func parseJSONC(src []byte) (*jval, error) {
	p := &jparser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, nil
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errf("unexpected %q after the top-level value", src[p.pos])
	}
	return v, nil
}

func (p *jparser) errf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("%w: line %d: %s", errSyntax, line, fmt.Sprintf(format, args...))
}

// skip passes whitespace and comments.
func (p *jparser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errf("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value() (*jval, error) {
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of file")
	}
	switch c := p.src[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		start := p.pos
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &jval{kind: '"', start: start, end: p.pos}, nil
	default:
		start := p.pos
		for p.pos < len(p.src) && strings.IndexByte("+-.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", p.src[p.pos]) >= 0 {
			p.pos++
		}
		lit := string(p.src[start:p.pos])
		if lit == "" {
			return nil, p.errf("unexpected %q", c)
		}
		var v any
		if lit != "true" && lit != "false" && lit != "null" && json.Unmarshal([]byte(lit), &v) != nil {
			return nil, p.errf("bad literal %q", lit)
		}
		return &jval{kind: 'v', start: start, end: p.pos}, nil
	}
}

// str reads a string literal and returns its value.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '\n':
			return "", p.errf("newline in a string")
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				return "", p.errf("bad string: %v", err)
			}
			return s, nil
		}
		p.pos++
	}
	return "", p.errf("unterminated string")
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errf("nested deeper than %d", maxDepth)
	}
	return nil
}

func (p *jparser) object() (*jval, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	v := &jval{kind: '{', start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errf("unterminated object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if len(v.members) > 0 && v.members[len(v.members)-1].comma < 0 {
			return nil, p.errf("expected , or } after a member")
		}
		if p.src[p.pos] != '"' {
			return nil, p.errf("expected a quoted key, got %q", p.src[p.pos])
		}
		m := jmember{keyStart: p.pos, comma: -1}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		m.key = key
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("expected : after key %q", key)
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		if m.val, err = p.value(); err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			m.comma = p.pos
			p.pos++
		}
		v.members = append(v.members, m)
	}
}

func (p *jparser) array() (*jval, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	v := &jval{kind: '[', start: p.pos}
	p.pos++
	needComma := false
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if needComma {
			return nil, p.errf("expected , or ] in an array")
		}
		if _, err := p.value(); err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		needComma = true
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			needComma = false
		}
	}
}

// member returns the last member named key (JSON parsers keep the last of
// duplicate keys), or nil.
func (v *jval) member(key string) *jmember {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return &v.members[i]
		}
	}
	return nil
}

// decodeJSONC decodes a JSONC span into Go values (comments and trailing
// commas removed by stripJSONC).
func decodeJSONC(src []byte) (any, error) {
	var v any
	if err := json.Unmarshal(stripJSONC(src), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// stripJSONC blanks comments and drops trailing commas, so that
// encoding/json reads the rest.
func stripJSONC(src []byte) []byte {
	// Pass 1: comments outside strings become spaces.
	out := bytes.Clone(src)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				end = len(out) - i - 4 // unterminated: blank to the end
			}
			for j := i; j < i+2+end+2 && j < len(out); j++ {
				out[j] = ' '
			}
			i += 2 + end + 1
		}
	}
	// Pass 2: a comma followed only by whitespace and a closing bracket.
	keep := out[:0]
	for i := 0; i < len(out); i++ {
		c := out[i]
		if c == '"' {
			j := i + 1
			for ; j < len(out) && out[j] != '"'; j++ {
				if out[j] == '\\' {
					j++
				}
			}
			keep = append(keep, out[i:min(j+1, len(out))]...)
			i = j
			continue
		}
		if c == ',' {
			rest := bytes.TrimLeft(out[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
		}
		keep = append(keep, c)
	}
	return keep
}

// jsonEqual reports whether two JSON texts mean the same value.
func jsonEqual(a, b []byte) bool {
	va, err1 := decodeJSONC(a)
	vb, err2 := decodeJSONC(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(va, vb)
}

// lineStart is the offset of the first byte of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// indentAt is the whitespace that begins the line holding off.
func indentAt(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// startsLine reports whether only whitespace precedes off on its line.
func startsLine(src []byte, off int) bool {
	return len(bytes.TrimLeft(src[lineStart(src, off):off], " \t")) == 0
}

// restOfLine is the offset of the newline ending off's line when only
// whitespace or a // comment follows off there; else off itself.
func restOfLine(src []byte, off int) int {
	e := bytes.IndexByte(src[off:], '\n')
	if e < 0 {
		e = len(src) - off
	}
	rest := bytes.TrimLeft(src[off:off+e], " \t\r")
	if len(rest) == 0 || bytes.HasPrefix(rest, []byte("//")) {
		return off + e
	}
	return off
}

// indentUnit guesses one level of indentation from the file: the indent
// of an object's first member beyond the object's own line, else two
// spaces.
func indentUnit(src []byte, root *jval) string {
	if root != nil && root.kind == '{' && len(root.members) > 0 && startsLine(src, root.members[0].keyStart) {
		outer := indentAt(src, root.start)
		inner := indentAt(src, root.members[0].keyStart)
		if u, ok := strings.CutPrefix(inner, outer); ok && u != "" {
			return u
		}
	}
	return "  "
}

// renderJSON renders v as indented JSON whose lines after the first are
// prefixed with indent.
func renderJSON(v any, indent, unit string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(v); err != nil {
		panic(err) // the values setup renders are plain maps, slices and strings
	}
	return strings.TrimRight(b.String(), "\n")
}

// renderJSONLine renders v on one line, with a space after each colon
// and comma (for one-line objects).
func renderJSONLine(v any) string {
	var ind bytes.Buffer
	if err := json.Indent(&ind, []byte(renderJSON(v, "", "")), "", ""); err != nil {
		panic(err) // renderJSON's output is JSON
	}
	lines := strings.Split(ind.String(), "\n") // newlines in strings are escaped
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			if !strings.HasSuffix(prev, "{") && !strings.HasSuffix(prev, "[") && !strings.HasPrefix(l, "}") && !strings.HasPrefix(l, "]") {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// splice is one replacement of src[start:end] by text.
type splice struct {
	start, end int
	text       string
}

// withMissing applies edits to src after inserting missing (the text of
// the entries not found; "" when none) at the offset at gives, starting a
// line of its own; src itself when there is nothing to do.
func withMissing(src []byte, edits []splice, missing string, at func() int) []byte {
	if missing != "" {
		off := at()
		if !bytes.HasSuffix(src[:off], []byte("\n")) {
			missing = "\n" + strings.TrimSuffix(missing, "\n")
		}
		edits = append([]splice{{off, off, missing}}, edits...)
	}
	if len(edits) == 0 {
		return src
	}
	return apply(src, edits...)
}

func apply(src []byte, edits ...splice) []byte {
	// Edits are given in increasing order and do not overlap.
	var out []byte
	last := 0
	for _, e := range edits {
		out = append(out, src[last:e.start]...)
		out = append(out, e.text...)
		last = e.end
	}
	return append(out, src[last:]...)
}

// jsonSet returns src with the member at path (objects all the way) set
// to value, creating the objects on the way, and whether anything
// changed. A member already holding an equal value is left as it is.
func jsonSet(src []byte, path []string, value any) ([]byte, bool, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	unit := indentUnit(src, root)
	if root == nil {
		// Empty (or comments only): a fresh object after what is there.
		var nested any = value
		for i := len(path) - 1; i >= 0; i-- {
			nested = orderedObject{{path[i], nested}}
		}
		prefix := src
		if len(bytes.TrimSpace(prefix)) > 0 && !bytes.HasSuffix(prefix, []byte("\n")) {
			prefix = append(append([]byte{}, prefix...), '\n')
		}
		if len(bytes.TrimSpace(prefix)) == 0 {
			prefix = nil
		}
		return append(append([]byte{}, prefix...), renderJSON(nested, "", unit)+"\n"...), true, nil
	}
	if root.kind != '{' {
		return nil, false, fmt.Errorf("%w: the top-level value is not an object", errSyntax)
	}
	obj := root
	for i, key := range path {
		m := obj.member(key)
		if m == nil {
			var nested any = value
			for j := len(path) - 1; j > i; j-- {
				nested = orderedObject{{path[j], nested}}
			}
			return insertMember(src, obj, key, nested, unit), true, nil
		}
		if i == len(path)-1 {
			value = keepExtras(src, m.val, value)
			if jsonEqual(src[m.val.start:m.val.end], []byte(renderJSON(value, "", unit))) {
				return src, false, nil
			}
			text := renderJSON(value, indentAt(src, m.keyStart), unit)
			if !bytes.ContainsRune(src[m.val.start:m.val.end], '\n') {
				text = renderJSONLine(value) // a one-line entry stays on one line
			}
			return apply(src, splice{m.val.start, m.val.end, text}), true, nil
		}
		if m.val.kind != '{' {
			return nil, false, fmt.Errorf("%q is not an object: fix the file by hand", strings.Join(path[:i+1], "."))
		}
		obj = m.val
	}
	return src, false, nil // unreachable: path is never empty
}

// keepExtras is value (setup's entry) followed by the members of the
// existing entry old that value does not set (a user's "env", "disabled",
// "timeout"...), in their order, so that replacing an entry keeps them.
func keepExtras(src []byte, old *jval, value any) any {
	obj, ok := value.(orderedObject)
	if !ok || old.kind != '{' {
		return value
	}
	ours := map[string]bool{}
	for _, e := range obj {
		ours[e.k] = true
	}
	out := append(orderedObject{}, obj...)
	for i := range old.members {
		m := old.members[i]
		if ours[m.key] || old.member(m.key) != &old.members[i] { // ours, or a duplicate parsers drop
			continue
		}
		raw := stripJSONC(src[m.val.start:m.val.end])
		if !json.Valid(raw) {
			continue
		}
		out = append(out, kv{m.key, json.RawMessage(raw)})
	}
	return out
}

// insertMember adds "key": value as obj's last member, in the file's
// style: on its own line at the members' indent when they are on their
// own lines, after a comma that the previous member gets if it lacked
// one; a trailing comma stays trailing.
func insertMember(src []byte, obj *jval, key string, value any, unit string) []byte {
	keyText, _ := json.Marshal(key)
	if len(obj.members) == 0 {
		outer := indentAt(src, obj.start)
		inner := outer + unit
		member := string(keyText) + ": " + renderJSON(value, inner, unit)
		closeAt := obj.end - 1
		if startsLine(src, closeAt) && lineStart(src, closeAt) > obj.start {
			at := lineStart(src, closeAt)
			return apply(src, splice{at, at, inner + member + "\n"})
		}
		return apply(src, splice{closeAt, closeAt, "\n" + inner + member + "\n" + outer})
	}
	last := obj.members[len(obj.members)-1]
	if !startsLine(src, last.keyStart) {
		// A one-line object: stay on the line.
		member := string(keyText) + ": " + renderJSONLine(value)
		if last.comma >= 0 {
			return apply(src, splice{last.comma + 1, last.comma + 1, " " + member + ","})
		}
		return apply(src, splice{last.val.end, last.val.end, ", " + member})
	}
	indent := indentAt(src, last.keyStart)
	member := string(keyText) + ": " + renderJSON(value, indent, unit)
	if last.comma >= 0 {
		at := restOfLine(src, last.comma+1)
		return apply(src, splice{at, at, "\n" + indent + member + ","})
	}
	at := restOfLine(src, last.val.end)
	if at == last.val.end {
		return apply(src, splice{at, at, ",\n" + indent + member})
	}
	return apply(src, splice{last.val.end, last.val.end, ","}, splice{at, at, "\n" + indent + member})
}

// jsonDelete removes the member at path, if present, undoing what
// jsonSet's insertion added, and then the objects on the way that it
// leaves empty (jsonSet creates them when missing); it reports whether
// anything changed. A file left holding only {} comes back empty.
func jsonDelete(src []byte, path []string) ([]byte, bool, error) {
	out, changed, err := jsonDeleteOne(src, path)
	if err != nil || !changed {
		return out, changed, err
	}
	for n := len(path) - 1; n >= 1; n-- {
		root, err := parseJSONC(out)
		if err != nil {
			return nil, false, err
		}
		v := root
		for _, k := range path[:n] {
			m := v.member(k)
			if m == nil || m.val.kind != '{' {
				return out, true, nil
			}
			v = m.val
		}
		if len(v.members) > 0 || bytes.ContainsAny(out[v.start+1:v.end-1], "/") {
			break // not empty, or holding a comment
		}
		if out, _, err = jsonDeleteOne(out, path[:n]); err != nil {
			return nil, false, err
		}
	}
	if string(bytes.TrimSpace(out)) == "{}" {
		return nil, true, nil
	}
	return out, true, nil
}

func jsonDeleteOne(src []byte, path []string) ([]byte, bool, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	if root == nil || root.kind != '{' {
		return src, false, nil
	}
	obj := root
	for i, key := range path {
		m := obj.member(key)
		if m == nil {
			return src, false, nil
		}
		if i < len(path)-1 {
			if m.val.kind != '{' {
				return src, false, nil
			}
			obj = m.val
			continue
		}
		idx := 0
		for j := range obj.members {
			if &obj.members[j] == m {
				idx = j
			}
		}
		return deleteMember(src, obj, idx), true, nil
	}
	return src, false, nil
}

func deleteMember(src []byte, obj *jval, idx int) []byte {
	m := obj.members[idx]
	end := m.val.end
	if m.comma >= 0 {
		end = m.comma + 1
	}
	isLast := idx == len(obj.members)-1
	if !startsLine(src, m.keyStart) {
		// A one-line object.
		if idx > 0 && isLast && m.comma < 0 {
			prev := obj.members[idx-1]
			return apply(src, splice{prev.val.end, end, ""})
		}
		start := m.keyStart
		if idx > 0 {
			for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
				start--
			}
		} else {
			for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
				end++
			}
		}
		return apply(src, splice{start, end, ""})
	}
	// The member's lines, from the newline before it to the end of its
	// last line when nothing but a // comment follows.
	start := lineStart(src, m.keyStart)
	if start > 0 {
		start-- // the newline that ended the previous line
	}
	end = restOfLine(src, end)
	if idx > 0 && isLast && m.comma < 0 {
		prev := obj.members[idx-1]
		if prev.comma >= 0 {
			// prev's comma was added when this member was: drop it.
			return apply(src, splice{prev.comma, prev.comma + 1, ""}, splice{start, end, ""})
		}
	}
	if idx == 0 && len(obj.members) == 1 {
		// The only member: leave the object as {} on one line.
		return apply(src, splice{obj.start + 1, obj.end - 1, ""})
	}
	return apply(src, splice{start, end, ""})
}

// orderedObject is a JSON object that keeps its keys in order.
type orderedObject []kv

type kv struct {
	k string
	v any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.k)
		if err != nil {
			return nil, err
		}
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.v); err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
