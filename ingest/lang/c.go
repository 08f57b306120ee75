package lang

// C extraction. C and C++ share one walker (cppWalker in cpp.go): the C++
// grammar's node kinds are a superset of C's, and the C-specific rules
// (no classes, no namespaces, no access specifiers) fall out of the C tree
// simply not containing those nodes.
//
// ".h" headers are claimed by C (Detect sees only the name), though many
// C++ projects name their headers .h. When the C grammar leaves errors in a
// header whose text shows C++ syntax (a namespace block, a template, a
// class definition, an access specifier, a qualified name a::b), the
// extractor re-parses it with the C++ grammar and keeps whichever tree has
// fewer ERROR nodes; the file and its symbols keep the language "c" that
// detection gave them. A .c file is C: it is never re-parsed (C code full
// of macros fails the C grammar often, and words like "class" in
// `struct class *` or "::" in inline assembly made the kernel re-parse a
// fifth of its files for nothing). C++-only header suffixes (.hpp, .hh,
// .hxx, .h++) belong to cpp directly.

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

func init() {
	register(&Language{
		Name:       "c",
		Extensions: []string{".c", ".h"},
		Grammar:    func() *sitter.Language { return sitter.NewLanguage(tsc.Language()) },
		Inert:      cDefinesOnly,
		Mask:       cMask,
		Extract: func(f *File, root *sitter.Node) {
			if root.HasError() && strings.HasSuffix(f.Path, ".h") && cLooksLikeCpp(f.Src) {
				if tree := cReparseAsCpp(f.Src); tree != nil {
					defer tree.Close()
					if alt := tree.RootNode(); cErrorCount(alt) < cErrorCount(root) {
						w := &cppWalker{f: f}
						w.run(alt)
						return
					}
				}
			}
			w := &cppWalker{f: f}
			w.run(root)
		},
	})
}

// cCppAt matches, where a word starts, text that is C++ and not C: a
// namespace block, a template, a class definition or declaration, an
// access specifier. cLooksLikeCpp adds qualified names (an identifier
// directly before "::", a name or destructor after). Each keyword must
// start a word, so `struct pid_namespace` and `struct class *` are not
// C++; `asm("" ::: "memory")` has no name before its colons.
var cCppAt = regexp.MustCompile(`^(?:namespace\s+\w*\s*\{|template\s*<|(?:public|private|protected)\s*:[^:]|class\s+\w+\s*(?:final\s*)?[{:;])`)

// cCppKeywords are the words cCppAt starts with.
var cCppKeywords = [][]byte{[]byte("namespace"), []byte("template"), []byte("public"), []byte("private"), []byte("protected"), []byte("class")}

// cLooksLikeCpp reports whether src shows C++ syntax: whether
// TestCLooksLikeCppIsTheRegexp's one regular expression matches it. It
// finds the keywords and "::" with bytes.Index and tries the pattern only
// where they start: the regexp run over every header the C grammar
// stumbled on was 12 s of the Linux kernel's CPU.
func cLooksLikeCpp(src []byte) bool {
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte("::"))
		if j < 0 {
			break
		}
		k := i + j
		if k > 0 && isWordByte(src[k-1]) && k+2 < len(src) && (src[k+2] == '~' || isWordByte(src[k+2])) {
			return true
		}
		i = k + 1
	}
	for _, kw := range cCppKeywords {
		for i := 0; ; {
			j := bytes.Index(src[i:], kw)
			if j < 0 {
				break
			}
			k := i + j
			if (k == 0 || !isWordByte(src[k-1])) && cCppAt.Match(src[k:]) {
				return true
			}
			i = k + 1
		}
	}
	return false
}

