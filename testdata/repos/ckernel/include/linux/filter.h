#ifndef __LINUX_FILTER_H__
#define __LINUX_FILTER_H__

#include <linux/types.h>

struct bpf_map;

struct bpf_map_ops {
	void *(*map_lookup_elem)(struct bpf_map *map, void *key);
};

struct bpf_map {
	const struct bpf_map_ops *ops;
};

/* What the verifier knows of a BPF helper: the function it calls. */
struct bpf_func_proto {
	u64 (*func)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);
	int gpl_only;
};

/* BPF_CALL_n(name, type, arg, ...) defines the helper name (the real
 * macro also defines ____name, which holds the body). */
#define BPF_CALL_2(name, t1, a1, t2, a2) \
	u64 name(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)

#endif
