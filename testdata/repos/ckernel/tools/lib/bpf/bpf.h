/* libbpf: the user-space side of the bpf() system call. */
#ifndef __LIBBPF_BPF_H
#define __LIBBPF_BPF_H

int bpf_map_lookup_elem(int fd, const void *key, void *value);

#endif
