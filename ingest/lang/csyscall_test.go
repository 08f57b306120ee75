package lang

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCSyscallDefine: every shape the grammars give SYSCALL_DEFINEn is the
// function sys_X (compat_sys_X) whose body's calls are its own — a block
// beside an expression statement, a body left floating after an ERROR
// (multi-line arguments), SYSCALL_DEFINE0 read as a definition, and the
// C++ grammar's reading for a .c file whose text looks like C++.
func TestCSyscallDefine(t *testing.T) {
	for name, src := range map[string]string{
		"c": `SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

COMPAT_SYSCALL_DEFINE2(getrlimit, unsigned int, resource,
		       struct compat_rlimit __user *, rlim)
{
	struct rlimit r;
	int ret = do_prlimit(current, resource, NULL, &r);
	return ret;
}

SYSCALL_DEFINE0(getpid)
{
	return task_tgid_vnr(current);
}
`,
		"cpp-looking": `struct user_namespace *ns;

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

COMPAT_SYSCALL_DEFINE2(getrlimit, unsigned int, resource, struct compat_rlimit __user *, rlim)
{
	return do_prlimit(current, resource, NULL, 0);
}

SYSCALL_DEFINE0(getpid)
{
	return task_tgid_vnr(current);
}
`,
	} {
		p := NewParser()
		fx, _, err := p.Parse(context.Background(), "k.c", ByName("c"), []byte(src))
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		syms := map[string]bool{}
		for _, s := range fx.Symbols {
			syms[s.ID] = true
			// What the macro defines is searched as a syscall too.
			if strings.HasPrefix(s.Name, "sys_") || strings.HasPrefix(s.Name, "compat_sys_") {
				if !slices.Contains(strings.Fields(s.SearchText), "syscall") {
					t.Errorf("%s: %s's search text %q lacks syscall", name, s.ID, s.SearchText)
				}
			}
		}
		for _, id := range []string{"k.c#sys_read:function", "k.c#compat_sys_getrlimit:function", "k.c#sys_getpid:function"} {
			if !syms[id] {
				t.Errorf("%s: no symbol %s; have %v", name, id, syms)
			}
		}
		wantCallers(t, name, fx, map[string]string{
			"ksys_read":     "k.c#sys_read:function",
			"do_prlimit":    "k.c#compat_sys_getrlimit:function",
			"task_tgid_vnr": "k.c#sys_getpid:function",
		})
		regs := 0
		for _, r := range fx.Registrations {
			if r.Via != "" {
				regs++
			}
		}
		if regs != 3 {
			t.Errorf("%s: %d syscall registrations, want 3: %+v", name, regs, fx.Registrations)
		}
	}
}

// TestCFunctionNamedByMacroArgument: a BPF helper (BPF_CALL_n, the shape
// of SYSCALL_DEFINEn) and a BPF program (`int BPF_PROG(test1, int a)`, a
// capitals macro whose first argument is a bare word) are functions named
// by that argument, registered by the macro (an entry point), with their
// bodies' calls; a function named in capitals whose parameters are
// declared stays as written, and so do a macro of bare words only (a C
// test framework's TEST(group, name)) and C++'s TEST(Suite, Name).
func TestCFunctionNamedByMacroArgument(t *testing.T) {
	src := `BPF_CALL_2(bpf_map_lookup_elem, struct bpf_map *, map, void *, key)
{
	WARN_ON_ONCE(!bpf_rcu_lock_held());
	return (unsigned long) map->ops->map_lookup_elem(map, key);
}

BPF_CALL_4(bpf_map_update_elem, struct bpf_map *, map, void *, key,
	   void *, value, u64, flags)
{
	return map->ops->map_update_elem(map, key, value, flags);
}

BPF_CALL_0(bpf_get_smp_processor_id)
{
	return smp_processor_id();
}

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(test1, int a)
{
	return helper(a);
}

void BPF_STRUCT_OPS(simple_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

int BPF_PROG(handle_exit)
{
	return 0;
}

int BPF_PROG2(test_struct_arg_10, int, ret)
{
	return ret;
}

static long FAN_TO_REG(long rpm, int div)
{
	return rpm / div;
}

static int READ_REG(const regs_t)
{
	return 0;
}

int TEST(ProductionCode, FindsNothing)
{
	return 0;
}
`
	p := NewParser()
	defer p.Close()
	fx, _, err := p.Parse(context.Background(), "k.c", ByName("c"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string]string{} // name → search text
	for _, s := range fx.Symbols {
		syms[s.Name] = s.SearchText
	}
	for _, name := range []string{"bpf_map_lookup_elem", "bpf_map_update_elem", "bpf_get_smp_processor_id",
		"test1", "simple_enqueue", "handle_exit", "test_struct_arg_10", "FAN_TO_REG", "READ_REG", "TEST"} {
		st, ok := syms[name]
		if !ok {
			t.Errorf("no function %s; have %v", name, syms)
		}
		if slices.Contains(strings.Fields(st), "syscall") {
			t.Errorf("%s's search text %q says syscall", name, st)
		}
	}
	for _, name := range []string{"BPF_CALL_2", "BPF_PROG", "BPF_PROG2", "BPF_STRUCT_OPS", "regs_t", "bpf_map", "ProductionCode"} {
		if _, ok := syms[name]; ok {
			t.Errorf("a function named %s", name)
		}
	}
	wantCallers(t, "c", fx, map[string]string{
		"bpf_rcu_lock_held":  "k.c#bpf_map_lookup_elem:function",
		"map_update_elem":    "k.c#bpf_map_update_elem:function",
		"smp_processor_id":   "k.c#bpf_get_smp_processor_id:function",
		"helper":             "k.c#test1:function",
		"scx_bpf_dsq_insert": "k.c#simple_enqueue:function",
	})
	via := map[string]string{}
	for _, r := range fx.Registrations {
		via[r.Name] = r.Via
	}
	for name, macro := range map[string]string{"bpf_map_lookup_elem": "BPF_CALL_2", "bpf_get_smp_processor_id": "BPF_CALL_0",
		"test1": "BPF_PROG", "simple_enqueue": "BPF_STRUCT_OPS", "handle_exit": "BPF_PROG", "FAN_TO_REG": ""} {
		if via[name] != macro {
			t.Errorf("%s registered via %q, want %q", name, via[name], macro)
		}
	}

	// C++ keeps the macro's name: TEST(Suite, Name) is googletest's.
	cfx, _, err := p.Parse(context.Background(), "k_test.cc", ByName("cpp"), []byte("TEST(Suite, Name) {\n  check();\n}\nint FOO_BAR(Widget) {\n  return 0;\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfx.Symbols {
		if s.Name == "Suite" || s.Name == "Widget" {
			t.Errorf("C++: a function named %s by its macro's argument", s.Name)
		}
	}
}

// wantCallers fails t for each callee of want that fx does not call (a
// call site of kind "call") from the function want gives.
func wantCallers(t *testing.T, label string, fx Facts, want map[string]string) {
	t.Helper()
	callers := map[string]string{}
	for _, c := range fx.Calls {
		if c.Kind == "call" {
			callers[c.Name] = c.CallerID
		}
	}
	for callee, caller := range want {
		if callers[callee] != caller {
			t.Errorf("%s: %s called from %q, want %s", label, callee, callers[callee], caller)
		}
	}
}
