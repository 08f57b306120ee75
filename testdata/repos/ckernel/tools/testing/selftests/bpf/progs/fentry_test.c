/* A BPF program: BPF_PROG(name, args...) defines the program name. */
#include "vmlinux.h"

static int check(int a)
{
	return a == 1;
}

int test1_result = 0;

SEC("fentry/bpf_fentry_test1")
int BPF_PROG(test1, int a)
{
	test1_result = check(a);
	return 0;
}

SEC("fexit/bpf_fentry_test2")
int BPF_PROG(test2, int a, __u64 b, int ret)
{
	test1_result = check(ret);
	return 0;
}
