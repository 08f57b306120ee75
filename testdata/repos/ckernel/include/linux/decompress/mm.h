#ifndef DECOMPR_MM_H
#define DECOMPR_MM_H

/* The pre-boot decompressors' allocator. */
void free(void *where)
{
}

#endif
