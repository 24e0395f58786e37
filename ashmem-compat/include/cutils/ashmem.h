/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Android's libcutils ashmem API, the one header of both volatile-lab
 * implementations:
 *   libashmem_driver: over the /dev/ashmem driver (the baseline);
 *   libashmem_compat: over MADV_VOLATILE / MADV_NONVOLATILE.
 * A client is compiled once against this header and linked with either.
 *
 * The six libcutils functions keep Android's signatures, return values
 * and errno conventions: -1 and errno on failure, EBADF for a descriptor
 * that is not open, ENOTTY for one that is not a region.  Offsets and
 * lengths are bytes, page aligned, and must fit in 32 bits (EINVAL
 * otherwise, where libcutils would silently truncate them).
 */
#ifndef CUTILS_ASHMEM_H
#define CUTILS_ASHMEM_H

#include <stddef.h>

#ifndef ASHMEM_NOT_PURGED
/* ashmem_pin_region() results, as in <linux/ashmem.h>. */
#define ASHMEM_NOT_PURGED	0
#define ASHMEM_WAS_PURGED	1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when @fd is a region of this implementation, else 0. */
int ashmem_valid(int fd);
/* A new region of @size bytes, pinned; its fd (FD_CLOEXEC) or -1. */
int ashmem_create_region(const char *name, size_t size);
/* Narrow the protections mappings of the region may have (EINVAL to add). */
int ashmem_set_prot_region(int fd, int prot);
/* ASHMEM_WAS_PURGED if any page of the range had been purged, else
 * ASHMEM_NOT_PURGED; @len 0 means "to the end of the region".
 */
int ashmem_pin_region(int fd, size_t offset, size_t len);
/* Let the kernel purge the range under memory pressure; 0 on success. */
int ashmem_unpin_region(int fd, size_t offset, size_t len);
/* The size given at creation. */
int ashmem_get_size_region(int fd);

/*
 * volatile-lab extensions, implemented by both libraries.
 *
 * ashmem_map_region() maps the whole region (its size rounded up to
 * pages) with @prot and returns the address, or MAP_FAILED and errno.
 * Clients of libashmem_compat must map through it: see README.md.
 * ashmem_unmap_region() undoes it; @len is the mapping's length.
 * ashmem_backend() names the implementation: "ashmem" or "volatile".
 */
void *ashmem_map_region(int fd, int prot);
int ashmem_unmap_region(void *addr, size_t len);
const char *ashmem_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* CUTILS_ASHMEM_H */
