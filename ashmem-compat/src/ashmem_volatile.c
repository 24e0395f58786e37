// SPDX-License-Identifier: GPL-2.0
/*
 * <cutils/ashmem.h> over volatile ranges of memfd files.
 *
 * A region is a memfd, as in libcutils' memfd path: created with
 * MFD_CLOEXEC and sealed against growing and shrinking, mapped with
 * mmap(fd, MAP_SHARED), shared through fork(), SCM_RIGHTS and binder like
 * any fd, read with read() and lseek().  Unlike libcutils, whose pin and
 * unpin do nothing, unpin marks the range volatile with
 * fallocate(FALLOC_FL_MARK_VOLATILE | FALLOC_FL_VOLATILE_ZERO) and pin
 * takes it back with fallocate(FALLOC_FL_UNMARK_VOLATILE), which returns
 * 1 when any part of it was purged: one system call each (len 0, "to the
 * end", is F_GET_SEALS and ashmem's own ioctl, which the kernel answers
 * on memfd), and no state in the library, so every process that holds
 * the fd sees the same pin state and the same purges.
 * FALLOC_FL_VOLATILE_ZERO makes a purged page read zeros while unpinned,
 * as with ashmem.
 *
 * The prot mask is ashmem's: the lab kernel answers ASHMEM_SET_PROT_MASK
 * on a memfd and enforces the mask in mmap(), PROT_READ and PROT_EXEC
 * included.  Taking PROT_WRITE away also seals the memfd read-only
 * (F_SEAL_FUTURE_WRITE, F_SEAL_SEAL), as libcutils' memfd path does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>

#include <cutils/ashmem.h>

#include "ashmem_range.h"

#ifndef FALLOC_FL_MARK_VOLATILE
#error "FALLOC_FL_MARK_VOLATILE missing: build against the lab's uapi headers"
#endif

#define ASHMEM_PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC)

/* memfd names are at most 249 bytes; ashmem truncates its names too. */
#define MEMFD_NAME_MAX 249

/* The seals a region is created with, and those PROT_WRITE removal adds. */
#define REGION_SEALS (F_SEAL_GROW | F_SEAL_SHRINK)
#define READ_ONLY_SEALS (F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)

static size_t page_bytes(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * The seals of @fd when it is a region: a memfd that allows sealing and
 * carries REGION_SEALS.  Otherwise -1 with errno EBADF (not open) or
 * ENOTTY (open, not a region), as the ashmem ioctls fail.
 */
static int region_seals(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals >= 0 && (seals & REGION_SEALS) == REGION_SEALS)
		return seals;
	if (seals >= 0 || errno != EBADF)
		errno = ENOTTY;
	return -1;
}

/* The region's size, or -1 with errno. */
static off_t region_size(int fd)
{
	struct stat st;

	if (region_seals(fd) < 0 || fstat(fd, &st))
		return -1;
	return st.st_size;
}

int ashmem_valid(int fd)
{
	int saved = errno, valid = region_seals(fd) >= 0;

	errno = saved;
	return valid;
}

