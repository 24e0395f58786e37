// SPDX-License-Identifier: GPL-2.0
/*
 * The ashmem driver (drivers/staging/android/ashmem.c of the lab series)
 * against the behaviour of Android's: every ioctl with good and bad
 * arguments, mmap and the protection mask, pin/unpin range bookkeeping,
 * purging by PURGE_ALL_CACHES and by real memory pressure, sharing with
 * a child, release, the memcg limit it is known for, and random
 * sequences checked against a model of the unpinned-range list.
 *
 * PURGE_ALL_CACHES returns the pages on the global LRU, so this suite
 * must be the only ashmem user in the guest while it runs.
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "cgroup.h"
#include "proc.h"
#include "ashmem_util.h"
#include "tap.h"
#include "vr_util.h"

#define MIB (1024UL * 1024)
#define RANDOM_SEQUENCES 1000
#define RANDOM_PAGES 16

static char cg_parent[CG_PATH_MAX];

/* One letter per page: 'P' pinned, 'u' unpinned, '?' an error. */
static void pin_map(int fd, size_t pages, char *out)
{
	size_t i;

	for (i = 0; i < pages; i++) {
		int r = ash_pages(fd, ASHMEM_GET_PIN_STATUS, i, 1);

		out[i] = r == ASHMEM_IS_PINNED ? 'P' :
			 r == ASHMEM_IS_UNPINNED ? 'u' : '?';
	}
	out[pages] = '\0';
}

static long ash_ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static void test_abi(void)
{
	tap_result(ASHMEM_SET_NAME == 0x41007701 &&
		   ASHMEM_GET_NAME == 0x81007702 &&
		   ASHMEM_SET_SIZE == 0x40087703 && ASHMEM_GET_SIZE == 0x7704 &&
		   ASHMEM_SET_PROT_MASK == 0x40087705 &&
		   ASHMEM_GET_PROT_MASK == 0x7706 &&
		   ASHMEM_PIN == 0x40087707 && ASHMEM_UNPIN == 0x40087708 &&
		   ASHMEM_GET_PIN_STATUS == 0x7709 &&
		   ASHMEM_PURGE_ALL_CACHES == 0x770a &&
		   ASHMEM_GET_FILE_ID == 0x8008770b &&
		   sizeof(struct ashmem_pin) == 8,
		   "uapi ioctl numbers are Android's");
}

static void test_new_area(void)
{
	char name[ASHMEM_NAME_LEN] = "x";
	int fd = ash_open(0);

	tap_result(ash_ioctl(fd, ASHMEM_GET_SIZE, 0) == 0 &&
		   ash_ioctl(fd, ASHMEM_GET_PROT_MASK, 0) ==
			   (PROT_READ | PROT_WRITE | PROT_EXEC) &&
		   ash_ioctl(fd, ASHMEM_GET_NAME, (unsigned long)name) == 0 &&
		   !strcmp(name, ASHMEM_NAME_DEF),
		   "a new area: size 0, mask rwx, name \"%s\"", name);
	tap_result(ash_ioctl(fd, 0x7700 + 42, 0) == -ENOTTY &&
		   ash_ioctl(fd, _IO('x', 4), 0) == -ENOTTY &&
		   ash_ioctl(fd, ASHMEM_GET_FILE_ID, (unsigned long)name) ==
			   -ENOTTY,
		   "unknown ioctls and GET_FILE_ID: ENOTTY");
	close(fd);
}

