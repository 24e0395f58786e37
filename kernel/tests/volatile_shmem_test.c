// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_shmem_test: volatile ranges of shmem files (memfd), shared by
 * every process that holds the file.
 *
 * fallocate(FALLOC_FL_MARK_VOLATILE) on the fd, or MADV_VOLATILE on a
 * MAP_SHARED mapping, lets reclaim purge the range; FALLOC_FL_UNMARK_VOLATILE
 * (or MADV_NONVOLATILE) takes it back and returns 1 when any part of it
 * was purged.  Every error case checks its errno and that nothing changed
 * (the data, and the Volatile: line of /proc/meminfo).  The purge cases run
 * in whatever memory configuration the guest booted with (make check runs
 * the suite without swap, with the multi-gen LRU, with zram swap and with
 * both): volatile pages must be purged and never swapped.  The test runs in
 * the cgroup lab-vshmem/main; other cases use lab-vshmem/a, lab-vshmem/b,
 * lab-vshmem/limit and lab-vshmem/oom-hogs.  The oom_* cases (vr_oom_test())
 * need 4 vCPUs and end in global OOM kills of processes of their own.
 *
 *   volatile_shmem_test [--skip NAME]... [NAME]...
 *
 * runs the named tests (every test when none is named) less the skipped
 * ones; --list prints the names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>

#include "cgroup.h"
#include "proc.h"
#include "tap.h"
#include "vr_util.h"

#define MIB (1024UL * 1024UL)
#define MARK FALLOC_FL_MARK_VOLATILE
#define UNMARK FALLOC_FL_UNMARK_VOLATILE
#define ZERO FALLOC_FL_VOLATILE_ZERO

static char cg[CG_PATH_MAX];

/* A memfd of @pages pages, mapped shared at *@map (when @map). */
static int region(size_t pages, char **map)
{
	int fd = memfd_create("vshmem", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, pages * page_size))
		tap_bail("memfd of %zu pages: %s", pages, strerror(errno));
	if (map) {
		*map = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (*map == MAP_FAILED)
			tap_bail("mmap memfd: %s", strerror(errno));
	}
	return fd;
}

static void unregion(int fd, char *map, size_t pages)
{
	if (map)
		munmap(map, pages * page_size);
	close(fd);
}

/* fallocate() of a page range, returning -errno on failure. */
static int vfalloc(int fd, int mode, size_t first, size_t pages)
{
	int r = fallocate(fd, mode, first * page_size, pages * page_size);

	return r < 0 ? -errno : r;
}

static int mark(int fd, size_t first, size_t pages)
{
	return vfalloc(fd, MARK, first, pages);
}

static int unmark(int fd, size_t first, size_t pages)
{
	return vfalloc(fd, UNMARK, first, pages);
}

