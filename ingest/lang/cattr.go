package lang

import (
	"bytes"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Kernel attribute macros. The Linux kernel defines most of its sysfs
// attributes and many debugfs and seq_file files with macros that expand,
// at file level, into a struct variable whose members hold functions, and
// sometimes into the function that opens the file:
//
//	static DEVICE_ATTR_RO(foo);        // struct device_attribute dev_attr_foo = { .show = foo_show }
//	DEFINE_SHOW_ATTRIBUTE(regs);       // static int regs_open(...) { return single_open(file, regs_show, ...); }
//	                                   // static const struct file_operations regs_fops = { .open = regs_open, ... }
//	DEFINE_DEBUGFS_ATTRIBUTE(val_fops, val_get, val_set, "%llu\n");
//	static DECLARE_WORK(poll_work, poll_fn); // struct work_struct poll_work = { .func = poll_fn }
//
// The grammar reads none of them as what they are (a declaration of a
// variable named foo, a call, or an error), so they are read from the
// text: a line that starts with the macro (after static or const) and
// its balanced argument list. What each expands to is cAttrExpand's table,
// taken from include/linux/device.h, sysfs.h, seq_file.h, fs.h and
// debugfs.h, and for deferred work from workqueue.h, timer.h and
// interrupt.h. The stores become Registrations (so `attr->show(...)`
// calls reach foo_show, and foo_show is a registered callback), and an
// open function a symbol of its own at the macro's line.

// cAttrExpansion is what one attribute macro invocation defines.
type cAttrExpansion struct {
	typ    string // the struct type of the variable it declares
	stores []cAttrStore
	// open is the function the macro defines ("" when none): it calls
	// openCall and hands over refs.
	open, openCall string
	refs           []string
}

// cAttrStore is a function stored in a member of the variable the macro
// declares.
type cAttrStore struct{ field, fn string }

// cAttrFamilies are the sysfs attribute families of the NAME_ATTR_RO(x)
// form: the struct type of the variable each declares.
var cAttrFamilies = map[string]string{
	"DEVICE": "device_attribute",
	"DRIVER": "driver_attribute",
	"BUS":    "bus_attribute",
	"CLASS":  "class_attribute",
}

// cAttrExpand is the expansion of attribute macro macro with args, ok
// false when macro is none (or its arguments do not fit it).
func cAttrExpand(macro string, args []string) (e cAttrExpansion, ok bool) {
	for _, a := range args {
		if a == "" {
			return e, false
		}
	}
	switch {
	case macro == "DEFINE_SHOW_ATTRIBUTE" && len(args) == 1 && lxIdentLike(args[0]):
		n := args[0]
		return cAttrExpansion{
			typ:    "file_operations",
			stores: []cAttrStore{{"open", n + "_open"}, {"read", "seq_read"}, {"llseek", "seq_lseek"}, {"release", "single_release"}},
			open:   n + "_open", openCall: "single_open", refs: []string{n + "_show"},
		}, true
	case (macro == "DEFINE_SIMPLE_ATTRIBUTE" || macro == "DEFINE_DEBUGFS_ATTRIBUTE") && len(args) == 4 && lxIdentLike(args[0]):
		n := args[0]
		read, write := "simple_attr_read", "simple_attr_write"
		if macro == "DEFINE_DEBUGFS_ATTRIBUTE" {
			read, write = "debugfs_attr_read", "debugfs_attr_write"
		}
		return cAttrExpansion{
			typ:    "file_operations",
			stores: []cAttrStore{{"open", n + "_open"}, {"release", "simple_attr_release"}, {"read", read}, {"write", write}},
			open:   n + "_open", openCall: "simple_attr_open", refs: cAttrFuncs(args[1:3]),
		}, true
	case macro == "__ATTR" && len(args) == 4:
		// An initializer of a variable of some attribute type (the
		// declaration gives the type: cppWalker.attrInit).
		return cAttrExpansion{stores: cAttrShowStore(args[2], args[3])}, true
	case strings.HasPrefix(macro, "__ATTR_") && len(args) >= 1 && len(args) <= 2 && lxIdentLike(args[0]):
		n := args[0]
		switch strings.TrimSuffix(macro, "_MODE") {
		case "__ATTR_RO":
			return cAttrExpansion{stores: []cAttrStore{{"show", n + "_show"}}}, true
		case "__ATTR_WO":
			return cAttrExpansion{stores: []cAttrStore{{"store", n + "_store"}}}, true
		case "__ATTR_RW":
			return cAttrExpansion{stores: []cAttrStore{{"show", n + "_show"}, {"store", n + "_store"}}}, true
		}
		return e, false
	case macro == "DEVICE_ATTR" && len(args) == 4 && lxIdentLike(args[0]):
		return cAttrExpansion{typ: "device_attribute", stores: cAttrShowStore(args[2], args[3])}, true
	case len(args) == 2 && lxIdentLike(args[0]) && lxIdentLike(args[1]):
		// Deferred work a variable declares with its function
		// (include/linux/workqueue.h, timer.h, interrupt.h): the
		// function runs when the work is scheduled, the timer fires.
		typ, field := "", ""
		switch macro {
		case "DECLARE_WORK", "DECLARE_DELAYED_WORK", "DECLARE_DEFERRABLE_WORK":
			typ, field = "work_struct", "func" // a delayed_work's is its work's
		case "DEFINE_TIMER":
			typ, field = "timer_list", "function"
		case "DECLARE_TASKLET", "DECLARE_TASKLET_DISABLED":
			typ, field = "tasklet_struct", "callback"
		case "DECLARE_TASKLET_OLD", "DECLARE_TASKLET_DISABLED_OLD":
			typ, field = "tasklet_struct", "func"
		default:
			return e, false
		}
		return cAttrExpansion{typ: typ, stores: []cAttrStore{{field, args[1]}}}, true
	}
	family, mode, found := strings.Cut(macro, "_ATTR_")
	fam, known := cAttrFamilies[family]
	if !found || !known || len(args) != 1 || !lxIdentLike(args[0]) {
		return e, false
	}
	n := args[0]
	e = cAttrExpansion{typ: fam}
	switch strings.TrimPrefix(mode, "ADMIN_") {
	case "RO":
		e.stores = []cAttrStore{{"show", n + "_show"}}
	case "WO":
		e.stores = []cAttrStore{{"store", n + "_store"}}
	case "RW":
		e.stores = []cAttrStore{{"show", n + "_show"}, {"store", n + "_store"}}
	default:
		return e, false
	}
	return e, true
}

// cAttrShowStore is the stores of a show and a store function named as
// arguments (either may be NULL).
func cAttrShowStore(show, store string) []cAttrStore {
	var out []cAttrStore
	for _, s := range []cAttrStore{{"show", show}, {"store", store}} {
		if cAttrFunc(s.fn) {
			out = append(out, s)
		}
	}
	return out
}

// cAttrFuncs is the function names among args (cAttrFunc).
func cAttrFuncs(args []string) []string {
	var out []string
	for _, a := range args {
		if cAttrFunc(a) {
			out = append(out, a)
		}
	}
	return out
}

// cAttrFunc reports whether a macro argument names a function: not NULL,
// not an expression.
func cAttrFunc(a string) bool { return lxIdentLike(a) && a != "NULL" }

// cAttrNeedles are what the names of the macros cAttrExpand knows hold:
// attrMacros looks at the lines they occur in.
var cAttrNeedles = []string{"_ATTR", "_WORK(", "DEFINE_TIMER(", "DECLARE_TASKLET"}

// cAttrMacroMax bounds an attribute macro's argument list, and cAttrLead
// what may stand before a needle on the macro's line ("static const
// DEFINE_DEBUGFS": the longest is a few dozen bytes).
const (
	cAttrMacroMax = 4 << 10
	cAttrLead     = 96
)

// attrMacros records what the file's attribute macros expand to (see
// above); root is the file's tree, which tells a macro in a comment. It
// runs after the walk.
func (w *cppWalker) attrMacros(root *sitter.Node) {
	src := w.f.Src
	line, lineAt := 1, 0 // the line number of byte lineAt
	// next[n] is where cAttrNeedles[n] occurs next at or after off (-1:
	// nowhere): each needle's occurrences are found once, in one pass.
	next := make([]int, len(cAttrNeedles))
	for n := range next {
		next[n] = -2 // not looked for yet
	}
	for off := 0; off < len(src); {
		i := -1
		for n, needle := range cAttrNeedles {
			if next[n] == -2 || next[n] >= 0 && next[n] < off {
				next[n] = bytes.Index(src[off:], []byte(needle))
				if next[n] >= 0 {
					next[n] += off
				}
			}
			if next[n] >= 0 && (i < 0 || next[n] < i) {
				i = next[n]
			}
		}
		if i < 0 {
			return
		}
		off = i + 1
		// The macro's name starts its line, after static or const: the
		// line's start is a few bytes back (looking further back for
		// every occurrence would be quadratic in a long line).
		from := max(0, i-cAttrLead)
		start := bytes.LastIndexByte(src[from:i], '\n') + 1 + from
		if start == from && from > 0 && src[from-1] != '\n' {
			continue
		}
		j := start
		for {
			if rest, ok := bytes.CutPrefix(src[j:], []byte("static")); ok && len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
				j = cSkipBlanks(src, j+len("static"))
			} else if rest, ok := bytes.CutPrefix(src[j:], []byte("const")); ok && len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
				j = cSkipBlanks(src, j+len("const"))
			} else {
				break
			}
		}
		k := j
		for k < len(src) && (src[k] >= 'A' && src[k] <= 'Z' || src[k] == '_' || src[k] >= '0' && src[k] <= '9') {
			k++
		}
		if i < j || i >= k { // the occurrence is not in a macro name that starts its line
			continue
		}
		macro := string(src[j:k])
		p := cSkipBlanks(src, k)
		end, _ := cBalancedEnd(src, p, '(', ')', cAttrMacroMax, "{;", false)
		if end == 0 {
			continue
		}
		off = end
		e, ok := cAttrExpand(macro, cMacroArgs(string(src[p:end])))
		if !ok || e.typ == "" { // __ATTR(...) is an initializer: attrInit
			continue
		}
		if d := root.DescendantForByteRange(uint(j), uint(k)); d != nil && isCommentKind(d.Kind()) {
			continue
		}
		line += bytes.Count(src[lineAt:start], []byte{'\n'})
		lineAt = start
		w.attrExpansion(e, uint(start), uint(end), line)
	}
}

