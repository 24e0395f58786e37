/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small low memory killer, after Android's lmkd in its PSI mode: PSI
 * triggers on /proc/pressure/memory and the kernel's reclaim wake it,
 * the zones' watermarks and free swap decide, and it kills the process
 * with the highest oom_score_adj among those of the cgroups it is given
 * (the apps; the rest of the guest is not Android's to kill).  Its
 * kills are recorded so that the benchmark can tell them from the
 * kernel's OOM kills.
 */
#ifndef LAB_LMKD_H
#define LAB_LMKD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define LMKD_MAX_CGROUPS 16
#define LMKD_MAX_KILLS 4096

/* lmkd's PSI thresholds (ro.lmk.psi_partial_stall_ms, _complete_). */
#define LMKD_MEDIUM_TRIGGER "some 70000 1000000"
#define LMKD_CRITICAL_TRIGGER "full 700000 1000000"

struct lmkd_config {
	/* The cgroups (paths) whose processes may be killed. */
	const char *cgroups[LMKD_MAX_CGROUPS];
	int ncgroups;
};

/* Written by the killer, read by the benchmark (shared memory). */
struct lmkd_stats {
	long psi_medium, psi_critical;	/* trigger events */
	long reclaim_wakes;		/* polling begun by reclaim */
	long checks;			/* decisions made (events, polls) */
	long skipped_pending;		/* a kill was still being reaped */
	long kills_not_responding, kills_low_mem, kills_after_kill;
	long kills_no_victim;		/* a kill was due, nobody to kill */
	uint64_t cpu_ns;		/* the killer's own, at its end */
	int nkilled;			/* __atomic: entries of @killed */
	pid_t killed[LMKD_MAX_KILLS];
};

/*
 * Run the killer until a byte (or EOF) arrives on @stop_fd: 0, or -1
 * and errno when the triggers or the watermarks cannot be read.
 */
int lmkd_serve(int stop_fd, const struct lmkd_config *cfg,
	       struct lmkd_stats *st);
/* Whether the killer killed @pid. */
bool lmkd_killed(const struct lmkd_stats *st, pid_t pid);

#endif /* LAB_LMKD_H */