static void test_name(void)
{
	char long_name[400], got[ASHMEM_NAME_LEN + 16], maps[512];
	int fd = ash_open(page_size);
	char *p;
	long r;

	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	r = ash_ioctl(fd, ASHMEM_SET_NAME, (unsigned long)"first");
	r |= ash_ioctl(fd, ASHMEM_SET_NAME, (unsigned long)long_name);
	memset(got, 0, sizeof(got));
	r |= ash_ioctl(fd, ASHMEM_GET_NAME, (unsigned long)got);
	tap_result(r == 0 && strlen(got) == ASHMEM_NAME_LEN - 1 &&
		   !strncmp(got, long_name, ASHMEM_NAME_LEN - 1),
		   "SET_NAME truncates to 255 characters (got %zu)",
		   strlen(got));

	r = ash_ioctl(fd, ASHMEM_SET_NAME, (unsigned long)"lab-name");
	tap_result(r == 0 &&
		   ash_ioctl(fd, ASHMEM_SET_NAME, 8) == -EFAULT &&
		   ash_ioctl(fd, ASHMEM_GET_NAME, 8) == -EFAULT &&
		   ash_ioctl(fd, ASHMEM_GET_NAME, (unsigned long)got) == 0 &&
		   !strcmp(got, "lab-name"),
		   "SET_NAME/GET_NAME with a bad pointer: EFAULT, name kept");

	p = ash_map(fd, page_size, PROT_READ, MAP_SHARED);
	vr_maps(p, page_size, maps, sizeof(maps));
	tap_result(strstr(maps, "/dev/ashmem/lab-name") != NULL,
		   "the backing file is named dev/ashmem/<name>: %.*s",
		   (int)strcspn(maps, "\n"), maps);
	r = ash_ioctl(fd, ASHMEM_SET_NAME, (unsigned long)"late");
	tap_result(r == -EINVAL &&
		   ash_ioctl(fd, ASHMEM_GET_NAME, (unsigned long)got) == 0 &&
		   !strcmp(got, "lab-name"),
		   "SET_NAME after mmap: EINVAL, name kept");
	munmap(p, page_size);
	close(fd);
}

static void test_size(void)
{
	int fd = ash_open(0);
	long r;
	char *p;

	r = ash_ioctl(fd, ASHMEM_SET_SIZE, 3 * page_size);
	r |= ash_ioctl(fd, ASHMEM_SET_SIZE, 5 * page_size + 123);
	tap_result(r == 0 &&
		   ash_ioctl(fd, ASHMEM_GET_SIZE, 0) ==
			   (long)(5 * page_size + 123),
		   "SET_SIZE: unaligned sizes, repeated before mmap");
	p = ash_map(fd, 6 * page_size, PROT_READ | PROT_WRITE, MAP_SHARED);
	tap_result(ash_ioctl(fd, ASHMEM_SET_SIZE, page_size) == -EINVAL &&
		   ash_ioctl(fd, ASHMEM_GET_SIZE, 0) ==
			   (long)(5 * page_size + 123),
		   "SET_SIZE after mmap: EINVAL, size kept");
	tap_result(mmap(NULL, 7 * page_size, PROT_READ, MAP_SHARED, fd, 0) ==
			   MAP_FAILED && errno == EINVAL,
		   "mmap longer than PAGE_ALIGN(size): EINVAL");
	munmap(p, 6 * page_size);
	close(fd);

	fd = ash_open(0);
	tap_result(mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0) ==
			   MAP_FAILED && errno == EINVAL &&
		   ash_pages(fd, ASHMEM_UNPIN, 0, 1) == -EINVAL,
		   "mmap of a size-0 area: EINVAL (and still no backing file)");
	close(fd);
}

static void test_prot_mask(void)
{
	int fd = ash_open(2 * page_size);
	void *p;

	tap_result(ash_ioctl(fd, ASHMEM_SET_PROT_MASK,
			     PROT_READ | PROT_WRITE) == 0 &&
		   ash_ioctl(fd, ASHMEM_SET_PROT_MASK,
			     PROT_READ | PROT_EXEC) == -EINVAL &&
		   ash_ioctl(fd, ASHMEM_GET_PROT_MASK, 0) ==
			   (PROT_READ | PROT_WRITE),
		   "SET_PROT_MASK narrows; adding a bit: EINVAL, mask kept");

	p = ash_map(fd, 2 * page_size, PROT_READ | PROT_WRITE, MAP_SHARED);
	tap_result(ash_ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ) == 0 &&
		   ash_ioctl(fd, ASHMEM_GET_PROT_MASK, 0) == PROT_READ,
		   "SET_PROT_MASK after mmap narrows further");
	tap_result(mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, 0) == MAP_FAILED && errno == EPERM &&
		   mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			fd, 0) == MAP_FAILED && errno == EPERM,
		   "mmap with a protection outside the mask: EPERM");
	munmap(p, 2 * page_size);

	p = ash_map(fd, page_size, PROT_READ, MAP_SHARED);
	tap_result(mprotect(p, page_size, PROT_READ | PROT_WRITE) == -1 &&
		   errno == EACCES &&
		   mprotect(p, page_size, PROT_READ | PROT_EXEC) == -1 &&
		   errno == EACCES && mprotect(p, page_size, PROT_NONE) == 0 &&
		   mprotect(p, page_size, PROT_READ) == 0,
		   "mprotect cannot widen past the mask (EACCES), may narrow");
	munmap(p, page_size);
	close(fd);

	fd = ash_open(page_size);
	personality(READ_IMPLIES_EXEC);
	tap_result(ash_ioctl(fd, ASHMEM_SET_PROT_MASK, PROT_READ) == 0 &&
		   ash_ioctl(fd, ASHMEM_GET_PROT_MASK, 0) ==
			   (PROT_READ | PROT_EXEC),
		   "READ_IMPLIES_EXEC adds EXEC to a mask with READ");
	personality(PER_LINUX);
	close(fd);
}

