/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pressure episodes as the kernel's watermarks define them: one
 * begins when free memory falls below the zones' low watermarks (kswapd
 * is woken) and ends when it is back above their high watermarks (the
 * zones are balanced, kswapd sleeps), whatever freed it: kswapd, direct
 * reclaim, a purge, a userspace manager or the OOM killer.  A thread
 * samples MemFree every period; an episode shorter than the period may
 * be missed, and every duration is rounded up to the period.
 */
#ifndef LAB_PRESSURE_H
#define LAB_PRESSURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bench.h"

/*
 * The sums of the zones' min, low and high watermarks, in bytes, from
 * /proc/zoneinfo: 0, or -1 and errno (EINVAL if none was found).
 */
int zone_watermarks(uint64_t *min, uint64_t *low, uint64_t *high);

struct pressure_watch {
	uint64_t min, low, high;	/* bytes */
	long period_us;
	/*
	 * The episodes; one still running at the stop counts with its
	 * length so far (a lower bound), and @open says so.
	 */
	struct samples episode_ms;
	long open;
	long reads;			/* MemFree samples taken */
	atomic_int stop;
	pthread_t thread;
};

/* Start sampling every @period_us; 0, or -1 and errno. */
int pressure_watch_start(struct pressure_watch *w, long period_us);
/* Stop sampling; the episodes are in @w->episode_ms. */
void pressure_watch_stop(struct pressure_watch *w);

#endif /* LAB_PRESSURE_H */
