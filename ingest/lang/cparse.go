package lang

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

// Layout-identical copies of tree-sitter's TSPoint, TSInput, TSParseState
// and TSParseOptions (api.h, tree-sitter 0.25); ts_parser_parse_with_options
// is defined in the go-tree-sitter package's C objects.
typedef struct { uint32_t row; uint32_t column; } gnPoint;
typedef struct {
	void *payload;
	const char *(*read)(void *payload, uint32_t byte_index, gnPoint position, uint32_t *bytes_read);
	int encoding; // TSInputEncodingUTF8 = 0
	void *decode;
} gnInput;
typedef struct { void *payload; uint32_t current_byte_offset; bool has_error; } gnParseState;
typedef struct { void *payload; bool (*progress_callback)(gnParseState *state); } gnParseOptions;

extern void *ts_parser_parse_with_options(void *self, const void *old_tree, gnInput input, gnParseOptions options);

// gnParse is one parse's input and limits, on gn_parse's stack.
typedef struct {
	const char *src;
	uint32_t len;
	int64_t deadline; // CLOCK_MONOTONIC nanoseconds
	const int32_t *cancel;
	uint32_t calls;
	int timed_out;
} gnParse;

static int64_t gn_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// gn_read hands tree-sitter the rest of the source from byte_index on.
static const char *gn_read(void *payload, uint32_t byte_index, gnPoint position, uint32_t *bytes_read) {
	gnParse *p = payload;
	if (byte_index >= p->len) {
		*bytes_read = 0;
		return "";
	}
	*bytes_read = p->len - byte_index;
	return p->src + byte_index;
}

// gn_progress stops the parse (true) once *cancel is set or, checked every
// 64th call, the deadline has passed.
static bool gn_progress(gnParseState *state) {
	gnParse *p = state->payload;
	if (__atomic_load_n(p->cancel, __ATOMIC_RELAXED)) return true;
	if ((++p->calls & 63) == 0 && gn_now() > p->deadline) {
		p->timed_out = 1;
		return true;
	}
	return false;
}

// gn_parse parses src (len bytes) with parser, stopping once *cancel is set
// or timeout_ns has passed (*timed_out is then 1); NULL when stopped.
static void *gn_parse(void *parser, const char *src, uint32_t len, int64_t timeout_ns, const int32_t *cancel, int *timed_out) {
	gnParse p = { src, len, gn_now() + timeout_ns, cancel, 0, 0 };
	gnInput in = { &p, gn_read, 0, NULL };
	gnParseOptions opts = { &p, gn_progress };
	void *tree = ts_parser_parse_with_options(parser, NULL, in, opts);
	*timed_out = p.timed_out;
	return tree;
}
*/
import "C"

import (
	"context"
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// cParseOK says sitter.Parser and sitter.Tree are each the one pointer
// (to TSParser, TSTree) that parseC reads and writes; when they are not (a
// binding upgrade), Parse goes through the binding's ParseWithOptions.
var cParseOK = unsafe.Sizeof(sitter.Parser{}) == unsafe.Sizeof(uintptr(0)) &&
	unsafe.Sizeof(sitter.Tree{}) == unsafe.Sizeof(uintptr(0))

// parseC parses src with sp in one cgo call, without a call back into Go:
// the binding's ParseWithOptions calls Go for every chunk of input (copying
// it twice, into a Go string and into C memory kept to the parse's end) and
// every hundred parser operations for progress, which made tree-sitter's
// own C parse of the Linux kernel cost more than its grammar. The parse
// stops when ctx is done or timeout passes: nil, with timedOut for the
// latter. src must not change during the call.
func parseC(ctx context.Context, sp *sitter.Parser, src []byte, timeout time.Duration) (tree *sitter.Tree, timedOut bool) {
	if len(src) > math.MaxUint32 {
		return nil, true
	}
	// The flag a cancelled ctx sets lives in C memory: the parse reads it
	// from another thread. It is freed unless ctx's function may still
	// write it (it ran, or runs: the parse was cancelled).
	cancel := (*C.int32_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int32_t(0)))))
	if cancel == nil {
		return nil, false
	}
	stop := context.AfterFunc(ctx, func() { atomic.StoreInt32((*int32)(unsafe.Pointer(cancel)), 1) })
	var timed C.int
	var p *C.char
	if len(src) > 0 {
		p = (*C.char)(unsafe.Pointer(&src[0]))
	}
	inner := *(*unsafe.Pointer)(unsafe.Pointer(sp))
	t := C.gn_parse(inner, p, C.uint32_t(len(src)), C.int64_t(timeout.Nanoseconds()), cancel, &timed)
	if stop() {
		C.free(unsafe.Pointer(cancel))
	}
	if t == nil {
		return nil, timed != 0
	}
	tree = new(sitter.Tree)
	*(*unsafe.Pointer)(unsafe.Pointer(tree)) = t
	return tree, false
}
