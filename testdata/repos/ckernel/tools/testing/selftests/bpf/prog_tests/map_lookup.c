#include <bpf/bpf.h>

int env_verbosity(void);

void test_map_lookup(void)
{
	int v;

	usleep(1);
	env_verbosity();
	bpf_map_lookup_elem(3, 0, &v);
}
