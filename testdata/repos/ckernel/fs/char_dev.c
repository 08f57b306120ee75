#include <linux/fs.h>

int register_chrdev(unsigned int major, const char *name,
		    const struct file_operations *fops)
{
	return 0;
}

#include <linux/list.h>

static struct list_head chrdevs;

void chrdev_track(struct list_head *n)
{
	list_add(n, &chrdevs);
}