/* ioctl() returning -errno on failure. */
static long xioctl(int fd, unsigned long cmd, unsigned long arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static long pin_cmd(int fd, unsigned long cmd, size_t first, size_t pages)
{
	struct ashmem_pin pin = {
		.offset = first * page_size,
		.len = pages * page_size,
	};

	return xioctl(fd, cmd, (unsigned long)&pin);
}

/* What memory.reclaim of the test's cgroup did. */
struct reclaim_delta {
	uint64_t purged;	/* pgvolatile_purged */
	uint64_t swapped;	/* pswpout */
	bool valid;
};

static struct reclaim_delta reclaim_in(const char *cgroup, uint64_t bytes)
{
	uint64_t purged = vr_purged_counter(), swapped = 0, swapped_after = 0;
	struct reclaim_delta d;
	int err = vmstat_read("pswpout", &swapped);

	vr_reclaim(cgroup, bytes);
	err |= vmstat_read("pswpout", &swapped_after);
	d.purged = vr_purged_counter() - purged;
	d.swapped = swapped_after - swapped;
	d.valid = purged != UINT64_MAX && !err;
	return d;
}

/* Count how many pages of @fd read zero through read(). */
static size_t zero_pages_by_read(int fd, size_t pages)
{
	char *buf = malloc(page_size);
	size_t i, zero = 0, j;

	if (!buf)
		tap_bail("malloc");
	for (i = 0; i < pages; i++) {
		if (pread(fd, buf, page_size, i * page_size) !=
		    (ssize_t)page_size)
			continue;
		for (j = 0; j < page_size && !buf[j]; j++)
			;
		zero += j == page_size;
	}
	free(buf);
	return zero;
}

/*
 * fallocate(@call_fd, @mode, @off, @len) fails with @err and changes
 * nothing in the region @fd, mapped at @p.
 */
static void expect_error_fd(const char *what, int call_fd, int fd, char *p,
			    size_t size, int mode, off_t off, off_t len,
			    int err)
{
	long before = vr_volatile_kb();
	int r = fallocate(call_fd, mode, off, len) < 0 ? -errno : 0;
	long after = vr_volatile_kb();

	tap_result(r == -err && before == after &&
		   vr_check(p, size, 21).intact == size &&
		   unmark(fd, 0, size) == 0,
		   "%s: %s (got %s), nothing changed", what, strerror(err),
		   strerror(-r));
}

static void expect_error(const char *what, int fd, char *p, size_t size,
			 int mode, off_t off, off_t len, int err)
{
	expect_error_fd(what, fd, fd, p, size, mode, off, len, err);
}

static void test_errors(void)
{
	const size_t pages = 8;
	char *p;
	int fd = region(pages, &p), ro;
	char path[64];

	vr_fill(p, pages, 21);
	expect_error("unaligned offset", fd, p, pages, MARK, 1, page_size,
		     EINVAL);
	expect_error("length not a page multiple", fd, p, pages, MARK, 0,
		     page_size + 1, EINVAL);
	expect_error("range beyond the last page", fd, p, pages, MARK, 0,
		     (pages + 1) * page_size, EINVAL);
	expect_error("MARK with UNMARK", fd, p, pages, MARK | UNMARK, 0,
		     page_size, EINVAL);
	expect_error("MARK with KEEP_SIZE", fd, p, pages,
		     MARK | FALLOC_FL_KEEP_SIZE, 0, page_size, EINVAL);
	expect_error("ZERO alone", fd, p, pages, ZERO, 0, page_size, EINVAL);
	expect_error("UNMARK with ZERO", fd, p, pages, UNMARK | ZERO, 0,
		     page_size, EINVAL);
	expect_error("UNMARK beyond the last page", fd, p, pages, UNMARK, 0,
		     (pages + 1) * page_size, EINVAL);
	expect_error("length 0", fd, p, pages, MARK, 0, 0, EINVAL);

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	expect_error_fd("fd open read-only", ro, fd, p, pages, MARK, 0,
			page_size, EBADF);
	close(ro);

	/* Through a mapping: the range must lie in one shared mapping. */
	{
		char *q = mmap(NULL, 2 * pages * page_size,
			       PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		long before = vr_volatile_kb();
		int r;

		/* p and q are separate VMAs: cross from one to a hole. */
		r = vr_madvise(p + (pages - 1) * page_size, 2 * page_size,
			       MADV_VOLATILE);
		tap_result((r == -EINVAL || r == -ENOMEM) &&
			   vr_volatile_kb() == before &&
			   vr_check(p, pages, 21).intact == pages,
			   "MADV_VOLATILE past the end of a shared mapping fails (%s), nothing changed",
			   strerror(-r));
		mlock(q, page_size);
		r = vr_madvise(q, page_size, MADV_VOLATILE);
		tap_result(r == -EINVAL && vr_volatile_kb() == before,
			   "MADV_VOLATILE on an mlocked shared mapping: EINVAL, nothing changed");
		munmap(q, 2 * pages * page_size);
	}
	unregion(fd, p, pages);
}

/* Marking and unmarking without pressure keeps the data; accounting. */
static void test_no_pressure(void)
{
	const size_t pages = 1024;
	long base = vr_volatile_kb(), marked, overlap, unmarked;
	char *p;
	int fd = region(pages, &p), r1, r2, r3;

	vr_fill(p, pages, 22);
	r1 = mark(fd, 0, pages);
	marked = vr_volatile_kb();
	/* Marking again, and overlapping, does not count twice. */
	r2 = mark(fd, pages / 4, pages / 2) | vfalloc(fd, MARK | ZERO, 0, 1);
	overlap = vr_volatile_kb();
	r3 = unmark(fd, 0, pages);
	unmarked = vr_volatile_kb();
	tap_result(r1 == 0 && r2 == 0 && r3 == 0 &&
		   vr_check(p, pages, 22).intact == pages,
		   "mark, mark again, unmark: 0, 0, 0 and the data intact");
	tap_result(marked - base == (long)(pages * page_size / 1024) &&
		   overlap == marked && unmarked == base,
		   "meminfo Volatile: +%ld kB marked, %ld after overlap, %+ld unmarked",
		   marked - base, overlap - base, unmarked - base);
	/* Closing the last reference drops the ranges. */
	mark(fd, 0, pages);
	unregion(fd, p, pages);
	tap_result(vr_volatile_kb() == base,
		   "closing a file with volatile ranges drops them (%+ld kB)",
		   vr_volatile_kb() - base);
}

/* Purge by memory.reclaim: SIGBUS, read() zeros, UNMARK reports it. */
static void test_reclaim_purge(void)
{
	const size_t pages = 32 * MIB / page_size;
	struct reclaim_delta d;
	struct vr_census c;
	char *p;
	int fd = region(pages, &p), r;
	size_t zero_read;

	vr_fill(p, pages, 23);
	mark(fd, 0, pages);
	d = reclaim_in(cg, 1024 * MIB);
	tap_diag("memory.reclaim: pgvolatile_purged +%llu of %zu pages, pswpout +%llu",
		 (unsigned long long)d.purged, pages,
		 (unsigned long long)d.swapped);
	tap_result(d.valid && d.purged >= pages * 99 / 100 &&
		   d.swapped < pages / 100,
		   "memory.reclaim purges >= 99%% of a volatile memfd, swaps none");
	tap_result(vr_sigbus_on_read(p + pages / 2 * page_size),
		   "reading a purged page through a mapping raises SIGBUS");
	zero_read = zero_pages_by_read(fd, pages);
	tap_result(zero_read >= pages * 99 / 100,
		   "read() of the purged range returns zeros (%zu pages)",
		   zero_read);
	r = unmark(fd, 0, pages);
	c = vr_check(p, pages, 23);
	tap_result(r == 1 && c.zero >= pages * 99 / 100 && c.corrupt == 0 &&
		   !vr_sigbus_on_read(p + pages / 2 * page_size),
		   "UNMARK returns 1, the pages read zeros, no SIGBUS (%zu zero)",
		   c.zero);
	unregion(fd, p, pages);
}

/*
 * A small reclaim purges part of a range: UNMARK, page by page, says
 * purged for exactly the pages that lost their data.
 */
static void test_partial_exact(void)
{
	const size_t pages = 32 * MIB / page_size;
	size_t i, reported = 0, lost = 0, wrong = 0;
	bool purged, zero;
	char *p;
	int fd = region(pages, &p);

	vr_fill(p, pages, 24);
	mark(fd, 0, pages);
	reclaim_in(cg, 4 * MIB);
	for (i = 0; i < pages; i++) {
		purged = unmark(fd, i, 1) == 1;
		zero = vr_page_zero(p, i);
		reported += purged;
		lost += zero;
		wrong += purged != zero || (!zero && !vr_page_intact(p, i, 24));
	}
	tap_diag("4 MiB reclaim: %zu pages reported purged, %zu lost",
		 reported, lost);
	tap_result(wrong == 0 && lost > 0 && lost < pages,
		   "UNMARK page by page reports exactly the lost pages (%zu wrong)",
		   wrong);
	unregion(fd, p, pages);
}

/*
 * A second mapping mlocks the first MiB of a volatile range: reclaim
 * purges the rest and leaves those pages resident, mapped and locked as
 * they were (a zap over them would drop their mlock), and their data
 * intact.  They are left in a chunk whose purge freed the rest of it, so
 * the vm event volatile_file_left counts them (at least once: no more
 * than the range).
 */
static void test_mlocked_part(void)
{
	const size_t pages = 16 * MIB / page_size;
	const size_t locked = MIB / page_size;
	size_t i, lost = 0, kept = 0;
	long locked_kb, locked_kb_after, resident;
	uint64_t left0 = 0, left1 = 0;
	struct reclaim_delta d;
	char *p, *q;
	int fd = region(pages, &p), r;
	bool have;

	vr_fill(p, pages, 25);
	q = mmap(NULL, locked * page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (q == MAP_FAILED || mlock(q, locked * page_size))
		tap_bail("mlock of a shared mapping of the memfd: %s",
			 strerror(errno));
	locked_kb = vr_smaps_kb(q, "Locked");
	mark(fd, 0, pages);
	have = !vmstat_read("volatile_file_left", &left0);
	d = reclaim_in(cg, 1024 * MIB);
	have &= !vmstat_read("volatile_file_left", &left1);
	locked_kb_after = vr_smaps_kb(q, "Locked");
	resident = vr_resident_pages(q, locked);
	r = unmark(fd, 0, pages);
	for (i = 0; i < pages; i++) {
		if (i < locked)
			kept += vr_page_intact(p, i, 25);
		else
			lost += vr_page_zero(p, i);
	}
	tap_diag("memory.reclaim: pgvolatile_purged +%llu, Locked %ld -> %ld kB, %zu of %zu locked pages intact, %zu of %zu others purged, volatile_file_left +%llu",
		 (unsigned long long)d.purged, locked_kb, locked_kb_after, kept,
		 locked, lost, pages - locked,
		 (unsigned long long)(left1 - left0));
	tap_result(d.valid && r == 1 && locked_kb > 0 &&
		   locked_kb_after == locked_kb && resident == (long)locked &&
		   kept == locked && lost >= (pages - locked) * 99 / 100 &&
		   d.purged <= pages - locked,
		   "an mlocked part of a volatile range stays mapped, locked and intact; the rest is purged");
	tap_result(have && left1 - left0 >= locked && left1 - left0 <= pages,
		   "volatile_file_left counts the mlocked pages the purge left in its chunk");
	munmap(q, locked * page_size);
	unregion(fd, p, pages);
}

/* Ranges unmarked before a purge are never reported purged. */
static void test_unmarked_not_purged(void)
{
	const size_t pages = 16 * MIB / page_size;
	char *p;
	int fd = region(pages, &p), r1, r2;

	vr_fill(p, pages, 25);
	mark(fd, 0, pages);
	r1 = unmark(fd, 0, pages / 2);
	reclaim_in(cg, 1024 * MIB);
	r2 = unmark(fd, pages / 2, pages / 2);
	tap_result(r1 == 0 && r2 == 1 &&
		   vr_check(p, pages / 2, 25).intact == pages / 2,
		   "the half unmarked before reclaim is intact and reported 0; the other 1");
	unregion(fd, p, pages);
}

/* FALLOC_FL_VOLATILE_ZERO: a purged page reads zeros, not SIGBUS. */
static void test_zero_fill(void)
{
	const size_t pages = 8 * MIB / page_size;
	char *p;
	int fd = region(pages, &p), r;
	bool sigbus;

	vr_fill(p, pages, 26);
	vfalloc(fd, MARK | ZERO, 0, pages);
	reclaim_in(cg, 1024 * MIB);
	sigbus = vr_sigbus_on_read(p + page_size);
	tap_result(!sigbus && vr_page_zero(p, 1),
		   "ZERO: a purged page of a volatile range reads zeros");
	r = unmark(fd, 0, pages);
	tap_result(r == 1, "ZERO: UNMARK still reports the purge (%d)", r);

	/* The same through a shared mapping, with MADV_VOLATILE_ZERO. */
	vr_fill(p, pages, 27);
	r = vr_madvise(p, pages * page_size, MADV_VOLATILE_ZERO);
	reclaim_in(cg, 1024 * MIB);
	sigbus = vr_sigbus_on_read(p + page_size);
	tap_result(r == 0 && !sigbus && vr_page_zero(p, 1) &&
		   vr_madvise(p, pages * page_size, MADV_NONVOLATILE) == 1,
		   "MADV_VOLATILE_ZERO on a shared mapping: purged pages read zeros, NONVOLATILE reports the purge");
	unregion(fd, p, pages);
}

/*
 * Unmarking a whole range keeps it listed, parked, and marking the same
 * pages again takes it back (issue 26, target 5): what it was before must
 * not leak through.  The Volatile: line drops and comes back, a purge of
 * the parked range's earlier life is not reported again, a range marked
 * from parked is purged and reported, and it takes the new mark's
 * VOLATILE_ZERO or its absence.
 */
static void test_parked(void)
{
	const size_t pages = 8 * MIB / page_size;
	long base = vr_volatile_kb(), marked, parked, again;
	int fd, r1, r2, r3, r4;
	struct reclaim_delta d;
	char *p;

	fd = region(pages, &p);
	vr_fill(p, pages, 60);
	r1 = mark(fd, 0, pages);
	marked = vr_volatile_kb();
	r2 = unmark(fd, 0, pages);
	parked = vr_volatile_kb();
	r3 = mark(fd, 0, pages);
	again = vr_volatile_kb();
	r4 = unmark(fd, 0, pages);
	tap_result(!r1 && !r2 && !r3 && !r4 &&
		   marked - base == (long)(pages * page_size / 1024) &&
		   parked == base && again == marked &&
		   vr_check(p, pages, 60).intact == pages,
		   "mark, unmark, mark, unmark: Volatile: %+ld, %+ld, %+ld kB, returns %d %d %d %d, data intact",
		   marked - base, parked - base, again - base, r1, r2, r3,
		   r4);

	/* A purge, reported; then marked from parked: nothing to report. */
	mark(fd, 0, pages);
	reclaim_in(cg, 1024 * MIB);
	r1 = unmark(fd, 0, pages);
	vr_fill(p, pages, 61);
	r2 = mark(fd, 0, pages);
	r3 = unmark(fd, 0, pages);
	tap_result(r1 == 1 && r2 == 0 && r3 == 0 &&
		   vr_check(p, pages, 61).intact == pages,
		   "purged and unmarked (%d), filled, marked again: unmarking reports no purge (%d), data intact",
		   r1, r3);

	/* Marked from parked, it is purged and reported like a new one. */
	r1 = mark(fd, 0, pages);
	d = reclaim_in(cg, 1024 * MIB);
	r2 = unmark(fd, 0, pages);
	tap_result(r1 == 0 && d.valid && d.purged >= pages * 99 / 100 &&
		   r2 == 1 && vr_check(p, pages, 61).zero >= pages * 99 / 100,
		   "a range marked again from parked is purged (%llu of %zu pages) and unmarking says so (%d)",
		   (unsigned long long)d.purged, pages, r2);

	/* It takes the new mark's flags: without ZERO, a purge is SIGBUS. */
	vr_fill(p, pages, 62);
	r1 = vfalloc(fd, MARK | ZERO, 0, pages);
	r2 = unmark(fd, 0, pages);
	r3 = mark(fd, 0, pages);
	reclaim_in(cg, 1024 * MIB);
	tap_result(!r1 && !r2 && !r3 &&
		   vr_sigbus_on_read(p + page_size) &&
		   unmark(fd, 0, pages) == 1,
		   "marked with ZERO, unmarked, marked without: a purged page raises SIGBUS");
	unregion(fd, p, pages);
}

/*
 * A range marked again goes to the young end of the list: a small reclaim
 * purges a range marked after it first, whether it was still volatile
 * (@unmark false) or parked in between (@unmark true).
 */
static void test_remark_young(bool unmark_first, const char *how)
{
	const size_t pages = 8 * MIB / page_size;
	size_t lost_a, lost_b;
	char *a, *b;
	int fa = region(pages, &a), fb = region(pages, &b), r;

	vr_fill(a, pages, 63);
	vr_fill(b, pages, 64);
	r = mark(fa, 0, pages) | mark(fb, 0, pages);
	if (unmark_first)
		r |= unmark(fa, 0, pages);
	r |= mark(fa, 0, pages);
	reclaim_in(cg, 4 * MIB);
	/* By pread(): a purged page of a volatile mapping raises SIGBUS. */
	lost_a = pages - vr_fd_check(fa, pages, 63).intact;
	lost_b = pages - vr_fd_check(fb, pages, 64).intact;
	tap_result(r == 0 && lost_a == 0 && lost_b > 0,
		   "A marked, B marked, A %s: a small reclaim purges B (%zu pages) before A (%zu)",
		   how, lost_b, lost_a);
	unregion(fa, a, pages);
	unregion(fb, b, pages);
}

static void test_remark_young_volatile(void)
{
	test_remark_young(false, "marked again");
}

static void test_remark_young_parked(void)
{
	test_remark_young(true, "unmarked and marked again");
}

/* Write pattern @seed (vr_fill()'s, page 0 at @first) to pages of @fd. */
static void fd_fill(int fd, size_t first, size_t pages, unsigned int seed)
{
	char *buf = malloc(pages * page_size);

	if (!buf)
		tap_bail("malloc");
	vr_fill(buf, pages, seed);
	if (pwrite(fd, buf, pages * page_size, first * page_size) !=
	    (ssize_t)(pages * page_size))
		tap_bail("pwrite of %zu pages: %s", pages, strerror(errno));
	free(buf);
}

/*
 * Read pages of @fd with pread() (no mapping, so no SIGBUS) and count
 * those holding fd_fill()'s pattern @seed, zeros, or anything else; a
 * page past the end of the file counts as zero.
 */
static struct vr_census fd_census(int fd, size_t first, size_t pages,
				  unsigned int seed)
{
	char *buf = calloc(pages, page_size);
	struct vr_census c;
	size_t done = 0;
	ssize_t n;

	if (!buf)
		tap_bail("calloc");
	while (done < pages * page_size) {
		n = pread(fd, buf + done, pages * page_size - done,
			  first * page_size + done);
		if (n <= 0)
			break;
		done += n;
	}
	c = vr_check(buf, pages, seed);
	free(buf);
	return c;
}

/* What a call returned, for diagnostics: its errno, or its value. */
static const char *outcome(long r)
{
	static char buf[8][48];
	static unsigned int slot;
	char *s = buf[slot++ % 8];

	if (r < 0)
		snprintf(s, sizeof(buf[0]), "%s", strerror(-r));
	else
		snprintf(s, sizeof(buf[0]), "success, %ld", r);
	return s;
}

static const char *pin_state(long st)
{
	return st == ASHMEM_IS_PINNED ? "pinned" :
	       st == ASHMEM_IS_UNPINNED ? "unpinned" : outcome(st);
}

/*
 * Seals.  A volatile mark is a hole punch in waiting, so it obeys the
 * seals that FALLOC_FL_PUNCH_HOLE obeys: with F_SEAL_WRITE or
 * F_SEAL_FUTURE_WRITE every way of marking (fallocate() with and without
 * VOLATILE_ZERO, MADV_VOLATILE and MADV_VOLATILE_ZERO on a shared
 * mapping, ASHMEM_UNPIN) fails with EPERM and changes nothing, not even
 * after memory.reclaim; taking ranges back (UNMARK, ASHMEM_PIN,
 * MADV_NONVOLATILE) stays allowed.  Under F_SEAL_WRITE the mapping is a
 * read-only one; under F_SEAL_FUTURE_WRITE a writable one made before
 * the seal.
 */
static void test_seal_refuses_marks(int seal, const char *name)
{
	const size_t pages = 4 * MIB / page_size;
	const unsigned int seed = seal == F_SEAL_WRITE ? 35 : 36;
	const size_t len = pages * page_size;
	struct reclaim_delta d;
	struct vr_census c;
	int fd = region(pages, NULL), i;
	long base, vol, st, r, un, pin, nonvol;
	char *m;

	if (seal == F_SEAL_WRITE) {
		fd_fill(fd, 0, pages, seed);
		if (fcntl(fd, F_ADD_SEALS, seal))
			tap_bail("F_ADD_SEALS %s: %s", name, strerror(errno));
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	} else {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			vr_fill(m, pages, seed);
		if (fcntl(fd, F_ADD_SEALS, seal))
			tap_bail("F_ADD_SEALS %s: %s", name, strerror(errno));
	}
	if (m == MAP_FAILED)
		tap_bail("mmap of a memfd sealed %s: %s", name,
			 strerror(errno));

	base = vr_volatile_kb();
	for (i = 0; i < 5; i++) {
		static const char *const what[] = {
			"fallocate(MARK)",
			"fallocate(MARK | VOLATILE_ZERO)",
			"MADV_VOLATILE on a shared mapping",
			"MADV_VOLATILE_ZERO on a shared mapping",
			"ASHMEM_UNPIN",
		};

		switch (i) {
		case 0:
			r = vfalloc(fd, MARK, 0, pages);
			break;
		case 1:
			r = vfalloc(fd, MARK | ZERO, 0, pages);
			break;
		case 2:
			r = vr_madvise(m, len, MADV_VOLATILE);
			break;
		case 3:
			r = vr_madvise(m, len, MADV_VOLATILE_ZERO);
			break;
		default:
			r = pin_cmd(fd, ASHMEM_UNPIN, 0, pages);
			break;
		}
		vol = vr_volatile_kb();
		st = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, pages);
		tap_result(r == -EPERM && vol == base &&
			   st == ASHMEM_IS_PINNED,
			   "%s: %s: EPERM (got %s), Volatile: %+ld kB, GET_PIN_STATUS %s",
			   name, what[i], outcome(r), vol - base,
			   pin_state(st));
	}

	d = reclaim_in(cg, 1024 * MIB);
	c = fd_census(fd, 0, pages, seed);
	vol = vr_volatile_kb();
	st = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, pages);
	un = unmark(fd, 0, pages);
	pin = pin_cmd(fd, ASHMEM_PIN, 0, pages);
	nonvol = vr_madvise(m, len, MADV_NONVOLATILE);
	tap_diag("%s: after memory.reclaim %zu of %zu pages intact, %zu zero, %zu other; pgvolatile_purged +%llu; Volatile: %+ld kB, %s",
		 name, c.intact, pages, c.zero, c.corrupt,
		 (unsigned long long)d.purged, vol - base, pin_state(st));
	tap_result(c.intact == pages && vol == base &&
		   st == ASHMEM_IS_PINNED && un == 0 &&
		   pin == ASHMEM_NOT_PURGED && nonvol == 0,
		   "%s: after the refused marks and memory.reclaim every page is intact; UNMARK, ASHMEM_PIN, MADV_NONVOLATILE allowed and report no purge (%s, %s, %s)",
		   name, outcome(un), outcome(pin), outcome(nonvol));
	unregion(fd, m, pages);
}

/*
 * F_SEAL_WRITE / F_SEAL_FUTURE_WRITE cannot be added while any range of
 * the file is volatile (a purge would change the sealed data): EBUSY,
 * the seals unchanged.  Once the range is taken back, the seal goes on.
 * F_SEAL_WRITE's range is marked with fallocate(), F_SEAL_FUTURE_WRITE's
 * with ASHMEM_UNPIN; neither file is mapped (a writable mapping is
 * F_SEAL_WRITE's own EBUSY).
 */
static void test_seal_busy(int seal, const char *name)
{
	const size_t pages = 16;
	int fd = region(pages, NULL), before, during, after;
	long marked, taken, added, err = 0;

	fd_fill(fd, 0, pages, 37);
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
		tap_bail("F_ADD_SEALS F_SEAL_SHRINK: %s", strerror(errno));
	before = fcntl(fd, F_GET_SEALS);
	marked = seal == F_SEAL_WRITE ? mark(fd, 4, 2) :
					pin_cmd(fd, ASHMEM_UNPIN, 4, 2);
	if (fcntl(fd, F_ADD_SEALS, seal))
		err = -errno;
	during = fcntl(fd, F_GET_SEALS);
	taken = seal == F_SEAL_WRITE ? unmark(fd, 4, 2) :
				       pin_cmd(fd, ASHMEM_PIN, 4, 2);
	added = fcntl(fd, F_ADD_SEALS, seal) ? -errno : 0;
	after = fcntl(fd, F_GET_SEALS);
	tap_diag("%s with pages 4-5 of 16 volatile (%s: %s): F_ADD_SEALS %s, seals %#x -> %#x; taken back (%s), F_ADD_SEALS %s, seals %#x",
		 name, seal == F_SEAL_WRITE ? "fallocate(MARK)" : "ASHMEM_UNPIN",
		 outcome(marked), outcome(err), before, during, outcome(taken),
		 outcome(added), after);
	tap_result(marked == 0 && err == -EBUSY && during == before &&
		   taken == 0 && added == 0 && after == (before | seal),
		   "%s while a range is volatile: EBUSY (got %s), seals unchanged; added once the range is taken back",
		   name, outcome(err));
	close(fd);
}
/*
 * Two processes share a memfd: the child marks it volatile through its
 * own mapping; after the parent's reclaim the child's mapping raises
 * SIGBUS too, and the parent's UNMARK reports the purge, whose zeros both
 * see.  Then the other way round: unmarked by the child, nothing purged.
 */
static void test_shared_processes(void)
{
	const size_t pages = 8 * MIB / page_size;
	int to_child[2], to_parent[2], status, r, fd;
	char *p;
	pid_t pid;

	fd = region(pages, &p);
	vr_fill(p, pages, 28);
	if (pipe(to_child) || pipe(to_parent))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *q = mmap(NULL, pages * page_size, PROT_READ,
			       MAP_SHARED, fd, 0);
		int bad = 0;

		if (q == MAP_FAILED)
			_exit(2);
		bad |= vr_madvise(q, pages * page_size, MADV_VOLATILE) != 0;
		vr_send_byte(to_parent[1]);
		vr_wait_byte(to_child[0]);		/* parent reclaimed */
		bad |= !vr_sigbus_on_read(q + page_size) << 1;
		vr_send_byte(to_parent[1]);
		vr_wait_byte(to_child[0]);		/* parent unmarked */
		bad |= !vr_page_zero(q, 1) << 2;
		/* Round two: mark, then take it back before any reclaim. */
		bad |= (vr_madvise(q, pages * page_size,
				   MADV_VOLATILE) != 0) << 3;
		bad |= (vr_madvise(q, pages * page_size,
				   MADV_NONVOLATILE) != 0) << 4;
		vr_send_byte(to_parent[1]);
		_exit(bad);
	}
	vr_wait_byte(to_parent[0]);
	reclaim_in(cg, 1024 * MIB);
	vr_send_byte(to_child[1]);
	vr_wait_byte(to_parent[0]);
	r = unmark(fd, 0, pages);
	tap_result(r == 1 && vr_page_zero(p, 1),
		   "marked by another process, purged: UNMARK here says 1 (%d)",
		   r);
	vr_send_byte(to_child[1]);
	vr_wait_byte(to_parent[0]);
	vr_fill(p, pages, 29);
	reclaim_in(cg, 1024 * MIB);
	waitpid(pid, &status, 0);
	tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "the other process saw SIGBUS, then zeros; its mark+unmark returned 0 (status %#x)",
		   status);
	tap_result(vr_check(p, pages, 29).intact == pages &&
		   unmark(fd, 0, pages) == 0,
		   "after the other process unmarked, reclaim purges nothing");
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	unregion(fd, p, pages);
}

