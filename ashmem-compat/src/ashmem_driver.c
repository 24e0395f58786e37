// SPDX-License-Identifier: GPL-2.0
/*
 * <cutils/ashmem.h> over the /dev/ashmem driver, as libcutils does it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include <cutils/ashmem.h>

#include "ashmem_range.h"

#define ASHMEM_DEVICE "/dev/ashmem"

static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static dev_t device_rdev;
static int device_errno;

static void find_device(void)
{
	struct stat st;

	if (stat(ASHMEM_DEVICE, &st))
		device_errno = errno;
	else if (!S_ISCHR(st.st_mode))
		device_errno = ENODEV;
	else
		device_rdev = st.st_rdev;
}

/* 0 when @fd is an open /dev/ashmem; else -1, errno EBADF or ENOTTY. */
static int check_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	pthread_once(&device_once, find_device);
	if (device_errno || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != device_rdev) {
		errno = ENOTTY;
		return -1;
	}
	return 0;
}

int ashmem_valid(int fd)
{
	int saved = errno, valid = check_fd(fd) == 0;

	errno = saved;
	return valid;
}

int ashmem_create_region(const char *name, size_t size)
{
	char buf[ASHMEM_NAME_LEN];
	int fd, saved;

	fd = open(ASHMEM_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (name) {
		strncpy(buf, name, sizeof(buf) - 1);
		buf[sizeof(buf) - 1] = '\0';
		if (ioctl(fd, ASHMEM_SET_NAME, buf) < 0)
			goto fail;
	}
	if (ioctl(fd, ASHMEM_SET_SIZE, size) < 0)
		goto fail;
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int ashmem_set_prot_region(int fd, int prot)
{
	if (check_fd(fd))
		return -1;
	return ioctl(fd, ASHMEM_SET_PROT_MASK, (unsigned long)prot);
}

static int pin_ioctl(int fd, unsigned long cmd, size_t offset, size_t len)
{
	struct ashmem_pin pin;

	if (check_fd(fd) || !ashmem_range_fits(offset, len))
		return -1;
	pin.offset = offset;
	pin.len = len;
	return ioctl(fd, cmd, &pin);
}

int ashmem_pin_region(int fd, size_t offset, size_t len)
{
	return pin_ioctl(fd, ASHMEM_PIN, offset, len);
}

int ashmem_unpin_region(int fd, size_t offset, size_t len)
{
	return pin_ioctl(fd, ASHMEM_UNPIN, offset, len);
}

int ashmem_get_size_region(int fd)
{
	if (check_fd(fd))
		return -1;
	return ioctl(fd, ASHMEM_GET_SIZE, NULL);
}

void *ashmem_map_region(int fd, int prot)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int size = ashmem_get_size_region(fd);

	if (size < 0)
		return MAP_FAILED;
	/* Size 0 reaches the driver, which refuses it with EINVAL. */
	return mmap(NULL, ((size_t)size + page - 1) & ~(page - 1), prot,
		    MAP_SHARED, fd, 0);
}

int ashmem_unmap_region(void *addr, size_t len)
{
	return munmap(addr, len);
}

const char *ashmem_backend(void)
{
	return "ashmem";
}
