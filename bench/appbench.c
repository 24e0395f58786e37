// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 5: Android's regime.
 *
 * N app processes, each in a cgroup of its own (lab-bench/app<i>) with
 * no memory.max, as on a phone: the pressure is global.  The device is
 * what is available (MemAvailable) when the run starts less a locked
 * ballast, so that F MiB are left to the apps.  Each app has a cache of compressed images: K
 * objects of S KiB, each in a region of its own, unpinned while unused.
 * A miss decodes the object (zlib, from a compressed copy the app keeps),
 * so a miss costs real work; a hit is verified byte for byte against the
 * decoded reference.
 *
 * The run is W app switches.  The app switched to becomes the foreground
 * (oom_score_adj 0; the others are cached apps, 900 for the one in front
 * last, then 10 more per place in the recency order, at most 999, as
 * Android ranks its cached apps by recency): it
 * "launches" by using its L most popular objects (the launch latency),
 * then does O Zipf-distributed accesses while its heap grows to G MiB;
 * the heap is freed when it goes back to the background.  Memory pressure
 * comes from the foreground's heap and the caches together; what gives
 * way is the backend's: a purge (ashmem, volatile, madvfree), or the OOM
 * killer (pinned, memfd: Android's libcutils today).  An app the OOM
 * killer took is started again, cold, when it is next switched to.
 *
 * Two more backends are Android's and Chromium's userspace model, with a
 * purge manager process (guest-rootfs/lib/discard.c) serving the apps:
 *   upsi-<T>ms  regions are memfds with a shared header, registered with
 *               the manager over a unix socket; on a PSI trigger "some
 *               T000 1000000" on /proc/pressure/memory (T ms of stall in
 *               a 1 s window) it purges unlocked regions, least recently
 *               used first, MGR_BUDGET_MIB per event;
 *   utrim       the manager sends each app a level on the same trigger
 *               (T = 50 ms): critical when "full" avg10 >= 10 %, else
 *               moderate; the app drops the least recently used half of
 *               its unlocked objects (moderate) or all of them (critical)
 *               by punching their holes itself;
 *   uchrome     Chromium's DiscardableSharedMemoryManager
 *               (guest-rootfs/lib/discard_chrome.c): a budget enforced
 *               least recently unlocked first on every allocation (and
 *               again after a delay while over), MemAvailable polled for
 *               moderate (purge to half the budget) and critical (purge
 *               all unlocked) pressure, an age sweep; a purged object is
 *               allocated again by its app, as Chromium's clients do.
 *               Scaled to the guest: the device's RAM is what the apps
 *               can have, MemTotal less the locked ballast (D MiB); the
 *               budget follows Chromium's rule for Android on D (128 MiB,
 *               / 8 on a low-end device, which D is, at most 25% of D),
 *               the pressure levels are 25% and 15% of D, and every
 *               period is Chromium's divided by CHROME_TIME_DIV (200:
 *               a run of a few seconds stands for a session of minutes):
 *               MemAvailable every 25 ms (5 s), moderate again every
 *               50 ms (10 s), a retry after 5 ms (1 s), the sweep every
 *               300 ms (1 min) of what was unlocked 1.5 s (5 min).
 *
 * --lmkd runs a low memory killer beside the apps for any backend
 * (bench/lib/lmkd.c: lmkd's PSI triggers, some 70 ms and full 700 ms in
 * 1 s, and the kernel's reclaim, wake it; its watermark and swap checks
 * decide; the highest oom_score_adj first);
 * its runs are bench "app_lmkd" instead of "app", and an app it kills
 * starts again cold like one the OOM killer took.  --sweep marks a point
 * of the regime sweep (bench/matrix.sh sweep): bench "app_sweep" without
 * swap and "app_sweep_zram" with it ("app_lmkd_sweep..." with --lmkd),
 * param "free_mib=F" instead of the swap.
 *
 * --file-mib M --file-dir DIR gives each app a file-backed working set,
 * as real apps have (their code and resources): a file of M MiB of its
 * own in DIR (bench/lib/filews.h: written once, then written back and
 * dropped from the page cache before every run), read whole at each
 * launch and FILE_OP_PAGES random pages at every access, so that the
 * purgeable caches compete with the page cache.  DIR must be on a
 * filesystem whose clean pages reclaim can drop and read back, not
 * tmpfs (boot.sh --files shares one); the regime sweep runs with it.
 *
 * A run whose ballast the OOM killer took (every app was killed and
 * memory was still short), or whose ballast it took while it was being
 * locked in, writes only ballast_lost = 1 and exits with status 3: bench-matrix
 * counts it as discarded, not failed.
 *
 *   appbench_<lib> --backend B --apps N --cache-mib C --object-kib S
 *        --fg-mib G --free-mib F --switches W --ops O [--launch L]
 *        [--lmkd] [--sweep] [--seed X] [--rep R] [--csv FILE]
 *
 * Rows (param "swap_mib=N": the swap there was, 0 or a zram device's
 * size): hit_rate (hits over the requests made), requests (the run's
 * plan: W sessions of min(L, objects) launch and O accesses),
 * requests_lost (those a killed foreground never made) and hit_rate_all
 * (hits over every planned request: a kill's lost requests are misses),
 * launch_ms p50/p99/max (W
 * samples: p99 is the max below 100), cold_launches, oom_kills_bg and
 * oom_kills_fg (who the kernel's OOM killer took: every SIGKILL that
 * lmkd did not send), psi_some_pct and psi_full_pct
 * (share of the run some/all tasks stalled on memory, from
 * /proc/pressure/memory), decode_ms_mean (the cost of one miss),
 * session_s (the foreground's total time), purges, verify_failures;
 * psi_some_avg10_max and psi_full_avg10_max (the highest avg10 seen at
 * the end of a session);
 *   pressure_episodes, freed_ms_p50/p99/max, open_episodes: the time from
 *     the onset of pressure until the memory is freed, as the kernel's
 *     watermarks define it (bench/lib/pressure.h: free memory below the
 *     zones' low watermarks until back above their high ones, sampled
 *     every PRESSURE_PERIOD_US), over the app switches; an episode
 *     still open at the end counts with its length so far (a lower
 *     bound: open_episodes says how many);
 *   stalled_steps, stall_ms_p50/p99/max, step_ms_mean: the foreground's
 *     own wait.  Its heap grows in --ops steps; a step during which the
 *     kernel entered direct reclaim (/proc/vmstat allocstall_*,
 *     system-wide: during a session only the foreground allocates) is a
 *     stalled step; step_ms_mean is the mean step that did not stall (the
 *     step's own cost, the floor); a step the OOM killer ends is a kill,
 *     not a sample;
 *   needed_mib, purged_mib, overpurge: what the sessions needed beyond
 *     the room there was when each began (their heap and the objects
 *     they decoded, against MemFree less the zones' high watermarks:
 *     what kswapd is asked to free), what the backend purged over the
 *     run
 *     (volatile: pgvolatile_purged; madvfree: pglazyfreed; ashmem: debugfs
 *     ashmem/purged_ranges, each a whole object here; upsi: the manager's
 *     count; utrim: the holes the apps punched; pinned and memfd: 0), and
 *     their ratio (refills purged again count in purged, not in needed);
 * for the userspace backends also mgr_cpu_ms (the manager's own CPU time),
 * mgr_events, mgr_purged_mib, mgr_purge_ms_mean and _max (trigger to
 * the end of its purge), trims, mgr_malformed; for uchrome also its
 * scaling, mgr_device_mib, mgr_budget_mib, mgr_moderate_mib and
 * mgr_critical_mib (MemAvailable thresholds), mgr_poll_s,
 * mgr_moderate_repeat_s, mgr_retry_s, mgr_sweep_s, mgr_age_s (settings,
 * in s), mgr_time_div, and what it did: mgr_budget_runs (allocations over
 * budget), mgr_retries, mgr_moderate, mgr_critical, mgr_age_runs (each
 * also one of mgr_events), mgr_polls, mgr_purged_budget_mib,
 * mgr_purged_pressure_mib, mgr_purged_age_mib, mgr_live_peak_mib;
 * with --lmkd: lmkd_kills_bg, lmkd_kills_fg, lmkd_psi_medium,
 * lmkd_psi_critical (trigger events), lmkd_reclaim_wakes (polling begun
 * by the kernel's reclaim), lmkd_checks, lmkd_skipped_pending,
 * lmkd_kills_not_responding, lmkd_kills_low_mem, lmkd_kills_after_kill
 * (kills by lmkd's reason), lmkd_no_victim, lmkd_cpu_s;
 * with --file-mib: file_mib, file_refaults (workingset_refault_file over
 * the run, system-wide: the apps' files are the only ones reclaim can
 * drop), file_majfaults (the apps' major faults while reading their
 * files), file_sessions (the sessions that read it), file_warm_sessions
 * and file_warm_ms_p50/p99/max (the foreground's time reading its file in
 * a session of an app that was in front before, in the same process:
 * what reclaim took of its file meanwhile, read back).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "backend.h"
#include "bench.h"
#include "cgroup.h"
#include "discard.h"
#include "fdpass.h"
#include "filews.h"
#include "lmkd.h"
#include "pressure.h"
#include "proc.h"
#include "psi.h"
#include "zipf.h"

#define MAX_APPS 16
/* A run discarded because the ballast was lost (bench/matrix.sh). */
#define EXIT_DISCARDED 3
#define BLOBS 4
#define ZIPF_S 0.9
#define ADJ_FOREGROUND 0
#define ADJ_CACHED 900		/* CACHED_APP_MIN_ADJ */
#define ADJ_CACHED_MAX 999	/* CACHED_APP_MAX_ADJ */
#define ADJ_CACHED_STEP 10
#define MGR_SOCK "/tmp/lab-appbench.sock"
#define MGR_BUDGET_MIB 8
#define TRIM_TRIGGER_MS 50
#define TRIM_CRITICAL_FULL 10.0
#define ASHMEM_PURGED "/sys/kernel/debug/ashmem/purged_ranges"
#define PRESSURE_PERIOD_US 2000
/* uchrome: Chromium's periods divided by this (see the top). */
#define CHROME_TIME_DIV 200
#define FILE_OP_PAGES 8		/* file pages an access reads (its code) */

static const char *prog = "appbench";

enum model {
	MODEL_KERNEL,		/* a backend of backend.h */
	MODEL_UPSI,		/* userspace manager purges on PSI */
	MODEL_UTRIM,		/* userspace manager sends trim levels */
	MODEL_UCHROME,		/* Chromium's budget and pressure levels */
};

struct params {
	enum model model;
	long trigger_ms;
	enum backend backend;
	long apps, objects, fg_mib, free_mib, switches, ops, launch;
	size_t object_size;
	uint64_t seed;
	bool lmkd;		/* run the low memory killer */
	bool sweep;		/* a point of the regime sweep */
	long file_mib;		/* each app's file working set, or 0 */
	const char *file_dir;	/* where the apps' files are */
};

/* One app's counters, in memory shared with the parent (survives kills). */
struct app_stats {
	long hits, misses, purges, verify_failures;
	long late_drops;	/* droppable: dropped after the pin's check */
	long decodes;
	uint64_t decode_ns, launch_ns;
	uint64_t trimmed_bytes;		/* utrim: the holes the app punched */
	long steps, stalls, stall_cap;
	double *stall_ms;		/* the stalled heap steps (shared) */
	double step_ms_sum;		/* the steps that did not stall */
	long file_sessions;		/* sessions that read the file */
	long file_warm, file_cap, file_majflt;
	double *file_ms;	/* a warm session's file reads (shared) */
};

/* The images: BLOBS decoded references and their compressed forms. */
struct images {
	unsigned char *ref[BLOBS], *zip[BLOBS];
	unsigned long zip_len[BLOBS];
};

struct app {
	pid_t pid;
	int cmd, reply;		/* the parent's ends of the app's pipes */
	char cg[CG_PATH_MAX];
	bool started, ever_started;
	long fg_at;		/* the switch it was last in front at */
};

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B --apps N --cache-mib C --object-kib S --fg-mib G --free-mib F --switches W --ops O [--launch L] [--lmkd] [--sweep] [--file-mib M --file-dir DIR] [--seed X] [--rep R] [--csv FILE]\n  backends: %s, upsi-<T>ms, utrim, uchrome",
		    prog, BACKEND_NAMES);
}

/*
 * A synthetic RGBA image of @len bytes: gradients with a little noise, so
 * that it compresses about as well as a photo's raw pixels do, with an
 * opaque alpha (every word non-zero: madvfree's canary needs it).
 */
static void image_fill(unsigned char *p, size_t len, int id)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (id + 1);
	size_t i, px = len / 4;

	for (i = 0; i < px; i++) {
		unsigned int x = i % 256, y = i / 256;
		unsigned int noise = rng_next(&rng) & 7;

		p[4 * i] = (x + 37 * id) & 0xff;
		p[4 * i + 1] = (2 * y + 11 * id + noise) & 0xff;
		p[4 * i + 2] = ((x ^ y) + noise) & 0xff;
		p[4 * i + 3] = 0xff;
	}
}

static void images_make(struct images *im, size_t len)
{
	int i;

	for (i = 0; i < BLOBS; i++) {
		uLongf zlen = compressBound(len);

		im->ref[i] = malloc(len);
		im->zip[i] = malloc(zlen);
		if (!im->ref[i] || !im->zip[i])
			die("%s: out of memory", prog);
		image_fill(im->ref[i], len, i);
		if (compress2(im->zip[i], &zlen, im->ref[i], len,
			      Z_BEST_SPEED) != Z_OK)
			die("%s: compress2 failed", prog);
		im->zip_len[i] = zlen;
	}
}

/* Decode object @k into @dst: the miss's work. */
/*
 * In a child just forked: die with appbench.  A driver that dies (die()
 * on any error) must not leave its ballast locked or its apps holding
 * memory: every run after it would find the memory gone (the 6.12 bench
 * of 2026-12-06: "only 19 MiB available" in every app run after one
 * failed).
 */
static pid_t driver;	/* appbench's own pid, set first in main() */

static void die_with_parent(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != driver)
		_exit(9);
}

/* Decode object @k into @dst; false when zlib fails. */
static bool decode_once(const struct images *im, long k, void *dst,
			size_t len, struct app_stats *st)
{
	uLongf out = len;
	uint64_t t0 = now_ns();
	int ret;

	ret = uncompress(dst, &out, im->zip[k % BLOBS], im->zip_len[k % BLOBS]);
	st->decode_ns += now_ns() - t0;
	st->decodes++;
	return ret == Z_OK && out == len;
}

static void decode(const struct images *im, long k, void *dst, size_t len,
		   struct app_stats *st)
{
	if (!decode_once(im, k, dst, len, st))
		die("%s: cannot decode object %ld", prog, k);
}

/* Decodes of one object a droppable cache tries before giving up. */
#define DROP_RETRIES 16

/*
 * A droppable region may lose pages while zlib writes into it, and zlib
 * reads back what it wrote (its window): the decode fails, or gives
 * zeros or wrong bytes.  So the object is checked after the decode, and
 * decoded again while it is not right (each a late drop).
 */
static void decode_droppable(const struct images *im, long k, void *dst,
			     size_t len, struct app_stats *st)
{
	int i;

	for (i = 0; i < DROP_RETRIES; i++) {
		if (decode_once(im, k, dst, len, st) &&
		    !memcmp(dst, im->ref[k % BLOBS], len))
			return;
		st->late_drops++;
	}
	die("%s: object %ld dropped or wrong after %d decodes", prog, k,
	    DROP_RETRIES);
}

struct cache {
	const struct params *p;
	const struct images *im;
	struct region *regions;
	struct dm_region *dm;	/* the userspace models' regions */
	bool *present;
	uint64_t *last_use;	/* utrim: which objects to drop first */
	uint64_t clock;
	int mgr;		/* socket to the manager, or -1 */
	struct app_stats *st;
	struct filews file;	/* its file working set, if it has one */
	long sessions;		/* this process's sessions so far */
};

/* A new region for object @k, locked, handed to the manager if it has one. */
static void dm_new(struct cache *c, long k)
{
	struct dm_region *r = &c->dm[k];

	if (dm_create(r, c->p->object_size))
		die("%s: cannot create object %ld: %m", prog, k);
	if (c->p->model != MODEL_UTRIM && fd_send(c->mgr, r->fd))
		die("%s: cannot hand object %ld over: %m", prog, k);
}

/* Use object @k through the userspace model: lock, verify or decode. */
static void dm_access(struct cache *c, long k)
{
	struct dm_region *r = &c->dm[k];
	size_t len = c->p->object_size;
	int ret = 3;		/* 3: new, 2: dropped by the app, 1: purged */

	if (!c->present[k] && !r->hdr) {
		dm_new(c, k);
	} else {
		ret = dm_lock(r);
		if (ret < 0)
			die("%s: lock: %m", prog);
		/* An object the app dropped itself is a miss, not a purge. */
		if (!c->present[k])
			ret = 2;
		/*
		 * Chromium's manager forgot the purged segment; its client
		 * allocates a new one, which the budget then counts.
		 */
		if (ret == 1 && c->p->model == MODEL_UCHROME) {
			dm_destroy(r);
			dm_new(c, k);
		}
	}
	c->present[k] = true;
	c->last_use[k] = ++c->clock;
	if (ret == 0) {
		c->st->hits++;
		if (memcmp(r->data, c->im->ref[k % BLOBS], len))
			c->st->verify_failures++;
	} else {
		c->st->misses++;
		c->st->purges += ret == 1;
		decode(c->im, k, r->data, len, c->st);
	}
	dm_unlock(r);
}

static int by_use(const void *a, const void *b, void *arg)
{
	const uint64_t *use = arg;
	long x = *(const long *)a, y = *(const long *)b;

	return use[x] < use[y] ? -1 : use[x] > use[y];
}

/* utrim: act on the levels the manager sent, if any. */
static void trim_check(struct cache *c)
{
	long *idx, n = 0, i, drop;
	char level = 0, byte;

	while (recv(c->mgr, &byte, 1, MSG_DONTWAIT) == 1)
		if (!level || byte == DM_LEVEL_CRITICAL)
			level = byte;
	if (!level)
		return;
	idx = malloc(c->p->objects * sizeof(*idx));
	if (!idx)
		die("%s: out of memory", prog);
	for (i = 0; i < c->p->objects; i++)
		if (c->present[i])
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), by_use, c->last_use);
	drop = level == DM_LEVEL_CRITICAL ? n : n / 2;
	for (i = 0; i < drop; i++) {
		struct dm_region *r = &c->dm[idx[i]];

		/* Unlocked (every object is, between accesses): punch it. */
		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE |
			      FALLOC_FL_KEEP_SIZE, page_size, r->data_len))
			die("%s: trim: %m", prog);
		c->present[idx[i]] = false;
		c->st->trimmed_bytes += r->data_len;
	}
	free(idx);
}