static void test_read_seek(void)
{
	char buf[64];
	int fd = ash_open(0);
	char *p;

	tap_result(read(fd, buf, sizeof(buf)) == 0 &&
		   lseek(fd, 0, SEEK_SET) == -1 && errno == EINVAL,
		   "size 0: read is EOF, llseek EINVAL");
	ash_ioctl(fd, ASHMEM_SET_SIZE, 4 * page_size);
	tap_result(read(fd, buf, sizeof(buf)) == -1 && errno == EBADF &&
		   lseek(fd, 0, SEEK_SET) == -1 && errno == EBADF,
		   "no backing file yet: read and llseek EBADF");

	p = ash_map(fd, 4 * page_size, PROT_READ | PROT_WRITE, MAP_SHARED);
	memcpy(p + 2 * page_size, "ashmem", 6);
	tap_result(lseek(fd, 2 * page_size, SEEK_SET) ==
			   (off_t)(2 * page_size) &&
		   read(fd, buf, 6) == 6 && !memcmp(buf, "ashmem", 6) &&
		   lseek(fd, 0, SEEK_CUR) == (off_t)(2 * page_size + 6),
		   "read and llseek go to the backing file");
	tap_result(lseek(fd, 0, SEEK_DATA) == (off_t)(2 * page_size) &&
		   lseek(fd, 2 * page_size, SEEK_HOLE) ==
			   (off_t)(3 * page_size),
		   "SEEK_DATA and SEEK_HOLE see shmem's holes");
	tap_result(write(fd, "x", 1) == -1 && errno == EINVAL,
		   "write: EINVAL (no write method)");
	munmap(p, 4 * page_size);
	close(fd);
}

struct range_case {
	uint32_t offset, len;
	int err;
	const char *what;
};

