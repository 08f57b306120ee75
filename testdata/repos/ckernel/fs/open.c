#include <linux/fs.h>
#include "internal.h"

int fs_check_count(size_t count)
{
	return count > 4096;
}

int do_dentry_open(struct file *f, struct inode *inode)
{
	/* helper() is static in two other files: no edge. */
	helper();
	return f->f_op->open(inode, f);
}

ssize_t kernel_read(struct file *file, void *buf, size_t count, loff_t *pos)
{
	return vfs_read(file, buf, count, pos);
}
