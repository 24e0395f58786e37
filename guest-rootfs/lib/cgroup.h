/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 helpers for in-guest tests and benchmarks.  Every function
 * returns -1 with errno set on failure and never exits.
 */
#ifndef LAB_CGROUP_H
#define LAB_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define CG_ROOT "/sys/fs/cgroup"
#define CG_PATH_MAX 256

/* Create (or reuse, when empty) CG_ROOT/@name; its path goes to @path. */
int cg_create(const char *name, char *path, size_t size);
int cg_destroy(const char *path);
int cg_write(const char *path, const char *file, const char *value);
int cg_write_u64(const char *path, const char *file, uint64_t value);
int cg_read(const char *path, const char *file, char *buf, size_t size);
int cg_read_u64(const char *path, const char *file, uint64_t *value);
/* The value of "@key N" in a flat-keyed file such as memory.events. */
int cg_read_key(const char *path, const char *file, const char *key,
		uint64_t *value);
/* Move the calling process into the cgroup. */
int cg_enter(const char *path);
/* The value of @key in /proc/vmstat. */
int vmstat_read(const char *key, uint64_t *value);

#endif /* LAB_CGROUP_H */
