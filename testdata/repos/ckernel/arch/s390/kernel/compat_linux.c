#include <linux/fs.h>

/* an architecture's compat entry to the same system call */
COMPAT_SYSCALL_DEFINE3(s390_read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}
