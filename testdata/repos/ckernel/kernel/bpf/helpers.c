#include <linux/filter.h>

static int bpf_rcu_lock_held(void)
{
	return 1;
}

BPF_CALL_2(bpf_map_lookup_elem, struct bpf_map *, map, void *, key)
{
	if (!bpf_rcu_lock_held())
		return 0;
	return (unsigned long) map->ops->map_lookup_elem(map, key);
}

const struct bpf_func_proto bpf_map_lookup_elem_proto = {
	.func		= bpf_map_lookup_elem,
	.gpl_only	= 0,
};
