/* Another driver's function that happens to share the macro's name. */
void wr32(void *hw, unsigned int reg, unsigned int val)
{
}
