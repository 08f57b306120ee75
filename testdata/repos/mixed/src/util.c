#include <stdio.h>
#include "util.h"

/* Adds two numbers. */
int add(int a, int b) {
    return a + b;
}

static void log_sum(int s) {
    printf("%d\n", s);
}

struct point {
    int x, y;
};