/* Use object @k: pin it, verify or decode it, unpin it. */
static void cache_access(struct cache *c, long k)
{
	struct region *r = &c->regions[k];
	size_t len = c->p->object_size;
	bool hit = false;

	if (c->p->model == MODEL_UTRIM)
		trim_check(c);
	if (c->p->model != MODEL_KERNEL) {
		dm_access(c, k);
		return;
	}

	if (!c->present[k]) {
		if (region_create(r, c->p->backend, len))
			die("%s: cannot create object %ld: %m", prog, k);
		c->present[k] = true;
	} else {
		int ret = region_pin(r, 0, len);

		if (ret < 0)
			die("%s: pin: %m", prog);
		hit = ret == 0;
		c->st->purges += ret;
	}
	/* droppable: the check finds a drop the pin did not see. */
	if (hit && memcmp(r->map, c->im->ref[k % BLOBS], len)) {
		if (backend_drops_pinned(c->p->backend) &&
		    pages_dropped(r->map, c->im->ref[k % BLOBS], len, 0)) {
			c->st->late_drops++;
			hit = false;
		} else {
			c->st->verify_failures++;
		}
	}
	if (hit) {
		c->st->hits++;
	} else {
		c->st->misses++;
		if (backend_drops_pinned(c->p->backend))
			decode_droppable(c->im, k, r->map, len, c->st);
		else
			decode(c->im, k, r->map, len, c->st);
	}
	if (region_unpin(r, 0, len))
		die("%s: unpin: %m", prog);
}