int ashmem_create_region(const char *name, size_t size)
{
	char memfd_name[MEMFD_NAME_MAX + 1];
	int fd, saved;

	if (size > INT32_MAX) {
		errno = EINVAL;	/* ashmem_get_size_region() returns an int */
		return -1;
	}
	snprintf(memfd_name, sizeof(memfd_name), "%s",
		 name && *name ? name : "none");
	fd = memfd_create(memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, size) || fcntl(fd, F_ADD_SEALS, REGION_SEALS)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int ashmem_set_prot_region(int fd, int prot)
{
	int seals = region_seals(fd);

	if (seals < 0)
		return -1;
	/* The kernel keeps ashmem's mask for the memfd, and enforces it. */
	if (ioctl(fd, ASHMEM_SET_PROT_MASK, (unsigned long)prot) < 0)
		return -1;
	/*
	 * A read-only region is also sealed read-only, as libcutils' memfd
	 * path does it, for receivers that check the seals.
	 */
	if ((prot & PROT_WRITE) ||
	    (seals & READ_ONLY_SEALS) == READ_ONLY_SEALS)
		return 0;
	return fcntl(fd, F_ADD_SEALS, READ_ONLY_SEALS) ? -1 : 0;
}

/*
 * The errno of a pin or unpin that failed with @err: EBADF or ENOTTY when
 * @fd is not a region, as ashmem's ioctls fail, else @err (EINVAL for a
 * range that the kernel refused, EBADF for an fd not open for writing,
 * EPERM for a region sealed against writes...).  Only failures pay for
 * this lookup.
 */
static int region_fail(int fd, int err)
{
	if (region_seals(fd) >= 0)
		errno = err;
	return -1;
}

/*
 * A pin (@unpin false) or an unpin of a region's range, checked as the
 * ashmem driver checks it: the range page-aligned, its end within the
 * region's size rounded up to pages, len 0 meaning "to the end".  Returns
 * 1 for a pin that found pages purged, 0, or -1 with ashmem's errno.
 *
 * An explicit range is one system call and nothing else, fallocate(): the
 * kernel checks the range against the file's size, and refuses the
 * volatile modes on every file that is not shmem (EOPNOTSUPP, ENODEV,
 * ESPIPE...) before it does anything, so the fd needs no fstat() or
 * F_GET_SEALS first; only a failure pays for looking at it.  The price:
 * an explicit range of any shmem file open for writing (an unsealed
 * memfd, a tmpfs file) is pinned and unpinned too, though ashmem_valid()
 * says the file is no region, as ashmem's ioctls on memfd do.
 *
 * len 0 needs the region's size, and glibc's fstat() is the slowest call
 * of the path on this kernel: newfstatat() with an empty path copies and
 * looks up the name (2.7 us against 1.2 for F_GET_SEALS, arm64 guest
 * under TCG).  ashmem's PIN and UNPIN ioctls, which the kernel answers on
 * memfd (patch 14), take len 0 as the driver does, so the library checks
 * that the fd is a region with F_GET_SEALS and leaves the end to the
 * kernel.  The check comes first because an ioctl number must not reach
 * an fd of another kind, whose driver may give it another meaning.  That
 * is also why an explicit range goes through fallocate(): both reach
 * volatile_file_fallocate(), and the ioctl saves only about 1.5% of a
 * pair (vfs_fallocate()'s freeze protection, security hook and fsnotify
 * event), far less than the check it would need first.
 *
 * Nothing about an fd is remembered between calls, so an fd number
 * closed and reused, or an fd received from another process, is looked
 * at afresh every time.
 */
static int region_pin_range(int fd, bool unpin, size_t offset, size_t len)
{
	struct ashmem_pin pin = { .offset = offset, .len = 0 };
	int ret;

	if (!ashmem_range_fits(offset, len) ||
	    (uint64_t)offset + len > UINT32_MAX)
		return region_fail(fd, EINVAL);
	if (!len) {
		if (region_seals(fd) < 0)
			return -1;
		return ioctl(fd, unpin ? ASHMEM_UNPIN : ASHMEM_PIN, &pin);
	}
	ret = fallocate(fd, unpin ? FALLOC_FL_MARK_VOLATILE |
			FALLOC_FL_VOLATILE_ZERO : FALLOC_FL_UNMARK_VOLATILE,
			offset, len);
	return ret < 0 ? region_fail(fd, errno) : ret;
}

int ashmem_pin_region(int fd, size_t offset, size_t len)
{
	int ret = region_pin_range(fd, false, offset, len);

	if (ret < 0)
		return -1;
	return ret ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
}

int ashmem_unpin_region(int fd, size_t offset, size_t len)
{
	return region_pin_range(fd, true, offset, len) ? -1 : 0;
}

int ashmem_get_size_region(int fd)
{
	off_t size = region_size(fd);

	return size < 0 ? -1 : (int)size;
}

void *ashmem_map_region(int fd, int prot)
{
	size_t page = page_bytes();
	off_t size = region_size(fd);

	if (size < 0)
		return MAP_FAILED;
	/* mmap() itself refuses a size of 0 (EINVAL) and PROT_WRITE on a
	 * region whose mask lacks it (EPERM), as ashmem does.
	 */
	return mmap(NULL, ((size_t)size + page - 1) & ~(page - 1), prot,
		    MAP_SHARED, fd, 0);
}

int ashmem_unmap_region(void *addr, size_t len)
{
	return munmap(addr, len);
}

const char *ashmem_backend(void)
{
	return "volatile";
}
