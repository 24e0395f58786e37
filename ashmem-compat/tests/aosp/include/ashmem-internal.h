// SPDX-License-Identifier: GPL-2.0
/*
 * volatile-lab stand-in for libcutils' private "ashmem-internal.h", which
 * the newer versions of AOSP's ashmem_test.cpp include
 * (scripts/aosp-ashmem-test.sh).  Not Android's code.
 *
 * libcutils creates a region either on /dev/ashmem or, where the kernel
 * allows, as a sealed memfd, and the test runs its common tests both ways
 * ("Ashmem" and "Memfd").  Here the region is always the one the linked
 * library makes (libashmem_driver or libashmem_compat):
 *   - use_memfd() and has_memfd_support() are false, so the "Memfd"
 *     instances and the memfd-only fixtures (MemfdTest,
 *     AshmemTestMemfdAshmemCompat) are skipped: they check ashmem ioctls
 *     on a memfd, a kernel feature of Android's common kernels only;
 *   - __ashmem_create_region() is ashmem_create_region() of the linked
 *     library, so the "Ashmem" instances check that library;
 *   - __memfd_create_region() is never reached (use_memfd() is false)
 *     and fails with ENOSYS;
 *   - __ashmem_open() opens /dev/ashmem as libcutils does (one version's
 *     GetLongNameAshmemTests): it tests the driver, not the library.
 */
#ifndef VOLATILE_LAB_ASHMEM_INTERNAL_H
#define VOLATILE_LAB_ASHMEM_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

#include <cutils/ashmem.h>

static inline bool use_memfd() { return false; }
static inline bool has_memfd_support() { return false; }

static inline int __ashmem_create_region(const char *name, size_t size)
{
	return ashmem_create_region(name, size);
}

static inline int __memfd_create_region(const char *, size_t)
{
	errno = ENOSYS;
	return -1;
}

static inline int __ashmem_open()
{
	return open("/dev/ashmem", O_RDWR | O_CLOEXEC);
}

#endif // VOLATILE_LAB_ASHMEM_INTERNAL_H
