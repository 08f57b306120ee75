package processes_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/ingest"
	"github.com/gitnexus/gitnexus/processes"
)

// TestCKernelEntryPoints: on the kernel-style C fixture, the syscall, the
// functions the driver registers (module_init, request_irq, its ops
// table), a sysfs attribute, a work item, a BPF helper and a BPF program
// are entry points through their registrations; the functions they call
// are not.
func TestCKernelEntryPoints(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/repos/ckernel")); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Run(context.Background(), dir, nopSink{}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := processes.FromIndex(res.Index, res.Edges)
	reasons := map[string]string{}
	for _, ep := range processes.ScoreEntryPoints(g) {
		n := g.Nodes[ep.Node]
		reasons[n.FilePath+"#"+n.Name] = strings.Join(ep.Reasons, ",")
	}
	for sym, want := range map[string]string{
		"fs/read_write.c#sys_read":   "framework:c:syscall",
		"drivers/foo/foo.c#foo_init": "framework:c:registered callback",
		"drivers/foo/foo.c#foo_irq":  "framework:c:registered callback",
		"drivers/foo/foo.c#foo_read": "framework:c:registered callback",
		"drivers/foo/foo.c#foo_open": "framework:c:registered callback",
		// a sysfs attribute's show (DEVICE_ATTR_RO)
		"drivers/foo/foo_sysfs.c#mode_show": "framework:c:registered callback",
		// a work item's function (DECLARE_WORK)
		"drivers/foo/foo_sysfs.c#foo_poll": "framework:c:registered callback",
		// a BPF helper (BPF_CALL_2) and a BPF program (BPF_PROG)
		"kernel/bpf/helpers.c#bpf_map_lookup_elem":        "framework:c:registered callback",
		"tools/sched_ext/scx_simple.bpf.c#simple_enqueue": "framework:c:registered callback",
	} {
		if !strings.Contains(reasons[sym], want) {
			t.Errorf("%s: reasons %q, want %s", sym, reasons[sym], want)
		}
	}
	for _, sym := range []string{"fs/read_write.c#vfs_read", "fs/read_write.c#ksys_read", "drivers/foo/foo.c#helper"} {
		if strings.Contains(reasons[sym], "framework:") {
			t.Errorf("%s is not registered anywhere, got reasons %q", sym, reasons[sym])
		}
	}
	pr := processes.Run(g, processes.Options{})
	var labels []string
	for _, p := range pr.Processes {
		labels = append(labels, p.Label)
	}
	wantFlow(t, labels, "sys_read → ksys_read → vfs_read → helper")
	// an arch's compat entry runs the same steps after its first: the
	// flows are sys_read's (its first callee's directory), the wrapper
	// keeps one that says so
	for _, p := range pr.Processes {
		if strings.HasPrefix(p.Label, "compat_sys_s390_read") && !strings.Contains(p.Description, "after its first step, the same as sys_read's") {
			t.Errorf("the compat wrapper's flow does not point at sys_read's: %q %q", p.Label, p.Description)
		}
	}
}