static void test_range_errors(void)
{
	const size_t pages = 4;
	/* The area is 4 pages plus one byte: PAGE_ALIGN(size) is 5 pages. */
	const uint32_t ps = page_size, end = 5 * page_size;
	const struct range_case cases[] = {
		{ 1, ps, -EINVAL, "unaligned offset" },
		{ 0, ps + 1, -EINVAL, "unaligned len" },
		{ 0, ps - 1, -EINVAL, "len below a page" },
		{ 0, end + ps, -EINVAL, "offset + len past PAGE_ALIGN(size)" },
		{ end + ps, 0, -EINVAL, "len 0 at offset past the end" },
		{ end, ps, -EINVAL, "offset at the end, len 1 page" },
		{ 0xfffff000, 2 * ps, -EINVAL, "u32 overflow of offset + len" },
		{ ps, 0xfffff000, -EINVAL, "u32 overflow of len" },
		{ ps, 0, 0, "len 0 is to the end" },
	};
	static const unsigned long cmds[] = {
		ASHMEM_PIN, ASHMEM_UNPIN, ASHMEM_GET_PIN_STATUS
	};
	char before[8], after[8];
	size_t i, c;
	bool ok = true;
	int fd;
	char *p;

	fd = ash_open(pages * page_size + 1);
	for (c = 0; c < 3; c++)
		ok &= ash_pages(fd, cmds[c], 0, 1) == -EINVAL;
	tap_result(ok, "PIN, UNPIN, GET_PIN_STATUS before mmap: EINVAL");

	p = ash_map(fd, 5 * page_size, PROT_READ | PROT_WRITE, MAP_SHARED);
	vr_fill(p, 5, 11);
	ash_pages(fd, ASHMEM_UNPIN, 3, 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct range_case *k = &cases[i];

		if (!k->err)
			continue;
		for (c = 0; c < 3; c++) {
			int r;

			pin_map(fd, 5, before);
			r = ash_range(fd, cmds[c], k->offset, k->len);
			pin_map(fd, 5, after);
			if (r != k->err || strcmp(before, after)) {
				tap_diag("%s, cmd %#lx: %d, %s -> %s", k->what,
					 cmds[c], r, before, after);
				ok = false;
			}
		}
	}
	tap_result(ok, "bad intervals: EINVAL for all three, pins unchanged");
	tap_result(ash_range(fd, ASHMEM_PIN, 0, 8) == -EINVAL &&
		   ioctl(fd, ASHMEM_PIN, 8) == -1 && errno == EFAULT &&
		   ioctl(fd, ASHMEM_UNPIN, 8) == -1 && errno == EFAULT &&
		   ioctl(fd, ASHMEM_GET_PIN_STATUS, 8) == -1 &&
		   errno == EFAULT,
		   "a bad struct ashmem_pin pointer: EFAULT");

	tap_result(ash_range(fd, ASHMEM_GET_PIN_STATUS, ps, 0) ==
			   ASHMEM_IS_UNPINNED &&
		   ash_range(fd, ASHMEM_UNPIN, ps, 0) == 0 &&
		   (pin_map(fd, 5, after), !strcmp(after, "Puuuu")) &&
		   ash_range(fd, ASHMEM_PIN, 2 * ps, 0) == ASHMEM_NOT_PURGED &&
		   (pin_map(fd, 5, after), !strcmp(after, "PuPPP")),
		   "len 0 means to PAGE_ALIGN(size), for all three ioctls");
	tap_result(ash_range(fd, ASHMEM_UNPIN, end, 0) == 0 &&
		   ash_range(fd, ASHMEM_PIN, end, 0) == ASHMEM_NOT_PURGED &&
		   ash_range(fd, ASHMEM_GET_PIN_STATUS, end, 0) ==
			   ASHMEM_IS_PINNED &&
		   (pin_map(fd, 5, after), !strcmp(after, "PuPPP")),
		   "len 0 at PAGE_ALIGN(size) names no page and changes nothing");
	ash_range(fd, ASHMEM_PIN, 0, 0);
	tap_result(vr_check(p, 5, 11).intact == 5,
		   "the data survived every rejected call");
	munmap(p, 5 * page_size);
	close(fd);
}

static void test_unpin_merge(void)
{
	char pins[16];
	int fd;
	char *p;

	/* Overlapping unpins merge into one range: the purged state too. */
	fd = ash_filled(8, 1, &p);
	ash_pages(fd, ASHMEM_UNPIN, 0, 2);
	tap_result(purge_all_fd(fd) == 2, "PURGE_ALL_CACHES returns LRU pages");
	ash_pages(fd, ASHMEM_UNPIN, 1, 2);
	pin_map(fd, 8, pins);
	tap_result(!strcmp(pins, "uuuPPPPP") &&
		   ash_pages(fd, ASHMEM_PIN, 2, 1) == ASHMEM_WAS_PURGED,
		   "overlapping unpins merge and inherit the purged state");
	ash_pages(fd, ASHMEM_PIN, 0, 8);

	/* Adjacent unpins stay separate ranges. */
	ash_pages(fd, ASHMEM_UNPIN, 4, 1);
	purge_all_fd(fd);
	ash_pages(fd, ASHMEM_UNPIN, 5, 1);
	tap_result(ash_pages(fd, ASHMEM_PIN, 5, 1) == ASHMEM_NOT_PURGED &&
		   ash_pages(fd, ASHMEM_PIN, 4, 1) == ASHMEM_WAS_PURGED,
		   "adjacent unpins do not merge");

	/* An unpin inside an unpinned range changes nothing. */
	ash_pages(fd, ASHMEM_UNPIN, 0, 4);
	ash_pages(fd, ASHMEM_UNPIN, 1, 2);
	ash_pages(fd, ASHMEM_UNPIN, 0, 4);
	tap_result(purge_all_fd(fd) == 4,
		   "an unpin inside an unpinned range is a no-op");
	ash_pages(fd, ASHMEM_PIN, 0, 8);

	/* Unpinning is idempotent on the LRU count: a merge, not a sum. */
	ash_pages(fd, ASHMEM_UNPIN, 0, 3);
	ash_pages(fd, ASHMEM_UNPIN, 2, 4);
	ash_pages(fd, ASHMEM_UNPIN, 7, 1);
	pin_map(fd, 8, pins);
	tap_result(!strcmp(pins, "uuuuuuPu") && purge_all_fd(fd) == 7,
		   "merged ranges are counted once on the LRU");
	munmap(p, 8 * page_size);
	close(fd);
}

