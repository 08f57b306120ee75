package lang

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// Layout-identical copies of tree-sitter's TSNode and TSTreeCursor (api.h,
// tree-sitter 0.25). The functions are defined in the go-tree-sitter
// package's C objects, linked into the same binary.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } gnNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } gnCursor;

extern gnCursor ts_tree_cursor_new(gnNode node);
extern void ts_tree_cursor_delete(gnCursor *self);
extern gnNode ts_tree_cursor_current_node(const gnCursor *self);
extern bool ts_tree_cursor_goto_parent(gnCursor *self);
extern bool ts_tree_cursor_goto_next_sibling(gnCursor *self);
extern bool ts_tree_cursor_goto_first_child(gnCursor *self);
extern bool ts_node_is_named(gnNode self);
extern uint16_t ts_node_symbol(gnNode self);

typedef struct { gnNode node; uint32_t skip; uint32_t symbol; uint16_t field; uint16_t flags; } gnEntry;

extern const void *ts_tree_language(const void *self);
extern uint32_t ts_node_named_child_count(gnNode self);
extern gnNode ts_node_child_by_field_id(gnNode self, uint16_t field_id);
extern uint16_t ts_tree_cursor_current_field_id(const gnCursor *self);

// gnKind is a node's kind id and language, for the kind's name without
// ts_node_type's string (gn_kind).
typedef struct { const void *lang; uint32_t symbol; } gnKind;

static gnKind gn_kind(gnNode n) {
	gnKind k;
	k.lang = ts_tree_language(n.tree);
	k.symbol = ts_node_symbol(n);
	return k;
}

// gn_named_children writes n's named children, in order, into out (at
// most cap of them) and returns how many it wrote.
static uint32_t gn_named_children(gnNode n, gnNode *out, uint32_t cap) {
	gnCursor c = ts_tree_cursor_new(n);
	uint32_t k = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			gnNode child = ts_tree_cursor_current_node(&c);
			if (ts_node_is_named(child)) {
				if (k == cap) break;
				out[k++] = child;
			}
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return k;
}

// gnFields is the first children of a node under one field (at most
// gnFieldsCap of them; total counts them all), returned by value.
#define gnFieldsCap 4
typedef struct { gnNode n[gnFieldsCap]; uint32_t k; uint32_t total; } gnFields;

// gn_field_children gathers n's children under field id, in order.
static gnFields gn_field_children(gnNode n, uint16_t id) {
	gnFields r;
	r.k = 0;
	r.total = 0;
	gnCursor c = ts_tree_cursor_new(n);
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (ts_tree_cursor_current_field_id(&c) == id) {
				if (r.k < gnFieldsCap) r.n[r.k++] = ts_tree_cursor_current_node(&c);
				r.total++;
			}
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return r;
}

// gn_collect writes the named descendants of root (root excluded) in
// preorder into out, at most cap of them, and returns how many it wrote.
// out[i].skip is the index just past entry i's subtree, out[i].symbol
// the node's kind id (alias applied, as ts_node_type), out[i].field the
// field it is its parent's child under (0 for none) and out[i].flags
// gnUnnamedParent when its parent is not named (not an entry, nor a named
// root) and gnUnnamedField when one of its children under a field is not
// named. open is scratch of cap entries (the stack of ancestors).
#define gnUnnamedParent 1u
#define gnUnnamedField 2u
static uint32_t gn_collect(gnNode root, gnEntry *out, uint32_t *open, uint32_t cap) {
	gnCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0, top = 0;
	bool rootNamed = ts_node_is_named(root);
	if (!ts_tree_cursor_goto_first_child(&c)) {
		ts_tree_cursor_delete(&c);
		return 0;
	}
	for (;;) {
		gnNode node = ts_tree_cursor_current_node(&c);
		uint32_t idx = UINT32_MAX;
		if (n < cap && ts_node_is_named(node)) {
			out[n].node = node;
			out[n].skip = 0;
			out[n].symbol = ts_node_symbol(node);
			out[n].field = ts_tree_cursor_current_field_id(&c);
			out[n].flags = (top > 0 ? open[top-1] == UINT32_MAX : !rootNamed) ? gnUnnamedParent : 0;
			idx = n++;
		} else if (top > 0 && open[top-1] != UINT32_MAX && ts_tree_cursor_current_field_id(&c) != 0) {
			out[open[top-1]].flags |= gnUnnamedField;
		}
		if (top < cap && ts_tree_cursor_goto_first_child(&c)) {
			open[top++] = idx;
			continue;
		}
		if (idx != UINT32_MAX) out[idx].skip = n;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (top == 0 || !ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
			uint32_t p = open[--top];
			if (p != UINT32_MAX) out[p].skip = n;
		}
	}
}
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// cWalkOK says sitter.Node is laid out as the TSNode copy above; when it is
// not (a binding upgrade), walkNamed falls back to the cursor walk in Go.
var cWalkOK = unsafe.Sizeof(sitter.Node{}) == C.sizeof_gnNode

