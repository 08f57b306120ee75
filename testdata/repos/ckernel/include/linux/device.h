#ifndef _DEVICE_H_
#define _DEVICE_H_

#include <linux/types.h>

struct device;

struct device_attribute {
	ssize_t (*show)(struct device *dev, struct device_attribute *attr, char *buf);
	ssize_t (*store)(struct device *dev, struct device_attribute *attr, const char *buf, size_t count);
};

#define DEVICE_ATTR_RO(_name) \
	struct device_attribute dev_attr_##_name = { .show = _name##_show }

extern int device_create_file(struct device *dev, const struct device_attribute *attr);

#endif
