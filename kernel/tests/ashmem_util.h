/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the ashmem suites (ashmem_test, ashmem_mode_test): areas of
 * /dev/ashmem, their ranges and PURGE_ALL_CACHES.  A failure to open or
 * map an area bails out of the suite.
 */
#ifndef LAB_ASHMEM_UTIL_H
#define LAB_ASHMEM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A new area of @size bytes (0: no size set). */
int ash_open(size_t size);
char *ash_map(int fd, size_t len, int prot, int flags);
/* An area of @pages pages, mapped shared and filled with @seed's pattern. */
int ash_filled(size_t pages, unsigned int seed, char **map);
/* PIN, UNPIN or GET_PIN_STATUS on bytes; the ioctl's value or -errno. */
int ash_range(int fd, unsigned long cmd, uint32_t offset, uint32_t len);
/* The same on pages. */
int ash_pages(int fd, unsigned long cmd, size_t first, size_t count);
/* PURGE_ALL_CACHES through any area: pages it found on the LRU, or -errno. */
long purge_all_fd(int fd);

#endif /* LAB_ASHMEM_UTIL_H */
