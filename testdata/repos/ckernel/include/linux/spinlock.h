#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

void raw_spin_unlock(int *lock);

/* The option's off branch does the work here: no stub. */
#ifndef CONFIG_PREEMPT_RT
static inline void spin_unlock_irqrestore(int *lock, unsigned long flags)
{
	raw_spin_unlock(lock);
}
#else
#include <linux/spinlock_rt.h>
#endif

#endif
