#ifndef _LINUX_SPINLOCK_RT_H
#define _LINUX_SPINLOCK_RT_H

void rt_spin_unlock(int *lock);

static inline void spin_unlock_irqrestore(int *lock, unsigned long flags)
{
	rt_spin_unlock(lock);
}

#endif