/*
 * Pages charged to cgroup a, marked volatile by a process in cgroup b:
 * a's memory.reclaim purges them, b's does not (they are not b's memory).
 */
struct two_cgroups {
	int fd;
	size_t pages;
	char a[CG_PATH_MAX], b[CG_PATH_MAX];
};

static int fill_in_a(void *arg)
{
	struct two_cgroups *t = arg;
	char *p;

	if (cg_enter(t->a))
		return 2;
	p = mmap(NULL, t->pages * page_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED)
		return 3;
	vr_fill(p, t->pages, 30);
	return 0;
}

static int mark_in_b(void *arg)
{
	struct two_cgroups *t = arg;

	if (cg_enter(t->b))
		return 2;
	return mark(t->fd, 0, t->pages) ? 3 : 0;
}

static void test_two_cgroups(void)
{
	struct two_cgroups t = { .pages = 8 * MIB / page_size };
	struct reclaim_delta in_b, in_a;
	int s1, s2, r;

	if (cg_create("lab-vshmem/a", t.a, sizeof(t.a)) ||
	    cg_create("lab-vshmem/b", t.b, sizeof(t.b)))
		tap_bail("cgroups a, b: %s", strerror(errno));
	t.fd = region(t.pages, NULL);
	s1 = run_child(fill_in_a, &t);
	s2 = run_child(mark_in_b, &t);
	in_b = reclaim_in(t.b, 1024 * MIB);
	in_a = reclaim_in(t.a, 1024 * MIB);
	r = unmark(t.fd, 0, t.pages);
	tap_diag("purged by b's reclaim %llu, by a's %llu of %zu pages",
		 (unsigned long long)in_b.purged,
		 (unsigned long long)in_a.purged, t.pages);
	tap_result(s1 == 0 && s2 == 0 && in_b.purged == 0 &&
		   in_a.purged >= t.pages * 99 / 100 && r == 1,
		   "the cgroup charged for the pages purges them, the marker's does not");
	close(t.fd);
	cg_destroy(t.a);
	cg_destroy(t.b);
}

