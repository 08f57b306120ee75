/* perf calls libc's free: never the kernel's decompressor's. */
void annotate_free(void *p)
{
	free(p);
}
