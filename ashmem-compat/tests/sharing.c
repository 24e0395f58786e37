// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing a region between processes, linked with each library of
 * <cutils/ashmem.h> (sharing_ashmem_test, sharing_volatile_test) with no
 * per-backend code for sharing itself: fork, SCM_RIGHTS to a process that
 * did not inherit the region, sixteen regions across fork, read() and
 * lseek() with SEEK_DATA / SEEK_HOLE, prot masks across fork, pins and
 * unpins of one process seen by another, and a region shared by two
 * processes in two memory cgroups.  Only what reclaim does differs
 * (ashmem-compat/README.md, difference D1): memory.reclaim purges
 * volatile regions, never ashmem's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cutils/ashmem.h>

#include "cgroup.h"
#include "fdpass.h"
#include "proc.h"
#include "tap.h"

#define MIB (1024UL * 1024)
#define PROT_RW (PROT_READ | PROT_WRITE)

static size_t page_size;
static bool compat;		/* linked with libashmem_compat */
static char cg[CG_PATH_MAX];

/* A byte that says which region, page and round it is. */
static char tag(int region, size_t page, int round)
{
	return (char)(1 + (region * 31 + page * 7 + round * 13) % 250);
}

static void fill(char *p, size_t pages, int region, int round)
{
	size_t i;

	for (i = 0; i < pages; i++)
		memset(p + i * page_size, tag(region, i, round), page_size);
}

/* Pages of @p that hold their tag. */
static size_t intact(const char *p, size_t pages, int region, int round)
{
	size_t i, n = 0;

	for (i = 0; i < pages; i++)
		n += p[i * page_size] == tag(region, i, round) &&
		     p[(i + 1) * page_size - 1] == tag(region, i, round);
	return n;
}

static int new_region(size_t pages, char **map)
{
	int fd = ashmem_create_region("lab-share", pages * page_size);

	*map = fd < 0 ? MAP_FAILED : ashmem_map_region(fd, PROT_RW);
	if (*map == MAP_FAILED)
		tap_bail("region of %zu pages: %s", pages, strerror(errno));
	return fd;
}

static void drop_region(int fd, char *map, size_t pages)
{
	ashmem_unmap_region(map, pages * page_size);
	close(fd);
}

