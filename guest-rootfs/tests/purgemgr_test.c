// SPDX-License-Identifier: GPL-2.0
/*
 * purgemgr_test: the userspace purge manager (guest-rootfs/lib/discard.c),
 * Android's and Chromium's alternative to kernel unpinning.
 *
 * - a region's fd reaches the manager over a unix socket (SCM_RIGHTS);
 * - a purge takes an unlocked region (its owner's lock says so and reads
 *   zeros) and never a locked one;
 * - malformed input is counted and skipped, never fatal: a bad magic, a
 *   data length beyond the file, a pipe instead of a memfd, a message
 *   with no fd, a header corrupted after it was taken;
 * - a client killed while holding a lock does not leak: the manager
 *   closes its regions and the memory is freed;
 * - the lock/purge race: an owner locking and unlocking against a
 *   manager purging as fast as it can; a lock and a purge never both
 *   succeed (every "intact" lock finds its data, every purge is seen);
 * - the trim model sends the level to the client;
 * - a PSI trigger on /proc/pressure/memory makes the manager purge.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "discard.h"
#include "fdpass.h"
#include "proc.h"
#include "tap.h"

#define SOCK_PATH "/tmp/lab-purgemgr.sock"
#define MIB (1024UL * 1024UL)
#define RACE_SECONDS 3

static size_t page_size;

struct mgr {
	pid_t pid;
	int stop, purge;	/* write ends */
	struct dm_stats *st;	/* shared */
};

static struct mgr mgr_start(const struct dm_config *cfg)
{
	int ls, stop[2], purge[2];
	struct mgr m;

