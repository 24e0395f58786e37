/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An app's file-backed working set: a file of its own, mapped read-only
 * and read page by page, on a filesystem whose clean pages reclaim can
 * drop and read back (a 9p share with cache=loose in the lab guest), so
 * that the apps' purgeable memory competes with the page cache as an
 * app's code and resources do on a phone.
 */
#ifndef LAB_FILEWS_H
#define LAB_FILEWS_H

#include <stddef.h>
#include <stdint.h>

struct filews {
	const unsigned char *map;	/* the mapping, NULL without a file */
	size_t len;
};

/*
 * 0 when @dir can hold working sets; -1 with errno set (ENOTDIR, or
 * EINVAL for tmpfs and ramfs, whose pages are no file's to drop).
 */
int filews_check_dir(const char *dir);

/*
 * Make @dir's file for app @index @len bytes long (written once, then
 * kept), written back and out of the page cache: every run starts cold.
 * 0, or -1 with errno set.
 */
int filews_prepare(const char *dir, long index, size_t len);

/* Map app @index's file; 0, or -1 with errno set. */
int filews_map(struct filews *f, const char *dir, long index, size_t len);

/*
 * Read one byte of every page (@rng NULL: the launch) or of @pages pages
 * picked at random with @rng; returns the nanoseconds it took and adds
 * the major faults it took to *@majflt.
 */
uint64_t filews_read(const struct filews *f, uint64_t *rng, long pages,
		     long *majflt);

/* The system's refaults of evicted file pages so far; 0, or -1. */
int filews_refaults(uint64_t *count);

#endif