// isWordByte is regexp's \w: an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// cDefinesOnly reports whether src is nothing but comments and the
// preprocessor lines #define of an object-like macro, #undef, and
// balanced #ifdef/#ifndef … #endif: a generated register header, from
// which the extractor takes nothing, not even a function-like macro's
// name. The Linux kernel has 2,784 such files (469 MB, most of them over
// analyze's 1 MiB cap; 2,688 files and 74 MB under it). Anything else
// (code, #include, #if with an expression, a function-like #define, a
// comment inside a continued #define or followed by more text, a comment
// that does not start its line) makes it false: the grammar is stricter
// than the preprocessor there, and TestCDefinesOnlyKernel holds this
// function to it on every kernel file it takes.
func cDefinesOnly(src []byte) bool {
	depth := 0
	inComment := false
	for len(src) > 0 {
		var line []byte
		line, src = cNextLine(src)
		l := bytes.TrimSpace(line)
		if inComment {
			i := bytes.Index(l, []byte("*/"))
			if i < 0 {
				continue
			}
			inComment = false
			l = bytes.TrimSpace(l[i+2:])
		}
		for bytes.HasPrefix(l, []byte("/*")) {
			i := bytes.Index(l[2:], []byte("*/"))
			if i < 0 {
				inComment = true
				l = nil
				break
			}
			l = bytes.TrimSpace(l[2+i+2:])
		}
		if len(l) == 0 || bytes.HasPrefix(l, []byte("//")) {
			continue
		}
		if l[0] != '#' {
			return false
		}
		d := bytes.TrimLeft(l[1:], " \t")
		w := 0
		for w < len(d) && d[w] >= 'a' && d[w] <= 'z' {
			w++
		}
		switch string(d[:w]) {
		case "define":
			name := bytes.TrimLeft(d[w:], " \t")
			if len(name) == len(d[w:]) { // "#defineX"
				return false
			}
			n := 0
			for n < len(name) && isWordByte(name[n]) {
				n++
			}
			if n == 0 || n < len(name) && name[n] == '(' || !cCommentLast(line) {
				return false
			}
		case "undef", "ifdef", "ifndef":
			if !cNameThenNothing(d[w:], true) {
				return false
			}
			if d[0] == 'i' {
				depth++
			}
		case "endif":
			if depth--; depth < 0 || !cNameThenNothing(d[w:], false) {
				return false
			}
		default:
			return false
		}
		// A directive continues over lines ending in a backslash; the
		// grammar stumbles on comments inside one.
		for bytes.HasSuffix(l, []byte("\\")) {
			if bytes.Contains(line, []byte("/*")) || bytes.Contains(line, []byte("//")) || len(src) == 0 {
				return false
			}
			line, src = cNextLine(src)
			l = bytes.TrimRight(line, " \t\r")
		}
		if bytes.Contains(line, []byte("/*")) && !bytes.HasSuffix(line, []byte("*/")) {
			return false // the grammar rejects text after a directive's closing comment, even a space
		}
	}
	return depth == 0 && !inComment
}

// cCommentLast reports whether line holds no comment but, maybe, one
// block comment that ends it.
func cCommentLast(line []byte) bool {
	if bytes.Contains(line, []byte("//")) {
		return false
	}
	i := bytes.Index(line, []byte("/*"))
	return i < 0 || bytes.Index(line[i+2:], []byte("*/")) == len(line)-i-4
}

// cNameThenNothing reports whether rest, what follows a directive's
// word, is a space and an identifier (when name is set) and then at most
// spaces and a comment.
func cNameThenNothing(rest []byte, name bool) bool {
	if name {
		r := bytes.TrimLeft(rest, " \t")
		if len(r) == len(rest) {
			return false
		}
		n := 0
		for n < len(r) && isWordByte(r[n]) {
			n++
		}
		if n == 0 || r[0] >= '0' && r[0] <= '9' {
			return false
		}
		rest = r[n:]
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || bytes.HasPrefix(rest, []byte("/*")) || bytes.HasPrefix(rest, []byte("//"))
}

// cNextLine splits src after its first line (without the newline).
func cNextLine(src []byte) (line, rest []byte) {
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		return src[:i], src[i+1:]
	}
	return src, nil
}

// cReparseTimeout bounds the C++ re-parse of a .h file.
const cReparseTimeout = 10 * time.Second

// cReparseAsCpp parses src with the C++ grammar, nil when that fails or
// takes longer than cReparseTimeout. The caller closes the tree.
func cReparseAsCpp(src []byte) *sitter.Tree {
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(fastGrammar(sitter.NewLanguage(tscpp.Language()))); err != nil {
		return nil
	}
	deadline := time.Now().Add(cReparseTimeout)
	calls := 0
	n := len(src)
	return p.ParseWithOptions(func(i int, _ sitter.Point) []byte {
		if i >= n {
			return nil
		}
		return src[i:min(n, i+64<<10)]
	}, nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
		calls++
		return calls&63 == 0 && time.Now().After(deadline)
	}})
}

// cErrorCount counts the ERROR and MISSING nodes of a tree.
func cErrorCount(root *sitter.Node) int {
	n := 0
	walkNamed(root, func(c *sitter.Node) bool {
		if c.IsError() || c.IsMissing() {
			n++
		}
		return c.HasError()
	})
	if root.IsError() {
		n++
	}
	return n
}