// walkNamedC is walkNamed with the tree traversal done in C in one cgo
// call: the per-node cursor moves cost a cgo transition each when driven
// from Go, which was most of the extractors' time.
func walkNamedC(n *sitter.Node, fn func(c *sitter.Node) bool) {
	(*File)(nil).walkNamedKind(n, func(c *sitter.Node, _ string) bool { return fn(c) })
}

// walkNamedKind is walkNamed that also hands the callback the node's kind
// (n.Kind() without its cgo call and string copy).
func walkNamedKind(n *sitter.Node, fn func(c *sitter.Node, kind string) bool) {
	(*File)(nil).walkNamedKind(n, fn)
}

// walkNamedKind is walkNamedKind for an extractor of f: a walk started
// from inside another of f's walks, over a node that walk has collected (an
// extractor's handler walking a function's body while the file's walk
// visits the function), reads the outer walk's entries instead of
// collecting the subtree again in C. A nil f walks alone.
func (f *File) walkNamedKind(n *sitter.Node, fn func(c *sitter.Node, kind string) bool) {
	if n == nil {
		return
	}
	if !cWalkOK {
		walkNamedCursor(n, func(c *sitter.Node) bool { return fn(c, c.Kind()) })
		return
	}
	if w, i := f.walkOf(n); i >= 0 {
		saved := w.at
		w.visit(i+1, int(w.es[i].skip), fn)
		w.at = saved
		return
	}
	total := n.DescendantCount() // includes n itself
	if total <= 1 {
		return
	}
	walkCollects.Add(1)
	buf := C.malloc(C.size_t(total) * (C.sizeof_gnEntry + 4))
	if buf == nil {
		walkNamedCursor(n, func(c *sitter.Node) bool { return fn(c, c.Kind()) })
		return
	}
	defer C.free(buf)
	entries := (*C.gnEntry)(buf)
	open := (*C.uint32_t)(unsafe.Add(buf, uintptr(total)*C.sizeof_gnEntry))
	got := int(C.gn_collect(*(*C.gnNode)(unsafe.Pointer(n)), entries, open, C.uint32_t(total)))
	lang := nodeLanguage(n)
	w := &namedWalk{es: unsafe.Slice(entries, got), lang: lang, kinds: kindNames(lang, n), at: -1}
	if f != nil {
		f.walks = append(f.walks, w)
		defer func() { f.walks = f.walks[:len(f.walks)-1] }()
	}
	w.visit(0, got, fn)
}

// walkCollects counts the subtrees walkNamedKind collected in C (tests).
var walkCollects atomic.Int64

// A namedWalk is the named descendants of one node in preorder, collected
// by gn_collect in one cgo call, while a walk visits them.
type namedWalk struct {
	es    []C.gnEntry
	lang  unsafe.Pointer // the tree's grammar (TSLanguage)
	kinds []string       // kind names by symbol id
	at    int            // the entry being visited, -1 before the first
}

// walkOf is the innermost walk of f in progress and n's index among the
// entry it is visiting and that entry's descendants (find); -1 when there
// is none (a nil f or n, no walk, n not one of them).
func (f *File) walkOf(n *sitter.Node) (*namedWalk, int) {
	if n == nil || !cWalkOK || f == nil || len(f.walks) == 0 {
		return nil, -1
	}
	w := f.walks[len(f.walks)-1]
	return w, w.find((*C.gnNode)(unsafe.Pointer(n)))
}

