package lang

import (
	"bytes"
	"strings"
)

// The C grammar parses what a C compiler sees after the preprocessor, but
// it is handed the text before: words that the preprocessor turns into
// attributes or into nothing (`static int __init foo_init(void)`,
// `const char __user *buf`), types handed to macros as arguments
// (`container_of(p, struct foo, list)`) and macro invocations standing
// for declarations (`TRACE_EVENT(...);`) are syntax errors to it. Each
// error costs the parser its error recovery, which is slow (the kernel's
// files with errors parsed at 5.6 MB/s, those without at 9.2), and the
// tree it recovers loses what the error swallowed.
//
// cMask gives the grammar a copy of the text with those blanked: the same
// bytes but for the blanked ones, which become spaces (or '_', below),
// never a newline, so every offset, line and column is the one of the
// text itself, which the extractor keeps reading (names, signatures and
// bodies are as written).
// It blanks, outside preprocessor directives (a #define's text is the
// grammar's preproc_arg, never parsed, and the name a #define defines must
// stay):
//
//   - the annotation words of cAnnotations, and the parenthesized
//     arguments of those that take some (`__aligned(8)`, `__printf(2, 3)`);
//   - in a word that starts with digits and is no number, a token a
//     macro pastes together (`10000baseT_Full`, `5705_PLUS`), the digits,
//     which become '_' instead of spaces, so that it reads as one word;
//   - the upper end of a GNU case range, `case 1 ... 5:` (the label's
//     value is of no use to the graph);
//   - `struct`, `union` or `enum` and the tag after it when the two are
//     a whole macro argument: after "(" or "," and before "," or before a
//     ")" followed by ")", "," or ";". The keyword and the spaces after it
//     become '_', so that the argument reads as one word (`struct foo` →
//     `______foo`) whose text as written has a space: the tag alone, an
//     identifier, was taken for a reference to a function of that name
//     (`container_of(p, struct task_group, rcu)` and the function
//     task_group()), and the number 0 in its place broke prototypes with
//     unnamed parameters (`void f(struct bch_fs *, struct bkey_s_c);`).
//     Operands of sizeof, offsetof and the like (which the grammar
//     reads), casts and compound literals `(struct foo){...}` are left
//     alone;
//   - a file-level macro invocation the grammar cannot read
//     (cBareInvocation): a line that is nothing but one, with no ";"
//     (`DEV_CORE_STATS_INC(rx_dropped)`, which the grammar joined to the
//     declaration after it), or one over several lines ended by ";"
//     (`TRACE_EVENT(name, TP_PROTO(...), ..., TP_fast_assign(...), ...);`,
//     a third of the errors left in the kernel's fs, kernel, mm, include
//     and lib). What they hold is at file level, in no function: no call
//     in them is an edge.
//
// Measured on the Linux kernel (the grammar alone, each file parsed as
// written and masked in turn; the mask costs about 5 ns a byte, as only
// words that can be blanked are looked up):
//
//	tree                              ERROR+MISSING    files with any   grammar's time
//	fs kernel mm include lib, 103 MB  45494 → 10120    3235 → 1319      22.3 → 19.6 s
//	drivers/net, 129 MB               22212 → 5280     2514 → 956       29.9 → 27.7 s
//	drivers, 588 MB (first mask)      138091 → 70466   15163 → 6240     116.9 → 107.2 s
//
// With the first mask (annotations and tags), `analyze --force` of the
// 103 MB tree, 4 alternated pairs: parse phase 23.7 → 21.2 s (medians),
// user CPU 68.9 → 66.2 s; functions 88329 → 88523 (those lost were
// annotations the errors had made functions: `__printf`, `__aligned`),
// CALLS 293536 → 294635, calls resolved by the global-name fallback
// 2450 → 1214.