/* Direct reclaim entries since boot, every zone (/proc/vmstat). */
static uint64_t allocstalls(void)
{
	static const char *const zones[] = {
		"allocstall_dma", "allocstall_dma32", "allocstall_normal",
		"allocstall_movable", "allocstall_device",
	};
	uint64_t sum = 0, v;
	size_t i;

	for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		if (!vmstat_read(zones[i], &v))
			sum += v;
	return sum;
}

/* Touch heap bytes [@from, @to): a step, timed; see "stall_ms" above. */
static void heap_step(struct app_stats *st, char *heap, size_t from,
		      size_t to)
{
	uint64_t stalls0 = allocstalls(), t0 = now_ns(), dt;
	size_t off;

	for (off = from; off < to; off += page_size)
		heap[off] = 1;
	dt = now_ns() - t0;
	st->steps++;
	if (allocstalls() == stalls0)
		st->step_ms_sum += dt / 1e6;
	else if (st->stalls < st->stall_cap)	/* always: sized for all */
		st->stall_ms[st->stalls++] = dt / 1e6;
}

/*
 * One foreground session: the launch (the @p->launch most popular
 * objects, timed), then @p->ops accesses while the heap grows to
 * @p->fg_mib MiB; the heap goes when the session ends.
 */
static void session(struct cache *c, const double *cdf, uint64_t *rng)
{
	const struct params *p = c->p;
	size_t heap_len = p->fg_mib * MIB, touched = 0, want;
	char *heap = NULL;
	uint64_t t0 = now_ns(), file_ns = 0;
	long i;

	for (i = 0; i < p->launch && i < p->objects; i++)
		cache_access(c, i);
	c->st->launch_ns = now_ns() - t0;
	/* Its code and resources: all of the file, once a session. */
	if (c->file.map)
		file_ns += filews_read(&c->file, NULL, 0,
				       &c->st->file_majflt);
	if (heap_len) {
		heap = mmap(NULL, heap_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (heap == MAP_FAILED)
			die("%s: heap: %m", prog);
	}
	for (i = 0; i < p->ops; i++) {
		cache_access(c, zipf_pick(cdf, p->objects, rng));
		if (c->file.map)
			file_ns += filews_read(&c->file, rng, FILE_OP_PAGES,
					       &c->st->file_majflt);
		/* Page aligned, so that no page is counted in two steps. */
		want = heap_len / p->ops * (i + 1) / page_size * page_size;
		if (want > touched) {
			heap_step(c->st, heap, touched, want);
			touched = want;
		}
	}
	if (heap)
		munmap(heap, heap_len);
	/*
	 * A warm session's reads (the app was in front before, in this
	 * process) cost what reclaim took of its file meanwhile; a cold
	 * one's are the first reads of all of it.
	 */
	if (c->file.map) {
		c->st->file_sessions++;
		if (c->sessions && c->st->file_warm < c->st->file_cap)
			c->st->file_ms[c->st->file_warm++] = file_ns / 1e6;
	}
	c->sessions++;
}

static void app_main(const struct params *p, const struct images *im,
		     struct app_stats *st, int index, int cmd, int reply)
{
	struct cache c = {
		.p = p, .im = im, .st = st, .mgr = -1,
		.regions = calloc(p->objects, sizeof(*c.regions)),
		.dm = calloc(p->objects, sizeof(*c.dm)),
		.present = calloc(p->objects, sizeof(*c.present)),
		.last_use = calloc(p->objects, sizeof(*c.last_use)),
	};
	double *cdf = zipf_cdf(p->objects, ZIPF_S);
	uint64_t rng = (p->seed + index) * 2 + 1;
	char op;

	if (!c.regions || !c.dm || !c.present || !c.last_use)
		_exit(3);
	if (p->model != MODEL_KERNEL) {
		c.mgr = dm_connect(MGR_SOCK);
		if (c.mgr < 0)
			_exit(5);
	}
	if (p->file_mib &&
	    filews_map(&c.file, p->file_dir, index, p->file_mib * MIB)) {
		fprintf(stderr, "%s: app %d: cannot map its file in %s: %m\n",
			prog, index, p->file_dir);
		_exit(6);
	}
	while (read(cmd, &op, 1) == 1) {
		session(&c, cdf, &rng);
		if (write(reply, "D", 1) != 1)
			_exit(4);
	}
	_exit(0);
}

static void set_adj(pid_t pid, int adj)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	f = fopen(path, "we");
	if (!f)
		return;		/* the app is gone: reaped by the caller */
	fprintf(f, "%d\n", adj);
	fclose(f);
}

