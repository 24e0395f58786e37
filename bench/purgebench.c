// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 2: purge latency.  A cgroup holds N MiB of unpinned
 * data, then, per --mode:
 *   reclaim  N MiB are written to the cgroup's memory.reclaim, timed;
 *            purged MiB counted by pinning page by page (dontneed: its
 *            MADV_DONTNEED is the release, timed instead);
 *   rootreclaim  the same through the root cgroup's memory.reclaim, which
 *            also runs shrinkers that are not memcg-aware (ashmem's);
 *   purgeall the whole cache dropped at once, timed: ashmem's
 *            ASHMEM_PURGE_ALL_CACHES, for the others vm.drop_caches = 2
 *            (drop_slab() runs every shrinker of every memcg);
 *   punchhole  the reference for file-backed backends (volatile, memfd):
 *            the kernel's own fallocate(PUNCH_HOLE) of the whole mapped
 *            memfd, timed, the ceiling of any purge by truncation; the
 *            pages dropped are counted by mincore() before and after;
 *   limit    under memory.max = N MiB + headroom, a foreground process
 *            in the same cgroup touches N MiB more in 1 MiB steps;
 *   global   no limit: the foreground touches what was free before the
 *            unpin + N/4 MiB.  With --ranges K (the arena, bench
 *            "purge_arena", param "ranges=K"): the region is unpinned
 *            in K equal ranges with a pinned gap after each, half of it
 *            in all, and the foreground touches what was free + a
 *            quarter of that half: whether a backend purges a range
 *            whole (ashmem) or page by page shows in the over-purge.
 * The foreground's per-step stall (p50, p99, p99.9, max), its total time
 * (from the first step, the onset of pressure, to the last), whether it
 * was OOM-killed, the pages found purged and the over-purge (purged /
 * needed: what the foreground touched beyond the room it had when it
 * started) are reported.  When it was killed, what the kill left of the
 * unpinned data (left_at_kill_mib: resident by mincore() as soon as it
 * is reaped, before anything pins the region).  Over the foreground's
 * run, where the kernel has them: the deltas of /proc/vmstat's oom_kill,
 * volatile_oom_purged and volatile_oom_kill_left, and the sums of the
 * volatile_ranges tracepoints (lib/vtrace.h): shrinker calls, pages
 * asked, purged and kept, ranges skipped by reason, the lowest reclaim
 * priority, the purges before an OOM kill, and events lost.
 *
 *   purgebench_<lib> --backend B
 *                    --mode reclaim|rootreclaim|purgeall|punchhole|limit|global
 *                    --mib N [--ranges K] [--rep R] [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>

#include "backend.h"
#include "bench.h"
#include "cgroup.h"
#include "proc.h"
#include "vtrace.h"

/* What the limit leaves beyond the unpinned data: the program itself. */
#define HEADROOM (16 * MIB)
/* Trace buffer per CPU: a global-pressure run at 256 MiB fits. */
#define TRACE_KB 8192

static const char *prog = "purgebench";

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B --mode reclaim|rootreclaim|purgeall|punchhole|limit|global --mib N [--ranges K] [--rep R] [--csv FILE]\n  backends: %s",
		    prog, BACKEND_NAMES);
}

/*
 * The unpinned part of the region: @ranges ranges of @slice bytes, the
 * i-th at 2 * i * @slice (one range of the whole region when @ranges is
 * 0, as every mode but the arena has it).
 */
struct unpinned {
	long ranges;
	size_t slice;
};

static size_t unpinned_off(const struct unpinned *u, long i)
{
	return u->ranges ? 2 * i * u->slice : 0;
}

static long unpinned_count(const struct unpinned *u)
{
	return u->ranges ? u->ranges : 1;
}

/* Whether byte @off of the region is in one of its unpinned ranges. */
static bool in_unpinned(const struct unpinned *u, size_t off)
{
	return u->ranges ? off < 2 * u->ranges * u->slice &&
			   off / u->slice % 2 == 0 : off < u->slice;
}

/* Pages of the unpinned ranges purged: pinned page by page (all of it). */
static size_t count_purged(struct region *r, const struct unpinned *u)
{
	size_t off, end, purged = 0;
	long i;

	if (r->backend == BACKEND_DONTNEED)
		return r->len / page_size;
	for (i = 0; i < unpinned_count(u); i++) {
		off = unpinned_off(u, i);
		end = off + u->slice;
		for (; off < end; off += page_size) {
			int ret = region_pin(r, off, page_size);

			if (ret < 0)
				die("%s: pin: %m", prog);
			purged += ret;
		}
	}
	return purged;
}

