#include <linux/pci.h>

static int riscv_pci_read(int where)
{
	return where + 1;
}

static const struct pci_ops riscv_pci_ops = {
	.read = riscv_pci_read,
};