/* memory.max: a volatile memfd makes room instead of an OOM kill. */
static int limit_child(void *arg)
{
	const size_t pages = 32 * MIB / page_size;
	char sub[CG_PATH_MAX], *p, *more;
	int fd, r;

	(void)arg;
	if (cg_create("lab-vshmem/limit", sub, sizeof(sub)) ||
	    cg_write_u64(sub, "memory.max", 48 * MIB) || cg_enter(sub))
		return 10;
	fd = region(pages, &p);
	vr_fill(p, pages, 31);
	if (mark(fd, 0, pages))
		return 11;
	more = vr_map(pages);
	vr_fill(more, pages, 32);
	r = unmark(fd, 0, pages);
	if (vr_check(more, pages, 32).intact != pages)
		return 12;
	/* Reading a purged page of a shared mapping allocates it again. */
	munmap(more, pages * page_size);
	return r == 1 && !vr_check(p, pages, 31).corrupt ? 0 : 13;
}

static void test_memory_max(void)
{
	char sub[CG_PATH_MAX];
	uint64_t ooms = 1, purged = 0, vol = 0, max = 0;
	int status = run_child(limit_child, NULL);

	if (!cg_create("lab-vshmem/limit", sub, sizeof(sub))) {
		cg_read_key(sub, "memory.events", "oom_kill", &ooms);
		cg_read_key(sub, "memory.events", "max", &max);
		cg_read_key(sub, "memory.stat", "pgvolatile_purged", &purged);
		cg_read_key(sub, "memory.stat", "volatile", &vol);
	}
	tap_diag("memory.max: %llu max events, %llu pages purged, volatile %llu",
		 (unsigned long long)max, (unsigned long long)purged,
		 (unsigned long long)vol);
	tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 && ooms == 0,
		   "memory.max purges a volatile memfd instead of OOM (status %#x, %llu OOM kills)",
		   status, (unsigned long long)ooms);
	cg_destroy(sub);
}

