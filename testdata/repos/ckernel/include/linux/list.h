#ifndef _LINUX_LIST_H
#define _LINUX_LIST_H

struct list_head { struct list_head *next, *prev; };

void list_add(struct list_head *new, struct list_head *head);

#endif
