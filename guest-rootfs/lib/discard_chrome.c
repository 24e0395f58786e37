// SPDX-License-Identifier: GPL-2.0
/*
 * The purge manager's Chromium policy (DM_CHROME): what Chromium's
 * DiscardableSharedMemoryManager (components/discardable_memory/service/)
 * and its pressure monitor do, on the lab's regions.
 *
 * - A budget of live discardable bytes.  On every allocation (a region
 *   registered), unlocked regions are purged, least recently unlocked
 *   first, until the live bytes are within it; still over (the rest is
 *   locked), the manager tries again after a delay, and again while
 *   still over.
 * - Pressure from MemAvailable, polled: at or below 25% of RAM
 *   moderate, at or below 15% critical.  Moderate purges down to half
 *   the budget, when it begins and again every repeat period while it
 *   lasts; critical purges every unlocked region at every poll.
 * - An age sweep: every sweep period, the regions unlocked for longer
 *   than the age are purged.  Chromium's client does this for its own
 *   spans; the manager sees every header, so it does it here, to the
 *   same effect.
 * - A purge is fallocate(PUNCH_HOLE) of the region's data (dm_purge()):
 *   what Chromium's madvise(MADV_REMOVE) does on a shmem mapping.  The
 *   manager then forgets the region, as Chromium releases a purged
 *   segment; its owner finds it purged at the next lock and allocates
 *   again.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "discard.h"
#include "discard_mgr.h"
#include "proc.h"

#define MIB (1024ULL * 1024)
#define SEC 1000000000ULL

/* The discardable budget Chromium gives itself on Android. */
#define CHROME_ANDROID_BUDGET (128 * MIB)
/* Divided by this on a low-end device ... */
#define CHROME_LOW_END_DIV 8
/*
 * ... which the guest's app device, a few hundred MiB at most, is by
 * any of Chromium's definitions; at or below this it counts as one.
 */
#define CHROME_LOW_END_RAM (1024 * MIB)
/* The budget is at most this share of RAM (percent). */
#define CHROME_BUDGET_PCT 25
/* MemAvailable at or below these shares of RAM (percent). */
#define CHROME_MODERATE_PCT 25
#define CHROME_CRITICAL_PCT 15
/* Chromium's periods, before the lab's time scale divides them. */
#define CHROME_POLL (5 * SEC)		/* MemAvailable is read */
#define CHROME_MODERATE_REPEAT (10 * SEC)	/* moderate is re-sent */
#define CHROME_RETRY (1 * SEC)		/* over budget after eviction */
#define CHROME_SWEEP (60 * SEC)		/* the age sweep runs */
#define CHROME_AGE (300 * SEC)		/* unlocked this long: purged */

enum { LEVEL_NONE, LEVEL_MODERATE, LEVEL_CRITICAL };

void dm_chrome_scale(struct dm_chrome *c, uint64_t ram_bytes,
		     unsigned int time_div)
{
	uint64_t budget = CHROME_ANDROID_BUDGET;

	if (!time_div)
		time_div = 1;
	if (ram_bytes <= CHROME_LOW_END_RAM)
		budget /= CHROME_LOW_END_DIV;
	if (budget > ram_bytes * CHROME_BUDGET_PCT / 100)
		budget = ram_bytes * CHROME_BUDGET_PCT / 100;
	c->budget_bytes = budget;
	c->moderate_bytes = ram_bytes * CHROME_MODERATE_PCT / 100;
	c->critical_bytes = ram_bytes * CHROME_CRITICAL_PCT / 100;
	c->poll_ns = CHROME_POLL / time_div;
	c->moderate_repeat_ns = CHROME_MODERATE_REPEAT / time_div;
	c->retry_ns = CHROME_RETRY / time_div;
	c->sweep_ns = CHROME_SWEEP / time_div;
	c->age_ns = CHROME_AGE / time_div;
}

static uint64_t live_bytes(const struct manager *m)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < m->nregions; i++)
		sum += m->regions[i].data_len;
	if (sum > m->st->live_peak)
		m->st->live_peak = sum;
	return sum;
}

/* Purge region @r if it is unlocked: its bytes, or 0. */
static uint64_t purge_one(struct manager *m, struct mregion *r)
{
	int ret = dm_purge(r->fd, r->hdr, r->data_len);

	if (ret < 0) {
		m->st->malformed++;	/* skipped, kept */
		return 0;
	}
	if (!ret)
		return 0;
	r->gone = true;
	m->st->purged_regions++;
	m->st->purged_bytes += r->data_len;
	return r->data_len;
}

/* Forget the purged regions: from the end, so that none is skipped. */
static void forget_gone(struct manager *m)
{
	long i;

	for (i = m->nregions - 1; i >= 0; i--)
		if (m->regions[i].gone)
			mgr_drop_region(m, i);
}