// Helpers shared by the c, cpp, csharp, rust, ruby and php extractors carry
// the prefix lx so they never collide with another language's helpers.

// lxLinkParents sets ParentID on methods and constructors left without one
// (out-of-line C++ definitions, Rust impl blocks, ...) when the type their
// qualified name names ("A.B.method" → "A.B") is declared in the same file.
// QualifiedNames use "." between every level in all languages.
func lxLinkParents(f *File) {
	types := map[string]string{}
	for _, s := range f.Facts.Symbols {
		if s.Label == schema.LabelClass || s.Label == schema.LabelInterface {
			if _, dup := types[s.QualifiedName]; !dup {
				types[s.QualifiedName] = s.ID
			}
		}
	}
	for i := range f.Facts.Symbols {
		s := &f.Facts.Symbols[i]
		if s.ParentID != "" || (s.Kind != schema.KindMethod && s.Kind != schema.KindConstructor) {
			continue
		}
		if dot := strings.LastIndexByte(s.QualifiedName, '.'); dot > 0 {
			s.ParentID = types[s.QualifiedName[:dot]]
		}
	}
}

// lxJoin joins qualified-name segments, skipping empty ones: schema.Qualify
// folded over the non-empty parts.
func lxJoin(parts ...string) string {
	q := ""
	for _, p := range parts {
		if p != "" {
			q = schema.Qualify(q, p)
		}
	}
	return q
}

// lxArgCount counts the named, non-comment children of an argument list;
// -1 when there is no list.
func lxArgCount(f *File, args *sitter.Node) int {
	if args == nil {
		return -1
	}
	n := 0
	f.eachNamedChild(args, func(_ *sitter.Node, kind string) {
		if !isCommentKind(kind) {
			n++
		}
	})
	return n
}

// lxIsConstName reports whether an identifier is written in ALL_CAPS (a
// macro or constant, never a function passed by name).
func lxIsConstName(s string) bool {
	hasLetter := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			return false
		}
		if r >= 'A' && r <= 'Z' {
			hasLetter = true
		}
	}
	return hasLetter
}

// lxIdentLike reports whether s can be a symbol or call name: an
// identifier (letters, digits, _, $, with C++ "::"-free destructor "~" and
// Ruby "?", "!", "=" suffixes), or a C++ operator name without spaces.
// Error recovery can hand extractors whole expressions as names; this keeps
// them out.
func lxIdentLike(s string) bool {
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "operator") {
		return !strings.ContainsAny(s, " \t\n")
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
		case r >= '0' && r <= '9' && i > 0:
		case r == '~' && i == 0:
		case (r == '?' || r == '!' || r == '=') && i == len(s)-1 && i > 0:
		default:
			return false
		}
	}
	return true
}

// lxDocStyle says which lines lxTextDoc reads as comments or skips.
type lxDocStyle struct {
	hash      bool // "#" starts a comment line (Ruby)
	rustAttrs bool // skip "#[...]" attribute lines between doc and item (Rust)
	templates bool // skip "template <...>" header lines (C++)
}