// kindAt is the kind of entry i, whose node is n: its name from the
// grammar's table by the entry's symbol, without a cgo call.
func (w *namedWalk) kindAt(i int, n *sitter.Node) string {
	if sym := int(w.es[i].symbol); sym < len(w.kinds) {
		return w.kinds[sym]
	}
	return n.Kind()
}

// childrenDirect reports whether entry i's named children are the
// entries its subtree's skips lead through (the node's first child
// entry, then each one's skip): not so when one of those has an unnamed
// parent, a named node under an unnamed child of i, which is no child of
// i's (tree-sitter's named children are its direct children).
func (w *namedWalk) childrenDirect(i int) bool {
	for j, end := i+1, int(w.es[i].skip); j < end; j = int(w.es[j].skip) {
		if w.es[j].flags&C.gnUnnamedParent != 0 {
			return false
		}
	}
	return true
}

// walkPoison, set by the package's tests, zeroes the node a visit hands
// its callback once the callback returns, so that a callback keeping it
// reads a zero node (and fails loudly) instead of a later sibling.
var walkPoison bool

// visit hands fn the entries from lo to hi (a subtree's descendants),
// skipping the subtree of each entry fn returns false for.
//
// The node fn is handed is one node of this visit's, overwritten entry
// by entry: fn must not keep it past its return (the extractors take
// text, positions and kinds from it, or nodes of their own from field
// and namedChildren). A nested visit (fn walking a subtree of its node)
// has a node of its own, so fn's node stays put until fn returns. A node
// allocated for every node visited, in case fn kept it, had been a fifth
// of what the C extraction allocated (the kernel's fs/: 166 of 842 MB).
func (w *namedWalk) visit(lo, hi int, fn func(c *sitter.Node, kind string) bool) {
	node := new(sitter.Node)
	for i := lo; i < hi; {
		e := &w.es[i]
		*node = *(*sitter.Node)(unsafe.Pointer(&e.node))
		kind := w.kindAt(i, node)
		w.at = i
		more := fn(node, kind)
		if walkPoison {
			*node = sitter.Node{}
		}
		if more {
			i++
		} else {
			i = int(e.skip)
		}
	}
}

// find returns the index of n among the entry being visited and its
// descendants, -1 when it is not one of them (an unnamed node, a node
// outside it, a node of another tree). Entries are in preorder, so their
// start bytes never decrease: a binary search finds the first entry
// starting where n starts, and n is one of those starting there. (It had
// descended a level at a time through each level's children, whose
// number made finding a node of a long function's body cost a tenth of
// the C walker's time on the kernel.)
func (w *namedWalk) find(n *C.gnNode) int {
	i := w.at
	if i < 0 {
		return -1
	}
	start := n.context[0]
	end := int(w.es[i].skip)
	lo, hi := i, end
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if w.es[m].node.context[0] < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for ; lo < end && w.es[lo].node.context[0] == start; lo++ {
		if e := &w.es[lo]; e.node.id == n.id && e.node.tree == n.tree {
			return lo
		}
	}
	return -1
}

// kindTables caches each grammar's kind names by symbol id.
var kindTables sync.Map // unsafe.Pointer (TSLanguage) → []string

// kindOf is n.Kind() ("" for nil) without its string copy: the name
// from the language's table (kindNames) by the node's kind id. Kind's
// copies were a tenth of the bytes the C extraction allocated (the
// kernel's fs/: 96 of 907 MB), each a cost to the garbage collector.
func kindOf(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	if !cWalkOK {
		return n.Kind()
	}
	k := C.gn_kind(*(*C.gnNode)(unsafe.Pointer(n)))
	var names []string
	if t, ok := kindTables.Load(k.lang); ok {
		names = t.([]string)
	} else {
		names = kindNames(k.lang, n)
	}
	if int(k.symbol) < len(names) {
		return names[k.symbol]
	}
	return n.Kind()
}

