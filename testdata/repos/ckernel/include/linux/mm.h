#ifndef _LINUX_MM_H
#define _LINUX_MM_H
/* Defined in mm/mmap.c or mm/nommu.c, depending on CONFIG_MMU. */
int vm_brk(unsigned long addr, unsigned long len);
#endif