// lxTextDoc is the doc comment of the declaration starting at byte start,
// read from the source text above it: the block of comment lines directly
// above the declaration's line (no blank line between), stripped by
// cleanComment and joined with newlines. It matches docComment's rules
// without asking the tree, whose PrevSibling scans all earlier siblings and
// made doc lookup quadratic in long class and impl bodies.
func lxTextDoc(src []byte, start uint, st lxDocStyle) string {
	ls := int(start)
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	var parts []string // bottom-up
	end := ls          // end (exclusive, at '\n' or 0) of the region still above
	for end > 0 {
		pe := end - 1 // the '\n' ending the line above
		ps := pe
		for ps > 0 && src[ps-1] != '\n' {
			ps--
		}
		line := bytes.TrimSpace(src[ps:pe])
		switch {
		case len(line) == 0:
			end = 0
		case bytes.HasPrefix(line, []byte("//")):
			parts = append(parts, cleanComment(string(line)))
			end = ps
		case st.hash && line[0] == '#' && !bytes.HasPrefix(line, []byte("#{")):
			parts = append(parts, cleanComment(string(line)))
			end = ps
		case st.rustAttrs && bytes.HasPrefix(line, []byte("#[")) && bytes.HasSuffix(line, []byte("]")):
			end = ps
		case st.templates && bytes.HasPrefix(line, []byte("template")):
			end = ps
		case bytes.HasSuffix(line, []byte("*/")):
			// A block comment: find the line where it opens.
			open := bytes.LastIndex(src[:pe], []byte("/*"))
			if open < 0 {
				end = 0
				break
			}
			os := open
			for os > 0 && src[os-1] != '\n' {
				os--
			}
			if len(bytes.TrimSpace(src[os:open])) > 0 { // code before the comment on its line
				end = 0
				break
			}
			parts = append(parts, cleanComment(string(src[open:pe])))
			end = os
		default:
			end = 0
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(parts[i])
	}
	return b.String()
}

// ---- Kernel-style C: macro-defined functions, registrations, ops tables ----
//
// These rules run in the shared C/C++ walker; they only fire on shapes C
// code has (SYSCALL_DEFINEn statements, designated initializers of struct
// types, registration macros).

// cDefiningMacro tells what a file-level macro that defines a function
// named by its first argument makes of that name, and of the (type, name)
// pairs after it, which are the function's parameters:
// SYSCALL_DEFINE3(read, ...) defines sys_read (COMPAT_SYSCALL_DEFINEn:
// compat_sys_X), a system call; BPF_CALL_2(bpf_map_lookup_elem, ...) the
// BPF helper bpf_map_lookup_elem (include/linux/filter.h). ok is false for
// any other name.
func cDefiningMacro(name string) (prefix string, syscall, ok bool) {
	if digits, ok := strings.CutPrefix(name, "BPF_CALL_"); ok {
		return "", false, cOneDigit(digits)
	}
	rest, compat := strings.CutPrefix(name, "COMPAT_")
	digits, ok := strings.CutPrefix(rest, "SYSCALL_DEFINE")
	if !ok || !cOneDigit(digits) {
		return "", false, false
	}
	if compat {
		return "compat_sys_", true, true
	}
	return "sys_", true, true
}

// cOneDigit reports whether s is one decimal digit (a macro's arity).
func cOneDigit(s string) bool { return len(s) == 1 && s[0] >= '0' && s[0] <= '9' }

// cRegistrars maps calls and macros that register a function for the
// kernel (or a framework) to call later to the 0-based argument positions
// holding the function. Names ending in "initcall" (core_initcall,
// late_initcall_sync, ...) register their argument 0 as well.
var cRegistrars = map[string][]int{
	"module_init": {0}, "module_exit": {0}, "__exitcall": {0}, "early_param": {1}, "__setup": {1},
	"request_irq": {1}, "request_threaded_irq": {1, 2}, "request_any_context_irq": {1},
	"devm_request_irq": {2}, "devm_request_threaded_irq": {2, 3}, "request_percpu_irq": {1},
	"kthread_run": {0}, "kthread_create": {0}, "INIT_WORK": {1}, "INIT_DELAYED_WORK": {1},
	"timer_setup": {1}, "tasklet_init": {1}, "tasklet_setup": {1},
}

func cRegistrarArgs(name string) []int {
	if ps, ok := cRegistrars[name]; ok {
		return ps
	}
	if strings.HasSuffix(name, "initcall") || strings.HasSuffix(name, "initcall_sync") {
		return []int{0}
	}
	return nil
}

// cSyscall is the body of a SYSCALL_DEFINEn(...) { ... } being walked, or
// of another defining macro's (cDefiningMacro: BPF_CALL_n).
// The C grammar cannot read the macro as a declarator: it leaves an
// expression statement followed by a block, or an ERROR node after which
// the body's statements float at file level. The body is therefore found
// in the text (the brace block after the macro call) and every file-level
// node starting inside it belongs to the function the macro defines.
type cSyscall struct {
	id                        string
	end                       uint // byte just past the body's closing brace
	savedLocals, savedMembers map[string]bool
}

// cTeardownWords are the words of a C function's name that say it takes
// back what its arguments name: free_irq(irq, foo_irq),
// unregister_ftrace_function(foo_trace), del_timer(...).
var cTeardownWords = map[string]bool{
	"remove": true, "unregister": true, "deregister": true, "destroy": true, "del": true, "delete": true,
	"free": true, "release": true, "cancel": true, "kill": true, "cleanup": true,
}

// cTeardown reports whether a call of the function name takes back what
// it is handed (cTeardownWords): the functions named as its arguments
// are not callbacks of the caller, as they are of a registration's.
func cTeardown(name string) bool {
	for w := range strings.SplitSeq(name, "_") {
		if cTeardownWords[w] {
			return true
		}
	}
	return false
}

// cMacroArgs splits the text of a macro call's argument list, "(a, b c *,
// d)", at its top-level commas.
func cMacroArgs(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "(")
	s = strings.TrimSuffix(s, ")")
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.Join(strings.Fields(s[start:i]), " "))
				start = i + 1
			}
		}
	}
	return append(out, strings.Join(strings.Fields(s[start:]), " "))
}

