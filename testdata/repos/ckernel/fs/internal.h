/* fs-private declarations, included as "internal.h" */
int fs_check_count(size_t count);