static void test_pin_split(void)
{
	char pins[16];
	struct vr_census c;
	int fd, r;
	char *p;

	fd = ash_filled(8, 2, &p);
	ash_pages(fd, ASHMEM_UNPIN, 0, 8);
	r = ash_pages(fd, ASHMEM_PIN, 3, 2);
	pin_map(fd, 8, pins);
	tap_result(r == ASHMEM_NOT_PURGED && !strcmp(pins, "uuuPPuuu") &&
		   purge_all_fd(fd) == 6,
		   "a pin inside a range splits it: %s", pins);
	tap_result(ash_pages(fd, ASHMEM_PIN, 3, 2) == ASHMEM_NOT_PURGED &&
		   ash_pages(fd, ASHMEM_PIN, 2, 1) == ASHMEM_WAS_PURGED &&
		   ash_pages(fd, ASHMEM_PIN, 5, 3) == ASHMEM_WAS_PURGED,
		   "pinning pinned pages: NOT_PURGED; each half purged");
	c = vr_check(p, 8, 2);
	tap_result(c.intact == 2 && c.zero == 6 && c.corrupt == 0 &&
		   vr_page_intact(p, 3, 2) && vr_page_intact(p, 4, 2) &&
		   vr_page_zero(p, 0) && vr_page_zero(p, 7),
		   "purged pages read zero, pinned ones are intact (%zu/%zu/%zu)",
		   c.intact, c.zero, c.corrupt);
	vr_fill(p, 8, 2);
	ash_pages(fd, ASHMEM_PIN, 0, 8);

	ash_pages(fd, ASHMEM_UNPIN, 0, 8);
	ash_pages(fd, ASHMEM_PIN, 0, 2);
	ash_pages(fd, ASHMEM_PIN, 6, 2);
	pin_map(fd, 8, pins);
	tap_result(!strcmp(pins, "PPuuuuPP") && purge_all_fd(fd) == 4,
		   "pins over either end trim the range: %s", pins);
	ash_pages(fd, ASHMEM_UNPIN, 0, 2);
	ash_pages(fd, ASHMEM_UNPIN, 6, 2);
	tap_result(ash_pages(fd, ASHMEM_PIN, 0, 8) == ASHMEM_WAS_PURGED &&
		   (pin_map(fd, 8, pins), !strcmp(pins, "PPPPPPPP")),
		   "a pin over several ranges removes them all");
	tap_result(ash_pages(fd, ASHMEM_GET_PIN_STATUS, 0, 8) ==
			   ASHMEM_IS_PINNED &&
		   ash_pages(fd, ASHMEM_UNPIN, 5, 1) == 0 &&
		   ash_pages(fd, ASHMEM_GET_PIN_STATUS, 0, 8) ==
			   ASHMEM_IS_UNPINNED &&
		   ash_pages(fd, ASHMEM_GET_PIN_STATUS, 0, 5) ==
			   ASHMEM_IS_PINNED,
		   "GET_PIN_STATUS: unpinned if any page of the interval is");
	munmap(p, 8 * page_size);
	close(fd);
}

static int unprivileged_purge(void *arg)
{
	int fd = *(int *)arg;

	if (setresuid(65534, 65534, 65534))
		return 10;
	return purge_all_fd(fd) == -EPERM ? 0 : 11;
}


static void test_purge_permission(void)
{
	int fd, status;
	char *p;

	fd = ash_filled(4, 3, &p);
	ash_pages(fd, ASHMEM_UNPIN, 0, 4);
	status = run_child(unprivileged_purge, &fd);
	tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		   ash_pages(fd, ASHMEM_PIN, 0, 4) == ASHMEM_NOT_PURGED &&
		   vr_check(p, 4, 3).intact == 4,
		   "PURGE_ALL_CACHES without CAP_SYS_ADMIN: EPERM, nothing purged");
	munmap(p, 4 * page_size);
	close(fd);
}