// attrExpansion records expansion e of the macro over src[start:end), at
// line.
func (w *cppWalker) attrExpansion(e cAttrExpansion, start, end uint, line int) {
	if e.open != "" {
		id := w.f.addSymbolBytes(schema.Symbol{
			Name: e.open, QualifiedName: e.open, Kind: schema.KindFunction,
			Signature: collapseSpace(w.f.Src[start:end], signatureCap),
		}, start, end, line)
		w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: id, Name: e.openCall, Kind: "call", Args: -1, Line: line})
		for _, r := range e.refs {
			w.f.Facts.Calls = append(w.f.Facts.Calls, CallSite{CallerID: id, Name: r, Kind: "reference", Args: -1, Line: line})
		}
	}
	w.attrStores(e.stores, e.typ, "", line)
}

// attrStores records functions stored in members of a variable of struct
// type typ, declared inside caller ("" at file level) at line.
func (w *cppWalker) attrStores(stores []cAttrStore, typ, caller string, line int) {
	for _, s := range stores {
		w.f.Facts.Registrations = append(w.f.Facts.Registrations, Registration{CallerID: caller, Name: s.fn, Field: s.field, Type: typ, Line: line})
	}
}

// attrInit records the stores of an attribute initializer macro
// (`struct kobj_attribute x = __ATTR(x, 0644, x_show, x_store);`) that
// value v of a variable of struct type typ is, inside caller ("" at file
// level), when v is one.
func (w *cppWalker) attrInit(v *sitter.Node, typ, caller string) {
	if typ == "" || w.f.kind(v) != "call_expression" {
		return
	}
	fn := w.f.field(v, "function")
	if w.f.kind(fn) != "identifier" {
		return
	}
	macro := w.f.Text(fn)
	if !strings.HasPrefix(macro, "__ATTR") {
		// The only initializer macros (cAttrExpand's without a type):
		// any other call's arguments are not split.
		return
	}
	e, ok := cAttrExpand(macro, cMacroArgs(w.f.Text(w.f.field(v, "arguments"))))
	if !ok || e.typ != "" {
		return
	}
	w.attrStores(e.stores, typ, caller, lineOf(v))
}
