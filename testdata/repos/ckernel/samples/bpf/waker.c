/* a sample program's function; nothing in the kernel includes or declares it */
void waker(int x)
{
}