/* Shrinking the file under a volatile range, then reclaim: no harm. */
static void test_truncate(void)
{
	const size_t pages = 1024;
	char *p;
	int fd = region(pages, &p), r1, r2, r3;

	vr_fill(p, pages, 33);
	r1 = mark(fd, 0, pages);
	munmap(p, pages * page_size);
	r2 = ftruncate(fd, pages / 2 * page_size);
	reclaim_in(cg, 1024 * MIB);
	r3 = unmark(fd, 0, pages / 2);
	tap_result(r1 == 0 && r2 == 0 && (r3 == 0 || r3 == 1) &&
		   unmark(fd, 0, pages) == -EINVAL,
		   "a file shrunk under a volatile range: unmark of what is left works (%d)",
		   r3);
	close(fd);
}

/* How many of @pages pages from @first GET_PIN_STATUS calls unpinned. */
static size_t unpinned_pages(int fd, size_t first, size_t pages)
{
	size_t i, n = 0;

	for (i = first; i < first + pages; i++)
		n += pin_cmd(fd, ASHMEM_GET_PIN_STATUS, i, 1) ==
		     ASHMEM_IS_UNPINNED;
	return n;
}

/*
 * Truncation drops the ranges past the new size: a file marked volatile,
 * truncated to 0 and grown again holds no volatile range, so the data
 * written after the regrowth is pinned, counted nowhere as volatile, and
 * survives reclaim.
 */
static void test_truncate_regrow(void)
{
	const size_t pages = 4 * MIB / page_size;
	long base = vr_volatile_kb(), marked, vol, st, un;
	struct reclaim_delta d;
	struct vr_census c;
	int fd = region(pages, NULL), r1, r2, r3;
	size_t unpinned;

	fd_fill(fd, 0, pages, 38);
	r1 = mark(fd, 0, pages);
	marked = vr_volatile_kb();
	r2 = ftruncate(fd, 0);
	r3 = ftruncate(fd, pages * page_size);
	if (r1 || r2 || r3)
		tap_bail("mark %d, ftruncate 0: %d, regrow: %d", r1, r2, r3);
	fd_fill(fd, 0, pages, 39);
	st = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, pages);
	vol = vr_volatile_kb();
	unpinned = unpinned_pages(fd, 0, pages);
	tap_result(st == ASHMEM_IS_PINNED && vol == base && !unpinned,
		   "marked, truncated to 0, regrown: GET_PIN_STATUS %s (%zu of %zu pages unpinned), Volatile: %+ld kB (%+ld when marked)",
		   pin_state(st), unpinned, pages, vol - base, marked - base);
	d = reclaim_in(cg, 1024 * MIB);
	c = fd_census(fd, 0, pages, 39);
	tap_result(c.intact == pages,
		   "data written after the regrowth survives memory.reclaim: %zu of %zu pages intact, %zu zero, %zu other (pgvolatile_purged +%llu)",
		   c.intact, pages, c.zero, c.corrupt,
		   (unsigned long long)d.purged);
	un = unmark(fd, 0, pages);
	tap_result(un == 0 && vr_volatile_kb() == base,
		   "UNMARK of the regrown file: 0 (got %s), nothing was volatile",
		   outcome(un));
	close(fd);
}

