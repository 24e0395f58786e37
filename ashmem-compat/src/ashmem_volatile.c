// SPDX-License-Identifier: GPL-2.0
/*
 * <cutils/ashmem.h> over MADV_VOLATILE / MADV_NONVOLATILE.
 *
 * The kernel interface covers private anonymous memory only, so a region
 * is two things: a descriptor that names it, and one private anonymous
 * mapping that holds its pages.  The descriptor is a sealed, empty memfd:
 * it gives the region an fd that close() and fork() handle like any other
 * and an identity (device and inode) that a reused fd number cannot fake,
 * and it cannot be used as memory by mistake (writable shared mappings
 * are refused, any other access is beyond EOF).  Unpin marks pages of the
 * mapping volatile, pin marks them nonvolatile and reports a purge.
 *
 * When the kernel learns volatile shmem, the memfd can become the memory
 * itself (sized, mapped MAP_SHARED) and regions can be shared through
 * their fd; region_map() is the one place that changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/mman.h>

#include <cutils/ashmem.h>

#include "ashmem_range.h"

#ifndef MADV_VOLATILE
#error "MADV_VOLATILE missing: build against the lab's uapi headers"
#endif

#define ASHMEM_PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC)

/* memfd names are at most 249 bytes, this prefix included. */
#define MEMFD_PREFIX "ashmem:"
#define MEMFD_NAME_MAX 249

struct region {
	struct region *next;	/* every region, open or still mapped */
	int fd;			/* -1 once the fd is known to be closed */
	dev_t dev;		/* identity of the memfd behind fd */
	ino_t ino;
	size_t size;		/* as created, not rounded */
	size_t len;		/* size rounded up to pages */
	int prot_mask;
	char *map;		/* the one mapping, or NULL */
};

/*
 * Pin and unpin take the lock shared, so they run in parallel (the
 * kernel orders them on mmap_lock); everything that changes the table
 * takes it exclusive.
 */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct region *regions;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static size_t page_size;

static void before_fork(void)
{
	pthread_rwlock_wrlock(&table_lock);
}

static void after_fork_parent(void)
{
	pthread_rwlock_unlock(&table_lock);
}

/*
 * The child's only thread is not the writer the lock remembers (its tid
 * changed), so it gets a fresh lock over a table no thread is changing.
 */
static void after_fork_child(void)
{
	pthread_rwlock_t unlocked = PTHREAD_RWLOCK_INITIALIZER;

	table_lock = unlocked;
}

static void library_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static void init(void)
{
	pthread_once(&atfork_once, library_init);
}

/*
 * The region @fd names, or NULL with errno EBADF (not open) or ENOTTY
 * (open, but not a region of this library).  Table lock held.
 */
static struct region *lookup(int fd)
{
	struct region *r;
	struct stat st;

	if (fstat(fd, &st))
		return NULL;
	for (r = regions; r; r = r->next)
		if (r->fd == fd && r->dev == st.st_dev && r->ino == st.st_ino)
			return r;
	errno = ENOTTY;
	return NULL;
}

static void region_free(struct region *dead)
{
	struct region **link;

	for (link = &regions; *link; link = &(*link)->next)
		if (*link == dead) {
			*link = dead->next;
			break;
		}
	free(dead);
}

/*
 * Forget regions whose fd was closed (or now names something else):
 * unmapped ones go, mapped ones stay until ashmem_unmap_region(), as an
 * ashmem mapping outlives its fd.  Exclusive lock held.
 */
static void forget_closed(void)
{
	struct region *r, *next;
	struct stat st;

	for (r = regions; r; r = next) {
		next = r->next;
		if (r->fd < 0 || (!fstat(r->fd, &st) && st.st_dev == r->dev &&
				  st.st_ino == r->ino))
			continue;
		r->fd = -1;
		if (!r->map)
			region_free(r);
	}
}

int ashmem_valid(int fd)
{
	int saved = errno;
	bool valid;

	init();
	pthread_rwlock_rdlock(&table_lock);
	valid = lookup(fd) != NULL;
	pthread_rwlock_unlock(&table_lock);
	errno = saved;
	return valid;
}

