static inline unsigned int arch_readl(const volatile void *addr)
{
	return *(const volatile unsigned int *)addr;
}