// cPrimitive are C type words that never name a struct the resolver links.
var cPrimitive = map[string]bool{
	"int": true, "long": true, "short": true, "char": true, "unsigned": true, "signed": true,
	"void": true, "float": true, "double": true, "size_t": true, "ssize_t": true, "loff_t": true,
	"bool": true, "u8": true, "u16": true, "u32": true, "u64": true, "s32": true, "s64": true,
}

// cMacroParamType is the struct-like type name of a macro parameter type
// as written ("const struct file __user *" → "file"), "" for primitives.
func cMacroParamType(t string) string {
	var last string
	for _, w := range strings.Fields(strings.ReplaceAll(t, "*", " ")) {
		switch w {
		case "const", "volatile", "struct", "union", "enum", "__user", "__kernel", "__iomem":
			continue
		}
		last = w
	}
	if cPrimitive[last] || !lxIdentLike(last) {
		return ""
	}
	return last
}

// syscallCall recognises a file-level `SYSCALL_DEFINEn(name, type, arg,
// ...)` call (or another cDefiningMacro's) followed by its body, emits the
// function it defines and makes the body current (w.sys); it reports
// whether call was one.
func (w *cppWalker) syscallCall(call *sitter.Node) bool {
	fn := w.f.field(call, "function")
	if w.f.kind(fn) != "identifier" {
		return false
	}
	macro := w.f.Text(fn)
	prefix, _, ok := cDefiningMacro(macro)
	if !ok {
		return false
	}
	args := cMacroArgs(w.f.Text(w.f.field(call, "arguments")))
	if len(args) == 0 || !lxIdentLike(args[0]) {
		return false
	}
	end := cBlockEnd(w.f.Src, call.EndByte())
	if end == 0 {
		return false
	}
	w.endSyscall()
	start := call.StartByte()
	id := w.syscallSymbol(macro, prefix+args[0], args[1:], start, end, lineOf(call), call.EndByte())
	w.sys = &cSyscall{id: id, end: end, savedLocals: w.locals, savedMembers: w.members}
	w.locals, w.members = w.sysLocals, nil
	return true
}

// endSyscall leaves the syscall body being walked, if any.
func (w *cppWalker) endSyscall() {
	if w.sys != nil {
		w.locals, w.members = w.sys.savedLocals, w.sys.savedMembers
		w.sys = nil
	}
}

// cBlockEnd finds the brace block that starts after src[from:] (only
// spaces and comments between) and returns the byte just past its closing
// brace; 0 when there is none. Strings, character literals and comments
// are skipped.
func cBlockEnd(src []byte, from uint) uint {
	i := int(from)
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == ';':
			if src[i] == ';' {
				return 0
			}
			i++
			continue
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return 0
			}
			i += j + 4
			continue
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return 0
			}
			i += j
			continue
		}
		break
	}
	end, _ := cBalancedEnd(src, i, '{', '}', len(src), "", false)
	return uint(end)
}

// syscallSymbol emits the function a defining macro (cDefiningMacro)
// defines over src[start:end) (its signature is src[start:sigEnd)), with
// the macro's arguments after the name (type, name, type, name...) as its
// parameters, left in w.sysLocals, and returns its id.
func (w *cppWalker) syscallSymbol(macro, name string, params []string, start, end uint, line int, sigEnd uint) string {
	// A system call is found by what it is, not only by its name: "read
	// system call" (the query's "system" also searches "syscall",
	// text.Aliases).
	var what []string
	if _, syscall, _ := cDefiningMacro(macro); syscall {
		what = []string{"syscall"}
	}
	id := w.f.addSymbolBytes(schema.Symbol{
		Name: name, QualifiedName: name, Kind: schema.KindFunction,
		Signature:  collapseSpace(w.f.Src[start:sigEnd], signatureCap),
		DocComment: lxTextDoc(w.f.Src, start, lxDocStyle{}),
		IsExported: true,
		SearchText: text.SearchText(name, name, w.f.Path, what...),
	}, start, end, line)
	w.f.Facts.Registrations = append(w.f.Facts.Registrations, Registration{Name: name, Via: macro, Line: line})
	w.sysLocals = map[string]bool{}
	for i := 0; i+1 < len(params); i += 2 {
		pn := params[i+1]
		if !lxIdentLike(pn) {
			continue
		}
		w.sysLocals[pn] = true
		if t := cMacroParamType(params[i]); t != "" {
			w.f.Facts.Types = append(w.f.Facts.Types, TypeFact{Scope: id, Name: pn, Type: t, Kind: "param", Line: line})
		}
	}
	return id
}

