// SPDX-License-Identifier: GPL-2.0
/*
 * vstress: volatile ranges and ashmem under concurrency and reclaim, for a
 * bounded time.  Processes in cgroup lab-stress/work (memory.high 64 MiB,
 * memory.max 128 MiB):
 *   volatile workers  fill a random range of their region with a known
 *                     pattern, mark it volatile, sometimes read a page of
 *                     it (SIGBUS is allowed only for a purged page), mark
 *                     it nonvolatile and check the answer against every
 *                     page; they also mprotect, mremap, munmap and map
 *                     again, fork children that check their copy, and
 *                     use a THP-backed region;
 *   an ashmem worker  the same with UNPIN / PIN on /dev/ashmem;
 *   a reclaimer       memory.reclaim of random sizes, 56 MiB allocation
 *                     bursts that push the cgroup past memory.high (the
 *                     OOM killer's choice, should one come),
 *                     ASHMEM_PURGE_ALL_CACHES.
 * A range reported intact must be intact byte for byte; a purge must be
 * reported; "purged" must name at least one zero-filled page.
 *
 *   vstress [--seconds N] [--seed S] [--report FILE]
 * TAP on stdout; FILE gets "key value" lines for results/reliability.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/mman.h>

#include "cgroup.h"
#include "proc.h"
#include "tap.h"

#define MIB (1024UL * 1024)
#define REGION (8 * MIB)
#define VOLATILE_WORKERS 2

/* Shared by every process; updated with atomic adds. */
struct stats {
	uint64_t marks, pins_intact, pins_purged, pages_purged, sigbus;
	uint64_t bytes_verified, lost_bytes, unreported, false_reports;
	uint64_t bad_sigbus, forks, mprotects, mremaps, remaps, thp_rounds;
	uint64_t ash_unpins, ash_pins_intact, ash_pins_purged;
	uint64_t ash_lost_bytes, ash_false_reports, reclaims, bursts;
	uint64_t purge_all, errors;
	volatile int stop;
};

static struct stats *st;
static size_t page_size;
static char cg[CG_PATH_MAX];

#define ADD(field, n) __atomic_add_fetch(&st->field, (n), __ATOMIC_RELAXED)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t word(uint64_t gen, size_t page, size_t w)
{
	return ((gen * 0x9e3779b97f4a7c15ULL) ^ (page << 20) ^ w) | 1;
}

static void fill(char *p, size_t first, size_t pages, uint64_t gen)
{
	size_t i, w, words = page_size / 8;

	for (i = first; i < first + pages; i++)
		for (w = 0; w < words; w++)
			((uint64_t *)(p + i * page_size))[w] = word(gen, i, w);
}