// cAnnotations are the words C code (the Linux kernel's compiler_types.h,
// compiler_attributes.h and init.h, and code written in their style)
// defines as attributes, section markers or address-space qualifiers:
// where they stand a compiler sees an attribute or nothing. The value is
// true for those written with arguments in parentheses.
var cAnnotations = map[string]bool{
	// sections (init.h)
	"__init": false, "__exit": false, "__initdata": false, "__initconst": false, "__exitdata": false,
	"__meminit": false, "__meminitdata": false, "__init_memblock": false, "__init_or_module": false,
	"__ref": false, "__refdata": false, "__head": false, "__irq_entry": false, "__kprobes": false,
	"__net_init": false, "__net_exit": false, "__cpuidle": false, "__exception_irq_entry": false, "__xipram": false,
	"__read_mostly": false, "__ro_after_init": false, "__section": true,
	// address spaces and checker annotations (compiler_types.h)
	"__user": false, "__kernel": false, "__iomem": false, "__percpu": false, "__rcu": false,
	"__force": false, "__nocast": false, "__safe": false, "__private": false, "__bitwise": false,
	"__acquires": true, "__releases": true, "__must_hold": true, "__cond_acquires": true, "__cond_releases": true,
	// function and variable attributes (compiler_attributes.h)
	"__must_check": false, "__cold": false, "__hot": false, "__maybe_unused": false, "__always_unused": false,
	"__used": false, "__weak": false, "__sched": false, "__lockfunc": false, "notrace": false, "noinstr": false,
	"__noreturn": false, "__visible": false, "asmlinkage": false, "__always_inline": false, "noinline": false,
	"__noinline": false, "__attribute_const__": false, "__pure": false, "__malloc": false, "__nocfi": false,
	"__latent_entropy": false, "__packed": false, "__randomize_layout": false, "__no_randomize_layout": false,
	"__nonstring": false, "__bpf_kfunc": false, "nokprobe_inline": false, "__flatten": false, "__naked": false,
	"__noclone": false, "__deprecated": false, "__no_caller_saved_registers": false, "noinline_for_stack": false,
	"__cacheline_aligned": false, "__cacheline_aligned_in_smp": false,
	"____cacheline_aligned": false, "____cacheline_aligned_in_smp": false,
	"__aligned": true, "__printf": true, "__scanf": true, "__counted_by": true, "__alloc_size": true, "__free": true,
}

// cMaskArgsMax bounds the parenthesized arguments of an annotation that
// cMask blanks: longer ones (or unbalanced) are left as written.
const cMaskArgsMax = 256

// cMask returns the text the C grammar parses for src: src itself when
// nothing is to be blanked, else a copy in buf's storage (see the file's
// comment). The result has src's length and src's newlines.
func cMask(src, buf []byte) []byte {
	out := src
	// own makes out a copy of src, on the first change.
	own := func() {
		if &out[0] == &src[0] {
			out = append(buf[:0], src...)
		}
	}
	blank := func(from, to int) {
		own()
		for i := from; i < to; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	n := len(src)
	// What the scans for file-level invocations may read in all: a text
	// of unclosed ones (`A(` on every line) must not cost a scan to
	// cMaskInvocationMax from each.
	budget := 4*n + cMaskInvocationMax
	lineStart, directive := true, false
	for i := 0; i < n; {
		c := src[i]
		if cWordByte[c] {
			j := i + 1
			for j < n && cWordByte[src[j]] {
				j++
			}
			// Only words that can be blanked are looked up: those that
			// start as an annotation or a tag keyword does.
			switch {
			case directive:
			case lineStart && c >= 'A' && c <= 'Z' && (i == 0 || src[i-1] == '\n'):
				if end := cBareInvocation(src, i, j, &budget); end > 0 {
					blank(i, end)
					j = end
				}
			case c >= '0' && c <= '9':
				if !cNumber(src, i, j) {
					// A token pasted by a macro (`10000baseT_Full`,
					// `5705_PLUS`): its digits made '_' read as one word.
					own()
					for k := i; k < j && out[k] >= '0' && out[k] <= '9'; k++ {
						out[k] = '_'
					}
				}
			case (c == '_' && j-i > 4 && src[i+1] == '_') || (c == 'n' && j-i > 6 && src[i+1] == 'o') || (c == 'a' && j-i == 10):
				if args, ok := cAnnotations[string(src[i:j])]; ok {
					end := j
					if args {
						end, _ = cBalancedEnd(src, cSkipSpace(src, j), '(', ')', cMaskArgsMax, ";{}", true)
					}
					if end > 0 {
						blank(i, end)
						j = end
					}
				}
			case (c == 's' && j-i == 6) || (c == 'u' && j-i == 5) || (c == 'e' && j-i == 4):
				if !cTagKeyword(src[i:j]) {
					break
				}
				if end := cTagArgument(src, i, j); end > 0 {
					// `struct foo` → `______foo`: one word, whose text as
					// written (with its space) names no function.
					t := j
					for t < end && (src[t] == ' ' || src[t] == '\t') {
						t++
					}
					if src[t] == '\n' || src[t] == '\r' {
						blank(i, j) // the tag on the next line: the keyword blanked
					} else {
						own()
						for k := i; k < t; k++ {
							out[k] = '_'
						}
					}
					j = end
				}
			case c == 'c' && j-i == 4 && string(src[i:j]) == "case":
				if from, to := cCaseRange(src, j); to > 0 {
					blank(from, to)
					j = to
				}
			}
			lineStart = false
			i = j
			continue
		}
		switch c {
		case '\n':
			// A directive goes on past a newline escaped by a backslash.
			if !(directive && i > 0 && (src[i-1] == '\\' || (src[i-1] == '\r' && i > 1 && src[i-2] == '\\'))) {
				directive = false
			}
			lineStart = true
		case ' ', '\t', '\r', '\f', '\v':
		case '#':
			directive = directive || lineStart
			lineStart = false
		default:
			lineStart = false
		}
		i++
	}
	return out
}

func isWordStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// cWordByte says which bytes make up a word: letters, digits, '_'.
var cWordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c))
	}
	return t
}()

