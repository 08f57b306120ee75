#include <linux/filter.h>

/* The interpreter calls a helper through its proto's func. */
u64 bpf_call_helper(const struct bpf_func_proto *fn, u64 r1, u64 r2)
{
	return fn->func(r1, r2, 0, 0, 0);
}