/* 0 intact, 1 all zero, 2 anything else. */
static int page_state(const char *p, size_t i, uint64_t gen)
{
	const uint64_t *q = (const uint64_t *)(p + i * page_size);
	size_t w, words = page_size / 8;
	bool intact = true, zero = true;

	for (w = 0; w < words; w++) {
		intact &= q[w] == word(gen, i, w);
		zero &= q[w] == 0;
	}
	return intact ? 0 : zero ? 1 : 2;
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

/* Read page @i; true when that raised SIGBUS. */
static bool read_faults(const volatile char *p, size_t i)
{
	if (sigsetjmp(sigbus_jmp, 1))
		return true;
	(void)p[i * page_size];
	return false;
}

/*
 * Check [@first, @first + @pages) after MADV_NONVOLATILE returned @r:
 * 0 means every page is intact, 1 that at least one page was purged and
 * reads zeros, the others intact.  @faulted is a page that raised
 * SIGBUS while volatile, or -1.
 */
static void check_range(char *p, size_t first, size_t pages, uint64_t gen,
			int r, long faulted)
{
	size_t i, zero = 0, bad = 0;

	for (i = first; i < first + pages; i++) {
		int s = page_state(p, i, gen);

		zero += s == 1;
		bad += s == 2;
		if (s == 1 && (long)i == faulted)
			faulted = -1;	/* SIGBUS on a purged page: allowed */
	}
	if (r == 0) {
		ADD(pins_intact, 1);
		ADD(bytes_verified, (pages - zero - bad) * page_size);
		ADD(unreported, zero);
		ADD(lost_bytes, bad * page_size);
	} else {
		ADD(pins_purged, 1);
		ADD(pages_purged, zero);
		ADD(bytes_verified, (pages - zero - bad) * page_size);
		ADD(lost_bytes, bad * page_size);
		ADD(false_reports, zero == 0);
	}
	if (faulted >= 0)
		ADD(bad_sigbus, 1);
}

static char *map_region(bool thp)
{
	char *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (thp)
		madvise(p, REGION, MADV_HUGEPAGE);
	return p;
}

/* One mark, maybe a read, one unmark and the check of every page. */
static void volatile_round(char *p, uint64_t *seed, uint64_t gen)
{
	size_t pages = REGION / page_size;
	size_t first = rnd(seed) % pages;
	size_t count = 1 + rnd(seed) % (pages - first);
	long faulted = -1;
	int r;

	if (count > 512)
		count = 1 + count % 512;
	fill(p, first, count, gen);
	if (madvise(p + first * page_size, count * page_size,
		    MADV_VOLATILE)) {
		ADD(errors, 1);
		return;
	}
	ADD(marks, 1);
	if (rnd(seed) % 4 == 0) {
		size_t i = first + rnd(seed) % count;

		if (read_faults(p, i)) {
			ADD(sigbus, 1);
			faulted = i;
		}
	}
	/* Now and then stay volatile long enough for reclaim to come. */
	if (rnd(seed) % 8 == 0) {
		struct timespec pause = { 0, 2000000 };

		nanosleep(&pause, NULL);
	} else {
		sched_yield();
	}
	r = madvise(p + first * page_size, count * page_size,
		    MADV_NONVOLATILE);
	if (r < 0) {
		ADD(errors, 1);
		return;
	}
	check_range(p, first, count, gen, r, faulted);
}

static void volatile_worker(int id, uint64_t seed)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	char *p = map_region(id == 0);
	uint64_t gen = 1;

	sigaction(SIGBUS, &sa, NULL);
	if (!p)
		_exit(10);
	while (!st->stop) {
		unsigned int op = rnd(&seed) % 32;

		gen++;
		if (op == 0) {
			/* A read-only window, then writable again. */
			if (mprotect(p, REGION, PROT_READ) ||
			    mprotect(p, REGION, PROT_READ | PROT_WRITE))
				ADD(errors, 1);
			ADD(mprotects, 1);
		} else if (op == 1) {
			/* Move the region, volatile marks and all. */
			char *q = mremap(p, REGION, REGION, MREMAP_MAYMOVE);

			if (q == MAP_FAILED) {
				ADD(errors, 1);
			} else {
				p = q;
				ADD(mremaps, 1);
			}
		} else if (op == 2) {
			/* Partly volatile, then gone. */
			madvise(p, REGION / 2, MADV_VOLATILE);
			munmap(p, REGION);
			p = map_region(id == 0);
			if (!p)
				_exit(11);
			ADD(remaps, 1);
		} else if (op == 3) {
			pid_t pid = fork();

			if (pid == 0) {
				uint64_t s2 = seed ^ 0x5555;

				volatile_round(p, &s2, gen + 1000000);
				_exit(0);
			}
			if (pid > 0 && waitpid(pid, NULL, 0) == pid)
				ADD(forks, 1);
		} else {
			volatile_round(p, &seed, gen);
			if (id == 0)
				ADD(thp_rounds, 1);
		}
	}
	_exit(0);
}

static int ash_range(int fd, unsigned long cmd, size_t first, size_t pages)
{
	struct ashmem_pin pin = {
		.offset = first * page_size, .len = pages * page_size
	};

	return ioctl(fd, cmd, &pin);
}

