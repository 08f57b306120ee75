// The other driver's private struct of the same name.
struct stmx_pci_info {
	int (*setup)(int bus);
};

static int dwx_loongson_setup(int bus)
{
	return bus * 2;
}

static const struct stmx_pci_info loongson_info = {
	.setup = dwx_loongson_setup,
};

int dwx_pci_probe(const struct stmx_pci_info *info, int bus)
{
	return info->setup(bus);
}