// nodeLanguage is n's grammar (TSLanguage) without n.Language()'s
// allocation of a wrapper, which fieldID made for every field looked up
// (the kernel's fs/: 22 of 744 MB the C extraction allocated).
func nodeLanguage(n *sitter.Node) unsafe.Pointer {
	if !cWalkOK {
		return unsafe.Pointer(n.Language().Inner)
	}
	return unsafe.Pointer(C.ts_tree_language((*C.gnNode)(unsafe.Pointer(n)).tree))
}

// childByFieldC sets *out to n's child under field id and reports
// whether there is one: Node.ChildByFieldId without its node allocated
// on the heap for every lookup (the kernel's fs/: 80 of 842 MB the C
// extraction allocated). The child comes back by value, so that out is
// never handed to C and may live on the caller's stack (field).
func childByFieldC(n *sitter.Node, id uint16, out *sitter.Node) bool {
	c := C.ts_node_child_by_field_id(*(*C.gnNode)(unsafe.Pointer(n)), C.uint16_t(id))
	if c.id == nil {
		return false
	}
	*out = *(*sitter.Node)(unsafe.Pointer(&c))
	return true
}

// namedChildrenC calls fn for each named child of n in order, the
// children gathered in one cgo call into one allocation (a Child or
// cursor step per child cost a cgo call and a node allocated each).
func namedChildrenC(n *sitter.Node, fn func(c *sitter.Node)) {
	cnt := uint32(C.ts_node_named_child_count(*(*C.gnNode)(unsafe.Pointer(n))))
	if cnt == 0 {
		return
	}
	buf := make([]sitter.Node, cnt)
	got := uint32(C.gn_named_children(*(*C.gnNode)(unsafe.Pointer(n)), (*C.gnNode)(unsafe.Pointer(&buf[0])), C.uint32_t(cnt)))
	for i := range got {
		fn(&buf[i])
	}
}

// eachFieldC is eachField in one cgo call: the children come back by
// value and are copied into one buffer of their number (the cursor walk
// from Go cost a cursor and a node allocated per child, and a cgo call
// per step: the kernel's 0.25 GB). It reports false, having called
// nothing, when the node has more children under the field than one call
// returns, for the caller to walk them with the cursor.
func eachFieldC(n *sitter.Node, id uint16, fn func(c *sitter.Node)) bool {
	r := C.gn_field_children(*(*C.gnNode)(unsafe.Pointer(n)), C.uint16_t(id))
	if r.total > r.k {
		return false
	}
	if r.k == 0 {
		return true
	}
	// The callback may keep its node: a buffer of their own, in Go memory.
	buf := make([]sitter.Node, r.k)
	for i := range buf {
		buf[i] = *(*sitter.Node)(unsafe.Pointer(&r.n[i]))
	}
	for i := range buf {
		fn(&buf[i])
	}
	return true
}

// eachNamedChild is the package's eachNamedChild, with the node's kind,
// for a node of the walk f is in (walkNamedKind): its named children are
// read from the walk's entries, without a cgo call for them or their
// kinds. Elsewhere (no walk, a node outside it, a named child under an
// unnamed one, which a walk's entries do not tell apart) it asks C.
func (f *File) eachNamedChild(n *sitter.Node, fn func(c *sitter.Node, kind string)) {
	if w, i := f.walkOf(n); i >= 0 && !noWalkChildren && w.childrenDirect(i) {
		node := new(sitter.Node)
		for j, end := i+1, int(w.es[i].skip); j < end; j = int(w.es[j].skip) {
			*node = *(*sitter.Node)(unsafe.Pointer(&w.es[j].node))
			fn(node, w.kindAt(j, node))
			if walkPoison {
				*node = sitter.Node{}
			}
		}
		return
	}
	eachNamedChild(n, func(c *sitter.Node) { fn(c, kindOf(c)) })
}