static void ashmem_worker(uint64_t seed)
{
	const size_t size = 4 * MIB, pages = size / page_size;
	int fd = open("/dev/ashmem", O_RDWR | O_CLOEXEC);
	uint64_t gen = 1;
	char *p;

	if (fd < 0 || ioctl(fd, ASHMEM_SET_SIZE, size))
		_exit(20);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(21);
	while (!st->stop) {
		size_t first = rnd(&seed) % pages;
		size_t count = 1 + rnd(&seed) % (pages - first);
		size_t i, zero = 0, bad = 0;
		int r;

		gen++;
		fill(p, first, count, gen);
		if (ash_range(fd, ASHMEM_UNPIN, first, count)) {
			ADD(errors, 1);
			continue;
		}
		ADD(ash_unpins, 1);
		sched_yield();
		r = ash_range(fd, ASHMEM_PIN, first, count);
		if (r < 0) {
			ADD(errors, 1);
			continue;
		}
		for (i = first; i < first + count; i++) {
			int s = page_state(p, i, gen);

			zero += s == 1;
			bad += s == 2;
		}
		if (r == ASHMEM_NOT_PURGED) {
			ADD(ash_pins_intact, 1);
			ADD(ash_lost_bytes, (zero + bad) * page_size);
		} else {
			ADD(ash_pins_purged, 1);
			ADD(ash_lost_bytes, bad * page_size);
			ADD(ash_false_reports, zero == 0);
		}
		ADD(bytes_verified, (count - zero - bad) * page_size);
	}
	_exit(0);
}

static void reclaimer(uint64_t seed)
{
	int ashfd = open("/dev/ashmem", O_RDWR | O_CLOEXEC);
	struct timespec pause = { 0, 5000000 };

	unsigned int n = 0;

	while (!st->stop) {
		unsigned int op = n++ % 4;

		if (op == 0) {
			/* A burst that runs into memory.max, then exits. */
			pid_t pid = fork();

			if (pid == 0) {
				size_t len = 56 * MIB, off;
				char *q;

				set_oom_score_adj(1000);
				q = mmap(NULL, len, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS,
					       -1, 0);

				for (off = 0; q != MAP_FAILED && off < len;
				     off += page_size)
					q[off] = 1;
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
			ADD(bursts, 1);
		} else if (op == 1 && ashfd >= 0) {
			if (ioctl(ashfd, ASHMEM_PURGE_ALL_CACHES) >= 0)
				ADD(purge_all, 1);
		} else {
			/* EAGAIN is fine: less was reclaimable. */
			cg_write_u64(cg, "memory.reclaim",
				     (1 + rnd(&seed) % 16) * MIB / 4);
			ADD(reclaims, 1);
		}
		nanosleep(&pause, NULL);
	}
	_exit(0);
}

static pid_t spawn(void (*fn)(uint64_t), uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* Workers are never the OOM killer's choice: bursts are. */
		set_oom_score_adj(-1000);
		fn(seed);
	}
	return pid;
}

static void volatile_worker0(uint64_t seed)
{
	volatile_worker(0, seed);
}

static void volatile_worker1(uint64_t seed)
{
	volatile_worker(1, seed);
}