/*
 * Touch anonymous memory 1 MiB at a time, up to @arg MiB, until the
 * shmem in use has dropped by 4 MiB: the shrinker has purged.  Punched
 * shmem pages do not count as reclaim progress, so the OOM killer may
 * still strike; the hog volunteers to be its victim.
 */
static int hog_child(void *arg)
{
	size_t mib = *(size_t *)arg, i, off;
	long shmem = meminfo_kb("Shmem");
	char *p;

	if (set_oom_score_adj(1000))
		return 4;

	p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	for (i = 0; i < mib; i++) {
		for (off = 0; off < MIB; off += page_size)
			p[i * MIB + off] = 1;
		if (meminfo_kb("Shmem") < shmem - 4096)
			return 0;
	}
	return 3;
}

static void test_global_pressure(void)
{
	const size_t pages = 64 * MIB / page_size, keep = 1 * MIB / page_size;
	size_t hog, i, intact = 0;
	struct vr_census c;
	int fd, status, r;
	char *p;

	/* 64 MiB, all unpinned but the last 1 MiB. */
	fd = ash_filled(pages, 4, &p);
	ash_pages(fd, ASHMEM_UNPIN, 0, pages - keep);
	hog = meminfo_kb("MemFree") / 1024 + 48;
	status = run_child(hog_child, &hog);
	r = ash_pages(fd, ASHMEM_PIN, 0, pages - keep);
	c = vr_check(p, pages - keep, 4);
	tap_diag("hog of %zu MiB: status %#x (9: OOM-killed); %zu intact, %zu zero pages",
		 hog, status, c.intact, c.zero);
	tap_result(((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) &&
		   r == ASHMEM_WAS_PURGED && c.zero > 0 && c.corrupt == 0,
		   "global memory pressure purges: WAS_PURGED, zero-filled");
	for (i = pages - keep; i < pages; i++)
		intact += vr_page_intact(p, i, 4);
	tap_result(intact == keep,
		   "pinned pages are untouched by the purge (%zu of %zu)",
		   intact, keep);
	munmap(p, pages * page_size);
	close(fd);
}

static void test_fork_share(void)
{
	int fd, status;
	pid_t pid;
	char *shared, *private;

	fd = ash_open(4 * page_size);
	shared = ash_map(fd, 4 * page_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED);
	memset(shared, 'p', 4 * page_size);
	pid = fork();
	if (pid == 0) {
		char *late = mmap(NULL, 4 * page_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);

		if (late == MAP_FAILED || late[0] != 'p')
			_exit(1);
		memset(late + page_size, 'c', page_size);
		shared[0] = 'c';
		_exit(ash_pages(fd, ASHMEM_UNPIN, 3, 1) == 0 ? 0 : 2);
	}
	waitpid(pid, &status, 0);
	tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		   shared[0] == 'c' && shared[page_size] == 'c' &&
		   shared[2 * page_size] == 'p' &&
		   ash_pages(fd, ASHMEM_GET_PIN_STATUS, 3, 1) ==
			   ASHMEM_IS_UNPINNED,
		   "a forked child shares the area: its writes and unpins");

	private = ash_map(fd, 4 * page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE);
	tap_result(private[0] == 0 && (private[1] = 'x', shared[1] == 'p'),
		   "MAP_PRIVATE is anonymous memory, as of /dev/zero");
	munmap(private, 4 * page_size);
	munmap(shared, 4 * page_size);
	close(fd);
}

static void test_release(void)
{
	int fd, other;
	char *p;

	fd = ash_filled(8, 5, &p);
	other = ash_open(0);
	ash_pages(fd, ASHMEM_UNPIN, 0, 3);
	ash_pages(fd, ASHMEM_UNPIN, 5, 2);
	close(fd);
	tap_result(purge_all_fd(other) == 0,
		   "release drops the area's unpinned ranges from the LRU");
	tap_result(vr_check(p, 8, 5).intact == 8,
		   "a mapping outlives its area's fd, data intact");
	munmap(p, 8 * page_size);
	close(other);
}

/* Allocate 16 MiB of anonymous memory under the cgroup's memory.max. */
static int cgroup_hog_child(void *arg)
{
	const char *sub = arg;

	if (cg_write_u64(sub, "memory.max", 8 * MIB) || cg_enter(sub))
		return 10;
	vr_fill(vr_map(16 * MIB / page_size), 16 * MIB / page_size, 7);
	return 0;
}

