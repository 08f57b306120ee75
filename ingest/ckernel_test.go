package ingest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// TestCKernelCallGraph resolves the kernel-style C fixture
// (testdata/repos/ckernel): translation-unit visibility of static
// functions, headers reached through the kernel include roots, prototypes
// landing on definitions, SYSCALL_DEFINEn, ops tables and calls through
// their members, BPF helpers (BPF_CALL_n) and programs (BPF_PROG), and
// the kernel's attribute macros (DEVICE_ATTR_RO, DEFINE_SHOW_ATTRIBUTE).
func TestCKernelCallGraph(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/repos/ckernel")); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if _, err := Run(context.Background(), dir, sink, Options{}); err != nil {
		t.Fatal(err)
	}
	calls := edgeSet(sink, schema.RelCalls)
	want(t, calls,
		// SYSCALL_DEFINE3(read, ...) is the function sys_read.
		"fs/read_write.c#sys_read -> fs/read_write.c#ksys_read (same-file)",
		"fs/read_write.c#ksys_read -> fs/read_write.c#vfs_read (same-file)",
		// the static helper of the calling file, not the other file's
		"fs/read_write.c#vfs_read -> fs/read_write.c#helper (same-file)",
		"drivers/foo/foo.c#foo_read -> drivers/foo/foo.c#helper (same-file)",
		// a static inline of a header reached through <linux/fs.h>
		"fs/read_write.c#vfs_read -> include/linux/fs.h#file_count (import-scoped)",
		// prototypes in headers land on the definitions: <linux/fs.h>, "internal.h"
		"fs/open.c#kernel_read -> fs/read_write.c#vfs_read (import-scoped)",
		"drivers/foo/foo.c#foo_init -> fs/char_dev.c#register_chrdev (import-scoped)",
		"fs/read_write.c#ksys_read -> fs/open.c#fs_check_count (import-scoped)",
		// one prototype, two definitions (CONFIG_MMU alternatives)
		"fs/exec.c#set_brk -> mm/mmap.c#vm_brk (import-scoped)",
		"fs/exec.c#set_brk -> mm/nommu.c#vm_brk (import-scoped)",
		// declared nowhere: the unique global definition
		"drivers/foo/foo.c#foo_init -> kernel/panic.c#add_taint_quiet (global-name)",
		// calls through ops-table members
		"fs/read_write.c#vfs_read -> drivers/foo/foo.c#foo_read (field-pointer)",
		"fs/open.c#do_dentry_open -> drivers/foo/foo.c#foo_open (field-pointer)",
		// a prototype lands on the definitions whose own translation unit
		// sees it: lib/list.c, not the tools' copy (tools/lib/list.c sees
		// tools/include/linux/list.h, its nearest include root)
		"fs/char_dev.c#chrdev_track -> lib/list.c#list_add (import-scoped)",
		// arch code includes its own arch's headers
		"arch/arm/kernel/io.c#arm_read_reg -> arch/arm/include/asm/io.h#arch_readl (import-scoped)",
		// a callback named: the IRQ handler foo_init requests
		"drivers/foo/foo.c#foo_init -> drivers/foo/foo.c#foo_irq (reference)",
		// code outside arch/ reaches every architecture's ops; arch code its own
		"drivers/pci/access.c#pci_bus_read -> arch/x86/pci/mid.c#pci_read (field-pointer)",
		"drivers/pci/access.c#pci_bus_read -> arch/riscv/pci/riscv.c#riscv_pci_read (field-pointer)",
		"arch/riscv/kernel/acpi.c#raw_pci_read -> arch/riscv/pci/riscv.c#riscv_pci_read (field-pointer)",
		// a struct defined in a .c file is that file's own type
		"drivers/net/stmx/stmx_pci.c#stmx_pci_probe -> drivers/net/stmx/stmx_pci.c#stmx_quark_setup (field-pointer)",
		"drivers/net/dwx/dwx_pci.c#dwx_pci_probe -> drivers/net/dwx/dwx_pci.c#dwx_loongson_setup (field-pointer)",
		// BPF_CALL_2(bpf_map_lookup_elem, ...) is the helper bpf_map_lookup_elem,
		// reached through the func of its proto
		"kernel/bpf/helpers.c#bpf_map_lookup_elem -> kernel/bpf/helpers.c#bpf_rcu_lock_held (same-file)",
		"kernel/bpf/core.c#bpf_call_helper -> kernel/bpf/helpers.c#bpf_map_lookup_elem (field-pointer)",
		// int BPF_PROG(test1, int a) is the BPF program test1 (BPF_STRUCT_OPS: the callback)
		"tools/sched_ext/scx_simple.bpf.c#simple_enqueue -> tools/sched_ext/scx_simple.bpf.c#stat_inc (same-file)",
		"tools/testing/selftests/bpf/progs/fentry_test.c#test1 -> tools/testing/selftests/bpf/progs/fentry_test.c#check (same-file)",
		"tools/testing/selftests/bpf/progs/fentry_test.c#test2 -> tools/testing/selftests/bpf/progs/fentry_test.c#check (same-file)",
		// attribute macros: DEVICE_ATTR_RO(mode) stores mode_show in the
		// show of a device_attribute; DEFINE_SHOW_ATTRIBUTE(regs) defines
		// regs_open, which hands over regs_show, in the table regs_fops
		"drivers/base/core.c#dev_attr_show -> drivers/foo/foo_sysfs.c#mode_show (field-pointer)",
		"drivers/foo/foo_sysfs.c#regs_open -> drivers/foo/foo_sysfs.c#regs_show (reference)",
		"fs/open.c#do_dentry_open -> drivers/foo/foo_sysfs.c#regs_open (field-pointer)",
		// a prototype included from tools/ lands on tools/' definition
		"samples/bpf/map_user.c#read_map -> tools/lib/bpf/bpf.c#bpf_map_lookup_elem (import-scoped)",
		// the definition a configuration option turns on, not its #else stub
		"drivers/foo/foo_of.c#foo_of_probe -> drivers/of/base.c#of_property_count (import-scoped)",
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/of.h#of_machine_is_compatible (import-scoped)",
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/of.h#has_acpi_companion (import-scoped)",
		// a stub with no definition of the option beside it
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/of.h#of_overlay_remove (import-scoped)",
		// tools/: each directory with a Makefile is a program; a unit's own
		// definitions, and a library's through the prototype of its header
		"tools/testing/selftests/bpf/prog_tests/map_lookup.c#test_map_lookup -> tools/testing/selftests/bpf/test_progs.c#usleep (global-name)",
		"tools/testing/selftests/bpf/prog_tests/map_lookup.c#test_map_lookup -> tools/testing/selftests/bpf/test_progs.c#env_verbosity (import-scoped)",
		"tools/testing/selftests/bpf/prog_tests/map_lookup.c#test_map_lookup -> tools/lib/bpf/bpf.c#bpf_map_lookup_elem (import-scoped)",
		// CONFIG_PREEMPT_RT's off branch that does the work is no stub: both stay
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/spinlock.h#spin_unlock_irqrestore (import-scoped)",
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/spinlock_rt.h#spin_unlock_irqrestore (import-scoped)",
	)
	wantNot(t, calls,
		// another architecture's function stored in the member
		"arch/riscv/kernel/acpi.c#raw_pci_read -> arch/x86/pci/mid.c#pci_read (field-pointer)",
		// another file's private struct of the same name
		"drivers/net/stmx/stmx_pci.c#stmx_pci_probe -> drivers/net/dwx/dwx_pci.c#dwx_loongson_setup (field-pointer)",
		"drivers/net/dwx/dwx_pci.c#dwx_pci_probe -> drivers/net/stmx/stmx_pci.c#stmx_quark_setup (field-pointer)",
		// tools/ is a program of its own: no guess crosses into or out of it
		"drivers/foo/foo.c#foo_init -> tools/perf/util/mutex.c#mutex_init (global-name)",
		"tools/perf/util/annotate.c#annotate_free -> include/linux/decompress/mm.h#free (global-name)",
		// a name the caller's translation unit defines as a macro
		"drivers/net/igbx/main.c#igbx_reset -> drivers/infiniband/irdx/utils.c#wr32 (global-name)",
		// a member name handed to a macro is no callback of a function
		// defined where nothing includes or declares it
		"drivers/foo/foo.c#foo_wake -> samples/bpf/waker.c#waker (reference)",
		"fs/char_dev.c#chrdev_track -> tools/lib/list.c#list_add (import-scoped)",
		"arch/arm/kernel/io.c#arm_read_reg -> arch/x86/include/asm/io.h#arch_readl (import-scoped)",
		"fs/read_write.c#vfs_read -> drivers/foo/foo.c#helper (same-file)",
		"drivers/foo/foo.c#foo_read -> fs/read_write.c#helper (same-file)",
		// a table named hands over its functions, but names none: no
		// edge (they are reached through its members, and registered)
		"drivers/foo/foo.c#foo_init -> drivers/foo/foo.c#foo_read (reference)",
		"drivers/foo/foo.c#foo_init -> drivers/foo/foo.c#foo_open (reference)",
		"drivers/foo/foo_sysfs.c#foo_sysfs_probe -> drivers/foo/foo_sysfs.c#mode_show (reference)",
		"drivers/foo/foo_sysfs.c#foo_sysfs_probe -> drivers/foo/foo_sysfs.c#regs_open (reference)",
		"drivers/foo/foo_sysfs.c#foo_sysfs_probe -> drivers/foo/foo_sysfs.c#foo_poll (reference)",
		"drivers/foo/foo_sysfs.c#foo_sysfs_remove -> drivers/foo/foo_sysfs.c#mode_show (reference)",
		"drivers/foo/foo_sysfs.c#foo_sysfs_remove -> drivers/foo/foo_sysfs.c#foo_poll (reference)",
		// a teardown call takes back the function it names
		"drivers/foo/foo.c#foo_exit -> drivers/foo/foo.c#foo_irq (reference)",
		// a program's code that includes a header of the kernel is not linked with the kernel
		"tools/testing/selftests/fs/read_test.c#read_test -> fs/read_write.c#vfs_read (import-scoped)",
		// libbpf's function, declared by the header the sample includes, not the kernel's helper
		"samples/bpf/map_user.c#read_map -> kernel/bpf/helpers.c#bpf_map_lookup_elem (import-scoped)",
		// another tools/ program's definition: libc's usleep
		"tools/testing/selftests/cgroup/wait_inotify.c#main -> tools/testing/selftests/bpf/test_progs.c#usleep (global-name)",
		// the #else stub of CONFIG_OF beside the prototype of its definition
		"drivers/foo/foo_of.c#foo_of_probe -> include/linux/of.h#of_property_count (import-scoped)",
	)
	// of.h's two of_machine_is_compatible (and has_acpi_companion): the
	// call lands on the one CONFIG_OF (CONFIG_ACPI) turns on, alone
	for _, tc := range []struct{ callee, to string }{
		{"of_machine_is_compatible", "include/linux/of.h#of_machine_is_compatible:function"},
		{"has_acpi_companion", "include/linux/of.h#has_acpi_companion:function~2"},
	} {
		var got []string
		for _, e := range sink.edges {
			if e.Type == schema.RelCalls && short(e.From) == "drivers/foo/foo_of.c#foo_of_probe" && strings.Contains(e.To, "#"+tc.callee+":") {
				got = append(got, fmt.Sprintf("%s %.2f", e.To, e.Confidence))
			}
		}
		if w := tc.to + " 0.90"; len(got) != 1 || got[0] != w {
			t.Errorf("foo_of_probe's call of %s: edges %v, want [%s]", tc.callee, got, w)
		}
	}
	for e := range calls {
		for _, bad := range []string{"#helper (import-scoped)", "#helper (global-name)"} {
			if len(e) > len(bad) && e[len(e)-len(bad):] == bad {
				t.Errorf("a static helper was linked across files: %s", e)
			}
		}
	}
	if testing.Verbose() {
		for e := range calls {
			t.Log(e)
		}
	}
	conf := map[string]float64{}
	for _, e := range sink.edges {
		if e.Type == schema.RelCalls {
			conf[fmt.Sprintf("%s -> %s", short(e.From), short(e.To))] = e.Confidence
		}
	}
	for edge, c := range map[string]float64{
		"fs/read_write.c#ksys_read -> fs/read_write.c#vfs_read":        1,
		"fs/open.c#kernel_read -> fs/read_write.c#vfs_read":            0.9,
		"fs/exec.c#set_brk -> mm/mmap.c#vm_brk":                        0.7,
		"drivers/foo/foo.c#foo_init -> kernel/panic.c#add_taint_quiet": 0.8,
		"fs/read_write.c#vfs_read -> drivers/foo/foo.c#foo_read":       0.45,
		"drivers/foo/foo.c#foo_init -> drivers/foo/foo.c#foo_irq":      0.55,
	} {
		if conf[edge] != c {
			t.Errorf("confidence of %s = %v, want %v", edge, conf[edge], c)
		}
	}
	imports := edgeSet(sink, schema.RelImports)
	want(t, imports,
		"tools/lib/list.c -> tools/include/linux/list.h (module-rule)",
		"lib/list.c -> include/linux/list.h (module-rule)",
		"arch/arm/kernel/io.c -> arch/arm/include/asm/io.h (module-rule)",
		"fs/read_write.c -> include/linux/fs.h (module-rule)",
		"fs/read_write.c -> fs/internal.h (module-rule)",
		"include/linux/fs.h -> include/linux/types.h (module-rule)",
	)
}
