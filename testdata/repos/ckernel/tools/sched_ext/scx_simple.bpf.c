/* A sched_ext scheduler: BPF_STRUCT_OPS(name, args...) defines the callback name. */
static void stat_inc(int idx)
{
}

void BPF_STRUCT_OPS(simple_enqueue, struct task_struct *p, u64 enq_flags)
{
	stat_inc(1);
}
