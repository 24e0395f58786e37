/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the volatile range tests: mappings, patterns, /proc/self/maps
 * and smaps snapshots, SIGBUS probing and reclaim.
 */
#ifndef VR_UTIL_H
#define VR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mman.h>

extern size_t page_size;

void vr_init(void);
/* mmap private anonymous memory of @pages pages, or exit. */
char *vr_map(size_t pages);
/* Fill page @i of @p with a pattern that is never zero, derived from @seed. */
void vr_fill(char *p, size_t pages, unsigned int seed);
/* How many pages hold their pattern, read zero, or hold anything else. */
struct vr_census {
	size_t intact, zero, corrupt;
};
struct vr_census vr_check(const char *p, size_t pages, unsigned int seed);
bool vr_page_intact(const char *p, size_t i, unsigned int seed);
bool vr_page_zero(const char *p, size_t i);

/* madvise() returning -errno on failure. */
int vr_madvise(void *addr, size_t len, int advice);

/* The lines of /proc/self/maps that overlap [@addr, @addr + @len). */
int vr_maps(void *addr, size_t len, char *buf, size_t size);
/* How many VMAs overlap the range. */
int vr_vma_count(void *addr, size_t len);
/* The VmFlags line of the VMA containing @addr, or "" when none. */
int vr_vmflags(void *addr, char *buf, size_t size);
bool vr_is_volatile(void *addr);
/* smaps field (in kB) of the VMA containing @addr, or -1. */
long vr_smaps_kb(void *addr, const char *field);

/* Read one byte of @addr; true when that raised SIGBUS. */
bool vr_sigbus_on_read(const volatile char *addr);
/*
 * The si_code of the SIGBUS that a read of @addr raised (BUS_ADRERR for
 * a purged page, BUS_MCEERR_AR for a poisoned one), or 0 for none.  The
 * write variant stores 1 without reading first: a read could fill in a
 * page that the write should find missing.
 */
int vr_sigbus_code_on_read(const volatile char *addr);
int vr_sigbus_code_on_write(volatile char *addr);

/* How many pages of the range pagemap shows as swapped out; -1 on error. */
long vr_swapped_pages(const void *addr, size_t pages);
/* Whether the multi-gen LRU is on (lru_gen/enabled non-zero). */
bool vr_lru_gen_on(void);

/*
 * /proc/meminfo's Volatile: in kB, after folding every CPU's pending
 * vmstat deltas into it (vm.stat_refresh): exact, not approximate.
 */
long vr_volatile_kb(void);

/* Wait for one byte on @fd; false on EOF or error. */
bool vr_wait_byte(int fd);
/* Send one byte on @fd, or bail out of the suite. */
void vr_send_byte(int fd);

/* Ask the current cgroup's memory.reclaim for @bytes; -errno on failure. */
int vr_reclaim(const char *cgroup, uint64_t bytes);
uint64_t vr_purged_counter(void);

/* How many pages of the range mincore() shows resident; -1 on error. */
long vr_resident_pages(const void *addr, size_t pages);
/*
 * vr_check() of the first @pages pages of @fd, read with pread() in
 * chunks: no mapping, so a purged page of a volatile range reads zeros
 * instead of raising SIGBUS.  A page that cannot be read counts as corrupt.
 */
struct vr_census vr_fd_check(int fd, size_t pages, unsigned int seed);

/*
 * The OOM-ordering test (issue 26).  The test holds volatile data; hogs
 * allocate until the OOM killer acts; every volatile page must have been
 * purged before that first kill.  An engine says how to make the data,
 * how to look at it without touching it, and how to take it back.
 */
struct vr_oom_data {
	size_t pages;
	unsigned int seed;
	char *map;		/* NULL until mapped */
	int fd;			/* -1 unless the engine uses a file */
};

struct vr_oom_engine {
	const char *name;
	/* Map @d->pages, vr_fill() them with @d->seed, mark them volatile. */
	int (*setup)(struct vr_oom_data *d);
	/* Pages of the data not purged, found without reading them; or -1. */
	long (*held)(struct vr_oom_data *d);
	/* Take the data back: the call's value; its census afterwards. */
	int (*unmark)(struct vr_oom_data *d, struct vr_census *c);
	/* Unmap and close whatever setup() made, even in part. */
	void (*teardown)(struct vr_oom_data *d);
};

/*
 * One result: @mib MiB of @engine's volatile data, hogs in the cgroup
 * @hog_cgroup (a name under /sys/fs/cgroup, created without a limit).
 */
void vr_oom_test(const struct vr_oom_engine *engine, size_t mib,
		 const char *hog_cgroup);
/*
 * vr_oom_test() with kswapd asleep for a second after each chunk it
 * claims (debugfs volatile_kswapd_claim_delay_ms), as it is when its CPU
 * is taken.
 */
void vr_oom_test_kswapd_stalled(const struct vr_oom_engine *engine,
				size_t mib, const char *hog_cgroup);
/* This process's oom_score_adj; INT32_MIN when it cannot be read. */
int read_oom_score_adj(void);

/* A test of a suite: its name, and how many results it reports. */
struct vr_test {
	const char *name;
	void (*run)(void);
	int results;
};

/*
 * @prog [--list] [--skip NAME]... [NAME]...: mark in @selected the named
 * tests of @tests (every one when none is named) less the skipped ones,
 * and return how many results they plan; --list prints the names and
 * exits, a bad argument exits with status 2.
 */
int vr_select_tests(const char *prog, const struct vr_test *tests, int count,
		    int argc, char **argv, bool *selected);

/*
 * Create the cgroup @name, with the memory controller on for its
 * children, and @name/main under it; move this process there and put its
 * path in @cg.  Bails out of the suite on failure.
 */
void vr_enter_cgroup(const char *name, char *cg, size_t size);
/* Run the tests of @tests that @selected marks, each after a diag line. */
void vr_run_tests(const struct vr_test *tests, int count,
		  const bool *selected);

#endif /* VR_UTIL_H */
