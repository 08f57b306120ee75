#include "regs.h"

/* wr32 is this driver's macro: never irdx's function of that name. */
int igbx_reset(int reg)
{
	wr32(reg, 0);
	return 0;
}
