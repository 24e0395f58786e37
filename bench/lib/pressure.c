// SPDX-License-Identifier: GPL-2.0
/* Memory pressure episodes by the zones' watermarks: see pressure.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pressure.h"
#include "proc.h"

int zone_watermarks(uint64_t *min, uint64_t *low, uint64_t *high)
{
	char line[256], key[32];
	unsigned long v;
	bool found = false;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -1;
	*min = *low = *high = 0;
	while (fgets(line, sizeof(line), f)) {
		/* "        low      1542": the zone's watermark, in pages. */
		if (sscanf(line, " %31s %lu", key, &v) != 2)
			continue;
		if (!strcmp(key, "min")) {
			*min += (uint64_t)v * page_size;
		} else if (!strcmp(key, "low")) {
			*low += (uint64_t)v * page_size;
			found = true;
		} else if (!strcmp(key, "high")) {
			*high += (uint64_t)v * page_size;
		}
	}
	fclose(f);
	if (!found || *low < *min || *high < *low) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static void *watch(void *arg)
{
	struct pressure_watch *w = arg;
	struct timespec period = {
		.tv_sec = w->period_us / 1000000,
		.tv_nsec = w->period_us % 1000000 * 1000,
	};
	uint64_t began = 0, t;
	long free_kb;

	while (!atomic_load(&w->stop)) {
		free_kb = meminfo_kb("MemFree");
		t = now_ns();
		w->reads++;
		if (free_kb >= 0) {
			uint64_t free_bytes = (uint64_t)free_kb * 1024;

			if (!began && free_bytes < w->low) {
				began = t;
			} else if (began && free_bytes >= w->high) {
				samples_add(&w->episode_ms, (t - began) / 1e6);
				began = 0;
			}
		}
		nanosleep(&period, NULL);
	}
	w->open = began != 0;
	if (began)
		samples_add(&w->episode_ms, (now_ns() - began) / 1e6);
	return NULL;
}

int pressure_watch_start(struct pressure_watch *w, long period_us)
{
	int err;

	memset(&w->episode_ms, 0, sizeof(w->episode_ms));
	w->period_us = period_us;
	w->open = w->reads = 0;
	atomic_store(&w->stop, 0);
	if (zone_watermarks(&w->min, &w->low, &w->high))
		return -1;
	err = pthread_create(&w->thread, NULL, watch, w);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void pressure_watch_stop(struct pressure_watch *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
}