static void app_start(struct app *a, const struct params *p,
		      const struct images *im, struct app_stats *st,
		      int index)
{
	int cmd[2], reply[2];

	if (pipe(cmd) || pipe(reply))
		die("%s: pipe: %m", prog);
	a->pid = fork();
	if (a->pid < 0)
		die("%s: fork: %m", prog);
	if (a->pid == 0) {
		die_with_parent();
		close(cmd[1]);
		close(reply[0]);
		if (cg_enter(a->cg) || set_oom_score_adj(ADJ_CACHED))
			_exit(2);
		app_main(p, im, st, index, cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	a->cmd = cmd[1];
	a->reply = reply[0];
	a->started = true;
	a->ever_started = true;
}

/* Reap @a if it died; true when it is gone (and how, in *@killed). */
static bool app_gone(struct app *a, bool wait, bool *killed)
{
	int status;

	if (!a->started)
		return true;
	if (waitpid(a->pid, &status, wait ? 0 : WNOHANG) <= 0)
		return false;
	*killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	if (!*killed)
		die("%s: an app exited with status 0x%x", prog, status);
	close(a->cmd);
	close(a->reply);
	a->started = false;
	return true;
}

/*
 * The oom_score_adj that makes the OOM killer take a process of @pages
 * resident pages after every app (the foreground's adj is 0 and its
 * cache alone is larger than 2 MiB) but before the guest's shell and
 * bench-matrix (adj 0, a few hundred KiB): its badness, @pages plus adj
 * thousandths of RAM and swap, comes out between 1 and 2 thousandths of
 * them (1-2 MiB in a 1 GiB guest).
 */
static int ballast_adj(long pages)
{
	long total = (meminfo_kb("MemTotal") + meminfo_kb("SwapTotal")) /
		     (long)(page_size / 1024);
	long adj = total > 0 ? 1 - pages * 1000 / total : 0;

	return adj < -999 ? -999 : adj > 0 ? 0 : (int)adj;
}

/*
 * The ballast: @mib MiB locked in memory.  Not unkillable: with every app
 * killed and the ballast protected, the next allocation of the driver (a
 * fork) found nothing to kill and the guest panicked ("System is
 * deadlocked on memory", a full make bench on 2026-12-06).  The OOM
 * killer takes it last (ballast_adj()), and the run is discarded then
 * (ballast_lost()).
 */
static pid_t ballast_start(long mib)
{
	int ready[2], adj = ballast_adj(mib * (long)(MIB / page_size));
	char c;
	pid_t pid;

	if (pipe(ready))
		die("%s: pipe: %m", prog);
	pid = fork();
	if (pid < 0)
		die("%s: fork: %m", prog);
	if (pid == 0) {
		die_with_parent();
		close(ready[0]);
		/*
		 * Killable as any process while it is locked (not the
		 * driver's -1000): if the ballast itself does not fit, the
		 * OOM killer takes it first.  Its adj as ballast after: the
		 * adj is relative to its size.
		 */
		if (set_oom_score_adj(0) ||
		    (mib && mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED |
				 MAP_POPULATE, -1, 0) == MAP_FAILED) ||
		    set_oom_score_adj(adj))
			_exit(2);
		if (write(ready[1], "R", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		int status;

		/*
		 * MemAvailable promised memory that could not be locked: the
		 * OOM killer took the ballast while it faulted in (6.12's
		 * quick regime, 8 MiB left).  The run cannot have the memory
		 * it says, as when the ballast is lost later.
		 */
		close(ready[0]);
		if (waitpid(pid, &status, 0) != pid)
			die("%s: waitpid: %m", prog);
		/* Not the OOM killer (a lock refused: RLIMIT_MEMLOCK?). */
		if (!WIFSIGNALED(status))
			die("%s: cannot lock a %ld MiB ballast (status %d)",
			    prog, mib, WEXITSTATUS(status));
		fprintf(stderr, "%s: the %ld MiB ballast was killed (signal %d) while it was locked in\n",
			prog, mib, WTERMSIG(status));
		return -1;
	}
	close(ready[0]);
	return pid;
}

/*
 * Whether the ballast died (the OOM killer took it): the memory the apps
 * were given was not what the run says, so the run cannot count.
 */
static bool ballast_lost(pid_t ballast)
{
	int status;

	/* -1: it was never locked (ballast_start()). */
	return ballast < 0 || waitpid(ballast, &status, WNOHANG) == ballast;
}

/* The some and full totals of /proc/pressure/memory, in microseconds. */
static void psi_memory(uint64_t *some, uint64_t *full)
{
	if (psi_totals(PSI_MEMORY, some, full))
		die("%s: cannot read %s (CONFIG_PSI?): %m", prog, PSI_MEMORY);
}

struct outcome {
	struct samples launch_ms;
	long cold_launches, kills_bg, kills_fg;	/* the kernel's */
	long lmkd_bg, lmkd_fg;			/* lmkd's */
	uint64_t session_ns;
	double needed_bytes, some_avg10_max, full_avg10_max;
	struct pressure_watch watch;
};

/* The highest PSI avg10s of the run, sampled after each session. */
static void psi_peaks(struct outcome *o)
{
	double some, full;

	if (psi_avg10(PSI_MEMORY, "some", &some) ||
	    psi_avg10(PSI_MEMORY, "full", &full))
		die("%s: cannot read %s: %m", prog, PSI_MEMORY);
	if (some > o->some_avg10_max)
		o->some_avg10_max = some;
	if (full > o->full_avg10_max)
		o->full_avg10_max = full;
}

/* The kernel's count of what it purged (bytes): see "purged_mib" above. */
static double kernel_purged_bytes(const struct params *p)
{
	uint64_t v = 0;
	FILE *f;

	if (p->model != MODEL_KERNEL)
		return 0;
	switch (p->backend) {
	case BACKEND_VOLATILE:
		if (vmstat_read("pgvolatile_purged", &v))
			die("%s: no pgvolatile_purged in /proc/vmstat", prog);
		return (double)v * page_size;
	case BACKEND_MADVFREE:
	case BACKEND_DROPPABLE:	/* dropped as lazy-free pages are */
		if (vmstat_read("pglazyfreed", &v))
			die("%s: no pglazyfreed in /proc/vmstat", prog);
		return (double)v * page_size;
	case BACKEND_ASHMEM:
		/* Each object is one region, unpinned whole: one range. */
		f = fopen(ASHMEM_PURGED, "re");
		if (!f || fscanf(f, "%" SCNu64, &v) != 1)
			die("%s: cannot read %s (debugfs?): %m", prog,
			    ASHMEM_PURGED);
		fclose(f);
		return (double)v * p->object_size;
	default:
		return 0;
	}
}

struct mgr {
	pid_t pid;
	int stop;
	struct dm_stats *st;	/* shared */
	uint64_t device_bytes;	/* uchrome: the device it is scaled to */
	struct dm_chrome chrome;
};

/* The purge manager, in cgroup lab-bench/manager, protected as lmkd is. */
static void mgr_start(const struct params *p, struct mgr *m)
{
	static char trigger[64];
	struct dm_config cfg = {
		.policy = p->model == MODEL_UTRIM ? DM_TRIM : DM_PURGE,
		.trigger = trigger,
		.budget_bytes = MGR_BUDGET_MIB * MIB,
		.critical_full_avg10 = TRIM_CRITICAL_FULL,
	};
	char cg[CG_PATH_MAX];
	int ls, stop[2], never[2];

	snprintf(trigger, sizeof(trigger), "some %ld 1000000",
		 p->trigger_ms * 1000);
	if (p->model == MODEL_UCHROME) {
		/* Its signal is MemAvailable, polled: no trigger. */
		cfg.policy = DM_CHROME;
		cfg.trigger = NULL;
		dm_chrome_scale(&m->chrome, m->device_bytes, CHROME_TIME_DIV);
		cfg.chrome = m->chrome;
	}
	ls = dm_listen(MGR_SOCK, MAX_APPS);
	if (ls < 0 || pipe(stop) || pipe(never) ||
	    cg_create("lab-bench/manager", cg, sizeof(cg)))
		die("%s: cannot set up the purge manager: %m", prog);
	m->pid = fork();
	if (m->pid < 0)
		die("%s: fork: %m", prog);
	if (m->pid == 0) {
		die_with_parent();
		close(stop[1]);
		close(never[1]);
		if (cg_enter(cg) || set_oom_score_adj(-1000))
			_exit(2);
		_exit(dm_serve(ls, stop[0], never[0], &cfg, m->st) ? 3 : 0);
	}
	close(ls);
	close(stop[0]);
	close(never[0]);
	m->stop = stop[1];
}

/*
 * Stop the helper process @pid (the manager or the killer) through its
 * pipe @stop and reap it; @what names it, @hint says what to suspect.
 */
static void helper_stop(pid_t pid, int stop, const char *what,
			const char *hint)
{
	int status;

	if (write(stop, "s", 1) != 1)
		die("%s: cannot stop %s: %m", prog, what);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s: %s failed (status 0x%x%s)", prog, what, status,
		    hint);
	close(stop);
}

static void mgr_stop(struct mgr *m)
{
	helper_stop(m->pid, m->stop, "the purge manager", "");
	unlink(MGR_SOCK);
}

struct killer {
	pid_t pid;
	int stop;
	struct lmkd_stats *st;	/* shared */
};

/* The low memory killer, in cgroup lab-bench/lmkd, unkillable as lmkd. */
static void killer_start(struct killer *k, struct app *apps, long n)
{
	struct lmkd_config cfg = { .ncgroups = n };
	char cg[CG_PATH_MAX];
	int stop[2];
	long i;

	for (i = 0; i < n; i++)
		cfg.cgroups[i] = apps[i].cg;
	if (pipe(stop) || cg_create("lab-bench/lmkd", cg, sizeof(cg)))
		die("%s: cannot set up lmkd: %m", prog);
	k->pid = fork();
	if (k->pid < 0)
		die("%s: fork: %m", prog);
	if (k->pid == 0) {
		die_with_parent();
		close(stop[1]);
		if (cg_enter(cg) || set_oom_score_adj(-1000))
			_exit(2);
		_exit(lmkd_serve(stop[0], &cfg, k->st) ? 3 : 0);
	}
	close(stop[0]);
	k->stop = stop[1];
}

static void killer_stop(struct killer *k)
{
	helper_stop(k->pid, k->stop, "lmkd", "; PSI triggers?");
}

/* Count the kill of @a (reaped): lmkd's or the kernel's. */
static void count_kill(struct outcome *o, const struct killer *k,
		       const struct app *a, bool fg)
{
	bool by_lmkd = k->st && lmkd_killed(k->st, a->pid);

	if (by_lmkd && fg)
		o->lmkd_fg++;
	else if (by_lmkd)
		o->lmkd_bg++;
	else if (fg)
		o->kills_fg++;
	else
		o->kills_bg++;
}

/*
 * The cached apps' oom_score_adj by recency, as Android ranks them: the
 * one in front last gets ADJ_CACHED, each older one ADJ_CACHED_STEP
 * more, up to ADJ_CACHED_MAX; so lmkd (and, weighed with their size,
 * the OOM killer) takes the least recently used first.
 */
static void cached_adjs(struct app *apps, long n)
{
	long i, j, rank, adj;

	for (i = 0; i < n; i++) {
		if (!apps[i].started)
			continue;
		for (rank = 0, j = 0; j < n; j++)
			rank += apps[j].started && apps[j].fg_at > apps[i].fg_at;
		adj = ADJ_CACHED + ADJ_CACHED_STEP * rank;
		set_adj(apps[i].pid, adj < ADJ_CACHED_MAX ? adj :
			ADJ_CACHED_MAX);
	}
}

/*
 * The run; false when the OOM killer took the ballast (every app was
 * killed and memory was still short: the device had less than
 * --free-mib for the apps), which discards it.
 */
static bool run(const struct params *p, struct app_stats *stats,
		struct outcome *o, struct mgr *mgr, struct killer *killer)
{
	struct images im;
	struct app apps[MAX_APPS] = { 0 };
	char parent[CG_PATH_MAX], name[32];
	uint64_t rng = p->seed * 2 + 1;
	long free_mib, ballast_mib, s, fg = -1, i, decodes;
	double room, demand;
	bool killed, lost = false;
	pid_t ballast;

	images_make(&im, p->object_size);
	for (i = 0; i < p->apps && p->file_mib; i++)
		if (filews_prepare(p->file_dir, i, p->file_mib * MIB))
			die("%s: cannot prepare app %ld's file in %s: %m",
			    prog, i, p->file_dir);
	if (cg_create("lab-bench", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory"))
		die("%s: cannot set up cgroup lab-bench: %m", prog);
	for (i = 0; i < p->apps; i++) {
		snprintf(name, sizeof(name), "lab-bench/app%ld", i);
		if (cg_create(name, apps[i].cg, sizeof(apps[i].cg)))
			die("%s: cannot create cgroup %s: %m", prog, name);
	}
	/*
	 * MemAvailable, not MemFree: the free pages below the zones' high
	 * watermarks (tens of MiB with THP) are not the apps' to take.
	 */
	if (p->model != MODEL_KERNEL) {
		/*
		 * uchrome's device: what the apps can have, MemTotal less
		 * the ballast sized below (the manager costs little).
		 */
		mgr->device_bytes = (meminfo_kb("MemTotal") -
				     meminfo_kb("MemAvailable")) * 1024 +
				    p->free_mib * MIB;
		mgr_start(p, mgr);
	}
	if (p->lmkd)
		killer_start(killer, apps, p->apps);
	free_mib = meminfo_kb("MemAvailable") / 1024;
	ballast_mib = free_mib - p->free_mib;
	if (ballast_mib < 0)
		die("%s: only %ld MiB available, --free-mib %ld asked", prog,
		    free_mib, p->free_mib);
	ballast = ballast_start(ballast_mib);
	lost = ballast < 0;
	if (pressure_watch_start(&o->watch, PRESSURE_PERIOD_US))
		die("%s: cannot watch the watermarks (/proc/zoneinfo): %m",
		    prog);

	for (s = 0; !lost && s < p->switches; s++) {
		long next = rng_next(&rng) % (p->apps - (fg >= 0));
		uint64_t t0;
		char done;

		if (ballast_lost(ballast)) {
			lost = true;
			break;
		}
		if (fg >= 0 && next >= fg)
			next++;		/* never the app already in front */
		for (i = 0; i < p->apps; i++)
			if (apps[i].started && app_gone(&apps[i], false,
							&killed))
				count_kill(o, killer, &apps[i], false);
		if (!apps[next].started) {
			/* Started again after the OOM killer took it. */
			o->cold_launches += apps[next].ever_started;
			app_start(&apps[next], p, &im, &stats[next], next);
		}
		fg = next;
		apps[fg].fg_at = s;
		set_adj(apps[fg].pid, ADJ_FOREGROUND);
		/* What kswapd leaves alone: MemFree above the high marks. */
		room = meminfo_kb("MemFree") * 1024.0 - o->watch.high;
		decodes = stats[fg].decodes;
		t0 = now_ns();
		if (write(apps[fg].cmd, "F", 1) != 1 ||
		    read(apps[fg].reply, &done, 1) != 1) {
			app_gone(&apps[fg], true, &killed);
			count_kill(o, killer, &apps[fg], true);
			o->session_ns += now_ns() - t0;
			psi_peaks(o);
			continue;
		}
		o->session_ns += now_ns() - t0;
		psi_peaks(o);
		demand = (double)p->fg_mib * MIB +
			 (double)(stats[fg].decodes - decodes) * p->object_size;
		if (demand > room)
			o->needed_bytes += demand - (room > 0 ? room : 0);
		samples_add(&o->launch_ms, stats[fg].launch_ns / 1e6);
		/* Back to the cached apps, the most recent of them. */
		cached_adjs(apps, p->apps);
	}
	pressure_watch_stop(&o->watch);
	if (p->lmkd)
		killer_stop(killer);
	for (i = 0; i < p->apps; i++) {
		if (!apps[i].started)
			continue;
		if (app_gone(&apps[i], false, &killed)) {
			count_kill(o, killer, &apps[i], false);
			continue;
		}
		kill(apps[i].pid, SIGKILL);
		app_gone(&apps[i], true, &killed);
	}
	lost = lost || ballast_lost(ballast);
	if (!lost) {
		kill(ballast, SIGKILL);
		waitpid(ballast, NULL, 0);
	}
	if (p->model != MODEL_KERNEL)
		mgr_stop(mgr);
	for (i = 0; i < p->apps; i++)
		cg_destroy(apps[i].cg);
	if (lost)
		fprintf(stderr, "%s: the OOM killer took the %ld MiB ballast (at once or later): the apps had less than --free-mib %ld; run discarded\n",
			prog, ballast_mib, p->free_mib);
	return !lost;
}

/* Rows @name_p50, _p99 and _max of @s, if it has samples. */
static void csv_pcts(struct csv *csv, const char *param, const char *name,
		     struct samples *s)
{
	static const struct { const char *suffix; double pct; } at[] = {
		{ "p50", 50 }, { "p99", 99 }, { "max", 100 },
	};
	char metric[64];
	size_t i;

	for (i = 0; s->n && i < sizeof(at) / sizeof(at[0]); i++) {
		snprintf(metric, sizeof(metric), "%s_%s", name, at[i].suffix);
		csv_row(csv, param, metric, "ms", samples_pct(s, at[i].pct));
	}
}

/* uchrome's scaling and what its policy did; see the top. */
static void csv_chrome(struct csv *csv, const char *param,
		       const struct mgr *mgr)
{
	const struct dm_chrome *c = &mgr->chrome;
	const struct dm_stats *m = mgr->st;

	csv_row(csv, param, "mgr_device_mib", "MiB",
		(double)mgr->device_bytes / MIB);
	csv_row(csv, param, "mgr_budget_mib", "MiB",
		(double)c->budget_bytes / MIB);
	csv_row(csv, param, "mgr_moderate_mib", "MiB",
		(double)c->moderate_bytes / MIB);
	csv_row(csv, param, "mgr_critical_mib", "MiB",
		(double)c->critical_bytes / MIB);
	/* Settings, not timings: in s, apart from the measured ms. */
	csv_row(csv, param, "mgr_poll_s", "s", c->poll_ns / 1e9);
	csv_row(csv, param, "mgr_moderate_repeat_s", "s",
		c->moderate_repeat_ns / 1e9);
	csv_row(csv, param, "mgr_retry_s", "s", c->retry_ns / 1e9);
	csv_row(csv, param, "mgr_sweep_s", "s", c->sweep_ns / 1e9);
	csv_row(csv, param, "mgr_age_s", "s", c->age_ns / 1e9);
	csv_row(csv, param, "mgr_time_div", "ratio", CHROME_TIME_DIV);
	csv_row(csv, param, "mgr_budget_runs", "count", m->budget_runs);
	csv_row(csv, param, "mgr_retries", "count", m->retries);
	csv_row(csv, param, "mgr_moderate", "count", m->moderate);
	csv_row(csv, param, "mgr_critical", "count", m->critical);
	csv_row(csv, param, "mgr_age_runs", "count", m->age_runs);
	csv_row(csv, param, "mgr_polls", "count", m->polls);
	csv_row(csv, param, "mgr_purged_budget_mib", "MiB",
		(double)m->purged_budget / MIB);
	csv_row(csv, param, "mgr_purged_pressure_mib", "MiB",
		(double)m->purged_pressure / MIB);
	csv_row(csv, param, "mgr_purged_age_mib", "MiB",
		(double)m->purged_age / MIB);
	csv_row(csv, param, "mgr_live_peak_mib", "MiB",
		(double)m->live_peak / MIB);
}

/* The killer's kills (apart from the kernel's) and what woke it. */
static void csv_lmkd(struct csv *csv, const char *param,
		     const struct outcome *o, const struct lmkd_stats *k)
{
	csv_row(csv, param, "lmkd_kills_bg", "count", o->lmkd_bg);
	csv_row(csv, param, "lmkd_kills_fg", "count", o->lmkd_fg);
	csv_row(csv, param, "lmkd_psi_medium", "count", k->psi_medium);
	csv_row(csv, param, "lmkd_psi_critical", "count", k->psi_critical);
	csv_row(csv, param, "lmkd_reclaim_wakes", "count", k->reclaim_wakes);
	csv_row(csv, param, "lmkd_checks", "count", k->checks);
	csv_row(csv, param, "lmkd_skipped_pending", "count",
		k->skipped_pending);
	csv_row(csv, param, "lmkd_kills_not_responding", "count",
		k->kills_not_responding);
	csv_row(csv, param, "lmkd_kills_low_mem", "count", k->kills_low_mem);
	csv_row(csv, param, "lmkd_kills_after_kill", "count",
		k->kills_after_kill);
	csv_row(csv, param, "lmkd_no_victim", "count", k->kills_no_victim);
	/* In s: CPU time counts in ticks and may be 0, not a timing. */
	csv_row(csv, param, "lmkd_cpu_s", "s", k->cpu_ns / 1e9);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "apps", required_argument, NULL, 'a' },
		{ "cache-mib", required_argument, NULL, 'C' },
		{ "object-kib", required_argument, NULL, 's' },
		{ "fg-mib", required_argument, NULL, 'g' },
		{ "free-mib", required_argument, NULL, 'f' },
		{ "switches", required_argument, NULL, 'w' },
		{ "ops", required_argument, NULL, 'n' },
		{ "launch", required_argument, NULL, 'l' },
		{ "lmkd", no_argument, NULL, 'k' },
		{ "sweep", no_argument, NULL, 'S' },
		{ "file-mib", required_argument, NULL, 'F' },
		{ "file-dir", required_argument, NULL, 'D' },
		{ "seed", required_argument, NULL, 'x' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	static const char not_reclaimable[] =
		"on tmpfs or ramfs, whose pages reclaim cannot drop and read back (boot.sh --files shares a directory that can)";
	struct params p = { .seed = 20261204, .launch = 8 };
	const char *backend = NULL, *csv_path = NULL;
	long rep = 1, cache_mib = 0, kib = 0, i, j, calm, planned, swap_mib;
	struct samples stalls = { 0 }, file_ms = { 0 };
	double purged, *stall_buf, *file_buf;
	uint64_t some0, full0, some1, full1, t0, wall;
	uint64_t refaults0 = 0, refaults1 = 0;
	struct app_stats *stats, sum = { 0 };
	struct outcome o = { 0 };
	struct mgr mgr = { 0 };
	struct killer killer = { 0 };
	char param[32], bench[32];
	struct csv csv;
	int opt;

	prog = argv[0];
	driver = getpid();
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'a':
			p.apps = parse_long("--apps", optarg, 2, MAX_APPS);
			break;
		case 'C':
			cache_mib = parse_long("--cache-mib", optarg, 1, 4096);
			break;
		case 's':
			kib = parse_long("--object-kib", optarg, 4, 65536);
			break;
		case 'g':
			p.fg_mib = parse_long("--fg-mib", optarg, 0, 4096);
			break;
		case 'f':
			p.free_mib = parse_long("--free-mib", optarg, 1, 65536);
			break;
		case 'w':
			p.switches = parse_long("--switches", optarg, 1,
						100000);
			break;
		case 'n':
			p.ops = parse_long("--ops", optarg, 1, 100000000);
			break;
		case 'l':
			p.launch = parse_long("--launch", optarg, 0, 65536);
			break;
		case 'k':
			p.lmkd = true;
			break;
		case 'S':
			p.sweep = true;
			break;
		case 'F':
			p.file_mib = parse_long("--file-mib", optarg, 1, 1024);
			break;
		case 'D':
			p.file_dir = optarg;
			break;
		case 'x':
			p.seed = parse_long("--seed", optarg, 0, 1L << 40);
			break;
		case 'r':
			rep = parse_long("--rep", optarg, 1, 1000);
			break;
		case 'c':
			csv_path = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !backend || !p.apps || !cache_mib || !kib ||
	    !p.free_mib || !p.switches || !p.ops)
		usage();
	if (p.switches * p.ops > 1L << 20)
		usage_error(prog, "--switches times --ops must be at most %ld",
			    1L << 20);
	if (!p.file_mib != !p.file_dir)
		usage_error(prog, "--file-mib and --file-dir go together");
	if (p.file_dir && filews_check_dir(p.file_dir))
		usage_error(prog, "--file-dir %s: %s", p.file_dir,
			    errno == EINVAL ? not_reclaimable : strerror(errno));
	p.object_size = kib * 1024;
	if (p.object_size % page_size || p.object_size > (size_t)cache_mib * MIB)
		usage_error(prog, "--object-kib must be a multiple of the page size and at most --cache-mib");
	p.objects = cache_mib * MIB / p.object_size;
	if (!strncmp(backend, "upsi-", 5)) {
		char *end;

		p.model = MODEL_UPSI;
		p.trigger_ms = strtol(backend + 5, &end, 10);
		if (strcmp(end, "ms") || p.trigger_ms < 1 ||
		    p.trigger_ms > 1000)
			usage_error(prog, "backend '%s': upsi-<1..1000>ms", backend);
	} else if (!strcmp(backend, "utrim")) {
		p.model = MODEL_UTRIM;
		p.trigger_ms = TRIM_TRIGGER_MS;
	} else if (!strcmp(backend, "uchrome")) {
		p.model = MODEL_UCHROME;
	} else {
		p.backend = backend_parse(prog, backend);
	}

	mgr.st = mmap(NULL, sizeof(*mgr.st), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mgr.st == MAP_FAILED)
		die("%s: mmap: %m", prog);
	memset(mgr.st, 0, sizeof(*mgr.st));
	if (p.lmkd) {
		killer.st = mmap(NULL, sizeof(*killer.st),
				 PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (killer.st == MAP_FAILED)
			die("%s: mmap: %m", prog);
	}
	stats = mmap(NULL, MAX_APPS * sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* Room for every heap step of every session, per app. */
	stall_buf = mmap(NULL, p.apps * p.switches * p.ops * sizeof(double),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			0);
	if (stats == MAP_FAILED || stall_buf == MAP_FAILED)
		die("%s: mmap: %m", prog);
	/* And for each session's file reads, per app. */
	file_buf = mmap(NULL, p.apps * p.switches * sizeof(double),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			0);
	if (file_buf == MAP_FAILED)
		die("%s: mmap: %m", prog);
	for (i = 0; i < p.apps; i++) {
		stats[i].stall_cap = p.switches * p.ops;
		stats[i].stall_ms = stall_buf + i * stats[i].stall_cap;
		stats[i].file_cap = p.switches;
		stats[i].file_ms = file_buf + i * p.switches;
	}
	/* The parent is the system server: the OOM killer must pass it by. */
	signal(SIGPIPE, SIG_IGN);
	if (set_oom_score_adj(-1000))
		die("%s: oom_score_adj: %m", prog);
	psi_memory(&some0, &full0);
	if (p.file_mib && filews_refaults(&refaults0))
		die("%s: no workingset_refault_file in /proc/vmstat", prog);
	purged = -kernel_purged_bytes(&p);
	swap_mib = meminfo_kb("SwapTotal") / 1024;
	snprintf(bench, sizeof(bench), "%s%s", p.lmkd ? "app_lmkd" : "app",
		 !p.sweep ? "" : swap_mib ? "_sweep_zram" : "_sweep");
	if (p.sweep)
		snprintf(param, sizeof(param), "free_mib=%ld", p.free_mib);
	else
		snprintf(param, sizeof(param), "swap_mib=%ld", swap_mib);
	t0 = now_ns();
	if (!run(&p, stats, &o, &mgr, &killer)) {
		/*
		 * Its numbers are not a run's, but that it happened is
		 * data: one row, and the exit status bench-matrix counts
		 * as a discarded run, not a failed one.
		 */
		if (csv_open(&csv, csv_path, backend, bench, rep))
			die("%s: cannot open %s: %m", prog, csv_path);
		csv_row(&csv, param, "ballast_lost", "count", 1);
		if (csv_close(&csv))
			die("%s: cannot write %s: %m", prog, csv_path);
		return EXIT_DISCARDED;
	}
	wall = now_ns() - t0;
	psi_memory(&some1, &full1);
	if (p.file_mib && filews_refaults(&refaults1))
		die("%s: no workingset_refault_file in /proc/vmstat", prog);
	purged += kernel_purged_bytes(&p) + mgr.st->purged_bytes;

	for (i = 0; i < p.apps; i++) {
		sum.hits += stats[i].hits;
		sum.misses += stats[i].misses;
		sum.purges += stats[i].purges;
		sum.verify_failures += stats[i].verify_failures;
		sum.late_drops += stats[i].late_drops;
		sum.decodes += stats[i].decodes;
		sum.decode_ns += stats[i].decode_ns;
		sum.trimmed_bytes += stats[i].trimmed_bytes;
		sum.steps += stats[i].steps;
		sum.step_ms_sum += stats[i].step_ms_sum;
		for (j = 0; j < stats[i].stalls; j++)
			samples_add(&stalls, stats[i].stall_ms[j]);
		sum.file_majflt += stats[i].file_majflt;
		sum.file_sessions += stats[i].file_sessions;
		for (j = 0; j < stats[i].file_warm; j++)
			samples_add(&file_ms, stats[i].file_ms[j]);
	}
	purged += sum.trimmed_bytes;
	calm = sum.steps - stalls.n;
	planned = p.switches * ((p.launch < p.objects ? p.launch : p.objects) +
				p.ops);
	if (csv_open(&csv, csv_path, backend, bench, rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	csv_row(&csv, param, "hit_rate", "ratio", sum.hits + sum.misses ?
		(double)sum.hits / (sum.hits + sum.misses) : 0);
	/*
	 * The same over every request the run planned: the requests a
	 * killed foreground never made count as misses, so that a backend
	 * cannot score by being killed.
	 */
	csv_row(&csv, param, "requests", "count", planned);
	csv_row(&csv, param, "requests_lost", "count",
		planned - sum.hits - sum.misses);
	csv_row(&csv, param, "hit_rate_all", "ratio",
		(double)sum.hits / planned);
	csv_row(&csv, param, "launches", "count", o.launch_ms.n);
	csv_pcts(&csv, param, "launch_ms", &o.launch_ms);
	csv_row(&csv, param, "cold_launches", "count", o.cold_launches);
	csv_row(&csv, param, "oom_kills_bg", "count", o.kills_bg);
	csv_row(&csv, param, "oom_kills_fg", "count", o.kills_fg);
	csv_row(&csv, param, "psi_some_pct", "%",
		100.0 * (some1 - some0) / (wall / 1e3));
	csv_row(&csv, param, "psi_full_pct", "%",
		100.0 * (full1 - full0) / (wall / 1e3));
	csv_row(&csv, param, "psi_some_avg10_max", "%", o.some_avg10_max);
	csv_row(&csv, param, "psi_full_avg10_max", "%", o.full_avg10_max);
	csv_row(&csv, param, "pressure_episodes", "count",
		o.watch.episode_ms.n);
	csv_row(&csv, param, "open_episodes", "count", o.watch.open);
	csv_pcts(&csv, param, "freed_ms", &o.watch.episode_ms);
	csv_row(&csv, param, "stalled_steps", "count", stalls.n);
	csv_pcts(&csv, param, "stall_ms", &stalls);
	if (calm > 0)
		csv_row(&csv, param, "step_ms_mean", "ms",
			sum.step_ms_sum / calm);
	csv_row(&csv, param, "needed_mib", "MiB", o.needed_bytes / MIB);
	csv_row(&csv, param, "purged_mib", "MiB", purged / MIB);
	if (o.needed_bytes > 0)
		csv_row(&csv, param, "overpurge", "ratio",
			purged / o.needed_bytes);
	if (sum.decodes)
		csv_row(&csv, param, "decode_ms_mean", "ms",
			sum.decode_ns / 1e6 / sum.decodes);
	csv_row(&csv, param, "session_s", "s", o.session_ns / 1e9);
	csv_row(&csv, param, "purges", "count", sum.purges);
	csv_row(&csv, param, "verify_failures", "count",
		sum.verify_failures);
	if (p.model == MODEL_KERNEL && backend_drops_pinned(p.backend))
		csv_row(&csv, param, "late_drops", "count", sum.late_drops);
	if (p.model != MODEL_KERNEL) {
		struct dm_stats *m = mgr.st;

		csv_row(&csv, param, "mgr_cpu_ms", "ms", m->cpu_ns / 1e6);
		csv_row(&csv, param, "mgr_events", "count", m->events);
		csv_row(&csv, param, "mgr_purged_mib", "MiB",
			(double)m->purged_bytes / MIB);
		if (m->purge_runs) {
			csv_row(&csv, param, "mgr_purge_ms_mean", "ms",
				m->purge_ns_total / 1e6 / m->purge_runs);
			csv_row(&csv, param, "mgr_purge_ms_max", "ms",
				m->purge_ns_max / 1e6);
		}
		csv_row(&csv, param, "trims", "count", m->trims_sent);
		csv_row(&csv, param, "mgr_malformed", "count", m->malformed);
	}
	if (p.model == MODEL_UCHROME)
		csv_chrome(&csv, param, &mgr);
	if (p.lmkd)
		csv_lmkd(&csv, param, &o, killer.st);
	if (p.file_mib) {
		csv_row(&csv, param, "file_mib", "MiB", p.file_mib);
		csv_row(&csv, param, "file_refaults", "count",
			refaults1 - refaults0);
		csv_row(&csv, param, "file_majfaults", "count",
			sum.file_majflt);
		csv_row(&csv, param, "file_sessions", "count",
			sum.file_sessions);
		csv_row(&csv, param, "file_warm_sessions", "count",
			file_ms.n);
		csv_pcts(&csv, param, "file_warm_ms", &file_ms);
	}
	samples_free(&o.launch_ms);
	samples_free(&file_ms);
	samples_free(&stalls);
	samples_free(&o.watch.episode_ms);
	return csv_close(&csv) ? 1 : 0;
}
