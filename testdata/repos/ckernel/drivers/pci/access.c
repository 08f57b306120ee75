#include <linux/pci.h>

/* Code outside arch/ reaches every architecture's pci_ops. */
int pci_bus_read(struct pci_ops *ops, int where)
{
	return ops->read(where);
}
