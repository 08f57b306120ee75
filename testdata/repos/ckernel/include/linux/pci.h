#ifndef LINUX_PCI_H
#define LINUX_PCI_H

struct pci_ops {
	int (*read)(int where);
};

#endif
