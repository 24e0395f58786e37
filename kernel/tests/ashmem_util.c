// SPDX-License-Identifier: GPL-2.0
/* Helpers of the ashmem suites; see ashmem_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "ashmem_util.h"
#include "tap.h"
#include "vr_util.h"

int ash_open(size_t size)
{
	int fd = open("/dev/ashmem", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		tap_bail("open /dev/ashmem: %s", strerror(errno));
	if (size && ioctl(fd, ASHMEM_SET_SIZE, size))
		tap_bail("ASHMEM_SET_SIZE %zu: %s", size, strerror(errno));
	return fd;
}

char *ash_map(int fd, size_t len, int prot, int flags)
{
	char *p = mmap(NULL, len, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		tap_bail("mmap of an ashmem area: %s", strerror(errno));
	return p;
}

/* An area of @pages pages, mapped shared and filled with @seed's pattern. */
int ash_filled(size_t pages, unsigned int seed, char **map)
{
	int fd = ash_open(pages * page_size);

	*map = ash_map(fd, pages * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED);
	vr_fill(*map, pages, seed);
	return fd;
}

/* PIN, UNPIN or GET_PIN_STATUS on bytes; the ioctl's value or -errno. */
int ash_range(int fd, unsigned long cmd, uint32_t offset, uint32_t len)
{
	struct ashmem_pin pin = { .offset = offset, .len = len };
	int ret = ioctl(fd, cmd, &pin);

	return ret < 0 ? -errno : ret;
}

/* The same on pages. */
int ash_pages(int fd, unsigned long cmd, size_t first, size_t count)
{
	return ash_range(fd, cmd, first * page_size, count * page_size);
}

/* PURGE_ALL_CACHES through any area: pages it found on the LRU, or -errno. */
long purge_all_fd(int fd)
{
	long r = ioctl(fd, ASHMEM_PURGE_ALL_CACHES);

	return r < 0 ? -errno : r;
}