/*
 * Pages of the arena's pinned gaps that lost their contents (a zero
 * first word: content_fill() writes none), read without pinning or
 * writing anything.  Only droppable may lose pinned data; for any other
 * backend a page here is a bug.
 */
static size_t pinned_lost(const struct region *r, const struct unpinned *u)
{
	size_t off, lost = 0;

	for (off = 0; off < r->len; off += page_size)
		if (!in_unpinned(u, off))
			lost += !__atomic_load_n((uint64_t *)(r->map + off),
						 __ATOMIC_RELAXED);
	return lost;
}

/*
 * Pages of the unpinned ranges still resident, by mincore(): what a kill
 * left of the data that could have been purged.  -1 and errno.
 */
static long unpinned_resident(const struct region *r,
			      const struct unpinned *u)
{
	long i, n, resident = 0;

	for (i = 0; i < unpinned_count(u); i++) {
		n = region_resident(r, unpinned_off(u, i), u->slice);
		if (n < 0)
			return -1;
		resident += n;
	}
	return resident;
}

/* Release the unpinned data the way @mode says (not limit, not global). */
static void release(const char *mode, const char *cg, struct region *r,
		    long mib)
{
	if (!strcmp(mode, "reclaim")) {
		if (cg_write_u64(cg, "memory.reclaim", mib * MIB) &&
		    errno != EAGAIN)
			die("%s: memory.reclaim: %m", prog);
	} else if (!strcmp(mode, "rootreclaim")) {
		if (cg_write_u64(CG_ROOT, "memory.reclaim", mib * MIB) &&
		    errno != EAGAIN)
			die("%s: root memory.reclaim: %m", prog);
	} else if (!strcmp(mode, "punchhole")) {
		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      0, r->len))
			die("%s: fallocate(PUNCH_HOLE): %m", prog);
	} else if (r->backend == BACKEND_ASHMEM) {
		if (ioctl(r->fd, ASHMEM_PURGE_ALL_CACHES) < 0)
			die("%s: ASHMEM_PURGE_ALL_CACHES: %m", prog);
	} else if (cg_write("/proc/sys/vm", "drop_caches", "2")) {
		die("%s: vm.drop_caches: %m", prog);
	}
}

/*
 * The memory the foreground may take without anything being freed: what
 * memory.max leaves the cgroup (limit), or MemFree (global).
 */
static double room_bytes(const char *mode, const char *cg, long mib)
{
	uint64_t current = 0;

	if (strcmp(mode, "limit"))
		return meminfo_kb("MemFree") * 1024.0;
	if (cg_read_u64(cg, "memory.current", &current))
		die("%s: memory.current: %m", prog);
	return (double)mib * MIB + HEADROOM - current;
}

static uint64_t vmstat(const char *key)
{
	uint64_t v = 0;

	vmstat_read(key, &v);
	return v;
}

struct stalls {
	double p50, p99, p999, max, total;
	long steps;
};

/*
 * The /proc/vmstat counters read around the foreground's run, the trace's
 * window: pgvolatile_purged over it is what the tracepoints should add up
 * to (vmstat_purged_pages spans the whole program, from the unpin on).
 */
static const struct {
	const char *key, *metric, *unit;
	bool engine;	/* the range engine's: volatile and anon only */
} fg_counters[] = {
	{ "oom_kill", "oom_kills_vmstat", "count", false },
	{ "volatile_oom_purged", "volatile_oom_purged_pages", "pages", true },
	{ "volatile_oom_kill_left", "volatile_oom_kill_left", "count", true },
	{ "pgvolatile_purged", "vmstat_purged_fg_pages", "pages", true },
};
#define NR_FG_COUNTERS (sizeof(fg_counters) / sizeof(fg_counters[0]))

struct fg_counts {
	uint64_t v[NR_FG_COUNTERS];
	bool have[NR_FG_COUNTERS];	/* this kernel has the counter */
};

static void fg_counts_read(struct fg_counts *c)
{
	size_t i;

	for (i = 0; i < NR_FG_COUNTERS; i++)
		c->have[i] = !vmstat_read(fg_counters[i].key, &c->v[i]);
}

