/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Discardable regions in userspace, the model Android and Chromium use
 * instead of kernel unpinning: a region is a memfd whose first page is a
 * header shared by its owner and a purge manager process; the header's
 * state is changed only by compare-and-swap, so that a lock and a purge
 * of the same region never both succeed.  The manager receives region
 * fds over a unix socket (SCM_RIGHTS), keeps them in least-recently-used
 * order by the header's last-use time, and on memory pressure (a PSI
 * trigger) purges unlocked regions oldest first with
 * fallocate(PUNCH_HOLE), or, in the trim model, tells its clients to
 * drop their own caches.  The Chromium model (DM_CHROME, in
 * discard_chrome.c) is the one Chromium's DiscardableSharedMemoryManager
 * ships: a budget enforced on every allocation, MemAvailable polled for
 * pressure levels, and an age sweep.
 */
#ifndef LAB_DISCARD_H
#define LAB_DISCARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DM_MAGIC 0x31435344u	/* "DSC1" */

enum dm_state {
	DM_UNLOCKED,	/* purgeable */
	DM_LOCKED,	/* in use by its owner */
	DM_PURGING,	/* the manager punches the hole */
	DM_PURGED,	/* data gone; the owner's next lock says so */
};

struct dm_header {
	uint32_t magic;
	uint32_t state;		/* enum dm_state, __atomic only */
	uint64_t last_use_ns;	/* CLOCK_MONOTONIC of the last unlock */
	uint64_t data_len;	/* bytes after the header page */
};

/* A region as its owner sees it. */
struct dm_region {
	int fd;
	struct dm_header *hdr;	/* the first page */
	char *data;		/* @data_len bytes after it */
	size_t data_len;
};

/*
 * A new region of @len bytes (a page multiple), locked; 0, or -1 and
 * errno.
 */
int dm_create(struct dm_region *r, size_t len);
void dm_destroy(struct dm_region *r);
/*
 * Lock the region for use: 0 when its data is intact, 1 when the
 * manager purged it (the pages read as zeros: refill them); -1 and
 * EBUSY if it is already locked, EINVAL on a bad header.
 */
int dm_lock(struct dm_region *r);
/* Unlock after use: the region becomes purgeable, its use recorded. */
void dm_unlock(struct dm_region *r);
/*
 * Purge the @data_len bytes after the header page of file @fd if the
 * region, headed by @hdr, is unlocked: 1 if purged, 0 if locked or
 * already purged, -1 and errno on failure (the state is restored to
 * unlocked).  The manager's half of the protocol; @data_len is the one
 * the manager checked when it took the region, not the header's now.
 */
int dm_purge(int fd, struct dm_header *hdr, size_t data_len);
/*
 * Check a header received from a client against the file it heads:
 * 0, or -1 with errno EBADMSG (bad magic or state) or EFBIG (data_len
 * does not fit the file).
 */
int dm_header_check(int fd, const struct dm_header *hdr);

/*
 * The manager's listening unix socket at @path (an old one unlinked
 * first), close-on-exec: its fd, or -1 and errno (ENAMETOOLONG when
 * @path does not fit a socket address).
 */
int dm_listen(const char *path, int backlog);
/* A client's connection to the manager at @path: fd, or -1 and errno. */
int dm_connect(const char *path);

/* The manager. */
enum dm_policy {
	DM_PURGE,	/* purge unlocked regions oldest first itself */
	DM_TRIM,	/* send each client a level; clients drop caches */
	DM_CHROME,	/* Chromium's budget, pressure levels and age sweep */
};

enum dm_level {
	DM_LEVEL_MODERATE = 'M',	/* drop half of what is unlocked */
	DM_LEVEL_CRITICAL = 'C',	/* drop everything unlocked */
};

/*
 * DM_CHROME's parameters, Chromium's constants scaled to the device
 * (dm_chrome_scale()).  A purged region is dropped by the manager, as
 * Chromium releases a purged segment: its owner's next lock says
 * "purged" and the owner allocates a new region (a new allocation).
 */
struct dm_chrome {
	/* Bytes of live regions above which unlocked ones are evicted. */
	uint64_t budget_bytes;
	/* MemAvailable at or below these: moderate, critical pressure. */
	uint64_t moderate_bytes, critical_bytes;
	uint64_t poll_ns;		/* MemAvailable read this often */
	uint64_t moderate_repeat_ns;	/* moderate re-sent this often */
	uint64_t retry_ns;		/* still over budget: again after */
	uint64_t sweep_ns;		/* the age sweep runs this often */
	uint64_t age_ns;		/* and purges what is unlocked longer */
};

/*
 * Chromium's constants for a device of @ram_bytes (what its apps can
 * have: see appbench.c), times divided by @time_div: see the comment
 * in discard_chrome.c for each number and where it comes from.
 */
void dm_chrome_scale(struct dm_chrome *c, uint64_t ram_bytes,
		     unsigned int time_div);

struct dm_config {
	enum dm_policy policy;
	/* A trigger on /proc/pressure/memory, e.g. "some 50000 1000000";
	 * NULL: none (purges only on request, for the tests).
	 */
	const char *trigger;
	/* DM_PURGE: at most this much purged per event (0: everything). */
	size_t budget_bytes;
	/* DM_TRIM: critical when "full" avg10 reaches this, else moderate. */
	double critical_full_avg10;
	/* DM_CHROME (no trigger: its signal is MemAvailable). */
	struct dm_chrome chrome;
};

struct dm_stats {
	long clients, regions, malformed, events, purge_runs, purged_regions;
	long trims_sent, dead_clients;
	uint64_t purged_bytes;
	uint64_t purge_ns_total, purge_ns_max;	/* event to end of purge */
	uint64_t cpu_ns;	/* the manager's own, when it returned */
	/*
	 * DM_CHROME: every time the policy acted counts in @events as
	 * well: an allocation that found the regions over budget
	 * (@budget_runs), a retry still over it (@retries), a moderate or
	 * critical level (@moderate, @critical), a sweep that found a
	 * region old enough (@age_runs); @polls MemAvailable reads; the
	 * bytes purged by each cause; the peak of the live regions' bytes.
	 */
	long budget_runs, retries, moderate, critical, age_runs, polls;
	uint64_t purged_budget, purged_pressure, purged_age;
	uint64_t live_peak;
};

/*
 * Serve on the listening unix socket @listen_fd until a byte arrives on
 * @stop_fd: clients connect and send region fds (one per message);
 * a client's regions are closed when its socket closes.  A byte on
 * @purge_fd purges every unlocked region at once (for the tests).
 * Statistics are written to @stats (may be shared memory) as they
 * change.  0, or -1 and errno if the trigger cannot be set up.
 */
int dm_serve(int listen_fd, int stop_fd, int purge_fd,
	     const struct dm_config *cfg, struct dm_stats *stats);

#endif /* LAB_DISCARD_H */