// cNamedByArgument is the name of the function a C definition defines
// through a macro named in capitals whose first argument is a bare word:
// `int BPF_PROG(test1, int a) { ... }` (tools/lib/bpf/bpf_tracing.h) is the
// BPF program test1, as are the functions of BPF_KPROBE, BPF_KSYSCALL,
// BPF_STRUCT_OPS and the like (the Linux kernel's selftests, samples and
// sched_ext schedulers: about 700 of them). The grammar reads the macro as
// the function's name and the word as a parameter's type with no name,
// which a C function definition cannot have (before C23). "" when fd is
// no such declarator.
func (w *cppWalker) cNamedByArgument(macro string, fd *sitter.Node) string {
	if !cMacroLike(macro) {
		return ""
	}
	// The callback's node is only valid inside it (File.eachNamedChild).
	name, params, bare := "", 0, 0
	w.f.eachNamedChild(w.f.field(fd, "parameters"), func(c *sitter.Node, kind string) {
		if isCommentKind(kind) {
			return
		}
		params++
		word := ""
		if kind == "parameter_declaration" && w.f.field(c, "declarator") == nil && c.NamedChildCount() == 1 {
			if t := w.f.field(c, "type"); w.f.kind(t) == "type_identifier" && lxIdentLike(w.f.Text(t)) {
				word = w.f.Text(t) // not a named parameter, nor a qualified type
			}
		}
		if word != "" {
			bare++
		}
		if params == 1 {
			name = word
		}
	})
	if params > 1 && bare == params {
		// Nothing but bare words: a macro of names (a C test framework's
		// TEST(group, name)), not BPF_PROG(name, int a) or BPF_PROG2(name,
		// int, a), whose other arguments declare its parameters.
		return ""
	}
	return name
}

// cMacroLike reports whether name is written as a macro: capitals, digits
// and underscores, starting with a capital or an underscore, and holding at
// least two capitals.
func cMacroLike(name string) bool {
	caps := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'A' && c <= 'Z':
			caps++
		case c == '_' || i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return caps >= 2
}

// syscallDefinition handles `SYSCALL_DEFINE0(name) { ... }` (and
// `BPF_CALL_0(name) { ... }`), which the C
// grammar reads as a function definition of type SYSCALL_DEFINE0 with a
// parenthesized declarator; it reports whether n was one.
func (w *cppWalker) syscallDefinition(n *sitter.Node) bool {
	t := w.f.field(n, "type")
	d := w.f.field(n, "declarator")
	body := w.f.field(n, "body")
	if w.f.kind(t) != "type_identifier" || w.f.kind(d) != "parenthesized_declarator" || body == nil {
		return false
	}
	macro := w.f.Text(t)
	prefix, _, ok := cDefiningMacro(macro)
	if !ok {
		return false
	}
	name := strings.TrimSpace(strings.Trim(strings.TrimSpace(w.f.Text(d)), "()"))
	if !lxIdentLike(name) {
		return false
	}
	w.syscallBody(n, body, macro, prefix+name, nil)
	return true
}

// syscallDeclarator handles a defining macro read as a function declarator
// `SYSCALL_DEFINE2(truncate, const char __user *, path, long, length) {
// ... }` (the C++ grammar's reading, used for a .c file whose text looked
// like C++); it reports whether n was one.
func (w *cppWalker) syscallDeclarator(n, fd *sitter.Node, macro string) bool {
	prefix, _, ok := cDefiningMacro(macro)
	body := w.f.field(n, "body")
	if !ok || body == nil {
		return false
	}
	args := cMacroArgs(w.f.Text(w.f.field(fd, "parameters")))
	if len(args) == 0 || !lxIdentLike(args[0]) {
		return false
	}
	w.syscallBody(n, body, macro, prefix+args[0], args[1:])
	return true
}