#define REPORT(f, key) fprintf(f, "%s %llu\n", #key, \
			       (unsigned long long)st->key)

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "report", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	void (*workers[])(uint64_t) = {
		volatile_worker0, volatile_worker1, ashmem_worker, reclaimer
	};
	const char *report = NULL;
	char parent[CG_PATH_MAX];
	long seconds = 120;
	pid_t pids[4];
	int opt, i, bad_exits = 0;
	uint64_t seed = 20261203;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 't':
			seconds = strtol(optarg, &end, 10);
			if (*end || seconds < 1 || seconds > 86400) {
				fprintf(stderr, "vstress: bad --seconds '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, &end, 10);
			if (*end || !seed) {
				fprintf(stderr, "vstress: bad --seed '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			report = optarg;
			break;
		default:
			fprintf(stderr, "usage: vstress [--seconds N] [--seed S] [--report FILE]\n");
			return 2;
		}
	}
	page_size = sysconf(_SC_PAGESIZE);
	tap_plan(6);
	tap_diag("vstress: %ld s, seed %llu", seconds,
		 (unsigned long long)seed);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	if (cg_create("lab-stress", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create("lab-stress/work", cg, sizeof(cg)) ||
	    cg_write_u64(cg, "memory.max", 128 * MIB) ||
	    cg_write_u64(cg, "memory.high", 64 * MIB) || cg_enter(cg))
		tap_bail("cgroup lab-stress/work: %s", strerror(errno));

	for (i = 0; i < 4; i++)
		pids[i] = spawn(workers[i], seed * 4 + i + 1);
	sleep(seconds);
	st->stop = 1;
	for (i = 0; i < 4; i++) {
		int status = 0;

		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_diag("worker %d: status %#x", i, status);
			bad_exits++;
		}
	}
	cg_enter(CG_ROOT);

	tap_diag("volatile: %llu marks, %llu pins intact, %llu purged (%llu pages), %llu SIGBUS, %llu forks, %llu mremaps, %llu mprotects, %llu remaps",
		 (unsigned long long)st->marks,
		 (unsigned long long)st->pins_intact,
		 (unsigned long long)st->pins_purged,
		 (unsigned long long)st->pages_purged,
		 (unsigned long long)st->sigbus,
		 (unsigned long long)st->forks,
		 (unsigned long long)st->mremaps,
		 (unsigned long long)st->mprotects,
		 (unsigned long long)st->remaps);
	tap_diag("ashmem: %llu unpins, %llu pins intact, %llu purged; reclaimer: %llu memory.reclaim, %llu bursts, %llu PURGE_ALL_CACHES",
		 (unsigned long long)st->ash_unpins,
		 (unsigned long long)st->ash_pins_intact,
		 (unsigned long long)st->ash_pins_purged,
		 (unsigned long long)st->reclaims,
		 (unsigned long long)st->bursts,
		 (unsigned long long)st->purge_all);
	tap_diag("%llu bytes verified", (unsigned long long)st->bytes_verified);
	tap_result(bad_exits == 0 && st->errors == 0,
		   "every worker ran to the end without a failed call (%llu errors)",
		   (unsigned long long)st->errors);
	tap_result(st->lost_bytes == 0 && st->ash_lost_bytes == 0,
		   "no byte lost in a range reported intact or zero-filled (%llu + %llu)",
		   (unsigned long long)st->lost_bytes,
		   (unsigned long long)st->ash_lost_bytes);
	tap_result(st->unreported == 0,
		   "every purged page was reported by MADV_NONVOLATILE (%llu not)",
		   (unsigned long long)st->unreported);
	tap_result(st->false_reports == 0 && st->ash_false_reports == 0,
		   "every reported purge names a zero-filled page (%llu + %llu false)",
		   (unsigned long long)st->false_reports,
		   (unsigned long long)st->ash_false_reports);
	tap_result(st->bad_sigbus == 0,
		   "SIGBUS only on purged pages (%llu of %llu not)",
		   (unsigned long long)st->bad_sigbus,
		   (unsigned long long)st->sigbus);
	tap_result(st->pins_purged > 0 && st->pins_intact > 0 &&
		   st->ash_pins_purged > 0 && st->ash_pins_intact > 0 &&
		   st->forks > 0 && st->mremaps > 0 && st->thp_rounds > 0,
		   "both mechanisms were purged and kept, under every operation");

	if (report) {
		FILE *f = fopen(report, "we");

		if (!f)
			tap_diag("cannot write %s: %s", report, strerror(errno));
		if (f) {
			fprintf(f, "seconds %ld\nseed %llu\n", seconds,
				(unsigned long long)seed);
			REPORT(f, marks);
			REPORT(f, pins_intact);
			REPORT(f, pins_purged);
			REPORT(f, pages_purged);
			REPORT(f, sigbus);
			REPORT(f, bad_sigbus);
			REPORT(f, forks);
			REPORT(f, mprotects);
			REPORT(f, mremaps);
			REPORT(f, remaps);
			REPORT(f, thp_rounds);
			REPORT(f, ash_unpins);
			REPORT(f, ash_pins_intact);
			REPORT(f, ash_pins_purged);
			REPORT(f, reclaims);
			REPORT(f, bursts);
			REPORT(f, purge_all);
			REPORT(f, bytes_verified);
			REPORT(f, lost_bytes);
			REPORT(f, ash_lost_bytes);
			REPORT(f, unreported);
			REPORT(f, false_reports);
			REPORT(f, ash_false_reports);
			REPORT(f, errors);
			fclose(f);
		}
	}
	return tap_finish();
}
