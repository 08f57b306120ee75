#include <linux/of.h>
#include <linux/spinlock.h>

static int foo_lock;

static int foo_of_probe(struct device *dev)
{
	if (!of_machine_is_compatible("foo,bar"))
		return -1;
	if (has_acpi_companion(dev))
		return 0;
	spin_unlock_irqrestore(&foo_lock, 0);
	of_overlay_remove(0);
	return of_property_count("foo");
}
