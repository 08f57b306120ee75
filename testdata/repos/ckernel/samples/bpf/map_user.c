/* A user-space sample: it calls libbpf, not the kernel's BPF helper of the same name. */
#include <linux/filter.h>
#include <bpf/bpf.h>

int read_map(int fd)
{
	int key = 0, value;

	return bpf_map_lookup_elem(fd, &key, &value);
}
