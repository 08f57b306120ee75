#include <linux/mm.h>

int set_brk(unsigned long start, unsigned long end)
{
	return vm_brk(start, end - start);
}
