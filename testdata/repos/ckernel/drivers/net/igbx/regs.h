#ifndef IGBX_REGS_H
#define IGBX_REGS_H

/* igbx writes its registers through a macro of its own. */
#define wr32(reg, val) writel((val), (reg))

#endif