// field is the package's field for a node of the walk f is in: the child
// under the field is found among the node's named children in the walk's
// entries, by the field each was collected under, without a cgo call
// (two had been a tenth of the C walker's time on the kernel: the child
// and the tree's language for the field's id). A node with a child under
// a field that is not named, or a named child under an unnamed one, is
// asked of C as before, as is a node outside the walk.
func (f *File) field(n *sitter.Node, name string) *sitter.Node {
	if w, i := f.walkOf(n); i >= 0 && !noWalkChildren && w.es[i].flags&C.gnUnnamedField == 0 && w.childrenDirect(i) {
		id := fieldIDIn(w.lang, n, name)
		if id == 0 {
			return nil
		}
		for j, end := i+1, int(w.es[i].skip); j < end; j = int(w.es[j].skip) {
			if w.es[j].field == C.uint16_t(id) {
				c := new(sitter.Node)
				*c = *(*sitter.Node)(unsafe.Pointer(&w.es[j].node))
				return c
			}
		}
		return nil
	}
	return field(n, name)
}

// kind is kindOf for a node of the walk f is in: its kind from the walk's
// entry, without the cgo call for it (a node outside the walk, or not
// named, asks C as before).
func (f *File) kind(n *sitter.Node) string {
	if w, i := f.walkOf(n); i >= 0 && !noWalkChildren {
		return w.kindAt(i, n)
	}
	return kindOf(n)
}

// noWalkChildren, set by the package's tests, makes File.eachNamedChild,
// File.field and File.kind ask C always, for the output to compare with.
var noWalkChildren bool

// eachNamedChild is namedChildren for a callback that does not keep the
// child past its return (the same contract as a walk's callback): the
// children are gathered into a buffer from a pool and handed over one at
// a time in one node of the buffer's, instead of into a buffer of their
// own per call (namedChildrenC's buffers were the kernel's largest
// allocation after the walk's nodes: 1.6 of the 10.9 GB its parse and
// resolution allocated).
func eachNamedChild(n *sitter.Node, fn func(c *sitter.Node)) {
	if n == nil || !cWalkOK {
		namedChildren(n, fn)
		return
	}
	cnt := uint32(C.ts_node_named_child_count(*(*C.gnNode)(unsafe.Pointer(n))))
	if cnt == 0 {
		return
	}
	if cnt > maxPooledChildren {
		namedChildrenC(n, fn)
		return
	}
	b := childBufs.Get().(*childBuf)
	if uint32(len(b.raw)) < cnt {
		b.raw = make([]rawNode, max(cnt, 16))
	}
	got := uint32(C.gn_named_children(*(*C.gnNode)(unsafe.Pointer(n)), (*C.gnNode)(unsafe.Pointer(&b.raw[0])), C.uint32_t(cnt)))
	for i := range got {
		b.node = *(*sitter.Node)(unsafe.Pointer(&b.raw[i]))
		fn(&b.node)
		if walkPoison {
			b.node = sitter.Node{}
		}
	}
	b.node = sitter.Node{}
	childBufs.Put(b)
}

// A childBuf is eachNamedChild's: the children as C wrote them, in
// memory without Go pointers (cgo's pointer check of an argument reads
// the whole of an allocation that may hold them: a pooled buffer of
// sitter.Node cost more than the allocations it saved), and the node
// handed to the callback.
type childBuf struct {
	raw  []rawNode
	node sitter.Node
}

// rawNode is a TSNode's bytes (gnNode) in a type the garbage collector
// and cgo's checks need not look into.
type rawNode [4]uint64

var _ [unsafe.Sizeof(rawNode{}) - C.sizeof_gnNode]struct{}
var _ [C.sizeof_gnNode - unsafe.Sizeof(rawNode{})]struct{}

// childBufs are eachNamedChild's buffers; maxPooledChildren bounds the
// ones kept (a node with more children gets a buffer of its own).
var childBufs = sync.Pool{New: func() any { return new(childBuf) }}

const maxPooledChildren = 1 << 10

// kindNames is the kind names by symbol id of grammar key (n's, as
// nodeLanguage gives it), made once per grammar.
func kindNames(key unsafe.Pointer, n *sitter.Node) []string {
	if t, ok := kindTables.Load(key); ok {
		return t.([]string)
	}
	l := n.Language()
	names := make([]string, l.NodeKindCount())
	for i := range names {
		names[i] = l.NodeKindForId(uint16(i))
	}
	kindTables.Store(key, names)
	return names
}
