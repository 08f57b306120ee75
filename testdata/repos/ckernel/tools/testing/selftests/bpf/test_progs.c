/* The bpf selftests' runner: its own usleep, for its programs only. */
int usleep(unsigned int usec)
{
	return usec ? 0 : -1;
}

int env_verbosity(void)
{
	return 1;
}
