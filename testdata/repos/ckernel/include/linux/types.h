#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
typedef long ssize_t;
typedef unsigned long size_t;
typedef long long loff_t;
#define __user
#endif
