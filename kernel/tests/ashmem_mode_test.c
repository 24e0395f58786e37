// SPDX-License-Identifier: GPL-2.0
/*
 * The modes of the lab's ashmem driver (patch "a mode that shrinks as
 * android16's Rust ashmem"):
 *
 * - ashmem.unpinning_enable, in either mode: a bad value is refused and
 *   changes nothing; while off, UNPIN still checks its arguments but
 *   leaves the range pinned (nothing new is purged; ranges unpinned
 *   before stay unpinned); back on, UNPIN unpins again.
 * - ashmem.rust_mode, read from the running kernel: in the C mode every
 *   hole is punched with the global mutex dropped and the shrinker never
 *   yields; in the Rust mode no hole is punched with the mutex dropped,
 *   and a shrinker run stops for a pin that waits for the mutex.  The
 *   debugfs counters (ashmem/) tell the modes apart.
 *
 * PURGE_ALL_CACHES purges every area on the LRU: this suite must be the
 * only ashmem user in the guest while it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ashmem.h>

#include "ashmem_util.h"
#include "tap.h"
#include "vr_util.h"

#define PARAMS "/sys/module/ashmem/parameters/"
#define TOGGLE PARAMS "unpinning_enable"
#define STATS "/sys/kernel/debug/ashmem/"
#define YIELD_AREAS 64
#define YIELD_PAGES 16
#define YIELD_ROUNDS 50

static bool rust_mode;

/* The first character of a sysfs or debugfs file, or '?'. */
static char read_flag(const char *path)
{
	char buf[8] = "?";
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) <= 0)
			buf[0] = '?';
		close(fd);
	}
	return buf[0];
}

static long read_stat(const char *name)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), STATS "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		tap_bail("cannot read %s: %s", path, strerror(errno));
	close(fd);
	return strtol(buf, NULL, 10);
}

/* Write @value to the toggle: 0, or -errno. */
static int write_toggle(const char *value)
{
	int fd = open(TOGGLE, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void test_params(void)
{
	char mode = read_flag(PARAMS "rust_mode");

	rust_mode = mode == 'Y';
	tap_result(mode == 'Y' || mode == 'N',
		   "rust_mode reads Y or N (%c): this boot runs the %s mode",
		   mode, rust_mode ? "Rust" : "C");
	tap_result(read_flag(TOGGLE) == 'Y', "unpinning_enable is on at boot");
	tap_result(write_toggle("x") == -EINVAL && write_toggle("2") == -EINVAL &&
		   read_flag(TOGGLE) == 'Y',
		   "a bad unpinning_enable value is refused: EINVAL, still on");
}

static void test_toggle(void)
{
	int fd, before, unpin, status, bad, pin;
	size_t i, kept;
	char *p;

	fd = ash_filled(8, 3, &p);
	before = ash_pages(fd, ASHMEM_UNPIN, 0, 2);
	tap_result(before == 0 && !write_toggle("N") && read_flag(TOGGLE) == 'N',
		   "unpinning_enable switched off");
	unpin = ash_pages(fd, ASHMEM_UNPIN, 4, 4);
	status = ash_pages(fd, ASHMEM_GET_PIN_STATUS, 4, 4);
	tap_result(unpin == 0 && status == ASHMEM_IS_PINNED,
		   "off: UNPIN succeeds and the range stays pinned (%d, %d)",
		   unpin, status);
	bad = ash_range(fd, ASHMEM_UNPIN, 1, page_size);
	tap_result(bad == -EINVAL,
		   "off: UNPIN still refuses an unaligned offset (%d)", bad);
	tap_result(purge_all_fd(fd) == 2,
		   "off: only the range unpinned before is on the LRU");
	pin = ash_pages(fd, ASHMEM_PIN, 4, 4);
	for (i = 4, kept = 0; i < 8; i++)
		kept += vr_page_intact(p, i, 3);
	tap_result(pin == ASHMEM_NOT_PURGED && kept == 4,
		   "off: the range kept pinned is not purged, data intact (%zu of 4)",
		   kept);
	tap_result(ash_pages(fd, ASHMEM_PIN, 0, 2) == ASHMEM_WAS_PURGED,
		   "off: the range unpinned before was purged");
	vr_fill(p, 8, 3);
	tap_result(!write_toggle("Y") &&
		   ash_pages(fd, ASHMEM_UNPIN, 4, 4) == 0 &&
		   ash_pages(fd, ASHMEM_GET_PIN_STATUS, 4, 4) ==
			ASHMEM_IS_UNPINNED &&
		   purge_all_fd(fd) == 4 &&
		   ash_pages(fd, ASHMEM_PIN, 4, 4) == ASHMEM_WAS_PURGED,
		   "back on: UNPIN unpins and the range is purged");
	write_toggle("Y");
	munmap(p, 8 * page_size);
	close(fd);
}

static void test_punch_mode(void)
{
	long purged0 = read_stat("purged_ranges");
	long unlocked0 = read_stat("unlocked_punches");
	long purged, unlocked;
	int fd, i;
	char *p;

	fd = ash_filled(8, 4, &p);
	for (i = 0; i < 8; i += 2)
		ash_pages(fd, ASHMEM_UNPIN, i, 1);
	purge_all_fd(fd);
	purged = read_stat("purged_ranges") - purged0;
	unlocked = read_stat("unlocked_punches") - unlocked0;
	tap_result(purged == 4 && unlocked == (rust_mode ? 0 : 4),
		   "%s mode: %ld of %ld holes punched with the mutex dropped",
		   rust_mode ? "Rust" : "C", unlocked, purged);
	munmap(p, 8 * page_size);
	close(fd);
}

struct hammer {
	int fd;
	char *map;
	int stop;		/* __atomic: set by the main thread */
	long pins, bad;
};

/* PIN and UNPIN one page of its own area until stopped; checks the data. */
static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		int r = ash_pages(h->fd, ASHMEM_PIN, 0, 1);

		if (r == ASHMEM_WAS_PURGED)
			vr_fill(h->map, 1, 5);
		else if (r != ASHMEM_NOT_PURGED || !vr_page_intact(h->map, 0, 5))
			h->bad++;
		h->pins++;
		ash_pages(h->fd, ASHMEM_UNPIN, 0, 1);
	}
	return NULL;
}

