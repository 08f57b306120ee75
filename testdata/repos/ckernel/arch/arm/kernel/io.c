#include <asm/io.h>

unsigned int arm_read_reg(const volatile void *addr)
{
	return arch_readl(addr);
}
