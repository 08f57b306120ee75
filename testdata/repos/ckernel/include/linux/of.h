#ifndef _LINUX_OF_H
#define _LINUX_OF_H

#include <linux/types.h>

struct device;

/* The option's functions and, in its #else, the stubs built without it. */
#ifdef CONFIG_OF
extern int of_property_count(const char *name);
static inline int of_machine_is_compatible(const char *compat)
{
	return of_property_count(compat) > 0;
}
#else
static inline int of_property_count(const char *name)
{
	return -1;
}
static inline int of_machine_is_compatible(const char *compat)
{
	return 0;
}
#endif

#if !IS_ENABLED(CONFIG_ACPI)
static inline int has_acpi_companion(struct device *dev)
{
	return 0;
}
#else
static inline int has_acpi_companion(struct device *dev)
{
	return of_property_count("acpi") > 0;
}
#endif

/* Only a stub: no definition of the option to prefer. */
#ifndef CONFIG_OF_DYNAMIC
static inline int of_overlay_remove(int id)
{
	return 0;
}
#endif

#endif