static void test_yield(void)
{
	int fds[YIELD_AREAS], i, round;
	long yields0 = read_stat("shrinker_yields"), yields = 0;
	struct hammer h = { 0 };
	char *maps[YIELD_AREAS];
	pthread_t t;

	for (i = 0; i < YIELD_AREAS; i++)
		fds[i] = ash_filled(YIELD_PAGES, 6, &maps[i]);
	h.fd = ash_filled(1, 5, &h.map);
	if (pthread_create(&t, NULL, hammer_main, &h))
		tap_bail("pthread_create failed");
	/*
	 * Every round unpins every area and purges them all while the
	 * hammer's pins wait for the mutex; the Rust mode must stop for one
	 * of them in some round.  The C mode never yields.
	 */
	for (round = 0; round < YIELD_ROUNDS; round++) {
		for (i = 0; i < YIELD_AREAS; i++)
			ash_pages(fds[i], ASHMEM_UNPIN, 0, YIELD_PAGES);
		purge_all_fd(fds[0]);
		for (i = 0; i < YIELD_AREAS; i++)
			if (ash_pages(fds[i], ASHMEM_PIN, 0, YIELD_PAGES) ==
			    ASHMEM_WAS_PURGED)
				vr_fill(maps[i], YIELD_PAGES, 6);
		yields = read_stat("shrinker_yields") - yields0;
		if (rust_mode && yields)
			break;
	}
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	tap_diag("%d rounds, %ld yields, %ld pins by the hammer",
		 round < YIELD_ROUNDS ? round + 1 : round,
		 yields, h.pins);
	if (rust_mode)
		tap_result(yields > 0,
			   "Rust mode: the shrinker stops for a waiting pin");
	else
		tap_result(yields == 0,
			   "C mode: the shrinker never stops for a waiting pin");
	tap_result(h.bad == 0 && h.pins > 0,
		   "the hammer's pins saw intact data or a purge (%ld bad)",
		   h.bad);
	for (i = 0; i < YIELD_AREAS; i++) {
		munmap(maps[i], YIELD_PAGES * page_size);
		close(fds[i]);
	}
	munmap(h.map, page_size);
	close(h.fd);
}

int main(void)
{
	vr_init();
	tap_plan(13);
	if (access("/dev/ashmem", F_OK) || access(TOGGLE, F_OK))
		tap_bail("no /dev/ashmem or no %s", TOGGLE);
	test_params();
	test_toggle();
	test_punch_mode();
	test_yield();
	write_toggle("Y");
	return tap_finish();
}
