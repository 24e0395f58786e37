/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The volatile_ranges tracepoints (kernel patches 25 and 26) in tracefs,
 * summed over a measured phase:
 *   volatile_shrink_start  nid memcg nr_to_scan ranges priority gfp_flags
 *   volatile_shrink_end    nid memcg purged visited kept, then "skipped"
 *                          nofs sem ilock freeing mm mmap busy locked
 *   volatile_oom           memcg order purged visited kept, "skipped"
 *                          nofs sem ilock mmap busy locked, waits
 *   volatile_purge_kept    nid memcg priority kept purged
 * each printed as key=value.  Each line starts with the task that hit
 * the event and the time: the purges by kswapd are also summed apart,
 * since a purge in direct reclaim is one the allocating task waits for,
 * and so is the time from each start to its task's next end.  tracefs is mounted at /sys/kernel/tracing
 * if it is not yet, else /sys/kernel/debug/tracing is used; without
 * either, or on a kernel without the events, vtrace_open() says so on
 * stderr and the caller goes on without a trace.
 *
 *   vtrace_open()     find tracefs, size the buffer (before the caller
 *                     measures free memory: the buffer is kernel memory)
 *   vtrace_enable()   empty the buffer, switch the events on
 *   vtrace_disable()  switch them off
 *   vtrace_read()     sum the buffer (the trace file, not consumed)
 *   vtrace_close()    the buffer size and tracing_on as they were
 */
#ifndef LAB_VTRACE_H
#define LAB_VTRACE_H

#include <stdbool.h>
#include <stdio.h>

/* Why a shrinker left a range: the skip fields, in the kernel's order. */
enum vtrace_skip {
	VTRACE_SKIP_NOFS,
	VTRACE_SKIP_SEM,
	VTRACE_SKIP_ILOCK,
	VTRACE_SKIP_FREEING,
	VTRACE_SKIP_MM,
	VTRACE_SKIP_MMAP,
	VTRACE_SKIP_BUSY,
	VTRACE_SKIP_LOCKED,
	VTRACE_NR_SKIPS
};

/* The field name of each skip reason ("nofs", ...). */
extern const char *const vtrace_skip_names[VTRACE_NR_SKIPS];

struct vtrace_sum {
	unsigned long long shrink_calls;	/* volatile_shrink_start */
	unsigned long long shrink_ends;		/* volatile_shrink_end */
	unsigned long long shrink_asked;	/* nr_to_scan, pages */
	unsigned long long shrink_purged;	/* pages */
	unsigned long long shrink_kept;		/* pages left to a holder */
	unsigned long long shrink_visited;	/* ranges */
	unsigned long long kswapd_calls;	/* ... of them by kswapd */
	unsigned long long kswapd_purged;	/* pages */
	unsigned long long shrink_us;		/* start to end, summed */
	unsigned long long kswapd_us;		/* ... of kswapd's calls */
	unsigned long long skip[VTRACE_NR_SKIPS];	/* ranges, shrinker */
	int min_priority;			/* -1: no start event */
	unsigned long long oom_calls;		/* volatile_oom */
	unsigned long long oom_purged;		/* pages */
	unsigned long long oom_skipped;		/* ranges, every reason */
	unsigned long long kept_calls;		/* volatile_purge_kept */
	unsigned long long kept_purged;		/* pages */
	unsigned long long lost;		/* events not in the buffer */
};

struct vtrace {
	char dir[64];		/* tracefs; "" when there is none */
	long saved_kb;		/* buffer_size_kb before; -1: unknown */
	int saved_on;		/* tracing_on before; -1: unknown */
	bool enabled;
};

/*
 * Find tracefs and the volatile_ranges events, and set buffer_size_kb
 * (per CPU) to @size_kb.  0, or -1 after a note on stderr naming @prog
 * (no tracefs, no events, not writable): then every other call does
 * nothing and vtrace_read() fails.
 */
int vtrace_open(struct vtrace *t, const char *prog, unsigned long size_kb);
int vtrace_enable(struct vtrace *t);
int vtrace_disable(struct vtrace *t);
/* The sums of the events in the buffer; -1 and errno on failure. */
int vtrace_read(struct vtrace *t, struct vtrace_sum *s);
void vtrace_close(struct vtrace *t);
/*
 * Sum a trace as tracefs prints it (the trace file with its "#" header,
 * or trace_pipe); lines of other events are ignored.
 */
void vtrace_parse(FILE *f, struct vtrace_sum *s);

#endif /* LAB_VTRACE_H */