func cTagKeyword(w []byte) bool {
	switch string(w) {
	case "struct", "union", "enum":
		return true
	}
	return false
}

// cSkipBlanks is the first position from i that is not a space, a tab or
// a carriage return: the end of the line's blanks.
func cSkipBlanks(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	return i
}

// cSkipSpace is the first position from i that is not a space, a tab or a
// newline.
func cSkipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// cNumber reports whether the word src[i:j], which starts with a digit,
// is a C number: decimal, octal, hex or binary digits with a suffix of u,
// l and f letters, or a piece of a floating-point constant (after a ".",
// or ending its exponent's "e" before a sign).
func cNumber(src []byte, i, j int) bool {
	if i > 0 && src[i-1] == '.' {
		return true
	}
	w := src[i:j]
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	k := 0
	switch {
	case len(w) > 1 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X'):
		k = 2
		for k < len(w) && (digit(w[k]) || (w[k]|0x20 >= 'a' && w[k]|0x20 <= 'f')) {
			k++
		}
		if k < len(w) && w[k]|0x20 == 'p' { // a hex float's exponent
			return true
		}
	case len(w) > 1 && w[0] == '0' && (w[1] == 'b' || w[1] == 'B'):
		k = 2
		for k < len(w) && (w[k] == '0' || w[k] == '1') {
			k++
		}
	default:
		for k < len(w) && digit(w[k]) {
			k++
		}
		if k < len(w) && w[k]|0x20 == 'e' {
			k++
			if k == len(w) {
				return j < len(src) && (src[j] == '+' || src[j] == '-')
			}
			for k < len(w) && digit(w[k]) {
				k++
			}
		}
	}
	for ; k < len(w); k++ {
		switch w[k] {
		case 'u', 'U', 'l', 'L', 'f', 'F':
		default:
			return false
		}
	}
	return true
}

// cCaseRange finds the upper end of a GNU case range after the "case" that
// ends at i (`case 1 ... 5:`): the span from "..." to the ":" ending the
// label, which blanked leaves `case 1      :`; to is 0 when the label has
// no range or is not ended within cMaskArgsMax bytes.
func cCaseRange(src []byte, i int) (from, to int) {
	for k := i; k < len(src) && k < i+cMaskArgsMax; k++ {
		switch src[k] {
		case ':':
			if from > 0 {
				return from, k
			}
			return 0, 0
		case ';', '{', '}', '?', '"':
			return 0, 0
		case '\'': // a character constant: 'a', '\'', ':'
			k = cQuoteEnd(src, k)
		case '.':
			if from == 0 && k+2 < len(src) && src[k+1] == '.' && src[k+2] == '.' {
				from = k
				k += 2
			}
		}
	}
	return 0, 0
}

// cTagArgument is the end of the tag after the keyword at src[i:j]
// ("struct", "union", "enum") when the two make up a whole macro
// argument, 0 when not: "(" or "," before the keyword (a "(" that is not
// an operator's the grammar reads a type in, as sizeof's), one word after
// it, then "," or a ")" followed by ")", "," or ";".
func cTagArgument(src []byte, i, j int) int {
	k := i - 1
	for k >= 0 && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
		k--
	}
	if k < 0 || (src[k] != '(' && src[k] != ',') {
		return 0
	}
	if src[k] == '(' && cTypeOperator(src, k) {
		return 0
	}
	t := cSkipSpace(src, j)
	if t == j || t >= len(src) || !isWordStart(src[t]) {
		return 0
	}
	for t < len(src) && isWordByte(src[t]) {
		t++
	}
	end := t
	t = cSkipSpace(src, t)
	if t >= len(src) {
		return 0
	}
	switch src[t] {
	case ',':
		return end
	case ')':
		if u := cSkipSpace(src, t+1); u < len(src) && (src[u] == ')' || src[u] == ',' || src[u] == ';') {
			return end
		}
	}
	return 0
}

