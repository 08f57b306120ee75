#include <linux/device.h>
#include <linux/fs.h>

/* A sysfs attribute, a debugfs file and a work item, each defined by a macro. */
static ssize_t mode_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return 0;
}
static DEVICE_ATTR_RO(mode);

static int regs_show(struct seq_file *s, void *data)
{
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regs);

static void foo_poll(struct work_struct *work)
{
}
static DECLARE_WORK(foo_poll_work, foo_poll);

int foo_sysfs_probe(struct device *dev)
{
	debugfs_create_file("regs", 0444, 0, dev, &regs_fops);
	schedule_work(&foo_poll_work);
	return device_create_file(dev, &dev_attr_mode);
}

void foo_sysfs_remove(struct device *dev)
{
	cancel_work_sync(&foo_poll_work);
	device_remove_file(dev, &dev_attr_mode);
}