/*
 * Truncation clips a range that straddles the new size: of a 4 MiB range
 * cut at 2 MiB and grown back to 4 MiB, the first 2 MiB stay volatile
 * and the regrown 2 MiB are pinned, which reclaim leaves intact.
 */
static void test_truncate_clip(void)
{
	const size_t pages = 4 * MIB / page_size, half = pages / 2;
	long base = vr_volatile_kb(), vol, lo, hi, un_hi, un_lo;
	long half_kb = half * page_size / 1024;
	struct reclaim_delta d;
	struct vr_census c;
	int fd = region(pages, NULL), r1, r2, r3;
	size_t lo_unpinned, hi_unpinned;

	fd_fill(fd, 0, pages, 40);
	r1 = mark(fd, 0, pages);
	r2 = ftruncate(fd, half * page_size);
	r3 = ftruncate(fd, pages * page_size);
	if (r1 || r2 || r3)
		tap_bail("mark %d, ftruncate half: %d, regrow: %d", r1, r2, r3);
	lo = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, half);
	hi = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, half, half);
	lo_unpinned = unpinned_pages(fd, 0, half);
	hi_unpinned = unpinned_pages(fd, half, half);
	vol = vr_volatile_kb();
	tap_result(lo == ASHMEM_IS_UNPINNED && hi == ASHMEM_IS_PINNED &&
		   lo_unpinned == half && !hi_unpinned &&
		   vol - base == half_kb,
		   "4 MiB marked, cut to 2 MiB, regrown: lower half %s (%zu of %zu pages unpinned), upper %s (%zu unpinned), Volatile: %+ld kB (want %+ld)",
		   pin_state(lo), lo_unpinned, half, pin_state(hi),
		   hi_unpinned, vol - base, half_kb);
	fd_fill(fd, half, half, 41);
	d = reclaim_in(cg, 1024 * MIB);
	c = fd_census(fd, half, half, 41);
	un_hi = unmark(fd, half, half);
	un_lo = unmark(fd, 0, half);
	tap_diag("after memory.reclaim: pgvolatile_purged +%llu; lower half %zu of %zu pages zero, UNMARK %s",
		 (unsigned long long)d.purged, fd_census(fd, 0, half, 40).zero,
		 half, outcome(un_lo));
	tap_result(c.intact == half && un_hi == 0,
		   "the upper half written after the regrowth survives memory.reclaim: %zu of %zu pages intact, %zu zero, %zu other; its UNMARK %s",
		   c.intact, half, c.zero, c.corrupt, outcome(un_hi));
	close(fd);
}

/* ashmem's ioctls on a memfd: names, sizes, ids, and their errors. */
static void test_ioctl_info(void)
{
	char name[ASHMEM_NAME_LEN] = "", path[64];
	unsigned long id = 0;
	struct stat st;
	int fd = region(4, NULL), ro;
	bool ok;

	fstat(fd, &st);
	ok = xioctl(fd, ASHMEM_GET_SIZE, 0) == (long)(4 * page_size) &&
	     xioctl(fd, ASHMEM_GET_NAME, (unsigned long)name) == 0 &&
	     !strcmp(name, "vshmem") &&
	     xioctl(fd, ASHMEM_GET_FILE_ID, (unsigned long)&id) == 0 &&
	     id == st.st_ino;
	tap_result(ok, "ASHMEM_GET_SIZE, GET_NAME (\"%s\"), GET_FILE_ID on a memfd",
		   name);
	ok = xioctl(fd, ASHMEM_SET_NAME, (unsigned long)"x") == -EINVAL &&
	     xioctl(fd, ASHMEM_SET_SIZE, 8 * page_size) == -EINVAL &&
	     xioctl(fd, ASHMEM_PURGE_ALL_CACHES, 0) == -ENOTTY &&
	     xioctl(fd, ASHMEM_GET_SIZE, 0) == (long)(4 * page_size) &&
	     xioctl(fd, ASHMEM_GET_NAME, (unsigned long)name) == 0 &&
	     !strcmp(name, "vshmem");
	tap_result(ok, "SET_NAME, SET_SIZE: EINVAL; PURGE_ALL_CACHES: ENOTTY; nothing changed");

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	ok = pin_cmd(ro, ASHMEM_UNPIN, 0, 1) == -EBADF &&
	     xioctl(ro, ASHMEM_SET_PROT_MASK, PROT_READ) == -EBADF &&
	     xioctl(fd, ASHMEM_GET_PROT_MASK, 0) ==
		     (PROT_READ | PROT_WRITE | PROT_EXEC) &&
	     pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, 4) == ASHMEM_IS_PINNED &&
	     xioctl(ro, ASHMEM_GET_SIZE, 0) == (long)(4 * page_size);
	tap_result(ok, "UNPIN, SET_PROT_MASK on a read-only fd: EBADF, nothing changed");
	close(ro);
	close(fd);
}

/* The prot mask: enforced by mmap() and mprotect(), across fork too. */
static void test_ioctl_prot(void)
{
	const size_t pages = 2;
	int fd = region(pages, NULL), status;
	char *p, *q;
	long r1, r2;
	bool ok;
	pid_t pid;

	r1 = xioctl(fd, ASHMEM_SET_PROT_MASK, PROT_WRITE);
	p = mmap(NULL, pages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	ok = r1 == 0 && p == MAP_FAILED && errno == EPERM &&
	     xioctl(fd, ASHMEM_GET_PROT_MASK, 0) == PROT_WRITE;
	q = mmap(NULL, pages * page_size, PROT_WRITE, MAP_SHARED, fd, 0);
	tap_result(ok && q != MAP_FAILED,
		   "a write-only mask refuses PROT_READ mappings (EPERM), allows PROT_WRITE");
	r2 = xioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ | PROT_WRITE);
	tap_result(r2 == -EINVAL &&
		   xioctl(fd, ASHMEM_GET_PROT_MASK, 0) == PROT_WRITE &&
		   mprotect(q, pages * page_size, PROT_READ | PROT_WRITE) &&
		   errno == EACCES,
		   "widening the mask: EINVAL; mprotect past it: EACCES");
	munmap(q, pages * page_size);
	close(fd);

	fd = region(pages, NULL);
	pid = fork();
	if (pid == 0)
		_exit(xioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ) ? 1 : 0);
	waitpid(pid, &status, 0);
	p = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	q = mmap(NULL, pages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	tap_result(WIFEXITED(status) && !WEXITSTATUS(status) &&
		   p == MAP_FAILED && q != MAP_FAILED,
		   "a mask set by a forked child holds for the parent");
	if (q != MAP_FAILED)
		munmap(q, pages * page_size);
	close(fd);
}

