#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H
#define module_init(fn) int init_module(void) __attribute__((alias(#fn)));
#endif
