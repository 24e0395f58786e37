// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_marker_test: PTE markers that the volatile engine does not own
 * stay where they are.
 *
 * On 6.12 a purged page is a PTE marker (PTE_MARKER_VOLATILE_PURGED), and
 * the same PTE can hold markers of userfaultfd: UFFDIO_POISON's poisoned
 * marker, and the uffd-wp marker that write-protects an unpopulated page
 * of anonymous memory (UFFD_FEATURE_WP_UNPOPULATED) or a page of shmem
 * that was zapped while write-protected.  A purge must leave them in
 * place, MADV_NONVOLATILE must clear only its own markers and must not
 * call someone else's marker a purge, and fork must copy each kind as
 * itself.  Each test reads the state without changing it where it can:
 * a read of a marker raises SIGBUS and leaves it, pagemap shows the
 * uffd-wp bit of a marker.
 *
 * Each test needs a userfaultfd feature, asked of the kernel first: one
 * the kernel lacks is a skip with the reason (UFFDIO_POISON is 6.6+,
 * UFFD_FEATURE_WP_UNPOPULATED 6.5+, uffd-wp on arm64 6.10+).  A kernel
 * without userfaultfd at all fails: every lab kernel has it
 * (kernel/config/base.config).
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/falloc.h>
#include <linux/userfaultfd.h>

#include "cgroup.h"
#include "tap.h"
#include "vr_util.h"

#define MIB (1024UL * 1024UL)

/* The guest programs build against 6.1's uapi; these are 6.5 and 6.6's. */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)
#endif
#ifndef UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON		(1 << 14)
#endif
#ifndef _UFFDIO_POISON
#define _UFFDIO_POISON			(0x08)
struct uffdio_poison {
	struct uffdio_range range;
	__u64 mode;
	__s64 updated;
};
#define UFFDIO_POISON	_IOWR(UFFDIO, _UFFDIO_POISON, struct uffdio_poison)
#endif

/* pagemap: bit 57, the PTE (or its marker) is uffd-wp write-protected. */
#define PM_UFFD_WP	(1ULL << 57)

#define PAGES		16
/* The page that holds a foreign marker in the anonymous tests. */
#define FOREIGN		5

static char cg[CG_PATH_MAX];

/*
 * A userfaultfd with @features, or -1 with the reason in @why: the kernel
 * lacks one of them (a skip), or has no userfaultfd (a failure, *fatal).
 */
static int uffd_open(uint64_t features, const char **why, bool *fatal)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	*fatal = fd < 0;
	if (fd < 0) {
		*why = "no userfaultfd() (CONFIG_USERFAULTFD)";
		return -1;
	}
	/* Ask what the kernel has first: it may take what it then ignores. */
	if (ioctl(fd, UFFDIO_API, &api) ||
	    (api.features & features) != features) {
		*why = "the kernel lacks a userfaultfd feature this test needs";
		close(fd);
		return -1;
	}
	close(fd);
	fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	api = (struct uffdio_api){ .api = UFFD_API, .features = features };
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		*fatal = true;
		*why = "UFFDIO_API refused features it offered";
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Register [@p, @p + @len) in @mode; the range's ioctls, or 0 on error. */
static uint64_t uffd_register(int fd, void *p, size_t len, uint64_t mode)
{
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)p, .len = len },
		.mode = mode,
	};

	return ioctl(fd, UFFDIO_REGISTER, &reg) ? 0 : reg.ioctls;
}

static int uffd_wp(int fd, void *p, size_t len, bool protect)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)p, .len = len },
		.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(fd, UFFDIO_WRITEPROTECT, &wp);
}

/* Report a test's results as skipped, or failed when @fatal. */
static void skip_all(int results, bool fatal, const char *why,
		     const char *name)
{
	int i;

	for (i = 0; i < results; i++) {
		if (fatal)
			tap_result(0, "%s: %s", name, why);
		else
			tap_skip(why, "%s", name);
	}
}

/* The si_code of the SIGBUS that touching @addr raised, or 0 for none. */
static int bus_code(volatile char *addr, bool write)
{
	return write ? vr_sigbus_code_on_write(addr) :
		       vr_sigbus_code_on_read(addr);
}