/* PIN, UNPIN, GET_PIN_STATUS: volatile ranges, zero-filled when purged. */
static void test_ioctl_pin(void)
{
	const size_t pages = 4 * MIB / page_size;
	long base = vr_volatile_kb(), r1, r2, s1, s2, pin;
	char *p;
	int fd = region(pages, &p);
	bool ok;

	vr_fill(p, pages, 34);
	r1 = pin_cmd(fd, ASHMEM_UNPIN, 0, 0);
	s1 = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, 1);
	r2 = pin_cmd(fd, ASHMEM_PIN, 0, 0);
	s2 = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, 0);
	tap_result(r1 == 0 && s1 == ASHMEM_IS_UNPINNED &&
		   r2 == ASHMEM_NOT_PURGED && s2 == ASHMEM_IS_PINNED &&
		   vr_volatile_kb() == base &&
		   vr_check(p, pages, 34).intact == pages,
		   "UNPIN (len 0: to the end), GET_PIN_STATUS, PIN: NOT_PURGED, data intact");
	{
		struct ashmem_pin odd = { .offset = 1, .len = page_size };
		struct ashmem_pin past = { .offset = 0,
					   .len = (pages + 1) * page_size };

		ok = xioctl(fd, ASHMEM_UNPIN, (unsigned long)&odd) ==
			     -EINVAL &&
		     xioctl(fd, ASHMEM_UNPIN, (unsigned long)&past) ==
			     -EINVAL &&
		     xioctl(fd, ASHMEM_PIN, 0) == -EFAULT &&
		     vr_volatile_kb() == base &&
		     pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, 0) ==
			     ASHMEM_IS_PINNED;
		tap_result(ok, "unaligned, past-the-end and unreadable ranges: EINVAL / EFAULT, nothing changed");
	}
	pin_cmd(fd, ASHMEM_UNPIN, 0, 0);
	reclaim_in(cg, 1024 * MIB);
	ok = !vr_sigbus_on_read(p + page_size) && vr_page_zero(p, 1);
	pin = pin_cmd(fd, ASHMEM_PIN, 0, 0);
	tap_result(ok && pin == ASHMEM_WAS_PURGED,
		   "UNPIN, reclaim: purged pages read zeros while unpinned, PIN says WAS_PURGED");
	unregion(fd, p, pages);
}

/*
 * An ashmem prot mask without PROT_WRITE acts as F_SEAL_FUTURE_WRITE:
 * every way of changing the file's data through its fd or a new open of
 * it fails with EPERM.  Each path runs on a fresh file of RO_PAGES
 * pages and writes over page 1 (or drops the last page).
 */
#define RO_PAGES 16
static char *junk;

static long ro_write(int fd)
{
	if (lseek(fd, page_size, SEEK_SET) < 0)
		return -errno;
	return write(fd, junk, page_size) < 0 ? -errno : 0;
}

static long ro_pwrite(int fd)
{
	return pwrite(fd, junk, page_size, page_size) < 0 ? -errno : 0;
}

static long ro_writev(int fd)
{
	struct iovec iov[2] = {
		{ junk, page_size / 2 },
		{ junk + page_size / 2, page_size / 2 },
	};

	if (lseek(fd, page_size, SEEK_SET) < 0)
		return -errno;
	return writev(fd, iov, 2) < 0 ? -errno : 0;
}

/* write() through open("/proc/self/fd/N", O_RDWR): refused at either. */
static long ro_reopen(int fd)
{
	char path[64];
	long r;
	int rw;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR | O_CLOEXEC);
	if (rw < 0) {
		tap_diag("open(%s, O_RDWR): %s", path, strerror(errno));
		return -errno;
	}
	r = lseek(rw, page_size, SEEK_SET) < 0 ||
	    write(rw, junk, page_size) < 0 ? -errno : 0;
	close(rw);
	return r;
}

static long ro_splice(int fd)
{
	loff_t off = page_size;
	int pipefd[2];
	long r;

	if (pipe(pipefd))
		tap_bail("pipe: %s", strerror(errno));
	if (write(pipefd[1], junk, page_size) != (ssize_t)page_size)
		tap_bail("pipe write: %s", strerror(errno));
	r = splice(pipefd[0], NULL, fd, &off, page_size, 0) < 0 ? -errno : 0;
	close(pipefd[0]);
	close(pipefd[1]);
	return r;
}

static long ro_copy_file_range(int fd)
{
	int src = memfd_create("vshmem-src", MFD_CLOEXEC);
	loff_t in = 0, out = page_size;
	long r;

	if (src < 0 || pwrite(src, junk, page_size, 0) != (ssize_t)page_size)
		tap_bail("source memfd: %s", strerror(errno));
	r = copy_file_range(src, &in, fd, &out, page_size, 0) < 0 ? -errno :
									 0;
	close(src);
	return r;
}

static long ro_punch(int fd)
{
	return vfalloc(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1, 1);
}

static long ro_shrink(int fd)
{
	return ftruncate(fd, (RO_PAGES - 1) * page_size) < 0 ? -errno : 0;
}

static long ro_mark(int fd)
{
	return vfalloc(fd, MARK, 0, RO_PAGES);
}

static long ro_unpin(int fd)
{
	return pin_cmd(fd, ASHMEM_UNPIN, 0, RO_PAGES);
}

static const struct {
	const char *what;
	long (*call)(int fd);
} ro_paths[] = {
	{ "write()", ro_write },
	{ "pwrite()", ro_pwrite },
	{ "writev()", ro_writev },
	{ "write() through open(/proc/self/fd/N, O_RDWR)", ro_reopen },
	{ "splice() from a pipe", ro_splice },
	{ "copy_file_range() into it", ro_copy_file_range },
	{ "fallocate(PUNCH_HOLE | KEEP_SIZE)", ro_punch },
	{ "fallocate(MARK_VOLATILE)", ro_mark },
	{ "ASHMEM_UNPIN", ro_unpin },
	/* Last: on one file, the others then still see its full size. */
	{ "ftruncate() to a smaller size", ro_shrink },
};

#define RO_NR_PATHS (sizeof(ro_paths) / sizeof(ro_paths[0]))

/* A fresh file holding pattern @seed, its mask set to PROT_READ. */
static int ro_region(unsigned int seed, long *mask)
{
	int fd = region(RO_PAGES, NULL);

	fd_fill(fd, 0, RO_PAGES, seed);
	if (xioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ))
		tap_bail("ASHMEM_SET_PROT_MASK PROT_READ: %s", strerror(errno));
	*mask = xioctl(fd, ASHMEM_GET_PROT_MASK, 0);
	return fd;
}

/* What a refused path must have left alone. */
struct ro_state {
	struct vr_census c;
	off_t size;
	long mask, vol, st;
};

static struct ro_state ro_state(int fd, unsigned int seed)
{
	struct ro_state s;
	struct stat st;

	s.c = fd_census(fd, 0, RO_PAGES, seed);
	s.size = fstat(fd, &st) ? -1 : st.st_size;
	s.mask = xioctl(fd, ASHMEM_GET_PROT_MASK, 0);
	s.vol = vr_volatile_kb();
	s.st = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, 0, RO_PAGES);
	return s;
}

static bool ro_unchanged(const struct ro_state *s, long mask, long base)
{
	/* The mask stays PROT_READ (PROT_EXEC too with READ_IMPLIES_EXEC). */
	return s->c.intact == RO_PAGES &&
	       s->size == (off_t)(RO_PAGES * page_size) && s->mask == mask &&
	       (mask == PROT_READ || mask == (PROT_READ | PROT_EXEC)) &&
	       s->vol == base && s->st == ASHMEM_IS_PINNED;
}

static void test_prot_mask_writes(void)
{
	struct reclaim_delta d;
	struct ro_state s;
	long base, mask, r;
	size_t i, refused = 0;
	int fd;

	junk = malloc(page_size);
	if (!junk)
		tap_bail("malloc");
	memset(junk, 0xa5, page_size);

	for (i = 0; i < RO_NR_PATHS; i++) {
		fd = ro_region(42, &mask);
		base = vr_volatile_kb();
		r = ro_paths[i].call(fd);
		s = ro_state(fd, 42);
		tap_result(r == -EPERM && ro_unchanged(&s, mask, base),
			   "prot mask PROT_READ: %s: EPERM (got %s); %zu of %d pages intact, size %lld, mask %#lx, Volatile: %+ld kB, %s",
			   ro_paths[i].what, outcome(r), s.c.intact, RO_PAGES,
			   (long long)s.size, s.mask, s.vol - base,
			   pin_state(s.st));
		close(fd);
	}

	/* All of them on one file, then reclaim: every byte still there. */
	fd = ro_region(43, &mask);
	base = vr_volatile_kb();
	for (i = 0; i < RO_NR_PATHS; i++)
		refused += ro_paths[i].call(fd) == -EPERM;
	d = reclaim_in(cg, 1024 * MIB);
	s = ro_state(fd, 43);
	tap_diag("after memory.reclaim: %zu intact, %zu zero, %zu other of %d pages; pgvolatile_purged +%llu",
		 s.c.intact, s.c.zero, s.c.corrupt, RO_PAGES,
		 (unsigned long long)d.purged);
	tap_result(refused == RO_NR_PATHS && ro_unchanged(&s, mask, base),
		   "prot mask PROT_READ: all %zu paths on one file (%zu refused with EPERM), then memory.reclaim: every byte, the size (%lld) and the mask (%#lx) unchanged",
		   RO_NR_PATHS, refused, (long long)s.size, s.mask);
	close(fd);
	free(junk);
	junk = NULL;
}

