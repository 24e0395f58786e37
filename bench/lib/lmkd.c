// SPDX-License-Identifier: GPL-2.0
/*
 * A small lmkd; see lmkd.h.  What it keeps of lmkd's PSI mode
 * (system/memory/lmkd/lmkd.cpp, mp_event_psi()), with its defaults:
 *
 * - a medium level on "some" stall of 70 ms in a 1 s window, a
 *   critical level on "full" stall of 700 ms in 1 s;
 * - after an event, a check every 10 ms for the rest of the 1 s
 *   window (lmkd's short polling), the events' level kept but no event;
 * - the same polling begun by the kernel's reclaim: free memory below
 *   the low watermarks (what wakes kswapd) or a new allocstall in
 *   /proc/vmstat (direct reclaim), sampled every 20 ms.  Recent lmkd
 *   listens for these events too (BPF memevents); that they begin the
 *   polling is the lab's addition, so that the watermark check runs
 *   when the PSI triggers, slow to fire in runs of seconds, have not;
 * - no decision while the last victim is still dying, for at most
 *   100 ms (ro.lmk.kill_timeout_ms);
 * - the reasons, in lmkd's order: free memory below the min watermark
 *   in the window of a kill (PRESSURE_AFTER_KILL, anyone but adj < 0);
 *   a critical event (NOT_RESPONDING, anyone); free memory below the
 *   low watermark with swap low (LOW_MEM_AND_SWAP: adj above 200, the
 *   perceptible apps, unless below the min watermark);
 * - the victim: the highest oom_score_adj at or above the reason's
 *   floor, the largest resident set among equals; SIGKILL through a
 *   pidfd, then process_mrelease() as lmkd does.
 *
 * What it leaves out, and why: the thrashing reasons (refaults against
 * the file cache), since the app regime has no file-backed working
 * set; swap utilisation and the low-RAM variants.  With no swap at all,
 * lmkd's "swap is low" (free swap below 10% of the total) is false, and
 * without thrashing it kills only on critical events and after a kill:
 * kept so here (NO_SWAP_IS_LOW 0).  Counting no swap as low (1), as for
 * a phone whose zram is full, made it kill a foreground alone below the
 * min watermark before the kernel's purge was done (volatile: 0 MiB
 * purged and the foreground lost, against 6-36 MiB purged and no kill
 * without the killer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "lmkd.h"
#include "pressure.h"
#include "proc.h"
#include "psi.h"

#define WINDOW_NS 1000000000ULL		/* PSI_WINDOW_SIZE_MS */
#define POLL_MS 10			/* PSI_POLL_PERIOD_SHORT_MS */
#define KILL_TIMEOUT_NS 100000000ULL	/* ro.lmk.kill_timeout_ms */
#define PERCEPTIBLE_APP_ADJ 200
#define SWAP_LOW_PCT 10			/* ro.lmk.swap_free_low_percentage */
#define WAKE_SAMPLE_MS 20		/* the reclaim events' stand-in */
/* lmkd's own reading: no swap is not low swap (see the top). */
#define NO_SWAP_IS_LOW 0

/* lmkd's order: below min, below low, below high, none. */
enum wmark { WMARK_MIN, WMARK_LOW, WMARK_HIGH, WMARK_NONE };
enum level { LEVEL_NONE, LEVEL_MEDIUM, LEVEL_CRITICAL };

struct killer {
	const struct lmkd_config *cfg;
	struct lmkd_stats *st;
	uint64_t min, low, high;	/* the zones' watermarks, bytes */
	uint64_t window_end;		/* polling until then */
	uint64_t last_kill;		/* when, 0: never */
	int pidfd;			/* the last victim, -1: none */
	enum level level;		/* of the event that began the window */
	uint64_t allocstalls;		/* at the last sample */
};

static enum wmark lowest_wmark(const struct killer *k)
{
	long kb = meminfo_kb("MemFree");
	uint64_t free_bytes = kb < 0 ? UINT64_MAX : (uint64_t)kb * 1024;

	if (free_bytes < k->min)
		return WMARK_MIN;
	if (free_bytes < k->low)
		return WMARK_LOW;
	if (free_bytes < k->high)
		return WMARK_HIGH;
	return WMARK_NONE;
}