/* Whether pagemap shows page @i of @p as uffd-wp; -1 on error. */
static int pagemap_wp(const char *p, size_t i)
{
	uint64_t entry;
	off_t off = ((unsigned long)p / page_size + i) * sizeof(entry);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, &entry, sizeof(entry), off);

	if (fd >= 0)
		close(fd);
	return n == sizeof(entry) ? !!(entry & PM_UFFD_WP) : -1;
}

/* How many of pages [@first, @first + @n) pagemap shows as uffd-wp. */
static size_t count_wp(const char *p, size_t first, size_t n)
{
	size_t i, wp = 0;

	for (i = first; i < first + n; i++)
		wp += pagemap_wp(p, i) == 1;
	return wp;
}

/*
 * Pages 0..PAGES-1 of private anonymous memory hold their pattern, but
 * FOREIGN, which holds UFFDIO_POISON's marker; NULL (with the reason in
 * @why) when that cannot be made.  The userfaultfd is closed again: the
 * marker is the page table's, not the registration's.
 */
static char *poisoned_map(unsigned int seed, const char **why, bool *fatal)
{
	struct uffdio_poison poison = { .mode = 0 };
	char *p = vr_map(PAGES);
	uint64_t ioctls;
	int fd;

	vr_fill(p, PAGES, seed);
	madvise(p + FOREIGN * page_size, page_size, MADV_DONTNEED);
	fd = uffd_open(UFFD_FEATURE_POISON, why, fatal);
	if (fd < 0)
		goto fail;
	ioctls = uffd_register(fd, p, PAGES * page_size,
			       UFFDIO_REGISTER_MODE_MISSING);
	poison.range.start = (unsigned long)(p + FOREIGN * page_size);
	poison.range.len = page_size;
	*fatal = true;
	if (!(ioctls & (1ULL << _UFFDIO_POISON)) ||
	    ioctl(fd, UFFDIO_POISON, &poison) ||
	    poison.updated != (__s64)page_size) {
		*why = "UFFDIO_POISON did not poison an unpopulated page";
		close(fd);
		goto fail;
	}
	close(fd);
	return p;
fail:
	munmap(p, PAGES * page_size);
	return NULL;
}

/*
 * UFFDIO_POISON's marker in a volatile range: the purge goes around it,
 * the purged pages and the poisoned page fault each in their own way
 * (BUS_ADRERR, BUS_MCEERR_AR), in a child of fork too; MADV_NONVOLATILE
 * clears the purged markers only, and a range whose only non-present
 * page is poisoned was not purged.
 */
static void test_poisoned(void)
{
	const char *why, *name = "poisoned marker";
	bool fatal;
	char *p = poisoned_map(31, &why, &fatal);
	char *foreign;
	int r, status;
	pid_t pid;

	if (!p) {
		skip_all(5, fatal, why, name);
		return;
	}
	foreign = p + FOREIGN * page_size;
	tap_result(bus_code(foreign, false) == BUS_MCEERR_AR &&
		   vr_page_intact(p, 0, 31),
		   "UFFDIO_POISON: the poisoned page raises BUS_MCEERR_AR, its neighbours hold their data");

	r = vr_madvise(p, PAGES * page_size, MADV_VOLATILE);
	vr_reclaim(cg, 64 * MIB);
	tap_result(!r && bus_code(p, false) == BUS_ADRERR &&
		   bus_code(foreign, false) == BUS_MCEERR_AR,
		   "purged: a purged page raises BUS_ADRERR, the poisoned one still BUS_MCEERR_AR");

	pid = fork();
	if (pid == 0)
		_exit(!(bus_code(p, false) == BUS_ADRERR &&
			bus_code(foreign, false) == BUS_MCEERR_AR));
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	tap_result(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "fork copies the purged and the poisoned marker, each as itself");

	r = vr_madvise(p, PAGES * page_size, MADV_NONVOLATILE);
	tap_result(r == 1 && !bus_code(p, false) && vr_page_zero(p, 0) &&
		   bus_code(foreign, false) == BUS_MCEERR_AR,
		   "MADV_NONVOLATILE returns 1 and clears the purged markers, not the poisoned one (%d)",
		   r);

	/* Only the poisoned page volatile: nothing there to purge. */
	vr_fill(p, FOREIGN, 32);
	r = vr_madvise(foreign, page_size, MADV_VOLATILE);
	vr_reclaim(cg, 64 * MIB);
	r = r ? r : vr_madvise(foreign, page_size, MADV_NONVOLATILE);
	tap_result(r == 0 && bus_code(foreign, false) == BUS_MCEERR_AR &&
		   vr_page_intact(p, 0, 32),
		   "a poisoned page alone in a range is not reported purged (%d)",
		   r);
	munmap(p, PAGES * page_size);
}