// cTypeOperator reports whether the "(" at k follows an operator the
// grammar reads a type in (`offsetof(struct foo, m)`, `sizeof(struct
// foo)`): its argument is no macro's.
func cTypeOperator(src []byte, k int) bool {
	e := k
	for e > 0 && (src[e-1] == ' ' || src[e-1] == '\t') {
		e--
	}
	b := e
	for b > 0 && isWordByte(src[b-1]) {
		b--
	}
	switch string(src[b:e]) {
	case "sizeof", "offsetof", "__builtin_offsetof", "alignof", "_Alignof", "__alignof__", "__alignof",
		"typeof", "__typeof__", "__typeof", "typeof_unqual", "va_arg", "__builtin_va_arg":
		return true
	}
	return false
}

// cBareInvocation is the end of a macro invocation at file level that
// the grammar is better without, 0 when there is none at i: a line that
// starts (at its first column) with an all-capitals name and "(", whose
// parentheses close with nothing after them on their line but spaces (or
// ";" and spaces, when they close on a later line: TRACE_EVENT(...); and
// its TP_fast_assign statements), and the next line that is not empty does
// not start with "{" (a macro that defines a function, as
// SYSCALL_DEFINE1(...), is followed by its body). An invocation on one
// line with its ";" is left alone: the grammar reads it as a declaration.
// The scan reads at most *budget bytes, and takes what it read from it.
func cBareInvocation(src []byte, i, j int, budget *int) int {
	caps := false
	for _, c := range src[i:j] {
		if c >= 'a' && c <= 'z' {
			return 0
		}
		caps = caps || (c >= 'A' && c <= 'Z')
	}
	if !caps || *budget <= 0 {
		return 0
	}
	end, seen := cBalancedEnd(src, j, '(', ')', min(cMaskInvocationMax, *budget), "", true)
	*budget -= seen
	if end == 0 {
		return 0
	}
	multiline := bytes.IndexByte(src[j:end], '\n') >= 0
	end = cSkipBlanks(src, end)
	if multiline && end < len(src) && src[end] == ';' {
		end = cSkipBlanks(src, end+1)
	}
	if end < len(src) && src[end] != '\n' {
		return 0
	}
	if n := cSkipSpace(src, end); n < len(src) && src[n] == '{' {
		return 0
	}
	return end
}

// cMaskInvocationMax bounds the arguments of a file-level invocation that
// cMask blanks (TRACE_EVENT's run to a few kilobytes).
const cMaskInvocationMax = 64 << 10

// cBalancedEnd is the position just past the close byte that balances
// the open byte at i (a ")" for a "(", a "}" for a "{"), skipping
// strings, character constants and comments; 0 when src[i] is not open,
// or the close is not found within max bytes, or before a byte of stop,
// or (directives) before a line that starts with "#". seen is how many
// bytes it read.
func cBalancedEnd(src []byte, i int, open, close byte, max int, stop string, directives bool) (end, seen int) {
	if i >= len(src) || src[i] != open {
		return 0, 0
	}
	depth := 0
	n := min(len(src), i+max)
	for k := i; k < n; k++ {
		switch c := src[k]; {
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				return k + 1, k + 1 - i
			}
		case c == '"' || c == '\'':
			k = cQuoteEnd(src[:n], k)
		case c == '/':
			if k+1 < n && src[k+1] == '/' {
				for k+1 < n && src[k+1] != '\n' { // the newline is seen next
					k++
				}
			} else if k+1 < n && src[k+1] == '*' {
				e := bytes.Index(src[k+2:n], []byte("*/"))
				if e < 0 {
					return 0, n - i
				}
				k += 2 + e + 1
			}
		case c == '\n':
			if t := k + 1; directives && t < n && src[t] == '#' {
				return 0, k - i
			}
		default:
			if strings.IndexByte(stop, c) >= 0 {
				return 0, k - i
			}
		}
	}
	return 0, n - i
}

// cQuoteEnd is the position of the quote that ends the string or
// character constant whose opening quote is at k (a backslash escapes the
// byte after it), or of the newline or end of src that cuts it short.
func cQuoteEnd(src []byte, k int) int {
	q := src[k]
	for k++; k < len(src) && src[k] != q && src[k] != '\n'; k++ {
		if src[k] == '\\' {
			k++
		}
	}
	return k
}
