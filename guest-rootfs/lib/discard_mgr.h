/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The purge manager's own state, shared by its server loop (discard.c)
 * and its Chromium policy (discard_chrome.c); not for clients.
 */
#ifndef LAB_DISCARD_MGR_H
#define LAB_DISCARD_MGR_H

#include <stdint.h>

#include "discard.h"

#define MAX_CLIENTS 64

struct mregion {
	int fd, client;
	struct dm_header *hdr;
	size_t data_len;
	bool gone;		/* purged by DM_CHROME: drop it */
};

struct manager {
	const struct dm_config *cfg;
	struct dm_stats *st;
	int clients[MAX_CLIENTS];	/* sockets, -1 when free */
	struct mregion *regions;
	long nregions, cap;
	/* DM_CHROME's clock: when each timer is due next (0: not armed). */
	uint64_t next_poll, next_sweep, retry_at, moderate_sent;
	int level;			/* the last level polled */
};

uint64_t mgr_now_ns(void);
void mgr_drop_region(struct manager *m, long i);
/* qsort() order: least recently unlocked first. */
int mgr_by_last_use(const void *a, const void *b);

/* DM_CHROME's policy: see discard_chrome.c. */
void chrome_start(struct manager *m);
void chrome_allocated(struct manager *m);
/* Purge every unlocked region now (the tests' purge request). */
void chrome_purge_all(struct manager *m);
/* Run what is due; the poll() timeout until the next timer, in ms. */
int chrome_tick(struct manager *m);

#endif /* LAB_DISCARD_MGR_H */
