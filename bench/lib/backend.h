/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backends of the comparison, behind one interface (benchmarks.md):
 *   ashmem    ashmem_unpin_region / ashmem_pin_region on /dev/ashmem
 *   volatile  the same calls through ashmem-compat: a memfd whose pin and
 *             unpin are fallocate() volatile ranges of the file
 *   anon      MADV_VOLATILE / MADV_NONVOLATILE on a private anonymous
 *             mapping, no library (the anonymous engine)
 *   memfd     a sealed memfd whose pin and unpin do nothing: Android's
 *             libcutils on memfd today; never purged
 *   madvfree  MADV_FREE on unpin; on pin, a per-page canary
 *   pinned    nothing is ever released
 *   dontneed  MADV_DONTNEED on unpin: always purged
 *   droppable a MAP_DROPPABLE mapping (6.11): the kernel may drop any page,
 *             pinned or not, and it reads zeros then; unpin does nothing,
 *             pin checks a per-page canary, and nothing tells the cache
 *             of a drop between that check and its use of the data
 * ashmem and volatile are the two libraries of <cutils/ashmem.h>, so a
 * program is linked once per library (<prog>_ashmem, <prog>_volatile)
 * and each binary offers its own plus the five others.
 */
#ifndef LAB_BACKEND_H
#define LAB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

enum backend {
	BACKEND_ASHMEM,
	BACKEND_VOLATILE,
	BACKEND_MADVFREE,
	BACKEND_PINNED,
	BACKEND_DONTNEED,
	BACKEND_ANON,
	BACKEND_MEMFD,
	BACKEND_DROPPABLE,
};

#define BACKEND_NAMES \
	"ashmem, volatile, anon, memfd, madvfree, pinned, dontneed, droppable"

struct region {
	enum backend backend;
	int fd;			/* ashmem, volatile and memfd */
	char *map;
	size_t len;
};

/*
 * The backend called @name, or exit 2 with a message when it is unknown
 * or needs the other library of <cutils/ashmem.h> than this binary's.
 */
enum backend backend_parse(const char *prog, const char *name);
const char *backend_name(enum backend b);

/*
 * Whether the kernel may take pinned data of backend @b (droppable): a
 * cache of it must verify what it reads, and a mismatch is a drop, not
 * a correctness failure.
 */
bool backend_drops_pinned(enum backend b);

/* A mapped, pinned, zero-filled region of @len bytes; -1 and errno. */
int region_create(struct region *r, enum backend b, size_t len);
/* Bytes [@off, @off + @len) of the region; page aligned. */
int region_unpin(struct region *r, size_t off, size_t len);
/*
 * Unpin (@unpin) or pin the whole region with the one system call the
 * library ends in (ioctl for ashmem, fallocate for volatile, madvise for
 * anon), bypassing the library; as region_pin() for the result.  -1 and
 * EOPNOTSUPP for the other backends.
 */
int region_pin_kernel(struct region *r, bool unpin);
/*
 * 0 when the range kept its contents, 1 when some of it was purged,
 * -1 and errno on failure.  For madvfree the contents must have a
 * non-zero first word in every page (content_fill() does).
 */
int region_pin(struct region *r, size_t off, size_t len);
/*
 * Pages of bytes [@off, @off + @len) of the region resident in memory, by
 * mincore() (page aligned): what a purge has not (yet) freed, without
 * pinning or touching anything.  -1 and errno.
 */
long region_resident(const struct region *r, size_t off, size_t len);
void region_destroy(struct region *r);

#endif /* LAB_BACKEND_H */