static void test_memcg_limit(void)
{
	const size_t pages = 4 * MIB / page_size;
	char sub[CG_PATH_MAX], pins[2];
	uint64_t ooms = 0, current = 0;
	int fd, status, r;
	char *p;

	if (cg_create("lab-ashmem/limit", sub, sizeof(sub)))
		tap_bail("cgroup lab-ashmem/limit: %s", strerror(errno));
	/* The parent makes the area; the child, in the cgroup, fills it. */
	fd = ash_open(pages * page_size);
	p = ash_map(fd, pages * page_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED);
	status = fork();
	if (status == 0) {
		if (cg_enter(sub))
			_exit(10);
		vr_fill(p, pages, 6);
		_exit(ash_pages(fd, ASHMEM_UNPIN, 0, pages) ? 11 : 0);
	}
	waitpid(status, &status, 0);
	cg_read_u64(sub, "memory.current", &current);
	r = vr_reclaim(sub, 64 * MIB);
	pin_map(fd, 1, pins);
	tap_diag("child cgroup holds %llu kB; memory.reclaim: %d",
		 (unsigned long long)current / 1024, r);
	tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		   current >= pages * page_size && r == -EAGAIN &&
		   pins[0] == 'u' && vr_check(p, pages, 6).intact == pages,
		   "faithful limit: memory.reclaim of a child cgroup does not purge unpinned ashmem");

	status = run_child(cgroup_hog_child, sub);
	cg_read_key(sub, "memory.events", "oom_kill", &ooms);
	tap_diag("hog under memory.max 8M: status %#x, %llu OOM kills",
		 status, (unsigned long long)ooms);
	tap_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		   ooms >= 1 && vr_check(p, pages, 6).intact == pages &&
		   ash_pages(fd, ASHMEM_PIN, 0, pages) == ASHMEM_NOT_PURGED,
		   "faithful limit: memory.max OOM-kills rather than purge unpinned ashmem");
	munmap(p, pages * page_size);
	close(fd);
	rmdir(sub);
}

/*
 * The model of one area: per page, whether it is unpinned, the id of the
 * unpinned range holding it (ranges as the driver should have merged
 * them) and whether that range was purged; and whether each page's data
 * should read as its pattern or as zeros.
 */
struct model {
	int range[RANDOM_PAGES];	/* 0: pinned, else a range id */
	bool purged[RANDOM_PAGES];
	bool zero[RANDOM_PAGES];
	int next_id;
};

static void model_unpin(struct model *m, size_t a, size_t b)
{
	size_t i, lo = a, hi = b;
	bool purged = false;
	int id;

	/* Inside one existing range: nothing happens. */
	if (m->range[a] && m->range[a] == m->range[b]) {
		for (i = a; i <= b && m->range[i] == m->range[a]; i++)
			;
		if (i > b)
			return;
	}
	/* Ranges overlapping [a, b] merge with it. */
	for (i = 0; i < RANDOM_PAGES; i++) {
		bool overlap = false;
		size_t j;

		if (!m->range[i])
			continue;
		for (j = a; j <= b; j++)
			overlap |= m->range[j] == m->range[i];
		if (overlap) {
			lo = i < lo ? i : lo;
			hi = i > hi ? i : hi;
			purged |= m->purged[i];
		}
	}
	id = ++m->next_id;
	for (i = lo; i <= hi; i++) {
		m->range[i] = id;
		m->purged[i] = purged;
	}
}

static int model_pin(struct model *m, size_t a, size_t b)
{
	bool purged = false;
	size_t i;

	for (i = a; i <= b; i++)
		if (m->range[i])
			purged |= m->purged[i];
	/* A range split by the pin leaves a tail that is a range of its own. */
	if (a > 0 && b + 1 < RANDOM_PAGES && m->range[a - 1] &&
	    m->range[a - 1] == m->range[b + 1]) {
		int old = m->range[b + 1], tail = ++m->next_id;

		for (i = b + 1; i < RANDOM_PAGES && m->range[i] == old; i++)
			m->range[i] = tail;
	}
	for (i = a; i <= b; i++)
		m->range[i] = 0;
	return purged ? ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
}

