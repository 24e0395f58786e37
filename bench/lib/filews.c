// SPDX-License-Identifier: GPL-2.0
/* An app's file-backed working set; see filews.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bench.h"
#include "cgroup.h"
#include "filews.h"
#include "zipf.h"

#define FILEWS_CHUNK (1UL << 20)

static void filews_path(char *buf, size_t size, const char *dir, long index)
{
	snprintf(buf, size, "%s/appbench-%ld.dat", dir, index);
}

int filews_check_dir(const char *dir)
{
	struct statfs sfs;
	struct stat st;

	if (stat(dir, &st) || statfs(dir, &sfs))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Write @len bytes of app @index's content to @fd from offset 0. */
static int filews_write(int fd, long index, size_t len)
{
	unsigned char *buf = malloc(FILEWS_CHUNK);
	size_t off, n;
	ssize_t done;

	if (!buf)
		return -1;
	for (off = 0; off < len; off += n) {
		n = len - off < FILEWS_CHUNK ? len - off : FILEWS_CHUNK;
		content_fill(buf, n, ((uint64_t)index << 32) + off);
		done = pwrite(fd, buf, n, off);
		if (done != (ssize_t)n) {
			if (done >= 0)
				errno = EIO;
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

int filews_prepare(const char *dir, long index, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret = -1;

	filews_path(path, sizeof(path), dir, index);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto out;
	/* Written once per boot; a file of another size is rewritten. */
	if ((size_t)st.st_size != len &&
	    (ftruncate(fd, len) || filews_write(fd, index, len)))
		goto out;
	/* Clean, then dropped: the run's first read is a read from disk. */
	if (fsync(fd))
		goto out;
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (!errno)
		ret = 0;
out:
	close(fd);
	return ret;
}

int filews_map(struct filews *f, const char *dir, long index, size_t len)
{
	char path[PATH_MAX];
	void *map;
	int fd;

	filews_path(path, sizeof(path), dir, index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	f->map = map;
	f->len = len;
	return 0;
}

static long majflt_now(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_majflt;
}

uint64_t filews_read(const struct filews *f, uint64_t *rng, long pages,
		     long *majflt)
{
	/* volatile: every read must be made, each is a fault to time. */
	const volatile unsigned char *p = f->map;
	size_t npages = f->len / page_size, i;
	long flt0 = majflt_now();
	uint64_t t0 = now_ns(), dt;
	unsigned int sink = 0;

	if (!rng) {
		for (i = 0; i < npages; i++)
			sink += p[i * page_size];
	} else {
		for (; pages > 0; pages--)
			sink += p[rng_next(rng) % npages * page_size];
	}
	dt = now_ns() - t0;
	*majflt += majflt_now() - flt0;
	(void)sink;
	return dt;
}

int filews_refaults(uint64_t *count)
{
	return vmstat_read("workingset_refault_file", count);
}
