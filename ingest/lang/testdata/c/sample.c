#include <stdio.h>
#include "util/list.h"

/* A point in the plane. */
struct point {
    int x;
    int y;
};

typedef struct node {
    struct node *next;
    const char *name;
} node_t;

union value { int i; double d; };

enum color { RED, GREEN };

typedef int (*cmp_fn)(const void *, const void *);

static int counter;

// compare two ints
// used by qsort
static int cmp(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

/**
 * Sort and print.
 */
int sort_all(int *xs, size_t n, struct point *p) {
    node_t *head = make_node("x");
    qsort(xs, n, sizeof(int), cmp);
    head->next = NULL;
    list_push(&head, p);
    printf("%d\n", p->x);
    return helper(n);
}

char *make_node(const char *name) {
    return strdup(name);
}
