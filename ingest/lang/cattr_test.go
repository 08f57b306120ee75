package lang

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCAttrMacros: the kernel's attribute macros store their functions
// in members of the struct type they declare (Registrations), define the
// open function of a seq_file or debugfs file at their line (and deferred
// work's declarations store its function); a function naming the variable
// they define names none of its functions (no call site), and a teardown
// call names no callback; macros that do not start their line (indented,
// in a comment, a #define) are left alone.
func TestCAttrMacros(t *testing.T) {
	src := `static ssize_t foo_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", 1);
}
static DEVICE_ATTR_RO(foo);
static DEVICE_ATTR_WO(bar);
DEVICE_ATTR_RW(qux);
static DEVICE_ATTR(baz, 0644, NULL, baz_write);
static DRIVER_ATTR_RW(drv);
static const BUS_ATTR_ADMIN_RO(bus);
static struct kobj_attribute zap_attr = __ATTR(zap, 0644, zap_show, zap_store);
static struct kobj_attribute zip_attr = __ATTR_RO(zip);

static int regs_show(struct seq_file *s, void *data)
{
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regs);

static int val_get(void *data, u64 *val) { return 0; }
DEFINE_DEBUGFS_ATTRIBUTE(val_fops, val_get, NULL, "%llu\n");
DEFINE_SIMPLE_ATTRIBUTE(sim_fops, NULL, sim_set, "%llu\n");

static DECLARE_WORK(poll_work, poll_fn);
static DECLARE_DELAYED_WORK(retry_work, retry_fn);
static DEFINE_TIMER(tick_timer, tick_fn);
DECLARE_TASKLET(done_tasklet, done_fn);
static DECLARE_WORK(bad_work, 0);

/*
DEVICE_ATTR_RO(in_comment);
 */
#define DEVICE_ATTR_RO(_name) struct device_attribute dev_attr_##_name = __ATTR_RO(_name)

static int probe(struct device *dev)
{
	DEVICE_ATTR_RO(indented);
	schedule_work(&poll_work);
	debugfs_create_file("regs", 0444, NULL, dev, &regs_fops);
	return device_create_file(dev, &dev_attr_foo);
}

static void remove(struct device *dev)
{
	cancel_work_sync(&poll_work);
	device_remove_file(dev, &dev_attr_foo);
	debugfs_remove(regs_fops_dentry, foo_show);
}
`
	p := NewParser()
	defer p.Close()
	fx, _, err := p.Parse(context.Background(), "k.c", ByName("c"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var regs []string
	for _, r := range fx.Registrations {
		regs = append(regs, r.Type+"."+r.Field+"="+r.Name)
	}
	want := []string{
		"device_attribute.show=foo_show",
		"device_attribute.store=bar_store",
		"device_attribute.show=qux_show", "device_attribute.store=qux_store",
		"device_attribute.store=baz_write",
		"driver_attribute.show=drv_show", "driver_attribute.store=drv_store",
		"bus_attribute.show=bus_show",
		"kobj_attribute.show=zap_show", "kobj_attribute.store=zap_store",
		"kobj_attribute.show=zip_show",
		"file_operations.open=regs_open", "file_operations.read=seq_read",
		"file_operations.llseek=seq_lseek", "file_operations.release=single_release",
		"file_operations.open=val_fops_open", "file_operations.release=simple_attr_release",
		"file_operations.read=debugfs_attr_read", "file_operations.write=debugfs_attr_write",
		"file_operations.open=sim_fops_open", "file_operations.release=simple_attr_release",
		"file_operations.read=simple_attr_read", "file_operations.write=simple_attr_write",
		"work_struct.func=poll_fn", "work_struct.func=retry_fn",
		"timer_list.function=tick_fn", "tasklet_struct.callback=done_fn",
	}
	slices.Sort(regs)
	slices.Sort(want)
	if !slices.Equal(regs, want) {
		t.Errorf("registrations\n%q\nwant\n%q", regs, want)
	}
	lines := map[string]int{}
	for _, s := range fx.Symbols {
		lines[s.Name] = s.StartLine
	}
	for name, line := range map[string]int{"regs_open": 18, "val_fops_open": 21, "sim_fops_open": 22} {
		if lines[name] != line {
			t.Errorf("%s at line %d, want %d (symbols %v)", name, lines[name], line, lines)
		}
	}
	refs := map[string]bool{}
	for _, c := range fx.Calls {
		refs[c.CallerID+" "+c.Kind+" "+c.Name] = true
	}
	for _, r := range []string{
		"k.c#regs_open:function call single_open", "k.c#regs_open:function reference regs_show",
		"k.c#val_fops_open:function call simple_attr_open", "k.c#val_fops_open:function reference val_get",
		"k.c#sim_fops_open:function reference sim_set",
	} {
		if !refs[r] {
			t.Errorf("no call site %q", r)
		}
	}
	for _, r := range []string{"k.c#val_fops_open:function reference NULL", "k.c#probe:function reference indented_show",
		// naming a variable a macro defines names none of its functions
		"k.c#probe:function reference foo_show", "k.c#probe:function reference regs_open",
		"k.c#probe:function reference poll_fn",
		// a teardown call takes back what it names: no callback
		"k.c#remove:function reference poll_fn", "k.c#remove:function reference foo_show"} {
		if refs[r] {
			t.Errorf("call site %q", r)
		}
	}
}

// TestCAttrExpandHostile: argument lists that do not fit a macro expand
// to nothing.
func TestCAttrExpandHostile(t *testing.T) {
	for _, c := range []struct {
		macro string
		args  []string
	}{
		{"DEVICE_ATTR_RO", nil},
		{"DEVICE_ATTR_RO", []string{"a", "b"}},
		{"DEVICE_ATTR_RO", []string{"a b"}},
		{"DEVICE_ATTR_XX", []string{"a"}},
		{"NOPE_ATTR_RO", []string{"a"}},
		{"DEVICE_ATTR", []string{"a", "0644"}},
		{"DEFINE_SHOW_ATTRIBUTE", []string{""}},
		{"DEFINE_DEBUGFS_ATTRIBUTE", []string{"f", "g"}},
		{"__ATTR_RO", []string{"x->y"}},
	} {
		if e, ok := cAttrExpand(c.macro, c.args); ok {
			t.Errorf("%s%q expanded to %+v", c.macro, c.args, e)
		}
	}
}

// TestCAttrMacrosHostile: a long line full of "_ATTR", macros without
// their closing parenthesis and a macro at the very start and end of the
// text are read without a panic, and only the whole macros count.
func TestCAttrMacrosHostile(t *testing.T) {
	long := strings.Repeat("x_ATTR ", 200_000)
	for name, c := range map[string]struct {
		src  string
		regs int
	}{
		"long line":    {long + "\nDEVICE_ATTR_RO(a);\n", 1},
		"unclosed":     {strings.Repeat("DEVICE_ATTR_RO(b\n", 2000), 0},
		"at the start": {"DEVICE_ATTR_RW(c);", 2},
		"at the end":   {"int x;\nDEVICE_ATTR_RO(", 0},
		"padded":       {strings.Repeat(" ", cAttrLead) + "\nstatic const " + strings.Repeat(" ", cAttrLead) + "DEVICE_ATTR_RO(d);\n", 0},
	} {
		p := NewParser()
		fx, _, err := p.Parse(context.Background(), "k.c", ByName("c"), []byte(c.src))
		p.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fx.Registrations) != c.regs {
			t.Errorf("%s: %d registrations, want %d: %+v", name, len(fx.Registrations), c.regs, fx.Registrations)
		}
	}
}
