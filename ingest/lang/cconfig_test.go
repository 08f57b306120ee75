package lang

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCConfigStubs: the stubs defined where a configuration option is
// off are in the body of #ifndef CONFIG_X and of #if !IS_ENABLED(CONFIG_X),
// or in the #else / #elif chain of #ifdef CONFIG_X (include guards,
// compound conditions and other tests turn nothing off, and nesting
// counts from the outside in), with bodies that call nothing but capitals
// macros and do not read their parameters: a function there that calls a
// function, or reads a parameter, is not one.
func TestCConfigStubs(t *testing.T) {
	src := []byte(`#ifndef _FOO_H
#define _FOO_H
#ifdef CONFIG_OF
int on1(void) { return 1; }
#else
static inline int off1(void) { return 0; }
#endif
#if !IS_ENABLED(CONFIG_ACPI)
static inline int off2(void) { return 0; }
#else
static inline int on2(void) { return 1; }
#endif
#if defined(CONFIG_A) && defined(CONFIG_B)
int on3(void) { return 1; }
#else
int unknown1(void) { return 0; }
#endif
#if defined CONFIG_SMP
int on4(void) { return 1; }
#elif defined(CONFIG_UP)
int off3(void) { return 0; }
#else
int off4(void) { return 0; }
#endif
#ifndef CONFIG_MMU
# ifdef CONFIG_X
int off5(void) { return 0; }
# endif
#else
# if LINUX_VERSION_CODE > 3
int on5(void) { return 1; }
# endif
#endif
#if (CONFIG_NR_CPUS)
int on6(void) { return 1; }
#else
int off6(void) { return 0; }
#endif
#ifndef CONFIG_PREEMPT_RT
static inline void works(int *l) { raw_unlock(l); }
static inline int *off7(int id) { WARN_ON(1); return ERR_PTR(-ENODEV); }
static inline int reads(int *hc) { return *hc == 2; }
#endif
int plain(void) { return off1() + off2(); }
#endif
`)
	p := NewParser()
	defer p.Close()
	fx, _, err := p.Parse(context.Background(), "include/linux/foo.h", Detect("foo.h"), src)
	if err != nil {
		t.Fatal(err)
	}
	var off []string
	for _, id := range fx.ConfigStubs {
		name, _, _ := strings.Cut(id[strings.IndexByte(id, '#')+1:], ":")
		off = append(off, name)
	}
	if want := []string{"off1", "off2", "off3", "off4", "off5", "off6", "off7"}; !slices.Equal(off, want) {
		t.Errorf("ConfigStubs %v, want %v", off, want)
	}
	var names []string
	for _, s := range fx.Symbols {
		names = append(names, s.Name)
	}
	for _, n := range []string{"on1", "on2", "on3", "on4", "on5", "on6", "unknown1", "works", "reads", "plain"} {
		if !slices.Contains(names, n) {
			t.Errorf("function %s missing (symbols %v)", n, names)
		}
	}
	lxContains(t, "calls", lxCalls(fx), []string{"plain||off1|call|44", "plain||off2|call|44", "works||raw_unlock|call|40"})
}

func TestCConfigCond(t *testing.T) {
	for cond, want := range map[string]int{
		"defined(CONFIG_OF)":               1,
		"defined CONFIG_OF":                1,
		"IS_ENABLED(CONFIG_OF)":            1,
		"IS_BUILTIN( CONFIG_OF )":          1,
		"IS_REACHABLE(CONFIG_OF)":          1,
		"CONFIG_OF":                        1,
		"(CONFIG_OF)":                      1,
		"!defined(CONFIG_OF)":              -1,
		"! IS_ENABLED(CONFIG_OF)":          -1,
		"!CONFIG_OF":                       -1,
		"IS_MODULE(CONFIG_OF)":             0,
		"defined(CONFIG_A) || 1":           0,
		"CONFIG_":                          0,
		"CONFIG_X > 1":                     0,
		"definedCONFIG_X":                  0,
		"defined":                          0,
		"!":                                0,
		"":                                 0,
		"(":                                0,
		"()":                               0,
		"!!CONFIG_X":                       0,
		"__KERNEL__":                       0,
		"IS_ENABLED(CONFIG_OF) && X":       0,
		"defined(CONFIG_OF\x00)":           0,
		strings.Repeat("(", 1000):          0,
		"CONFIG_" + strings.Repeat("Ä", 3): 0,
	} {
		if got := cConfigCond(cond); got != want {
			t.Errorf("cConfigCond(%q) = %d, want %d", cond, got, want)
		}
	}
}
