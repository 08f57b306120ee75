package lang

/*
#include <stdlib.h>

// Declared by tree-sitter's api.h; defined in the go-tree-sitter package's
// C objects, which are linked into the same binary.
extern void ts_set_allocator(
	void *(*new_malloc)(size_t),
	void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t),
	void (*new_free)(void *));

static void gitnexus_ts_use_libc_allocator(void) {
	ts_set_allocator(malloc, calloc, realloc, free);
}
*/
import "C"

// The go-tree-sitter binding routes every allocation tree-sitter makes
// through Go callbacks (C → Go → C.malloc), which costs a cgo round trip per
// malloc and free and was about a fifth of parse time. Its default Go
// callbacks only call the libc allocator, so pointing tree-sitter straight
// at libc changes no memory ownership: every block is still malloc'd and
// free'd by libc. Nothing in gitnexus calls sitter.SetAllocator.
func init() {
	C.gitnexus_ts_use_libc_allocator()
}
