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

typedef struct { gnNode node; uint32_t skip; uint32_t symbol; } gnEntry;

extern const void *ts_tree_language(const void *self);
extern uint32_t ts_node_named_child_count(gnNode self);

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

// gn_collect writes the named descendants of root (root excluded) in
// preorder into out, at most cap of them, and returns how many it wrote.
// out[i].skip is the index just past entry i's subtree and out[i].symbol
// the node's kind id (alias applied, as ts_node_type). open is scratch of
// cap entries (the stack of ancestors).
static uint32_t gn_collect(gnNode root, gnEntry *out, uint32_t *open, uint32_t cap) {
	gnCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0, top = 0;
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
			idx = n++;
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
	if f != nil && len(f.walks) > 0 {
		w := f.walks[len(f.walks)-1]
		if i := w.find((*C.gnNode)(unsafe.Pointer(n))); i >= 0 {
			saved := w.at
			w.visit(i+1, int(w.es[i].skip), fn)
			w.at = saved
			return
		}
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
	w := &namedWalk{es: unsafe.Slice(entries, got), kinds: kindNames(n), at: -1}
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
	kinds []string // kind names by symbol id
	at    int      // the entry being visited, -1 before the first
	// slab is where the nodes handed to the callback are taken from,
	// a block at a time (one allocation per nodeSlab nodes, not one each).
	slab []sitter.Node
}

// nodeSlab is the nodes a namedWalk allocates at once.
const nodeSlab = 16

// visit hands fn the entries from lo to hi (a subtree's descendants),
// skipping the subtree of each entry fn returns false for.
func (w *namedWalk) visit(lo, hi int, fn func(c *sitter.Node, kind string) bool) {
	for i := lo; i < hi; {
		e := &w.es[i]
		// The callback may keep the node: it must not point into C memory.
		if len(w.slab) == 0 {
			w.slab = make([]sitter.Node, min(nodeSlab, hi-i))
		}
		node := &w.slab[0]
		w.slab = w.slab[1:]
		*node = *(*sitter.Node)(unsafe.Pointer(&e.node))
		var kind string
		if sym := int(e.symbol); sym < len(w.kinds) {
			kind = w.kinds[sym]
		} else {
			kind = node.Kind()
		}
		w.at = i
		if fn(node, kind) {
			i++
		} else {
			i = int(e.skip)
		}
	}
}

// find returns the index of n among the entry being visited and its
// descendants, -1 when it is not one of them (an unnamed node, a node
// outside it, a node of another tree). It descends one level at a time,
// into the child whose start is the last one at or before n's.
func (w *namedWalk) find(n *C.gnNode) int {
	i := w.at
	if i < 0 {
		return -1
	}
	start := n.context[0]
	end := int(w.es[i].skip)
	for {
		e := &w.es[i]
		if e.node.id == n.id && e.node.tree == n.tree && e.node.context[0] == start {
			return i
		}
		// the children of i: from i+1, each the next one's predecessor
		c := i + 1
		if c >= end || w.es[c].node.context[0] > start {
			return -1
		}
		for {
			next := int(w.es[c].skip)
			if next >= end || w.es[next].node.context[0] > start {
				break
			}
			if e := &w.es[c]; e.node.id == n.id && e.node.tree == n.tree && e.node.context[0] == start {
				return c
			}
			c = next
		}
		i, end = c, int(w.es[c].skip)
	}
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
		names = kindNames(n)
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

func kindNames(n *sitter.Node) []string {
	key := nodeLanguage(n)
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