/* Run @fn(@arg) in a child; its exit status, or -1 when it died. */
static int in_child(int (*fn)(void *), void *arg)
{
	int status = run_child(fn, arg);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct shared {
	int fd;
	char *map;
	size_t pages;
	int round;
};

static int fork_child(void *arg)
{
	struct shared *s = arg;

	if (!ashmem_valid(s->fd) ||
	    intact(s->map, s->pages, 0, s->round) != s->pages)
		return 1;
	fill(s->map, s->pages, 0, s->round + 1);
	return 0;
}

static void test_fork(void)
{
	struct shared s = { .pages = 4, .round = 1 };
	int r;

	s.fd = new_region(s.pages, &s.map);
	fill(s.map, s.pages, 0, 1);
	r = in_child(fork_child, &s);
	tap_result(r == 0 && intact(s.map, s.pages, 0, 2) == s.pages,
		   "fork: the child sees the parent's data, the parent the child's");
	drop_region(s.fd, s.map, s.pages);
}

/*
 * SCM_RIGHTS: a process forked before the region existed receives its fd
 * on a socket, maps it, checks and rewrites the data, unpins and pins.
 */
static void test_scm_rights(void)
{
	const size_t pages = 4;
	int sv[2], fd, status;
	char *p, ack;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		tap_bail("socketpair: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int rfd = fd_recv(sv[1]), bad = 0;
		char *q;

		if (rfd < 0 || !ashmem_valid(rfd) ||
		    ashmem_get_size_region(rfd) != (int)(pages * page_size))
			_exit(1);
		q = ashmem_map_region(rfd, PROT_RW);
		if (q == MAP_FAILED)
			_exit(2);
		bad |= (intact(q, pages, 3, 1) != pages) << 2;
		bad |= (ashmem_unpin_region(rfd, 0, 0) != 0) << 3;
		bad |= (ashmem_pin_region(rfd, 0, 0) != ASHMEM_NOT_PURGED) << 4;
		fill(q, pages, 3, 2);
		_exit(write(sv[1], "k", 1) == 1 ? bad : 5);
	}
	fd = new_region(pages, &p);
	fill(p, pages, 3, 1);
	fd_send(sv[0], fd);
	waitpid(pid, &status, 0);
	tap_result(read(sv[0], &ack, 1) == 1 && WIFEXITED(status) &&
		   WEXITSTATUS(status) == 0 && intact(p, pages, 3, 2) == pages,
		   "SCM_RIGHTS: a process that received the fd shares the data (status %#x)",
		   status);
	close(sv[0]);
	close(sv[1]);
	drop_region(fd, p, pages);
}

/* Sixteen regions across fork, each with its own data. */
struct sixteen {
	int fd[16];
	char *map[16];
};

static int sixteen_child(void *arg)
{
	struct sixteen *s = arg;
	int i, bad = 0;

	for (i = 0; i < 16; i++) {
		bad += intact(s->map[i], 2, 10 + i, 1) != 2;
		fill(s->map[i], 2, 10 + i, 2);
	}
	return bad;
}

static void test_sixteen(void)
{
	struct sixteen s;
	int i, r, bad = 0;

	for (i = 0; i < 16; i++) {
		s.fd[i] = new_region(2, &s.map[i]);
		fill(s.map[i], 2, 10 + i, 1);
	}
	r = in_child(sixteen_child, &s);
	for (i = 0; i < 16; i++) {
		bad += intact(s.map[i], 2, 10 + i, 2) != 2;
		drop_region(s.fd[i], s.map[i], 2);
	}
	tap_result(r == 0 && bad == 0,
		   "16 regions across fork: each shared, none mixed up (%d, %d)",
		   r, bad);
}

/* read() and lseek() on the fd, SEEK_DATA and SEEK_HOLE included. */
static void test_file_ops(void)
{
	const size_t pages = 4;
	char *p, buf[8];
	int fd = new_region(pages, &p);
	off_t data, hole, end;
	bool ok;

	memset(p + page_size, 'd', page_size);
	data = lseek(fd, 0, SEEK_DATA);
	hole = lseek(fd, page_size, SEEK_HOLE);
	end = lseek(fd, 0, SEEK_END);
	ok = lseek(fd, page_size + 3, SEEK_SET) == (off_t)page_size + 3 &&
	     read(fd, buf, sizeof(buf)) == sizeof(buf) &&
	     !memcmp(buf, "dddddddd", sizeof(buf)) &&
	     lseek(fd, 0, SEEK_CUR) == (off_t)page_size + 11;
	tap_result(ok && data == (off_t)page_size &&
		   hole == 2 * (off_t)page_size &&
		   end == (off_t)(pages * page_size),
		   "read() and lseek() on the fd: SEEK_DATA %lld, SEEK_HOLE %lld, SEEK_END %lld",
		   (long long)data, (long long)hole, (long long)end);
	drop_region(fd, p, pages);
}

/* The prot mask set before fork holds in the child. */
static int prot_child(void *arg)
{
	int fd = *(int *)arg;
	char *p = ashmem_map_region(fd, PROT_RW), *q;

	if (p != MAP_FAILED || errno != EPERM)
		return 1;
	q = ashmem_map_region(fd, PROT_READ);
	if (q == MAP_FAILED || q[0] != 'r')
		return 2;
	if (ashmem_set_prot_region(fd, PROT_RW) != -1 || errno != EINVAL)
		return 3;
	return 0;
}

static void test_prot_fork(void)
{
	const size_t pages = 2;
	char *p;
	int fd = new_region(pages, &p), r;

	memset(p, 'r', page_size);
	ashmem_unmap_region(p, pages * page_size);
	ashmem_set_prot_region(fd, PROT_READ);
	r = in_child(prot_child, &fd);
	tap_result(r == 0,
		   "a read-only prot mask holds across fork: PROT_WRITE EPERM, widening EINVAL (%d)",
		   r);
	close(fd);
}

/*
 * One process unpins, another pins: reclaim then purges nothing, and the
 * first process's data stays.  The other way round, memory.reclaim purges
 * a volatile region (D1) and both processes see the purge.
 */
static int pin_child(void *arg)
{
	struct shared *s = arg;

	return ashmem_pin_region(s->fd, 0, 0) == ASHMEM_NOT_PURGED ? 0 : 1;
}

static int unpin_child(void *arg)
{
	struct shared *s = arg;

	return ashmem_unpin_region(s->fd, 0, 0) ? 1 : 0;
}

static void test_pin_across(void)
{
	struct shared s = { 0 };
	int r1, r2, pin;
	size_t left;

	s.pages = 4 * MIB / page_size;
	s.fd = new_region(s.pages, &s.map);
	fill(s.map, s.pages, 4, 1);
	ashmem_unpin_region(s.fd, 0, 0);
	r1 = in_child(pin_child, &s);
	cg_write(cg, "memory.reclaim", "64M");
	pin = ashmem_pin_region(s.fd, 0, 0);
	tap_result(r1 == 0 && pin == ASHMEM_NOT_PURGED &&
		   intact(s.map, s.pages, 4, 1) == s.pages,
		   "unpinned here, pinned by another process: reclaim purges nothing");

	r2 = in_child(unpin_child, &s);
	cg_write(cg, "memory.reclaim", "64M");
	pin = ashmem_pin_region(s.fd, 0, 0);
	left = intact(s.map, s.pages, 4, 1);
	if (compat)
		tap_result(r2 == 0 && pin == ASHMEM_WAS_PURGED && left == 0,
			   "difference D1: unpinned by another process, purged by memory.reclaim, pin here says WAS_PURGED");
	else
		tap_result(r2 == 0 && pin == ASHMEM_NOT_PURGED &&
			   left == s.pages,
			   "difference D1: unpinned by another process, memory.reclaim does not purge ashmem");
	drop_region(s.fd, s.map, s.pages);
}

/*
 * A region whose pages a process in cgroup a wrote, shared with a process
 * in cgroup b that unpins it.  The pages are a's memory, so a's limit
 * purges them (volatile), and b's does not; ashmem: neither (D1).
 */
struct two {
	struct shared s;
	char a[CG_PATH_MAX], b[CG_PATH_MAX];
};

static int write_in_a(void *arg)
{
	struct two *t = arg;
	char *p;

	if (cg_enter(t->a))
		return 1;
	p = ashmem_map_region(t->s.fd, PROT_RW);
	if (p == MAP_FAILED)
		return 2;
	fill(p, t->s.pages, 5, 1);
	return 0;
}

static int unpin_in_b(void *arg)
{
	struct two *t = arg;

	if (cg_enter(t->b) || ashmem_unpin_region(t->s.fd, 0, 0))
		return 1;
	cg_write(t->b, "memory.reclaim", "64M");
	return intact(t->s.map, t->s.pages, 5, 1) == t->s.pages ? 0 : 2;
}

static void test_two_cgroups(void)
{
	struct two t = { 0 };
	int ra, rb, pin;
	size_t left;

	t.s.pages = 4 * MIB / page_size;
	if (cg_create("lab-api/share-a", t.a, sizeof(t.a)) ||
	    cg_create("lab-api/share-b", t.b, sizeof(t.b)))
		tap_bail("cgroups share-a, share-b: %s", strerror(errno));
	t.s.fd = ashmem_create_region("lab-two", t.s.pages * page_size);
	t.s.map = ashmem_map_region(t.s.fd, PROT_RW);
	if (t.s.map == MAP_FAILED)
		tap_bail("region: %s", strerror(errno));
	ra = in_child(write_in_a, &t);
	rb = in_child(unpin_in_b, &t);
	cg_write(t.a, "memory.reclaim", "64M");
	pin = ashmem_pin_region(t.s.fd, 0, 0);
	left = intact(t.s.map, t.s.pages, 5, 1);
	tap_diag("written in a, unpinned in b: b's reclaim left it (%d), after a's reclaim the pin says %d, %zu of %zu pages left",
		 rb, pin, left, t.s.pages);
	if (compat)
		tap_result(ra == 0 && rb == 0 && pin == ASHMEM_WAS_PURGED &&
			   left == 0,
			   "difference D1: the cgroup charged for the pages purges them, the unpinner's does not");
	else
		tap_result(ra == 0 && rb == 0 && pin == ASHMEM_NOT_PURGED &&
			   left == t.s.pages,
			   "difference D1: neither cgroup's reclaim purges ashmem");
	drop_region(t.s.fd, t.s.map, t.s.pages);
	cg_destroy(t.a);
	cg_destroy(t.b);
}

int main(void)
{
	char parent[CG_PATH_MAX], name[64];

	page_size = sysconf(_SC_PAGESIZE);
	compat = !strcmp(ashmem_backend(), "volatile");
	tap_plan(8);
	if (cg_create("lab-api", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory"))
		tap_bail("cannot create cgroup lab-api: %s", strerror(errno));
	snprintf(name, sizeof(name), "lab-api/share-%s", ashmem_backend());
	if (cg_create(name, cg, sizeof(cg)) || cg_enter(cg))
		tap_bail("cannot enter cgroup %s: %s", name, strerror(errno));
	tap_diag("backend %s", ashmem_backend());
	test_fork();
	test_scm_rights();
	test_sixteen();
	test_file_ops();
	test_prot_fork();
	test_pin_across();
	test_two_cgroups();
	return tap_finish();
}
