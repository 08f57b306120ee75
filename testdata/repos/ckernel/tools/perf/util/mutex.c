/* perf's user-space mutex: a program of its own (tools/ has its own include/). */
struct mutex { int lock; };

void mutex_init(struct mutex *mtx)
{
	mtx->lock = 0;
}
