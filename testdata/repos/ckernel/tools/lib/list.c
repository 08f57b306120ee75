#include <linux/list.h>

void list_add(struct list_head *new, struct list_head *head)
{
	head->next = new;
}
