#include <linux/fs.h>
#include <linux/module.h>

/* Same name as the static helper of fs/read_write.c. */
static int helper(void)
{
	return 1;
}

static ssize_t foo_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	return helper();
}

static int foo_open(struct inode *inode, struct file *file)
{
	return 0;
}

static irqreturn_t foo_irq(int irq, void *dev)
{
	return 0;
}

static const struct file_operations foo_fops = {
	.owner = THIS_MODULE,
	.read = foo_read,
	.open = foo_open,
};

static struct mutex foo_lock;

static int foo_init(void)
{
	/* a macro in the kernel: never perf's mutex_init */
	mutex_init(&foo_lock);
	if (request_irq(1, foo_irq, 0, "foo", 0))
		add_taint_quiet(1);
	return register_chrdev(0, "foo", &foo_fops);
}
module_init(foo_init);

struct foo_dev { int waker; };

/* waker is a member name given to a macro here, not the sample's function */
int foo_wake(int *p)
{
	struct foo_dev *d = container_of(p, struct foo_dev, waker);
	return d->waker;
}

static void foo_exit(void)
{
	/* takes the handler back: no callback handed over */
	free_irq(1, foo_irq);
}
module_exit(foo_exit);