// syscallBody emits the function the defining macro n defines and walks
// its body.
func (w *cppWalker) syscallBody(n, body *sitter.Node, macro, name string, params []string) {
	id := w.syscallSymbol(macro, name, params, n.StartByte(), n.EndByte(), lineOf(n), body.StartByte())
	savedLocals, savedMembers := w.locals, w.members
	w.locals, w.members = w.sysLocals, nil
	w.walkChildren(body, id)
	w.locals, w.members = savedLocals, savedMembers
}

// registrar records the functions a registration call or macro
// (module_init, request_irq, ...) is handed.
func (w *cppWalker) registrar(name string, args *sitter.Node, caller string) {
	pos := cRegistrarArgs(name)
	if len(pos) == 0 {
		return
	}
	i := 0
	w.f.eachNamedChild(args, func(a *sitter.Node, kind string) {
		if isCommentKind(kind) {
			return
		}
		for _, p := range pos {
			if p == i {
				if nm := w.funcName(a); nm != "" {
					w.f.Facts.Registrations = append(w.f.Facts.Registrations, Registration{CallerID: caller, Name: nm, Via: name, Line: lineOf(a)})
				}
			}
		}
		i++
	})
}

// funcName is the name of a function a value expression names (`f` or
// `&f`), "" when it names a variable, a parameter, a constant or anything
// other than a plain identifier.
func (w *cppWalker) funcName(v *sitter.Node) string {
	if w.f.kind(v) == "pointer_expression" && strings.HasPrefix(w.f.Text(v), "&") {
		v = w.f.field(v, "argument")
	}
	if w.f.kind(v) != "identifier" {
		return ""
	}
	nm := w.f.Text(v)
	if !lxIdentLike(nm) || w.locals[nm] || w.globals[nm] || w.members[nm] || lxIsConstName(nm) {
		return ""
	}
	return nm
}

// globalName is the file-level variable a value expression names (`t` or
// `&t`), "".
func (w *cppWalker) globalName(v *sitter.Node) string {
	if w.f.kind(v) == "pointer_expression" && strings.HasPrefix(w.f.Text(v), "&") {
		v = w.f.field(v, "argument")
	}
	if w.f.kind(v) != "identifier" {
		return ""
	}
	nm := w.f.Text(v)
	if w.locals[nm] || !w.globals[nm] {
		return ""
	}
	return nm
}

// store records function value v stored in member fieldName of a struct
// of type typ (an initializer) or of the struct recv points at (an
// assignment), inside caller ("" at file level). Inside a function the
// store is also a callback of that function (a "reference" call site).
// A file-level variable stored (`.ops = &foo_ops`) is none.
func (w *cppWalker) store(v *sitter.Node, typ, recv, fieldName, caller string) {
	if w.globalName(v) != "" {
		return
	}
	nm := w.funcName(v)
	if nm == "" {
		return
	}
	if fieldName != "" && (typ != "" || recv != "") {
		w.f.Facts.Registrations = append(w.f.Facts.Registrations, Registration{
			CallerID: caller, Name: nm, Field: fieldName, Type: typ, Receiver: recv, Line: lineOf(v),
		})
	}
	if caller != "" {
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: caller, Name: nm, Kind: "reference", Args: -1, Line: lineOf(v)})
	}
}

// initStores records the function pointers of a designated initializer
// `{ .open = foo_open, ... }` of struct type typ; arrays of such structs
// (`{ {...}, {...} }`) are walked element by element.
func (w *cppWalker) initStores(list *sitter.Node, typ, caller string) {
	w.f.eachNamedChild(list, func(c *sitter.Node, kind string) {
		switch kind {
		case "initializer_list":
			w.initStores(c, typ, caller)
		case "initializer_pair":
			var fieldName string
			n := 0
			eachField(c, "designator", func(d *sitter.Node) {
				n++
				if w.f.kind(d) == "field_designator" {
					w.f.eachNamedChild(d, func(id *sitter.Node, kind string) {
						if kind == "field_identifier" {
							fieldName = w.f.Text(id)
						}
					})
				}
			})
			if n != 1 { // `.a.b = f`, `[i].f = g`: the member's struct is not typ
				fieldName = ""
			}
			w.store(w.f.field(c, "value"), typ, "", fieldName, caller)
		}
	})
}

