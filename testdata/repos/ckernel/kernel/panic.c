/* Declared in no header: callers reach it by its unique global name. */
void add_taint_quiet(unsigned int flag)
{
}
