#include <linux/fs.h>
#include "internal.h"

/* Same name as the static helper of drivers/foo/foo.c: never linked to it. */
static int helper(void)
{
	return 0;
}

ssize_t vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	if (!file_count(file) || helper())
		return -1;
	return file->f_op->read(file, buf, count, pos);
}

ssize_t ksys_read(unsigned int fd, char __user *buf, size_t count)
{
	struct file *f = fdget_file(fd);

	if (fs_check_count(count))
		return -1;
	return vfs_read(f, buf, count, 0);
}

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}
