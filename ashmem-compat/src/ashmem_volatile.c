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
 * 1 when any part of it was purged: one system call each, and no state
 * in the library, so every process that holds the fd sees the same pin
 * state and the same purges.  FALLOC_FL_VOLATILE_ZERO makes a purged
 * page read zeros while unpinned, as with ashmem.
 *
 * The prot mask is ashmem's: the lab kernel answers ASHMEM_SET_PROT_MASK
 * on a memfd and enforces the mask in mmap(), PROT_READ and PROT_EXEC
 * included.  Taking PROT_WRITE away also seals the memfd read-only
 * (F_SEAL_FUTURE_WRITE, F_SEAL_SEAL), as libcutils' memfd path does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
 * Check a pin or unpin request as the ashmem driver does and turn it into
 * a byte range of the file; *@len 0 afterwards means no page.
 */
static int region_range(int fd, size_t offset, size_t *len)
{
	size_t page = page_bytes(), end;
	off_t size = region_size(fd);

	if (size < 0 || !ashmem_range_fits(offset, *len))
		return -1;
	end = ((size_t)size + page - 1) & ~(page - 1);
	if (!*len) {
		if (offset > end)
			goto invalid;
		*len = end - offset;
	}
	if ((offset | *len) & (page - 1))
		goto invalid;
	if ((uint64_t)offset + *len > UINT32_MAX || offset + *len > end)
		goto invalid;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

int ashmem_pin_region(int fd, size_t offset, size_t len)
{
	int ret;

	if (region_range(fd, offset, &len))
		return -1;
	if (!len)
		return ASHMEM_NOT_PURGED;
	ret = fallocate(fd, FALLOC_FL_UNMARK_VOLATILE, offset, len);
	if (ret < 0)
		return -1;
	return ret ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
}

int ashmem_unpin_region(int fd, size_t offset, size_t len)
{
	if (region_range(fd, offset, &len))
		return -1;
	if (!len)
		return 0;
	return fallocate(fd, FALLOC_FL_MARK_VOLATILE | FALLOC_FL_VOLATILE_ZERO,
			 offset, len) ? -1 : 0;
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
