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
		callers := map[string]string{}
		for _, c := range fx.Calls {
			if c.Kind == "call" {
				callers[c.Name] = c.CallerID
			}
		}
		for callee, caller := range map[string]string{
			"ksys_read":     "k.c#sys_read:function",
			"do_prlimit":    "k.c#compat_sys_getrlimit:function",
			"task_tgid_vnr": "k.c#sys_getpid:function",
		} {
			if callers[callee] != caller {
				t.Errorf("%s: %s called from %q, want %s", name, callee, callers[callee], caller)
			}
		}
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
