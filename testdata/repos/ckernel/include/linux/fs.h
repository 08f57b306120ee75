#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/types.h>

struct file;

struct file_operations {
	ssize_t (*read) (struct file *, char __user *, size_t, loff_t *);
	int (*open) (struct inode *, struct file *);
};

struct file {
	const struct file_operations *f_op;
	unsigned int f_count;
};

/* A static inline helper: visible to every file that includes this header. */
static inline unsigned int file_count(struct file *f)
{
	return f->f_count;
}

extern ssize_t ksys_read(unsigned int fd, char __user *buf, size_t count);
extern ssize_t vfs_read(struct file *, char __user *, size_t, loff_t *);
extern int register_chrdev(unsigned int major, const char *name,
			   const struct file_operations *fops);

#endif
