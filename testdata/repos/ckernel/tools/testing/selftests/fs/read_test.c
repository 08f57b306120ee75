/* A selftest that borrows the kernel's types: it is not linked with the kernel. */
#include "../../../../include/linux/fs.h"

int read_test(void)
{
	return vfs_read(0, 0, 0, 0);
}