static long model_purge(struct model *m)
{
	long pages = 0;
	size_t i;

	/* Only ranges on the LRU are purged (and punched) again. */
	for (i = 0; i < RANDOM_PAGES; i++) {
		if (!m->range[i] || m->purged[i])
			continue;
		pages++;
		m->purged[i] = true;
		m->zero[i] = true;
	}
	return pages;
}

static bool model_status(const struct model *m, size_t a, size_t b)
{
	size_t i;

	for (i = a; i <= b; i++)
		if (m->range[i])
			return false;
	return true;
}

/* Pinned pages must hold what the model says: pattern, or zeros. */
static bool model_data_ok(const struct model *m, const char *p,
			  unsigned int seed)
{
	size_t i;

	for (i = 0; i < RANDOM_PAGES; i++) {
		if (m->range[i])
			continue;
		if (m->zero[i] ? !vr_page_zero(p, i) :
				 !vr_page_intact(p, i, seed))
			return false;
	}
	return true;
}

static void test_random(void)
{
	const unsigned int seed = 20261203;
	unsigned long checks = 0, mismatches = 0, purges = 0, splits = 0;
	unsigned int s;

	srandom(seed);
	for (s = 0; s < RANDOM_SEQUENCES; s++) {
		struct model m = { .next_id = 0 };
		int fd, op, ops = 10 + random() % 30;
		char *p;

		fd = ash_filled(RANDOM_PAGES, s, &p);
		for (op = 0; op < ops; op++) {
			size_t a = random() % RANDOM_PAGES;
			size_t b = a + random() % (RANDOM_PAGES - a);
			int kind = random() % 8, got, want;
			long lgot, lwant;

			if (kind < 3) {
				got = ash_pages(fd, ASHMEM_UNPIN, a, b - a + 1);
				model_unpin(&m, a, b);
				want = 0;
			} else if (kind < 6) {
				if (a > 0 && b + 1 < RANDOM_PAGES &&
				    m.range[a - 1] &&
				    m.range[a - 1] == m.range[b + 1])
					splits++;
				got = ash_pages(fd, ASHMEM_PIN, a, b - a + 1);
				want = model_pin(&m, a, b);
				/* The owner refills what it found purged. */
				if (want == ASHMEM_WAS_PURGED || got != want) {
					memset(m.zero, 0, sizeof(m.zero));
					vr_fill(p, RANDOM_PAGES, s);
				}
			} else if (kind < 7) {
				got = ash_pages(fd, ASHMEM_GET_PIN_STATUS, a,
						b - a + 1);
				want = model_status(&m, a, b) ?
					ASHMEM_IS_PINNED : ASHMEM_IS_UNPINNED;
			} else {
				lgot = purge_all_fd(fd);
				lwant = model_purge(&m);
				got = lgot != lwant;
				want = 0;
				purges++;
			}
			checks++;
			if (got != want || !model_data_ok(&m, p, s)) {
				if (mismatches++ < 5)
					tap_diag("sequence %u op %d kind %d [%zu,%zu]: got %d, model %d",
						 s, op, kind, a, b, got, want);
			}
		}
		munmap(p, RANDOM_PAGES * page_size);
		close(fd);
	}
	tap_diag("%u sequences (seed %u): %lu results checked, %lu purges, %lu splits, %lu mismatches",
		 RANDOM_SEQUENCES, seed, checks, purges, splits, mismatches);
	tap_result(mismatches == 0 && splits > 0 && purges > 0,
		   "%u random sequences match the model of the range list",
		   RANDOM_SEQUENCES);
}

int main(void)
{
	vr_init();
	tap_plan(48);
	if (access("/dev/ashmem", F_OK))
		tap_bail("no /dev/ashmem: is CONFIG_ASHMEM set?");
	if (cg_create("lab-ashmem", cg_parent, sizeof(cg_parent)) ||
	    cg_write(cg_parent, "cgroup.subtree_control", "+memory"))
		tap_bail("cannot create cgroup lab-ashmem: %s",
			 strerror(errno));
	test_abi();
	test_new_area();
	test_name();
	test_size();
	test_prot_mask();
	test_read_seek();
	test_range_errors();
	test_unpin_merge();
	test_pin_split();
	test_purge_permission();
	test_release();
	test_fork_share();
	test_memcg_limit();
	test_global_pressure();
	test_random();
	return tap_finish();
}