// memberStore records `x->open = foo_open;` / `x.open = &foo_open;`.
func (w *cppWalker) memberStore(n *sitter.Node, caller string) {
	if strings.TrimSpace(fieldText(w.f, n, "operator")) != "=" {
		return
	}
	left := w.f.field(n, "left")
	right := w.f.field(n, "right")
	if w.f.kind(left) != "field_expression" {
		return
	}
	recv := exprText(w.f, w.f.field(left, "argument"))
	w.store(right, "", recv, w.f.Text(w.f.field(left, "field")), caller)
}

// configBlock walks an #ifdef or #if block of a C file as the walk would,
// counting in w.off the branches a configuration option turns off
// (Facts.ConfigStubs): the body of `#ifndef CONFIG_X` and of
// `#if !IS_ENABLED(CONFIG_X)`, the #else and #elif chain of `#ifdef
// CONFIG_X`. A test of anything else (an include guard, CONFIG_A &&
// CONFIG_B, a version number) turns nothing off.
func (w *cppWalker) configBlock(n *sitter.Node, kind, caller string) {
	p := w.configPolarity(n, kind)
	w.f.walkNamedKind(n, func(c *sitter.Node, ck string) bool {
		off := 0
		switch ck {
		case "preproc_else", "preproc_elif", "preproc_elifdef":
			if p > 0 {
				off = 1
			}
		default:
			if p < 0 {
				off = 1
			}
		}
		w.off += off
		if w.visit(c, ck, caller) {
			w.walkChildren(c, caller)
		}
		w.off -= off
		return false
	})
}

// configPolarity is 1 when the #ifdef or #if block n tests that one
// configuration option (CONFIG_*) is on, -1 when it tests that it is off,
// 0 otherwise.
func (w *cppWalker) configPolarity(n *sitter.Node, kind string) int {
	if kind == "preproc_ifdef" {
		if !cConfigName(fieldText(w.f, n, "name")) {
			return 0
		}
		d := bytes.TrimLeft(w.f.Src[n.StartByte():], "# \t")
		switch {
		case bytes.HasPrefix(d, []byte("ifndef")):
			return -1
		case bytes.HasPrefix(d, []byte("ifdef")):
			return 1
		}
		return 0
	}
	return cConfigCond(fieldText(w.f, n, "condition"))
}

// cConfigCond is configPolarity of an #if's condition: 1 for
// `defined(CONFIG_X)`, `defined CONFIG_X`, `IS_ENABLED(CONFIG_X)`,
// `IS_BUILTIN(CONFIG_X)`, `IS_REACHABLE(CONFIG_X)` and `CONFIG_X`, -1 for
// one of them after `!`, 0 for anything else.
func cConfigCond(cond string) int {
	s := strings.TrimSpace(cond)
	sign := 1
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		sign, s = -1, strings.TrimSpace(rest)
	}
	s = cUnparen(s)
	for _, fn := range []string{"defined", "IS_ENABLED", "IS_BUILTIN", "IS_REACHABLE"} {
		if rest, ok := strings.CutPrefix(s, fn); ok && rest != "" && (rest[0] == '(' || rest[0] == ' ' || rest[0] == '\t') {
			s = cUnparen(strings.TrimSpace(rest))
			break
		}
	}
	if cConfigName(s) {
		return sign
	}
	return 0
}

// cUnparen is s without one pair of enclosing parentheses.
func cUnparen(s string) string {
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// cConfigName reports whether s is one word naming a configuration
// option: CONFIG_ and more word characters.
func cConfigName(s string) bool {
	rest, ok := strings.CutPrefix(s, "CONFIG_")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isWordByte(rest[i]) {
			return false
		}
	}
	return true
}

// cStubBody reports whether a function body (its text, the function's
// parameters and the body's call sites) is a stub's: it calls nothing but
// capitals macros (ERR_PTR, WARN_ON) and does not read its parameters
// (`{ return 0; }`, `{ WARN_ONCE(1, "disabled"); return -EINVAL; }`) —
// not the !CONFIG_DEBUG branch that does the work without the debugging
// (`{ return hc->ep_type == BULK; }`).
func cStubBody(text []byte, params map[string]bool, calls []CallSite) bool {
	for _, c := range calls {
		if !cMacroLike(c.Name) {
			return false
		}
	}
	if len(params) == 0 {
		return true
	}
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		if params[string(text[i:j])] {
			return false
		}
		i = j
	}
	return true
}
