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
	walkNamedKindC(n, func(c *sitter.Node, _ string) bool { return fn(c) })
}

// walkNamedKind is walkNamed that also hands the callback the node's kind
// (n.Kind() without its cgo call and string copy).
func walkNamedKind(n *sitter.Node, fn func(c *sitter.Node, kind string) bool) {
	if n == nil {
		return
	}
	if cWalkOK {
		walkNamedKindC(n, fn)
		return
	}
	walkNamedCursor(n, func(c *sitter.Node) bool { return fn(c, c.Kind()) })
}

func walkNamedKindC(n *sitter.Node, fn func(c *sitter.Node, kind string) bool) {
	total := n.DescendantCount() // includes n itself
	if total <= 1 {
		return
	}
	kinds := kindNames(n)
	cnt := C.uint32_t(total)
	buf := C.malloc(C.size_t(total) * (C.sizeof_gnEntry + 4))
	if buf == nil {
		walkNamedCursor(n, func(c *sitter.Node) bool { return fn(c, c.Kind()) })
		return
	}
	defer C.free(buf)
	entries := (*C.gnEntry)(buf)
	open := (*C.uint32_t)(unsafe.Add(buf, uintptr(total)*C.sizeof_gnEntry))
	got := int(C.gn_collect(*(*C.gnNode)(unsafe.Pointer(n)), entries, open, cnt))
	es := unsafe.Slice(entries, got)
	for i := 0; i < got; {
		node := new(sitter.Node) // the callback may keep it; it must not point into buf
		*node = *(*sitter.Node)(unsafe.Pointer(&es[i].node))
		var kind string
		if sym := int(es[i].symbol); sym < len(kinds) {
			kind = kinds[sym]
		} else {
			kind = node.Kind()
		}
		if fn(node, kind) {
			i++
		} else {
			i = int(es[i].skip)
		}
	}
}

// kindTables caches each grammar's kind names by symbol id.
var kindTables sync.Map // unsafe.Pointer (TSLanguage) → []string

func kindNames(n *sitter.Node) []string {
	l := n.Language()
	key := unsafe.Pointer(l.Inner)
	if t, ok := kindTables.Load(key); ok {
		return t.([]string)
	}
	names := make([]string, l.NodeKindCount())
	for i := range names {
		names[i] = l.NodeKindForId(uint16(i))
	}
	kindTables.Store(key, names)
	return names
}
