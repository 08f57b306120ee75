package lang

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// cMask blanks annotation words (with their arguments) and the keyword of
// a tag handed to a macro, nothing else; the text keeps its length and
// its newlines, and text with nothing to blank comes back as itself.
// blanks is s with every byte but newlines a space.
func blanks(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// traceEvent is a file-level invocation over several lines, with a ")" in
// a string and in comments.
const traceEvent = "TRACE_EVENT(t,\n\tTP_fast_assign(e->d = f(\")\"); /* ) */ // )\n\t),\n\tTP_printk(\"%d\", 1)\n);"

func TestCMask(t *testing.T) {
	cases := []struct{ src, want string }{
		{"static int __init foo_init(void) {}", "static int        foo_init(void) {}"},
		{"long f(const char __user *buf);", "long f(const char        *buf);"},
		{"int __printf(2, 3) log(int l, const char *f, ...);", "int" + strings.Repeat(" ", 16) + "log(int l, const char *f, ...);"},
		{"struct s { int a; } __aligned(8);", "struct s { int a; }             ;"},
		{"p = container_of(x, struct foo, list);", "p = container_of(x, _______foo, list);"},
		{"n = member(union\n\tu, m);", "n = member(     \n\tu, m);"},
		{"void f(struct a *, struct b, int);", "void f(struct a *, _______b, int);"},
		{"void f(struct foo);", "void f(_______foo);"},
		{"n = g(sizeof(struct foo)) + offsetof(struct foo, m);", ""},
		{"FOO_INC(rx)\nBAR(x, y) \nstatic int f(void);", "           \n          \nstatic int f(void);"},
		{"SYSCALL_DEFINE1(x, int, y)\n{\n}\nFOO(a);\n FOO(b)\nFOO(c) x\nFoo(d)\n", ""},
		{traceEvent + "\nint x;", blanks(traceEvent) + "\nint x;"},
		{"TRACE_EVENT(t,\n#ifdef X\n\tTP_printk(\"%d\", 1)\n#endif\n);\n", ""},
		{"switch (x) {\ncase 0 ... 4:\ncase A...B: return;", "switch (x) {\ncase 0      :\ncase A    : return;"},
		// Left as written: sizeof's operand the grammar reads, casts, a
		// compound literal, a word inside another, directives.
		{"n = sizeof(struct foo) * 2;", ""},
		{"x = (enum mode)m;", ""},
		{"v = (struct pt){ .x = 1 };", ""},
		{"int my__init_x; int __initial;", ""},
		{"#define __init __section(\".init.text\")", ""},
		{"#define F(x) \\\n\tstatic int __init x(void)\nint __init g(void);", "#define F(x) \\\n\tstatic int __init x(void)\nint        g(void);"},
		{"  # if X\nvoid __weak f(void);", "  # if X\nvoid        f(void);"},
		{"int __aligned(4 f(void);", ""}, // not closed: left alone
		{"case 'a' ... 'z': case ':' ... '\\'':", "case 'a'" + strings.Repeat(" ", 8) + ": case ':'" + strings.Repeat(" ", 9) + ":"},
		{"add(cmd, 1000baseT_Full); if (flag(tp, 5705_PLUS)) x = SIZE(2K);", "add(cmd, ____baseT_Full); if (flag(tp, _____PLUS)) x = SIZE(_K);"},
		{"x = 0x1fULL + 077 + 10u + 1e-5 + 1.5e+3f + .5f + 0b101 + 0x1p3 + 1E6L;", ""},
		{"case 'a': f(x, ...); case X ? 1 : 2: ;", ""},
		{"", ""},
	}
	for _, c := range cases {
		src := []byte(c.src)
		keep := bytes.Clone(src)
		got := cMask(src, nil)
		want := c.want
		if want == "" {
			want = c.src
			if len(src) > 0 && &got[0] != &src[0] {
				t.Errorf("%q: nothing to blank, yet a copy came back", c.src)
			}
		}
		if string(got) != want {
			t.Errorf("cMask(%q)\n got %q\nwant %q", c.src, got, want)
		}
		if !bytes.Equal(src, keep) {
			t.Errorf("cMask(%q) changed its input", c.src)
		}
		if len(got) != len(src) || bytes.Count(got, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Errorf("cMask(%q): length or lines changed", c.src)
		}
	}
	// The storage handed in is used, and grown when short.
	buf := make([]byte, 0, 64)
	if got := cMask([]byte("void __weak f(void);"), buf); &got[0] != &buf[:1][0] {
		t.Error("cMask did not write into the storage it was given")
	}
}

// The scans for file-level invocations share one budget: text full of
// unclosed invocations costs each scan what it read, and once the budget
// is spent no scan starts.
func TestCMaskInvocationBudget(t *testing.T) {
	src := []byte(strings.Repeat("A(\n", 1000))
	budget := 50
	if end := cBareInvocation(src, 0, 1, &budget); end != 0 || budget != 0 {
		t.Fatalf("an unclosed invocation: end %d, budget left %d; want 0 and 0", end, budget)
	}
	if end := cBareInvocation(src, 3, 4, &budget); end != 0 || budget != 0 {
		t.Fatalf("with the budget spent: end %d, budget %d; want no scan", end, budget)
	}
	budget = 100
	ok := []byte("TRACE_EVENT(a,\n\tb);\nint x;")
	if end := cBareInvocation(ok, 0, len("TRACE_EVENT"), &budget); end != len("TRACE_EVENT(a,\n\tb);") || budget != 100-len("(a,\n\tb)") {
		t.Fatalf("a closed invocation: end %d, budget left %d", end, budget)
	}
	// A megabyte of them keeps its length and lines.
	big := []byte(strings.Repeat("A(\nB(x,\n", 1<<17))
	if got := cMask(big, nil); len(got) != len(big) || bytes.Count(got, []byte("\n")) != bytes.Count(big, []byte("\n")) {
		t.Fatal("hostile text: length or lines changed")
	}
}

// Text cut anywhere, and random text made of the bytes the mask looks
// at, never makes it fail: each result keeps the length, and a newline
// exactly where the text has one.
func TestCMaskHostile(t *testing.T) {
	check := func(src []byte) {
		t.Helper()
		got := cMask(src, nil)
		if len(got) != len(src) {
			t.Fatalf("cMask(%q): length %d, want %d", src, len(got), len(src))
		}
		for i := range src {
			if (src[i] == '\n') != (got[i] == '\n') {
				t.Fatalf("cMask(%q): byte %d %q became %q", src, i, src[i], got[i])
			}
		}
	}
	whole := []byte(traceEvent + "\nstatic int __init f(void) { g(x, struct foo, y); switch (c) { case 'a' ... 'z': h(5705_PLUS); } }\nX(a)\n__printf(1, 2) int p;\n")
	for n := range len(whole) + 1 {
		check(whole[:n])
	}
	const alphabet = "(),;{}'\"/*\n\t #\\:._aenosuABCFOXZ0159"
	r := rand.New(rand.NewSource(39))
	for range 20000 {
		b := make([]byte, r.Intn(64))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		check(b)
	}
	for _, w := range []string{"__printf(", "struct ", "case 1 ...", "TRACE_EVENT(", "0x", "1e", "X(\n"} {
		check([]byte(strings.Repeat(w, 1000)))
	}
}

// Kernel-style C that the grammar alone reads with errors: with the mask
// it parses cleanly, and the facts carry the text as written (names,
// lines, signatures with their annotations), the calls inside, and the
// function an annotation used to hide.
func TestCMaskExtraction(t *testing.T) {
	src := `#include <linux/init.h>

struct foo { int a; struct list_head list; };

static int __init foo_init(void)
{
	struct foo *f = container_of(head, struct foo, list);
	return bar(f);
}

long __weak sys_thing(const char __user *name)
{
	return baz(name, offsetof(struct foo, a));
}

int __printf(2, 3) foo_log(int level, const char *fmt, ...)
{
	return qux(level);
}

static void task_group(void) { }

void put_group(struct rcu_head *rhp)
{
	kfree(container_of(rhp, struct task_group, rcu));
}

STATS_INC(rx_dropped)
static __always_inline int forward(void)
{
	return 0;
}
`
	p := NewParser()
	facts, status := fullParse(t, p, "drivers/foo.c", []byte(src))
	if status != schema.ParseOK {
		t.Errorf("status %s, want ok", status)
	}
	lines := map[string]int{}
	sigs := map[string]string{}
	for _, s := range facts.Symbols {
		lines[s.Name] = s.StartLine
		sigs[s.Name] = s.Signature
	}
	for name, line := range map[string]int{"foo_init": 5, "sys_thing": 11, "foo_log": 16, "put_group": 23, "forward": 29} {
		if lines[name] != line {
			t.Errorf("%s: line %d, want %d (symbols %v)", name, lines[name], line, lines)
		}
	}
	if !strings.Contains(sigs["sys_thing"], "__user") {
		t.Errorf("signature %q lost the text as written", sigs["sys_thing"])
	}
	for _, name := range []string{"__init", "__printf", "__weak", "STATS_INC"} {
		if _, ok := lines[name]; ok {
			t.Errorf("annotation %s became a symbol", name)
		}
	}
	calls := map[string]string{}
	for _, c := range facts.Calls {
		calls[c.Name] = c.CallerID
		if c.Name == "task_group" {
			t.Errorf("the tag of container_of(rhp, struct task_group, rcu) became a call: %+v", c)
		}
	}
	for callee, caller := range map[string]string{"bar": "foo_init", "baz": "sys_thing", "qux": "foo_log"} {
		if !strings.Contains(calls[callee], caller) {
			t.Errorf("call to %s from %q, want from %s", callee, calls[callee], caller)
		}
	}
}