/*
 * The same under MADV_VOLATILE_ZERO, whose purged pages fault in as
 * zeros while the range is volatile: that zero fill is for purged
 * markers only, a poisoned page still raises BUS_MCEERR_AR.
 */
static void test_poisoned_zero_fill(void)
{
	const char *why, *name = "poisoned marker, MADV_VOLATILE_ZERO";
	bool fatal;
	char *p = poisoned_map(33, &why, &fatal);
	char *foreign;
	int r, zero_read;

	if (!p) {
		skip_all(1, fatal, why, name);
		return;
	}
	foreign = p + FOREIGN * page_size;
	r = vr_madvise(p, PAGES * page_size, MADV_VOLATILE_ZERO);
	vr_reclaim(cg, 64 * MIB);
	zero_read = !bus_code(p, false) && vr_page_zero(p, 0);
	tap_result(!r && zero_read &&
		   bus_code(foreign, false) == BUS_MCEERR_AR &&
		   vr_madvise(p, PAGES * page_size, MADV_NONVOLATILE) == 1 &&
		   bus_code(foreign, false) == BUS_MCEERR_AR,
		   "MADV_VOLATILE_ZERO: a purged page reads zeros, the poisoned one raises BUS_MCEERR_AR");
	munmap(p, PAGES * page_size);
}

/*
 * uffd-wp markers of unpopulated anonymous memory (WP_UNPOPULATED): the
 * purge and MADV_NONVOLATILE keep them, so a write there still traps.
 * The populated half is purged; its uffd-wp bit goes with the page, as
 * under MADV_DONTNEED, which zap drops for anonymous memory as well.
 */
static void test_anon_wp(void)
{
	const char *why, *name = "uffd-wp markers, anonymous";
	const size_t half = PAGES / 2;
	bool fatal;
	int fd = uffd_open(UFFD_FEATURE_WP_UNPOPULATED | UFFD_FEATURE_SIGBUS |
			   UFFD_FEATURE_PAGEFAULT_FLAG_WP, &why, &fatal);
	char *p;
	size_t wp_before, wp_after;
	int r;

	if (fd < 0) {
		skip_all(3, fatal, why, name);
		return;
	}
	p = vr_map(PAGES);
	vr_fill(p, half, 34);
	if (!(uffd_register(fd, p, PAGES * page_size,
			    UFFDIO_REGISTER_MODE_WP) &
	      (1ULL << _UFFDIO_WRITEPROTECT)) ||
	    uffd_wp(fd, p, PAGES * page_size, true)) {
		skip_all(3, true, "cannot write-protect anonymous memory",
			 name);
		goto out;
	}
	wp_before = count_wp(p, half, half);
	tap_result(wp_before == half && bus_code(p, true) == BUS_ADRERR,
		   "UFFDIO_WRITEPROTECT: %zu of %zu unpopulated pages hold a uffd-wp marker, a write traps",
		   wp_before, half);

	r = vr_madvise(p, PAGES * page_size, MADV_VOLATILE);
	vr_reclaim(cg, 64 * MIB);
	wp_after = count_wp(p, half, half);
	tap_result(!r && bus_code(p, false) == BUS_ADRERR && wp_after == half,
		   "purged: the populated half is purged, %zu of %zu uffd-wp markers kept",
		   wp_after, half);

	r = vr_madvise(p, PAGES * page_size, MADV_NONVOLATILE);
	wp_after = count_wp(p, half, half);
	tap_result(r == 1 && wp_after == half &&
		   bus_code(p + (half + 1) * page_size, true) == BUS_ADRERR &&
		   !bus_code(p, false) && vr_page_zero(p, 0),
		   "MADV_NONVOLATILE returns 1, keeps %zu of %zu uffd-wp markers; a write there traps (%d)",
		   wp_after, half, r);
out:
	close(fd);
	munmap(p, PAGES * page_size);
}

