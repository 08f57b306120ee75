/* Another selftest program: usleep is libc's, not test_progs.c's. */
int main(void)
{
	usleep(10);
	return 0;
}