/* The deltas, only of counters this kernel keeps (never a made-up 0). */
static void fg_counts_rows(struct csv *csv, const char *param,
			    enum backend b, const struct fg_counts *before,
			    const struct fg_counts *after)
{
	bool engine = b == BACKEND_VOLATILE || b == BACKEND_ANON;
	size_t i;

	for (i = 0; i < NR_FG_COUNTERS; i++) {
		if (!before->have[i] || !after->have[i] ||
		    (fg_counters[i].engine && !engine))
			continue;
		csv_row(csv, param, fg_counters[i].metric,
			fg_counters[i].unit, after->v[i] - before->v[i]);
	}
}

/* The volatile_ranges tracepoints of the foreground's run, summed. */
static void trace_rows(struct csv *csv, const char *param,
		       const struct vtrace_sum *s)
{
	char metric[32];
	int i;

	csv_row(csv, param, "shrink_calls", "count", s->shrink_calls);
	/* Fewer ends than calls: a call still running when tracing stopped. */
	csv_row(csv, param, "shrink_ends", "count", s->shrink_ends);
	csv_row(csv, param, "shrink_asked_pages", "pages", s->shrink_asked);
	csv_row(csv, param, "shrink_purged_pages", "pages", s->shrink_purged);
	csv_row(csv, param, "shrink_kept_pages", "pages", s->shrink_kept);
	/* The rest ran in direct reclaim: the allocating task waited. */
	csv_row(csv, param, "shrink_kswapd_calls", "count", s->kswapd_calls);
	csv_row(csv, param, "shrink_kswapd_purged_pages", "pages",
		s->kswapd_purged);
	/*
	 * Time in the shrinker, start to end: what a purge took.  Read off
	 * the trace clock, not timed here, and 0 without a call: unit
	 * trace_us, not a timing of the checks on this program's clock.
	 */
	csv_row(csv, param, "shrink_time_us", "trace_us", s->shrink_us);
	csv_row(csv, param, "shrink_kswapd_time_us", "trace_us",
		s->kswapd_us);
	csv_row(csv, param, "kept_purge_calls", "count", s->kept_calls);
	csv_row(csv, param, "kept_purged_pages", "pages", s->kept_purged);
	for (i = 0; i < VTRACE_NR_SKIPS; i++) {
		snprintf(metric, sizeof(metric), "skip_%s",
			 vtrace_skip_names[i]);
		csv_row(csv, param, metric, "ranges", s->skip[i]);
	}
	if (s->min_priority >= 0)
		csv_row(csv, param, "shrink_min_priority", "priority",
			s->min_priority);
	csv_row(csv, param, "oom_purge_calls", "count", s->oom_calls);
	csv_row(csv, param, "oom_purged_pages", "pages", s->oom_purged);
	csv_row(csv, param, "oom_skipped_ranges", "ranges", s->oom_skipped);
	if (s->lost)
		csv_row(csv, param, "trace_lost_events", "count", s->lost);
}

/*
 * The foreground: touch @mib MiB, 1 MiB at a time, timing each step;
 * results go through @out, a shared page, so they survive an OOM kill.
 */
static void foreground(size_t mib, struct stalls *out)
{
	struct samples s = { 0 };
	size_t i, off;
	char *p;

	/* The foreground, not the region's owner, is the OOM victim. */
	set_oom_score_adj(1000);
	p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	for (i = 0; i < mib; i++) {
		uint64_t t0 = now_ns(), dt;

		for (off = 0; off < MIB; off += page_size)
			p[i * MIB + off] = 1;
		dt = now_ns() - t0;
		samples_add(&s, dt);
		out->steps = i + 1;
		out->total += dt;
		out->p50 = samples_pct(&s, 50);
		out->p99 = samples_pct(&s, 99);
		out->p999 = samples_pct(&s, 99.9);
		out->max = samples_pct(&s, 100);
	}
	_exit(0);
}