static int new_memfd(const char *name)
{
	char memfd_name[MEMFD_NAME_MAX];
	int fd, seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
			F_SEAL_WRITE;

	snprintf(memfd_name, sizeof(memfd_name), MEMFD_PREFIX "%s",
		 name ? name : "");
	fd = memfd_create(memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_ADD_SEALS, seals)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int ashmem_create_region(const char *name, size_t size)
{
	struct region *r;
	struct stat st;
	int fd, saved;

	init();
	if (size > SIZE_MAX - page_size) {
		errno = EINVAL;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	fd = new_memfd(name);
	if (fd < 0 || fstat(fd, &st))
		goto fail;

	r->fd = fd;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->size = size;
	r->len = (size + page_size - 1) & ~(page_size - 1);
	r->prot_mask = ASHMEM_PROT_ALL;

	pthread_rwlock_wrlock(&table_lock);
	forget_closed();
	r->next = regions;
	regions = r;
	pthread_rwlock_unlock(&table_lock);
	return fd;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(r);
	errno = saved;
	return -1;
}

int ashmem_set_prot_region(int fd, int prot)
{
	struct region *r;
	int ret = -1;

	init();
	pthread_rwlock_wrlock(&table_lock);
	r = lookup(fd);
	if (!r)
		goto out;
	if ((prot & r->prot_mask) != prot) {
		errno = EINVAL;	/* protections can be taken away only */
		goto out;
	}
	if ((prot & PROT_READ) && (personality(0xffffffff) & READ_IMPLIES_EXEC))
		prot |= PROT_EXEC;
	/* As with ashmem, an existing mapping keeps its protections. */
	r->prot_mask = prot;
	ret = 0;
out:
	pthread_rwlock_unlock(&table_lock);
	return ret;
}

/*
 * Check a pin or unpin request as the ashmem driver does and turn it
 * into the bytes of the mapping it names; *@len 0 afterwards means the
 * request names no page.  Table lock held.
 */
static int region_range(struct region *r, size_t offset, size_t *len)
{
	if (!ashmem_range_fits(offset, *len))
		return -1;
	/* No mapping is like ashmem's "no backing file yet". */
	if (!r->map)
		goto invalid;
	if (!*len) {
		if (offset > r->len)
			goto invalid;
		*len = r->len - offset;
	}
	if ((offset | *len) & (page_size - 1))
		goto invalid;
	if ((uint64_t)offset + *len > UINT32_MAX || offset + *len > r->len)
		goto invalid;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

static int pin_unpin(int fd, size_t offset, size_t len, int advice)
{
	struct region *r;
	int ret = -1;

	init();
	pthread_rwlock_rdlock(&table_lock);
	r = lookup(fd);
	if (!r || region_range(r, offset, &len))
		goto out;
	ret = len ? madvise(r->map + offset, len, advice) : 0;
out:
	pthread_rwlock_unlock(&table_lock);
	return ret;
}

int ashmem_pin_region(int fd, size_t offset, size_t len)
{
	int ret = pin_unpin(fd, offset, len, MADV_NONVOLATILE);

	if (ret < 0)
		return ret;
	return ret ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
}

int ashmem_unpin_region(int fd, size_t offset, size_t len)
{
	return pin_unpin(fd, offset, len, MADV_VOLATILE);
}

int ashmem_get_size_region(int fd)
{
	struct region *r;
	int ret = -1;

	init();
	pthread_rwlock_rdlock(&table_lock);
	r = lookup(fd);
	if (r)
		ret = r->size;
	pthread_rwlock_unlock(&table_lock);
	return ret;
}

void *ashmem_map_region(int fd, int prot)
{
	struct region *r;
	void *map = MAP_FAILED;

	init();
	pthread_rwlock_wrlock(&table_lock);
	r = lookup(fd);
	if (!r)
		goto out;
	if (!r->len) {
		errno = EINVAL;		/* as mmap of a size-0 ashmem */
		goto out;
	}
	if (prot & ~r->prot_mask) {
		errno = EPERM;		/* as mmap outside the prot mask */
		goto out;
	}
	if (r->map) {
		errno = EBUSY;		/* one private mapping per region */
		goto out;
	}
	map = mmap(NULL, r->len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map != MAP_FAILED)
		r->map = map;
out:
	pthread_rwlock_unlock(&table_lock);
	return map;
}

int ashmem_unmap_region(void *addr, size_t len)
{
	struct region *r;
	int ret = -1;

	init();
	pthread_rwlock_wrlock(&table_lock);
	for (r = regions; r; r = r->next)
		if (r->map && r->map == addr)
			break;
	if (!r || len != r->len) {
		errno = EINVAL;		/* not a whole region mapping */
		goto out;
	}
	ret = munmap(r->map, r->len);
	if (ret)
		goto out;
	r->map = NULL;
	if (r->fd < 0)
		region_free(r);
out:
	pthread_rwlock_unlock(&table_lock);
	return ret;
}

const char *ashmem_backend(void)
{
	return "volatile";
}
