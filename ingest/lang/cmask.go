package lang

// The C grammar parses what a C compiler sees after the preprocessor, but
// it is handed the text before: words that the preprocessor turns into
// attributes or into nothing (`static int __init foo_init(void)`,
// `const char __user *buf`) and types handed to macros as arguments
// (`container_of(p, struct foo, list)`) are syntax errors to it. Each
// error costs the parser its error recovery, which is slow (the kernel's
// files with errors parsed at 5.6 MB/s, those without at 9.2), and the
// tree it recovers loses what the error swallowed.
//
// cMask gives the grammar a copy of the text with those words blanked: the
// same bytes but for the blanked ones, which become spaces, so every
// offset, line and column is the one of the text itself, which the
// extractor keeps reading (names, signatures and bodies are as written).
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
//   - `struct`, `union` or `enum` before a tag that is a whole macro
//     argument: after "(" or "," and before "," or before a ")" that ends
//     the expression (followed by ")", "," or ";"), so that the argument
//     reads as an identifier. `sizeof(struct foo) * n` and casts are left
//     alone (the grammar reads them), and so is a compound literal
//     `(struct foo){...}`.
//
// On the Linux kernel's fs/, kernel/, mm/, include/ and lib/ (103 MB of
// C, 9242 files), the grammar's parse time went 22.4 → 20.6 s, its ERROR
// and MISSING nodes 45494 → 27845 and the files with any 3235 → 1529; the
// mask itself took 0.5 s (about 5 ns a byte: only words that can be
// blanked are looked up). `analyze --force` of that tree, 4 alternated
// pairs: parse phase 23.7 → 21.2 s (medians), user CPU 68.9 → 66.2 s;
// functions 88329 → 88523 (those lost were annotations the errors had
// made functions: `__printf`, `__aligned`), CALLS 293536 → 294635, and
// calls resolved by the global-name fallback 2450 → 1214. On
// drivers/net (129 MB), with case ranges and pasted tokens too: ERROR
// and MISSING nodes 22212 → 7054, files with any 2514 → 1005, the
// grammar's time 28.7 → 26.5 s (the mask: 0.6 s).

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
			case c >= '0' && c <= '9':
				if !cNumber(src, i, j) {
					// A token pasted by a macro (`10000baseT_Full`,
					// `5705_PLUS`): its digits made '_' read as one word.
					own()
					for k := i; k < j && out[k] >= '0' && out[k] <= '9'; k++ {
						out[k] = '_'
					}
				}
			case (c == '_' && j-i > 4 && src[i+1] == '_') || (c == 'n' && src[i+1] == 'o' && j-i > 6) || (c == 'a' && j-i == 10):
				if args, ok := cAnnotations[string(src[i:j])]; ok {
					end := j
					if args {
						end = cParenEnd(src, cSkipSpace(src, j))
					}
					if end > 0 {
						blank(i, end)
						j = end
					}
				}
			case (c == 's' && j-i == 6) || (c == 'u' && j-i == 5) || (c == 'e' && j-i == 4):
				if cTagKeyword(src[i:j]) && cTagIsArgument(src, i, j) {
					blank(i, j)
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

// cSkipSpace is the first position from i that is not a space, a tab or a
// newline.
func cSkipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// cParenEnd is the position just past the ")" that closes the "(" at i,
// 0 when src[i] is not "(" or it is not closed within cMaskArgsMax bytes.
func cParenEnd(src []byte, i int) int {
	if i >= len(src) || src[i] != '(' {
		return 0
	}
	depth := 0
	for k := i; k < len(src) && k < i+cMaskArgsMax; k++ {
		switch src[k] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return k + 1
			}
		case ';', '{', '}':
			return 0
		}
	}
	return 0
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
			k++
			for k < len(src) && src[k] != '\'' && src[k] != '\n' {
				if src[k] == '\\' {
					k++
				}
				k++
			}
		case '.':
			if from == 0 && k+2 < len(src) && src[k+1] == '.' && src[k+2] == '.' {
				from = k
				k += 2
			}
		}
	}
	return 0, 0
}

// cTagIsArgument reports whether the keyword at src[i:j] ("struct",
// "union", "enum") starts a macro argument that is just a tag: "(" or ","
// before it, one word after it, then "," or a ")" followed by ")", "," or
// ";".
func cTagIsArgument(src []byte, i, j int) bool {
	k := i - 1
	for k >= 0 && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
		k--
	}
	if k < 0 || (src[k] != '(' && src[k] != ',') {
		return false
	}
	t := cSkipSpace(src, j)
	if t == j || t >= len(src) || !isWordStart(src[t]) {
		return false
	}
	for t < len(src) && isWordByte(src[t]) {
		t++
	}
	t = cSkipSpace(src, t)
	if t >= len(src) {
		return false
	}
	switch src[t] {
	case ',':
		return true
	case ')':
		u := cSkipSpace(src, t+1)
		return u < len(src) && (src[u] == ')' || src[u] == ',' || src[u] == ';')
	}
	return false
}
