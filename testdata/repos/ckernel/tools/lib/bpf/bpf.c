#include "bpf.h"

static int sys_bpf(int cmd, void *attr)
{
	return cmd;
}

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	return sys_bpf(1, value);
}