/*
 * Many ranges in one file, against a model: random marks and unmarks of
 * 1-32 pages over 256 pages split, fill and empty the file's range tree.
 * After every call meminfo's Volatile must be the model's count, and now
 * and then GET_PIN_STATUS of every page must say what the model says.
 */
static void test_many_ranges(void)
{
	const size_t pages = 256, ops = 2000;
	size_t i, op, first, len, bad_count = 0, bad_status = 0, nr = 0;
	long base = vr_volatile_kb(), page_kb = page_size / 1024, st;
	bool vol[256] = { false }, mark;
	int fd = region(pages, NULL), r, bad_ret = 0;

	srand(20261204);
	for (op = 0; op < ops; op++) {
		first = rand() % pages;
		len = 1 + rand() % 32;
		if (first + len > pages)
			len = pages - first;
		mark = rand() % 2;
		r = vfalloc(fd, mark ? MARK : UNMARK, first, len);
		bad_ret += r != 0;
		for (i = first; i < first + len; i++) {
			nr += mark && !vol[i];
			nr -= !mark && vol[i];
			vol[i] = mark;
		}
		bad_count += vr_volatile_kb() - base != (long)nr * page_kb;
		if (op % 100)
			continue;
		for (i = 0; i < pages; i++) {
			st = pin_cmd(fd, ASHMEM_GET_PIN_STATUS, i, 1);
			bad_status += st != (vol[i] ? ASHMEM_IS_UNPINNED :
					     ASHMEM_IS_PINNED);
		}
	}
	r = unmark(fd, 0, pages);
	tap_diag("%zu calls: %d bad returns, %zu wrong Volatile counts, %zu wrong pin states; %zu pages volatile at the end",
		 ops, bad_ret, bad_count, bad_status, nr);
	tap_result(!bad_ret && !bad_count && !bad_status && r == 0 &&
		   vr_volatile_kb() == base,
		   "%zu random marks and unmarks: the file's ranges match a model page for page",
		   ops);
	unregion(fd, NULL, pages);
}

/*
 * The OOM-ordering test's memfd engine (issue 26): a memfd mapped shared,
 * filled, then marked with fallocate(MARK).  A read of a purged page
 * through the mapping would raise SIGBUS; what is left is counted with
 * pread(), which reads zeros there.
 */
static int oom_memfd_setup(struct vr_oom_data *d)
{
	d->fd = region(d->pages, &d->map);
	vr_fill(d->map, d->pages, d->seed);
	return mark(d->fd, 0, d->pages);
}

/* Pages in the file's page cache: a purge punches them out. */
static long oom_memfd_held(struct vr_oom_data *d)
{
	return vr_resident_pages(d->map, d->pages);
}

static int oom_memfd_unmark(struct vr_oom_data *d, struct vr_census *c)
{
	int r = unmark(d->fd, 0, d->pages);

	*c = vr_fd_check(d->fd, d->pages, d->seed);
	return r;
}

static void oom_memfd_teardown(struct vr_oom_data *d)
{
	if (d->fd >= 0)
		unregion(d->fd, d->map, d->pages);
}

static const struct vr_oom_engine oom_memfd = {
	.name = "memfd",
	.setup = oom_memfd_setup,
	.held = oom_memfd_held,
	.unmark = oom_memfd_unmark,
	.teardown = oom_memfd_teardown,
};

/*
 * No OOM kill while volatile pages are left: the hogs (in a cgroup of
 * their own, without a limit) allocate until the OOM killer acts, and
 * every page of the test's volatile memfd must have been purged by then.
 */
static void test_oom_64(void)
{
	vr_oom_test(&oom_memfd, 64, "lab-vshmem/oom-hogs");
}

static void test_oom_256(void)
{
	vr_oom_test(&oom_memfd, 256, "lab-vshmem/oom-hogs");
}

/*
 * The same, with kswapd stalled for a second after each chunk it claims
 * (debugfs volatile_kswapd_claim_delay_ms), as it is when its CPU is
 * taken: the hogs find the rest purged or claimed and go to the OOM
 * killer, which must not leave kswapd's chunk to kswapd.  It waited 5
 * jiffies for it once, and the kill came with 2 MiB left (in CI, without
 * the knob, 2-6 MiB, 1 run in 3).
 */
static void test_oom_64_stalled(void)
{
	vr_oom_test_kswapd_stalled(&oom_memfd, 64, "lab-vshmem/oom-hogs");
}

static void test_seal_write_marks(void)
{
	test_seal_refuses_marks(F_SEAL_WRITE, "F_SEAL_WRITE");
}

static void test_seal_future_write_marks(void)
{
	test_seal_refuses_marks(F_SEAL_FUTURE_WRITE, "F_SEAL_FUTURE_WRITE");
}

static void test_seal_write_busy(void)
{
	test_seal_busy(F_SEAL_WRITE, "F_SEAL_WRITE");
}

static void test_seal_future_write_busy(void)
{
	test_seal_busy(F_SEAL_FUTURE_WRITE, "F_SEAL_FUTURE_WRITE");
}

#define TEST(name, results) { #name, test_##name, results }

static const struct vr_test suite[] = {
	TEST(errors, 12),
	TEST(no_pressure, 3),
	TEST(reclaim_purge, 4),
	TEST(partial_exact, 1),
	TEST(unmarked_not_purged, 1),
	TEST(mlocked_part, 2),
	TEST(zero_fill, 3),
	TEST(parked, 4),
	TEST(remark_young_volatile, 1),
	TEST(remark_young_parked, 1),
	TEST(seal_write_marks, 6),
	TEST(seal_future_write_marks, 6),
	TEST(seal_write_busy, 1),
	TEST(seal_future_write_busy, 1),
	TEST(shared_processes, 3),
	TEST(two_cgroups, 1),
	TEST(memory_max, 1),
	TEST(truncate, 1),
	TEST(truncate_regrow, 3),
	TEST(truncate_clip, 2),
	TEST(ioctl_info, 3),
	TEST(ioctl_prot, 3),
	TEST(prot_mask_writes, 11),
	TEST(ioctl_pin, 3),
	TEST(many_ranges, 1),
	TEST(oom_64, 1),
	TEST(oom_64_stalled, 1),
	TEST(oom_256, 1),
};

#define SUITE_SIZE (int)(sizeof(suite) / sizeof(suite[0]))

int main(int argc, char **argv)
{
	bool selected[SUITE_SIZE] = { false };

	vr_init();
	tap_plan(vr_select_tests("volatile_shmem_test", suite, SUITE_SIZE,
				 argc, argv, selected));
	tap_diag("mode: SwapTotal %ld kB", meminfo_kb("SwapTotal"));
	vr_enter_cgroup("lab-vshmem", cg, sizeof(cg));
	vr_run_tests(suite, SUITE_SIZE, selected);
	return tap_finish();
}