/*
 * uffd-wp on shmem: a write-protected page of a volatile memfd that is
 * purged leaves the uffd-wp marker zap puts in its place, and a write
 * after FALLOC_FL_UNMARK_VOLATILE still traps.  Taking the protection
 * off lets it through: the trap was uffd-wp's, not the engine's.
 */
static void test_shmem_wp(void)
{
	const char *why, *name = "uffd-wp markers, shmem";
	bool fatal;
	int fd = uffd_open(UFFD_FEATURE_WP_HUGETLBFS_SHMEM |
			   UFFD_FEATURE_SIGBUS |
			   UFFD_FEATURE_PAGEFAULT_FLAG_WP, &why, &fatal);
	int mfd = memfd_create("vmarker", MFD_CLOEXEC);
	uint64_t purged = vr_purged_counter();
	char *p = MAP_FAILED;
	size_t wp;
	int r;

	if (fd < 0) {
		skip_all(3, fatal, why, name);
		goto out;
	}
	if (mfd < 0 || ftruncate(mfd, PAGES * page_size))
		tap_bail("memfd: %s", strerror(errno));
	p = mmap(NULL, PAGES * page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 mfd, 0);
	if (p == MAP_FAILED)
		tap_bail("mmap memfd: %s", strerror(errno));
	vr_fill(p, PAGES, 35);
	if (!(uffd_register(fd, p, PAGES * page_size,
			    UFFDIO_REGISTER_MODE_WP) &
	      (1ULL << _UFFDIO_WRITEPROTECT)) ||
	    uffd_wp(fd, p, PAGES * page_size, true)) {
		skip_all(3, true, "cannot write-protect a memfd mapping", name);
		goto out;
	}
	wp = count_wp(p, 0, PAGES);
	tap_result(wp == PAGES && bus_code(p, true) == BUS_ADRERR,
		   "UFFDIO_WRITEPROTECT: %zu of %d shmem pages uffd-wp, a write traps",
		   wp, PAGES);

	r = fallocate(mfd, FALLOC_FL_MARK_VOLATILE, 0, PAGES * page_size);
	vr_reclaim(cg, 64 * MIB);
	purged = vr_purged_counter() - purged;
	wp = count_wp(p, 0, PAGES);
	tap_result(!r && purged >= PAGES && wp == PAGES &&
		   bus_code(p + page_size, false) == BUS_ADRERR,
		   "purged (%llu pages): %zu of %d uffd-wp markers in place, a read raises BUS_ADRERR",
		   (unsigned long long)purged, wp, PAGES);

	r = fallocate(mfd, FALLOC_FL_UNMARK_VOLATILE, 0, PAGES * page_size);
	wp = bus_code(p + 2 * page_size, true) == BUS_ADRERR;
	tap_result(r == 1 && wp && !uffd_wp(fd, p, PAGES * page_size, false) &&
		   !bus_code(p + 2 * page_size, true) &&
		   vr_page_zero(p, 3),
		   "UNMARK returns 1; a write still traps (%s) until uffd-wp is taken off",
		   wp ? "yes" : "no");
out:
	if (p != MAP_FAILED)
		munmap(p, PAGES * page_size);
	if (mfd >= 0)
		close(mfd);
	if (fd >= 0)
		close(fd);
}

static const struct vr_test suite[] = {
	{ "poisoned", test_poisoned, 5 },
	{ "poisoned_zero_fill", test_poisoned_zero_fill, 1 },
	{ "anon_wp", test_anon_wp, 3 },
	{ "shmem_wp", test_shmem_wp, 3 },
};
#define SUITE_SIZE (sizeof(suite) / sizeof(suite[0]))

int main(int argc, char **argv)
{
	bool selected[SUITE_SIZE] = { false };

	vr_init();
	tap_plan(vr_select_tests("volatile_marker_test", suite, SUITE_SIZE,
				 argc, argv, selected));
	vr_enter_cgroup("lab-marker", cg, sizeof(cg));
	vr_run_tests(suite, SUITE_SIZE, selected);
	return tap_finish();
}
