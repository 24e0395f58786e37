// SPDX-License-Identifier: GPL-2.0
/* The backends of the comparison; see backend.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>
#include <linux/mman.h>

#include <cutils/ashmem.h>

#include "backend.h"
#include "bench.h"

/* 6.11's uapi value: the lab's headers are 6.1's, which do not have it. */
#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif

static const char *const names[] = {
	[BACKEND_ASHMEM] = "ashmem",
	[BACKEND_VOLATILE] = "volatile",
	[BACKEND_MADVFREE] = "madvfree",
	[BACKEND_PINNED] = "pinned",
	[BACKEND_DONTNEED] = "dontneed",
	[BACKEND_ANON] = "anon",
	[BACKEND_MEMFD] = "memfd",
	[BACKEND_DROPPABLE] = "droppable",
};

const char *backend_name(enum backend b)
{
	return names[b];
}

enum backend backend_parse(const char *prog, const char *name)
{
	size_t b;

	for (b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
		if (strcmp(name, names[b]))
			continue;
		if ((b == BACKEND_ASHMEM || b == BACKEND_VOLATILE) &&
		    strcmp(name, ashmem_backend()))
			usage_error(prog, "backend %s needs the binary linked with its library (this one has %s)",
				    name, ashmem_backend());
		return b;
	}
	usage_error(prog, "unknown backend '%s' (one of: %s)", name,
		    BACKEND_NAMES);
}

bool backend_drops_pinned(enum backend b)
{
	return b == BACKEND_DROPPABLE;
}

static bool uses_cutils(const struct region *r)
{
	return r->backend == BACKEND_ASHMEM || r->backend == BACKEND_VOLATILE;
}

/* As libcutils' memfd path creates a region: sized, then sealed. */
static int memfd_region(struct region *r)
{
	int saved;

	r->fd = memfd_create("lab-bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (r->fd < 0)
		return -1;
	if (ftruncate(r->fd, r->len) ||
	    fcntl(r->fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK))
		goto fail;
	r->map = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, 0);
	if (r->map != MAP_FAILED)
		return 0;
fail:
	saved = errno;
	close(r->fd);
	errno = saved;
	return -1;
}

int region_create(struct region *r, enum backend b, size_t len)
{
	r->backend = b;
	r->fd = -1;
	r->len = (len + page_size - 1) & ~(page_size - 1);
	if (uses_cutils(r)) {
		r->fd = ashmem_create_region("lab-bench", r->len);
		if (r->fd < 0)
			return -1;
		r->map = ashmem_map_region(r->fd, PROT_READ | PROT_WRITE);
		if (r->map == MAP_FAILED) {
			int saved = errno;

			close(r->fd);
			errno = saved;
			return -1;
		}
		return 0;
	}
	if (r->backend == BACKEND_MEMFD)
		return memfd_region(r);
	r->map = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
		      (r->backend == BACKEND_DROPPABLE ? MAP_DROPPABLE :
							MAP_PRIVATE) |
		      MAP_ANONYMOUS, -1, 0);
	if (r->map != MAP_FAILED)
		return 0;
	/* A kernel before 6.11 has no such mapping type. */
	if (r->backend == BACKEND_DROPPABLE && errno == EINVAL)
		fprintf(stderr, "MAP_DROPPABLE refused (EINVAL): it needs Linux 6.11 or later\n");
	return -1;
}

/*
 * The system call that region_unpin() (@unpin) or region_pin() of the
 * whole region ends in, made directly: the kernel's share of the cost,
 * without the library's checks and lookups.  ashmem and volatile only.
 */