static void purge_timed(struct manager *m, uint64_t t0)
{
	uint64_t dt = mgr_now_ns() - t0;

	m->st->purge_runs++;
	m->st->purge_ns_total += dt;
	if (dt > m->st->purge_ns_max)
		m->st->purge_ns_max = dt;
}

/*
 * Chromium's ReduceMemoryUsageUntilWithinLimit(): purge unlocked
 * regions, least recently unlocked first, until the live bytes are at
 * most @limit; what was purged is added to @purged.  The live bytes
 * left.
 */
static uint64_t reduce_to(struct manager *m, uint64_t limit,
			  uint64_t *purged)
{
	uint64_t t0 = mgr_now_ns(), live = live_bytes(m), done;
	long i;

	if (live <= limit)
		return live;
	qsort(m->regions, m->nregions, sizeof(*m->regions),
	      mgr_by_last_use);
	for (i = 0; i < m->nregions && live > limit; i++) {
		done = purge_one(m, &m->regions[i]);
		live -= done;
		*purged += done;
	}
	forget_gone(m);
	purge_timed(m, t0);
	return live;
}

/* Over budget after an allocation or a retry: evict, and retry later. */
static void enforce_budget(struct manager *m, uint64_t now)
{
	const struct dm_chrome *c = &m->cfg->chrome;

	m->st->events++;
	if (reduce_to(m, c->budget_bytes, &m->st->purged_budget) >
	    c->budget_bytes)
		m->retry_at = now + c->retry_ns;
}

void chrome_allocated(struct manager *m)
{
	if (live_bytes(m) <= m->cfg->chrome.budget_bytes)
		return;
	m->st->budget_runs++;
	enforce_budget(m, mgr_now_ns());
}

void chrome_purge_all(struct manager *m)
{
	reduce_to(m, 0, &m->st->purged_pressure);
}

void chrome_start(struct manager *m)
{
	uint64_t now = mgr_now_ns();

	m->next_poll = now;
	m->next_sweep = now + m->cfg->chrome.sweep_ns;
	m->retry_at = 0;
	m->level = LEVEL_NONE;
}

/* The pressure monitor: MemAvailable against the two thresholds. */
static void poll_pressure(struct manager *m, uint64_t now)
{
	const struct dm_chrome *c = &m->cfg->chrome;
	long kb = meminfo_kb("MemAvailable");
	uint64_t avail = kb < 0 ? UINT64_MAX : (uint64_t)kb * 1024;
	int level = avail <= c->critical_bytes ? LEVEL_CRITICAL :
		    avail <= c->moderate_bytes ? LEVEL_MODERATE : LEVEL_NONE;

	m->st->polls++;
	if (level == LEVEL_CRITICAL) {
		m->st->critical++;
		m->st->events++;
		reduce_to(m, 0, &m->st->purged_pressure);
	} else if (level == LEVEL_MODERATE &&
		   (m->level != LEVEL_MODERATE ||
		    now - m->moderate_sent >= c->moderate_repeat_ns)) {
		m->st->moderate++;
		m->st->events++;
		m->moderate_sent = now;
		reduce_to(m, c->budget_bytes / 2, &m->st->purged_pressure);
	}
	m->level = level;
}

/* The age sweep: purge what has been unlocked for the age or longer. */
static void sweep(struct manager *m, uint64_t now)
{
	uint64_t t0 = mgr_now_ns(), age = m->cfg->chrome.age_ns, done = 0;
	long i;

	for (i = 0; i < m->nregions; i++) {
		struct mregion *r = &m->regions[i];
		uint64_t last = __atomic_load_n(&r->hdr->last_use_ns,
						__ATOMIC_RELAXED);

		if (now > last && now - last >= age)
			done += purge_one(m, r);
	}
	if (!done)
		return;
	forget_gone(m);
	purge_timed(m, t0);
	m->st->age_runs++;
	m->st->events++;
	m->st->purged_age += done;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

int chrome_tick(struct manager *m)
{
	const struct dm_chrome *c = &m->cfg->chrome;
	uint64_t now = mgr_now_ns(), next;

	if (m->retry_at && now >= m->retry_at) {
		m->retry_at = 0;
		if (live_bytes(m) > c->budget_bytes) {
			m->st->retries++;
			enforce_budget(m, now);
		}
	}
	if (now >= m->next_poll) {
		poll_pressure(m, now);
		m->next_poll = now + c->poll_ns;
	}
	if (now >= m->next_sweep) {
		sweep(m, now);
		m->next_sweep = now + c->sweep_ns;
	}
	next = earliest(earliest(m->next_poll, m->next_sweep), m->retry_at);
	now = mgr_now_ns();
	/* Rounded up: a timer is never run before it is due. */
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}