	m.st = mmap(NULL, sizeof(*m.st), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m.st == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	memset(m.st, 0, sizeof(*m.st));
	ls = dm_listen(SOCK_PATH, 16);
	if (ls < 0 || pipe(stop) || pipe(purge))
		tap_bail("manager socket: %s", strerror(errno));
	m.pid = fork();
	if (m.pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (m.pid == 0) {
		close(stop[1]);
		close(purge[1]);
		_exit(dm_serve(ls, stop[0], purge[0], cfg, m.st) ? 1 : 0);
	}
	close(ls);
	close(stop[0]);
	close(purge[0]);
	m.stop = stop[1];
	m.purge = purge[1];
	return m;
}

/* Stop the manager; its exit status (0: it returned cleanly). */
static int mgr_stop(struct mgr *m)
{
	int status;

	if (write(m->stop, "s", 1) != 1)
		return -1;
	waitpid(m->pid, &status, 0);
	close(m->stop);
	close(m->purge);
	unlink(SOCK_PATH);
	return status;
}

static int mgr_connect(void)
{
	int s = dm_connect(SOCK_PATH);

	if (s < 0)
		tap_bail("connect to the manager: %s", strerror(errno));
	return s;
}

/* Wait up to @ms for *@v to reach @want; true if it did. */
static bool wait_for(long *v, long want, int ms)
{
	struct timespec t = { 0, 10 * 1000 * 1000 };

	while (__atomic_load_n(v, __ATOMIC_RELAXED) < want && ms > 0) {
		nanosleep(&t, NULL);
		ms -= 10;
	}
	return __atomic_load_n(v, __ATOMIC_RELAXED) >= want;
}

/* Ask for a purge of everything unlocked and wait until it ran. */
static bool mgr_purge(struct mgr *m)
{
	long runs = m->st->purge_runs;

	return write(m->purge, "p", 1) == 1 &&
	       wait_for(&m->st->purge_runs, runs + 1, 5000);
}

static void fill(struct dm_region *r, unsigned char seed)
{
	size_t i;

	for (i = 0; i < r->data_len; i++)
		r->data[i] = seed + i % 251 + 1;
}

static bool intact(const struct dm_region *r, unsigned char seed)
{
	size_t i;

	for (i = 0; i < r->data_len; i++)
		if (r->data[i] != (char)(seed + i % 251 + 1))
			return false;
	return true;
}

static bool zeros(const struct dm_region *r)
{
	size_t i;

	for (i = 0; i < r->data_len; i++)
		if (r->data[i])
			return false;
	return true;
}

static void test_basic(void)
{
	struct dm_config cfg = { .policy = DM_PURGE };
	struct mgr m = mgr_start(&cfg);
	struct dm_region a, b;
	int s = mgr_connect(), la, lb;
	bool ok;

	if (dm_create(&a, 16 * page_size) || dm_create(&b, 16 * page_size))
		tap_bail("dm_create: %s", strerror(errno));
	fill(&a, 1);
	fill(&b, 2);
	tap_result(!fd_send(s, a.fd) && !fd_send(s, b.fd) &&
		   wait_for(&m.st->regions, 2, 5000),
		   "two region fds reach the manager over a unix socket");
	dm_unlock(&a);		/* b stays locked */
	ok = mgr_purge(&m);
	tap_result(ok && m.st->purged_regions == 1,
		   "a purge takes the unlocked region only (%ld purged)",
		   m.st->purged_regions);
	la = dm_lock(&a);
	tap_result(la == 1 && zeros(&a),
		   "the owner's lock reports the purge and reads zeros");
	lb = dm_lock(&b);
	tap_result(lb == -1 && errno == EBUSY && intact(&b, 2),
		   "the locked region kept its data; a second lock: EBUSY");
	dm_unlock(&b);
	tap_result(dm_lock(&b) == 0 && intact(&b, 2),
		   "a lock of an unpurged region reports it intact");
	dm_destroy(&a);
	dm_destroy(&b);
	close(s);
	tap_result(mgr_stop(&m) == 0, "the manager stops cleanly");
}

static void test_malformed(void)
{
	struct dm_config cfg = { .policy = DM_PURGE };
	struct mgr m = mgr_start(&cfg);
	struct dm_region good, bad;
	int s = mgr_connect(), p[2];
	char byte = 'x';

	if (dm_create(&good, 4 * page_size) || dm_create(&bad, 4 * page_size) ||
	    pipe(p))
		tap_bail("setup: %s", strerror(errno));
	bad.hdr->magic = 0xdeadbeef;
	fd_send(s, bad.fd);
	tap_result(wait_for(&m.st->malformed, 1, 5000) && m.st->regions == 0,
		   "a header with a bad magic is counted and skipped");
	bad.hdr->magic = DM_MAGIC;
	bad.hdr->data_len = 64 * page_size;
	fd_send(s, bad.fd);
	tap_result(wait_for(&m.st->malformed, 2, 5000) && m.st->regions == 0,
		   "a data length beyond the file is counted and skipped");
	fd_send(s, p[0]);
	tap_result(wait_for(&m.st->malformed, 3, 5000) && m.st->regions == 0,
		   "a pipe instead of a memfd is counted and skipped");
	if (send(s, &byte, 1, 0) != 1)
		tap_bail("send: %s", strerror(errno));
	tap_result(wait_for(&m.st->malformed, 4, 5000),
		   "a message without an fd is counted");
	/* The manager still serves: a good region, then corrupted. */
	fd_send(s, good.fd);
	dm_unlock(&good);
	tap_result(wait_for(&m.st->regions, 1, 5000) && mgr_purge(&m) &&
		   m.st->purged_regions == 1,
		   "after all that, a good region is taken and purged");
	good.hdr->state = DM_UNLOCKED;
	good.hdr->magic = 0;
	tap_result(mgr_purge(&m) && m.st->malformed == 5 &&
		   m.st->purged_regions == 1,
		   "a header corrupted after it was taken is skipped, counted");
	dm_destroy(&good);
	dm_destroy(&bad);
	close(p[0]);
	close(p[1]);
	close(s);
	tap_result(mgr_stop(&m) == 0,
		   "the manager survived every malformed input");
}

static void test_dead_client(void)
{
	struct dm_config cfg = { .policy = DM_PURGE };
	struct mgr m = mgr_start(&cfg);
	long shmem0 = meminfo_kb("Shmem"), shmem1, shmem2;
	int ready[2], status;
	char c;
	pid_t pid;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		struct dm_region r;
		int s = mgr_connect();

		if (dm_create(&r, 4 * MIB))
			_exit(2);
		fill(&r, 3);
		/* Registered, then held locked until killed. */
		if (fd_send(s, r.fd) || write(ready[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1 || !wait_for(&m.st->regions, 1, 5000))
		tap_bail("the client did not register its region");
	shmem1 = meminfo_kb("Shmem");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	wait_for(&m.st->dead_clients, 1, 5000);
	shmem2 = meminfo_kb("Shmem");
	tap_result(m.st->dead_clients == 1 && m.st->regions == 0,
		   "a client killed holding a lock: the manager drops its region");
	tap_result(shmem1 - shmem0 >= 3072 && shmem2 - shmem0 < 1024,
		   "its 4 MiB are freed with the last fd (Shmem %ld -> %ld -> %ld kB)",
		   shmem0, shmem1, shmem2);
	close(ready[0]);
	close(ready[1]);
	mgr_stop(&m);
}

struct racer {
	struct dm_region *r;
	int stop;		/* __atomic */
	long intact, purged, bad;
};

/* Lock, check, hold, check again, unlock: as fast as it can. */
static void *race_owner(void *arg)
{
	struct timespec pause = { 0, 200 * 1000 };
	struct racer *x = arg;

	while (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		int ret = dm_lock(x->r);

		if (ret == 0 && intact(x->r, 4)) {
			x->intact++;
		} else if (ret == 1 && zeros(x->r)) {
			x->purged++;
			fill(x->r, 4);
		} else {
			x->bad++;
			fill(x->r, 4);
		}
		/* Held: a purge now would zero what was just checked. */
		if (!intact(x->r, 4))
			x->bad++;
		dm_unlock(x->r);
		/* Unlocked for a while, every other time: purges win some. */
		if ((x->intact + x->purged) % 2)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

static void test_race(void)
{
	struct dm_config cfg = { .policy = DM_PURGE };
	struct mgr m = mgr_start(&cfg);
	struct dm_region r;
	struct racer x = { .r = &r };
	int s = mgr_connect();
	time_t end;
	pthread_t t;
	long asks = 0;

	if (dm_create(&r, 4 * page_size))
		tap_bail("dm_create: %s", strerror(errno));
	fill(&r, 4);
	fd_send(s, r.fd);
	dm_unlock(&r);
	if (!wait_for(&m.st->regions, 1, 5000) ||
	    pthread_create(&t, NULL, race_owner, &x))
		tap_bail("race setup failed");
	end = time(NULL) + RACE_SECONDS;
	while (time(NULL) < end) {
		if (write(m.purge, "p", 1) != 1)
			break;
		asks++;
		sched_yield();
	}
	__atomic_store_n(&x.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	mgr_purge(&m);
	tap_diag("%d s: %ld purge requests, %ld purges, %ld intact locks, %ld purged locks",
		 RACE_SECONDS, asks, m.st->purged_regions, x.intact, x.purged);
	tap_result(x.bad == 0,
		   "lock/purge race: no lock saw a purge it was not told of (%ld bad)",
		   x.bad);
	tap_result(x.purged > 0 && x.intact > 0,
		   "both sides won some races (%ld purged, %ld intact locks)",
		   x.purged, x.intact);
	tap_result(x.purged + (dm_lock(&r) == 1) == m.st->purged_regions,
		   "every purge the manager made was reported to the owner once");
	dm_destroy(&r);
	close(s);
	mgr_stop(&m);
}

static void test_trim(void)
{
	struct dm_config cfg = { .policy = DM_TRIM };
	struct mgr m = mgr_start(&cfg);
	struct pollfd p;
	int s = mgr_connect();
	char level = 0;
	bool got;

	/* Make sure the manager has accepted before asking. */
	wait_for(&m.st->clients, 1, 5000);
	p = (struct pollfd) { .fd = s, .events = POLLIN };
	got = write(m.purge, "p", 1) == 1 && poll(&p, 1, 5000) == 1 &&
	      read(s, &level, 1) == 1;
	tap_result(got && level == DM_LEVEL_CRITICAL,
		   "trim model: the client receives the level ('%c')",
		   got ? level : '-');
	close(s);
	mgr_stop(&m);
}

static void test_psi(void)
{
	struct dm_config cfg = {
		.policy = DM_PURGE, .trigger = "some 10000 1000000",
	};
	struct mgr m = mgr_start(&cfg);
	char cg[CG_PATH_MAX];
	struct dm_region r;
	int s = mgr_connect(), status;
	pid_t hog;

	if (dm_create(&r, 16 * page_size) ||
	    cg_create("lab-purgemgr", cg, sizeof(cg)) ||
	    cg_write_u64(cg, "memory.high", 8 * MIB))
		tap_bail("setup: %s", strerror(errno));
	fill(&r, 5);
	fd_send(s, r.fd);
	dm_unlock(&r);
	wait_for(&m.st->regions, 1, 5000);
	hog = fork();
	if (hog == 0) {
		char *p = mmap(NULL, 32 * MIB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;

		if (p == MAP_FAILED || cg_enter(cg))
			_exit(2);
		for (;;)
			for (off = 0; off < 32 * MIB; off += page_size)
				p[off]++;
	}
	tap_result(wait_for(&m.st->purged_regions, 1, 20000) &&
		   m.st->events > 0,
		   "a PSI trigger (%s) makes the manager purge (%ld events)",
		   cfg.trigger, m.st->events);
	kill(hog, SIGKILL);
	waitpid(hog, &status, 0);
	tap_result(dm_lock(&r) == 1, "the owner is told of that purge");
	dm_destroy(&r);
	close(s);
	mgr_stop(&m);
	cg_destroy(cg);
}

/* The socket helpers' errors: nothing made, nothing left behind. */
static void test_socket_errors(void)
{
	char longpath[200];
	struct stat st;
	int fd;

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	fd = dm_listen(longpath, 1);
	tap_result(fd == -1 && errno == ENAMETOOLONG &&
		   stat(longpath, &st) == -1,
		   "dm_listen on a path longer than a socket address: "
		   "ENAMETOOLONG, nothing bound");
	unlink(SOCK_PATH);
	fd = dm_connect(SOCK_PATH);
	tap_result(fd == -1 && errno == ENOENT,
		   "dm_connect with no manager listening: ENOENT");
}

int main(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	signal(SIGPIPE, SIG_IGN);
	tap_plan(23);
	test_socket_errors();
	test_basic();
	test_malformed();
	test_dead_client();
	test_race();
	test_trim();
	test_psi();
	return tap_finish();
}
