// A driver's own struct, private to this file: another driver defines
// a struct of the same name with the same member.
struct stmx_pci_info {
	int (*setup)(int bus);
};

static int stmx_quark_setup(int bus)
{
	return bus + 1;
}

static const struct stmx_pci_info quark_info = {
	.setup = stmx_quark_setup,
};

int stmx_pci_probe(const struct stmx_pci_info *info, int bus)
{
	return info->setup(bus);
}