/* Direct reclaim entries since boot, every zone (/proc/vmstat). */
static uint64_t allocstalls(void)
{
	char line[128];
	unsigned long long v;
	uint64_t sum = 0;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "allocstall_", 11) &&
		    sscanf(strchr(line, ' '), "%llu", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/* Whether the kernel is reclaiming: kswapd woken or direct reclaim. */
static bool reclaiming(struct killer *k)
{
	uint64_t stalls = allocstalls();
	bool direct = stalls != k->allocstalls;

	k->allocstalls = stalls;
	return direct || lowest_wmark(k) < WMARK_HIGH;
}

static bool swap_is_low(void)
{
	long total = meminfo_kb("SwapTotal"), free_kb = meminfo_kb("SwapFree");

	if (total <= 0)
		return NO_SWAP_IS_LOW;
	return free_kb * 100 < total * SWAP_LOW_PCT;
}

static long read_long(const char *path, int field)
{
	long v = -1;
	FILE *f = fopen(path, "re");
	int i;

	if (!f)
		return -1;
	for (i = 0; i <= field; i++)
		if (fscanf(f, "%ld", &v) != 1) {
			v = -1;
			break;
		}
	fclose(f);
	return v;
}

/* The process to kill at @min_adj or above, or 0. */
static pid_t pick_victim(const struct killer *k, int min_adj)
{
	long best_adj = -1001, best_rss = -1, adj, rss, pid;
	pid_t victim = 0;
	char path[320];
	int i;

	for (i = 0; i < k->cfg->ncgroups; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/cgroup.procs",
			 k->cfg->cgroups[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fscanf(f, "%ld", &pid) == 1) {
			snprintf(path, sizeof(path), "/proc/%ld/oom_score_adj",
				 pid);
			adj = read_long(path, 0);
			if (adj < min_adj || adj < best_adj)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/statm", pid);
			rss = read_long(path, 1);
			if (adj == best_adj && rss <= best_rss)
				continue;
			best_adj = adj;
			best_rss = rss;
			victim = pid;
		}
		fclose(f);
	}
	return victim;
}

static void kill_one(struct killer *k, int min_adj, long *reason)
{
	pid_t pid = pick_victim(k, min_adj);
	int n, fd;

	if (!pid) {
		k->st->kills_no_victim++;
		return;
	}
	fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return;		/* gone already */
	/* Recorded first: the benchmark may reap it at once. */
	n = __atomic_load_n(&k->st->nkilled, __ATOMIC_RELAXED);
	if (n < LMKD_MAX_KILLS) {
		k->st->killed[n] = pid;
		__atomic_store_n(&k->st->nkilled, n + 1, __ATOMIC_RELEASE);
	}
	if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0)) {
		close(fd);
		return;
	}
#ifdef SYS_process_mrelease
	/* Free its memory now rather than when it has run its exit. */
	syscall(SYS_process_mrelease, fd, 0);
#endif
	(*reason)++;
	if (k->pidfd >= 0)
		close(k->pidfd);
	k->pidfd = fd;
	k->last_kill = now_ns();
}

/* mp_event_psi()'s decision, without its thrashing reasons. */
static void decide(struct killer *k, bool event)
{
	uint64_t now = now_ns();
	bool after_kill = k->last_kill && now - k->last_kill < WINDOW_NS;
	enum wmark wm;

	if (k->pidfd >= 0) {
		struct pollfd p = { .fd = k->pidfd, .events = POLLIN };

		if (poll(&p, 1, 0) == 0 &&
		    now - k->last_kill < KILL_TIMEOUT_NS) {
			k->st->skipped_pending++;
			return;
		}
		close(k->pidfd);
		k->pidfd = -1;
	}
	k->st->checks++;
	wm = lowest_wmark(k);
	if (after_kill && wm < WMARK_LOW)
		kill_one(k, 0, &k->st->kills_after_kill);
	else if (k->level == LEVEL_CRITICAL && event)
		kill_one(k, 0, &k->st->kills_not_responding);
	else if (wm < WMARK_HIGH && swap_is_low())
		kill_one(k, wm > WMARK_MIN ? PERCEPTIBLE_APP_ADJ + 1 : 0,
			 &k->st->kills_low_mem);
}

bool lmkd_killed(const struct lmkd_stats *st, pid_t pid)
{
	int n = __atomic_load_n(&st->nkilled, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n; i++)
		if (st->killed[i] == pid)
			return true;
	return false;
}

int lmkd_serve(int stop_fd, const struct lmkd_config *cfg,
	       struct lmkd_stats *st)
{
	struct killer k = { .cfg = cfg, .st = st, .pidfd = -1 };
	struct pollfd p[3];
	struct rusage ru;
	int medium, critical, n;

	if (zone_watermarks(&k.min, &k.low, &k.high))
		return -1;
	medium = psi_trigger(PSI_MEMORY, LMKD_MEDIUM_TRIGGER);
	critical = psi_trigger(PSI_MEMORY, LMKD_CRITICAL_TRIGGER);
	if (medium < 0 || critical < 0)
		return -1;
	k.allocstalls = allocstalls();
	for (;;) {
		uint64_t now = now_ns();
		bool polling = now < k.window_end, event = false;

		p[0] = (struct pollfd) { .fd = stop_fd, .events = POLLIN };
		p[1] = (struct pollfd) { .fd = medium, .events = POLLPRI };
		p[2] = (struct pollfd) { .fd = critical, .events = POLLPRI };
		n = poll(p, 3, polling ? POLL_MS : WAKE_SAMPLE_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			break;
		if (p[1].revents & POLLPRI) {
			st->psi_medium++;
			k.level = LEVEL_MEDIUM;
			event = true;
		}
		/* Both at once: the critical one decides. */
		if (p[2].revents & POLLPRI) {
			st->psi_critical++;
			k.level = LEVEL_CRITICAL;
			event = true;
		}
		if (event) {
			k.window_end = now_ns() + WINDOW_NS;
		} else if (!polling) {
			if (!reclaiming(&k))
				continue;
			st->reclaim_wakes++;
			k.window_end = now_ns() + WINDOW_NS;
		}
		decide(&k, event);
	}
	close(medium);
	close(critical);
	if (k.pidfd >= 0)
		close(k.pidfd);
	if (!getrusage(RUSAGE_SELF, &ru))
		st->cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
			1000000000ULL + (ru.ru_utime.tv_usec +
					 ru.ru_stime.tv_usec) * 1000ULL;
	return 0;
}