int region_pin_kernel(struct region *r, bool unpin)
{
	struct ashmem_pin pin = { .offset = 0, .len = r->len };

	switch (r->backend) {
	case BACKEND_ASHMEM:
		return ioctl(r->fd, unpin ? ASHMEM_UNPIN : ASHMEM_PIN, &pin);
	case BACKEND_VOLATILE:
		return fallocate(r->fd, unpin ? FALLOC_FL_MARK_VOLATILE |
					FALLOC_FL_VOLATILE_ZERO :
					FALLOC_FL_UNMARK_VOLATILE, 0, r->len);
	case BACKEND_ANON:
		return madvise(r->map, r->len,
			       unpin ? MADV_VOLATILE : MADV_NONVOLATILE);
	default:
		errno = EOPNOTSUPP;
		return -1;
	}
}

int region_unpin(struct region *r, size_t off, size_t len)
{
	switch (r->backend) {
	case BACKEND_ASHMEM:
	case BACKEND_VOLATILE:
		return ashmem_unpin_region(r->fd, off, len);
	case BACKEND_MADVFREE:
		return madvise(r->map + off, len, MADV_FREE);
	case BACKEND_DONTNEED:
		return madvise(r->map + off, len, MADV_DONTNEED);
	case BACKEND_ANON:
		return madvise(r->map + off, len, MADV_VOLATILE);
	case BACKEND_PINNED:
	case BACKEND_MEMFD:
	case BACKEND_DROPPABLE:
		break;
	}
	return 0;
}

/*
 * MAP_DROPPABLE's pin: a dropped page reads zeros, so a zero first word
 * is a drop.  Dirtying the page (as madvfree_pin() does) would not keep
 * it: the kernel drops dirty droppable pages too.
 */
static int droppable_pin(struct region *r, size_t off, size_t len)
{
	int purged = 0;
	size_t o;

	for (o = off; o < off + len; o += page_size)
		if (!__atomic_load_n((uint64_t *)(r->map + o),
				     __ATOMIC_RELAXED))
			purged = 1;
	return purged;
}

/*
 * MADV_FREE's pin: the kernel discards only clean pages, and a discarded
 * page reads zeros.  A compare-and-swap of each page's first word with
 * itself checks that the page is still there and, in the same store,
 * dirties it so that it stays; checking and then writing would let a
 * discard slip in between and turn the page into a zero page with one
 * stale word.
 */
static int madvfree_pin(struct region *r, size_t off, size_t len)
{
	int purged = 0;
	size_t o;

	for (o = off; o < off + len; o += page_size) {
		uint64_t *word = (uint64_t *)(r->map + o);
		uint64_t seen = __atomic_load_n(word, __ATOMIC_RELAXED);

		if (!seen ||
		    !__atomic_compare_exchange_n(word, &seen, seen, false,
						 __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			purged = 1;
	}
	return purged;
}

int region_pin(struct region *r, size_t off, size_t len)
{
	switch (r->backend) {
	case BACKEND_ASHMEM:
	case BACKEND_VOLATILE:
		return ashmem_pin_region(r->fd, off, len);
	case BACKEND_MADVFREE:
		return madvfree_pin(r, off, len);
	case BACKEND_DROPPABLE:
		return droppable_pin(r, off, len);
	case BACKEND_DONTNEED:
		return 1;
	case BACKEND_ANON:
		return madvise(r->map + off, len, MADV_NONVOLATILE);
	case BACKEND_PINNED:
	case BACKEND_MEMFD:
		break;
	}
	return 0;
}

long region_resident(const struct region *r, size_t off, size_t len)
{
	size_t pages = len / page_size, i;
	unsigned char *vec = malloc(pages ? pages : 1);
	long resident = 0;

	if (!vec)
		return -1;
	if (mincore(r->map + off, len, vec)) {
		int saved = errno;

		free(vec);
		errno = saved;
		return -1;
	}
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

void region_destroy(struct region *r)
{
	if (uses_cutils(r)) {
		ashmem_unmap_region(r->map, r->len);
		close(r->fd);
	} else {
		munmap(r->map, r->len);
		if (r->fd >= 0)
			close(r->fd);
	}
	r->map = NULL;
}