int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "mib", required_argument, NULL, 'n' },
		{ "ranges", required_argument, NULL, 'k' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	const char *backend = NULL, *mode = NULL, *csv_path = NULL;
	char cg[CG_PATH_MAX], parent[CG_PATH_MAX], param[64], bench[32];
	uint64_t ooms = 0, lazy0, vol0, t0, t1;
	long mib = 0, rep = 1, fg_mib = 0, free_mib, resident, i;
	struct unpinned u = { 0 };
	struct fg_counts fg0, fg1;
	struct vtrace_sum trace;
	struct stalls *st;
	struct vtrace vt;
	struct region r;
	struct csv csv;
	enum backend b;
	int opt, status, resident_err = 0;
	double needed, room = 0;
	bool pressure, traced = false, killed;
	size_t purged;
	pid_t pid;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'n':
			mib = parse_long("--mib", optarg, 1, 4096);
			break;
		case 'k':
			u.ranges = parse_long("--ranges", optarg, 1, 4096);
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
	if (optind != argc || !backend || !mode || !mib)
		usage();
	if (strcmp(mode, "reclaim") && strcmp(mode, "rootreclaim") &&
	    strcmp(mode, "purgeall") && strcmp(mode, "punchhole") &&
	    strcmp(mode, "limit") && strcmp(mode, "global"))
		usage_error(prog, "unknown --mode '%s' (reclaim, rootreclaim, purgeall, punchhole, limit or global)",
			    mode);
	b = backend_parse(prog, backend);
	/* A hole punch needs a shmem file of the region's own. */
	if (!strcmp(mode, "punchhole") && b != BACKEND_VOLATILE &&
	    b != BACKEND_MEMFD)
		usage_error(prog, "--mode punchhole takes --backend volatile or memfd, not '%s'",
			    backend);
	pressure = !strcmp(mode, "limit") || !strcmp(mode, "global");
	if (u.ranges && strcmp(mode, "global"))
		usage_error(prog, "--ranges takes --mode global, not '%s'",
			    mode);
	if (u.ranges && b == BACKEND_DONTNEED)
		usage_error(prog, "--ranges: dontneed purges on unpin, there is no arena to compare");
	/* Whole pages, 2 * ranges slices in the region. */
	u.slice = u.ranges ? mib * MIB / (2 * u.ranges) / page_size * page_size
			   : (size_t)mib * MIB;
	if (!u.slice)
		usage_error(prog, "--ranges %ld: %ld MiB has not a page for each",
			    u.ranges, mib);

	if (cg_create("lab-bench", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create("lab-bench/purge", cg, sizeof(cg)) ||
	    cg_write(cg, "memory.max", "max") || cg_enter(cg))
		die("%s: cannot set up cgroup lab-bench/purge: %m", prog);
	if (!strcmp(mode, "limit") &&
	    cg_write_u64(cg, "memory.max", mib * MIB + HEADROOM))
		die("%s: cannot set memory.max: %m", prog);
	/* Not the owner: the foreground is OOM-killed first. */
	set_oom_score_adj(-1000);
	/*
	 * The trace buffer is kernel memory: sized before MemFree is read, and
	 * for every backend, so that all of them start from the same room.
	 */
	if (pressure && !vtrace_open(&vt, prog, TRACE_KB))
		traced = true;

	if (region_create(&r, b, mib * MIB))
		die("%s: cannot create a %ld MiB region: %m", prog, mib);
	content_fill(r.map, r.len, 3);
	/* Before the unpin, so that dontneed's release is not counted free. */
	free_mib = meminfo_kb("MemFree") / 1024;
	lazy0 = vmstat("pglazyfreed");
	vol0 = vmstat("pgvolatile_purged");
	t0 = now_ns();
	for (i = 0; i < unpinned_count(&u); i++)
		if (region_unpin(&r, unpinned_off(&u, i), u.slice))
			die("%s: unpin: %m", prog);
	t1 = now_ns();

	if (u.ranges) {
		snprintf(bench, sizeof(bench), "purge_arena");
		snprintf(param, sizeof(param), "ranges=%ld", u.ranges);
	} else {
		snprintf(bench, sizeof(bench), "purge_%s", mode);
		snprintf(param, sizeof(param), "mib=%ld", mib);
	}
	if (csv_open(&csv, csv_path, backend, bench, rep))
		die("%s: cannot open %s: %m", prog, csv_path);

	if (!pressure) {
		long before = region_resident(&r, 0, r.len), after;

		if (b != BACKEND_DONTNEED) {
			t0 = now_ns();
			release(mode, cg, &r, mib);
			t1 = now_ns();
		}
		/* A punched hole is no purge: pinning would not report it. */
		if (!strcmp(mode, "punchhole")) {
			after = region_resident(&r, 0, r.len);
			if (before < 0 || after < 0)
				die("%s: mincore: %m", prog);
			purged = before - after;
		} else {
			purged = count_purged(&r, &u);
		}
		csv_row(&csv, param, "release_ms", "ms", (t1 - t0) / 1e6);
		csv_row(&csv, param, "purged_mib", "MiB",
			(double)purged * page_size / MIB);
		csv_row(&csv, param, "purge_mib_per_s", "MiB/s",
			(double)purged * page_size / MIB / ((t1 - t0) / 1e9));
	} else {
		fg_mib = !strcmp(mode, "limit") ? mib :
			 free_mib + (long)(unpinned_count(&u) * u.slice / MIB) / 4;
		room = room_bytes(mode, cg, mib);
		st = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (st == MAP_FAILED)
			die("%s: mmap: %m", prog);
		memset(st, 0, sizeof(*st));
		cg_read_key(cg, "memory.events", "oom_kill", &ooms);
		fg_counts_read(&fg0);
		if (traced && vtrace_enable(&vt)) {
			fprintf(stderr, "%s: cannot enable the volatile_ranges events: %m: no trace summary\n",
				prog);
			traced = false;
		}
		pid = fork();
		if (pid < 0)
			die("%s: fork: %m", prog);
		if (pid == 0)
			foreground(fg_mib, st);
		waitpid(pid, &status, 0);
		/*
		 * First: what the kill left, before anything else runs: the
		 * unpinned ranges only (the arena's pinned gaps are not the
		 * purge's to free, and droppable may have dropped them).
		 */
		resident = unpinned_resident(&r, &u);
		if (resident < 0)
			resident_err = errno;
		if (traced)
			vtrace_disable(&vt);
		fg_counts_read(&fg1);
		{
			uint64_t after = 0;

			cg_read_key(cg, "memory.events", "oom_kill", &after);
			ooms = after - ooms;
		}
		killed = ooms || (WIFSIGNALED(status) &&
				  WTERMSIG(status) == SIGKILL);
		purged = count_purged(&r, &u);
		if (u.ranges) {
			csv_row(&csv, param, "unpinned_mib", "MiB",
				(double)u.ranges * u.slice / MIB);
			csv_row(&csv, param, "pinned_lost_mib", "MiB",
				(double)pinned_lost(&r, &u) * page_size / MIB);
		}
		csv_row(&csv, param, "stall_ms_p50", "ms", st->p50 / 1e6);
		csv_row(&csv, param, "stall_ms_p99", "ms", st->p99 / 1e6);
		csv_row(&csv, param, "stall_ms_p999", "ms", st->p999 / 1e6);
		csv_row(&csv, param, "stall_ms_max", "ms", st->max / 1e6);
		csv_row(&csv, param, "fg_total_ms", "ms", st->total / 1e6);
		csv_row(&csv, param, "steps_done", "MiB", st->steps);
		csv_row(&csv, param, "steps_asked", "MiB", fg_mib);
		csv_row(&csv, param, "oom_kills", "count", ooms ? ooms : killed);
		csv_row(&csv, param, "purged_mib", "MiB",
			(double)purged * page_size / MIB);
		/* Only after a kill: a run without one has nothing to show. */
		if (killed && resident >= 0)
			csv_row(&csv, param, "left_at_kill_mib", "MiB",
				(double)resident * page_size / MIB);
		else if (killed)
			fprintf(stderr, "%s: mincore: %s: no left_at_kill_mib\n",
				prog, strerror(resident_err));
		needed = (double)st->steps * MIB - room;
		csv_row(&csv, param, "needed_mib", "MiB",
			needed > 0 ? needed / MIB : 0);
		if (needed > 0)
			csv_row(&csv, param, "overpurge", "ratio",
				purged * page_size / needed);
		fg_counts_rows(&csv, param, b, &fg0, &fg1);
		if (traced) {
			if (!vtrace_read(&vt, &trace))
				trace_rows(&csv, param, &trace);
			else
				fprintf(stderr, "%s: cannot read the trace: %m\n",
					prog);
		}
	}
	if (traced)
		vtrace_close(&vt);
	/* The kernel's own count, where it keeps one. */
	if (b == BACKEND_VOLATILE || b == BACKEND_ANON)
		csv_row(&csv, param, "vmstat_purged_pages", "pages",
			vmstat("pgvolatile_purged") - vol0);
	if (b == BACKEND_MADVFREE || b == BACKEND_DROPPABLE)
		csv_row(&csv, param, "vmstat_purged_pages", "pages",
			vmstat("pglazyfreed") - lazy0);
	region_destroy(&r);
	cg_enter(CG_ROOT);
	return csv_close(&csv) ? 1 : 0;
}
