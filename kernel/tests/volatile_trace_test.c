// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_trace_test: the instruments of the range shrinker (issue 26).
 *
 * The volatile_ranges tracepoints must say what each shrinker call was
 * asked for (memcg, nr_to_scan, priority) and what it did (pages purged,
 * ranges skipped and why), and the OOM counters must exist.  Each check
 * compares the trace with something measured another way: the purged
 * pages with pgvolatile_purged, the memcg with the cgroup's inode number,
 * a skip reason with a range set up to be skipped.  The last case uses
 * them to see whether several CPUs purge one memfd range at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "cgroup.h"
#include "tap.h"
#include "vr_util.h"

#define MIB		(1024UL * 1024UL)
#define TRACE_BUF	(16 << 20)
#define RANGE_PAGES	(8 * MIB / page_size)
/* The concurrent purge: 32 chunks of 2 MiB, for up to 8 reclaimers. */
#define SHARED_PAGES	(64 * MIB / page_size)
#define MAX_RECLAIMERS	8
#define MAX_CALLS	65536

static const char *tracefs;
static char cg[CG_PATH_MAX];
static uint64_t cg_ino;

/* tracefs, mounted at /sys/kernel/tracing if nobody has yet. */
static const char *find_tracefs(void)
{
	static const char *const where[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	size_t i;

	mount("tracefs", where[0], "tracefs", 0, NULL);
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "%s/trace", where[i]);
		if (!access(path, W_OK))
			return where[i];
	}
	return NULL;
}

static int trace_write(const char *file, const char *value)
{
	char path[256];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	r = write(fd, value, strlen(value)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Switch the volatile_ranges events on (after emptying the buffer) or off. */
static int trace_events(bool on)
{
	if (on && trace_write("trace", ""))
		return -1;
	return trace_write("events/volatile_ranges/enable", on ? "1" : "0");
}

/* The trace buffer as one NUL-terminated string; NULL on error. */
static char *trace_read(void)
{
	char path[256], *buf = malloc(TRACE_BUF);
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", tracefs);
	fd = open(path, O_RDONLY);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < TRACE_BUF - 1 &&
	       (n = read(fd, buf + len, TRACE_BUF - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* The value of " @key=" in @line (up to its end), or -1 when absent. */
static long long field(const char *line, const char *end, const char *key)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = line; p && p < end; p = strchr(p + 1, ' ')) {
		if (p + 1 + klen < end && !strncmp(p + 1, key, klen) &&
		    p[1 + klen] == '=')
			return strtoll(p + 2 + klen, NULL, 10);
	}
	return -1;
}

/* What the events of one memcg (and of the whole trace) added up to. */
struct trace_sum {
	unsigned long starts, ends;	/* events of the memcg */
	unsigned long bad_starts;	/* a start without a sane priority */
	unsigned long prio0;		/* starts at priority 0 (drop_slab) */
	long long purged, locked;	/* summed over its end events */
	long long all_purged;		/* over every end event */
};

static struct trace_sum trace_sum(const char *buf, uint64_t memcg)
{
	struct trace_sum s = { 0 };
	const char *line, *end;
	long long prio, scan;

	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#')
			continue;
		if (strstr(line, "volatile_shrink_end:") &&
		    strstr(line, "volatile_shrink_end:") < end) {
			s.all_purged += field(line, end, "purged");
			if (field(line, end, "memcg") != (long long)memcg)
				continue;
			s.ends++;
			s.purged += field(line, end, "purged");
			s.locked += field(line, end, "locked");
		} else if (strstr(line, "volatile_shrink_start:") &&
			   strstr(line, "volatile_shrink_start:") < end) {
			if (field(line, end, "memcg") != (long long)memcg)
				continue;
			s.starts++;
			prio = field(line, end, "priority");
			scan = field(line, end, "nr_to_scan");
			s.bad_starts += prio < 0 || prio > 12 || scan <= 0;
			s.prio0 += prio == 0;
		}
	}
	return s;
}

static void diag_sum(const char *what, const struct trace_sum *s,
		     uint64_t counted)
{
	tap_diag("%s: %lu start and %lu end events for memcg %llu (%lu without a sane priority/nr_to_scan, %lu at priority 0); purged %lld (all memcgs %lld), pgvolatile_purged +%llu; locked %lld",
		 what, s->starts, s->ends, (unsigned long long)cg_ino,
		 s->bad_starts, s->prio0, s->purged, s->all_purged,
		 (unsigned long long)counted, s->locked);
}

/*
 * Purge @p's volatile pages with memory.reclaim of the test's cgroup
 * (@drop: with drop_caches instead) while the events are on.
 */
static struct trace_sum traced_purge(bool drop, uint64_t *counted)
{
	struct trace_sum s = { 0 };
	uint64_t before;
	char *buf;

	if (trace_events(true)) {
		tap_diag("cannot switch the volatile_ranges events on: %s",
			 strerror(errno));
		*counted = 0;
		return s;
	}
	before = vr_purged_counter();
	if (drop) {
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

		if (fd < 0 || write(fd, "2", 1) != 1)
			tap_diag("drop_caches: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	} else {
		vr_reclaim(cg, 1024 * MIB);
	}
	*counted = vr_purged_counter() - before;
	trace_events(false);
	buf = trace_read();
	if (buf)
		s = trace_sum(buf, cg_ino);
	free(buf);
	return s;
}

static void test_events_exist(void)
{
	static const char *const events[] = {
		"volatile_shrink_start", "volatile_shrink_end", "volatile_oom",
	};
	char path[256];
	size_t i, found = 0;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path),
			 "%s/events/volatile_ranges/%s/format", tracefs,
			 events[i]);
		if (!access(path, R_OK))
			found++;
		else
			tap_diag("no %s: %s", path, strerror(errno));
	}
	tap_result(found == i,
		   "tracefs has volatile_shrink_start, volatile_shrink_end and volatile_oom");
}

static void test_oom_counters(void)
{
	uint64_t purged, left;
	int r1 = vmstat_read("volatile_oom_purged", &purged);
	int r2 = vmstat_read("volatile_oom_kill_left", &left);

	tap_result(!r1 && !r2,
		   "/proc/vmstat has volatile_oom_purged and volatile_oom_kill_left");
}

static void test_anon_reclaim(void)
{
	char *p = vr_map(RANGE_PAGES);
	struct trace_sum s;
	uint64_t counted;

	vr_fill(p, RANGE_PAGES, 1);
	vr_madvise(p, RANGE_PAGES * page_size, MADV_VOLATILE);
	s = traced_purge(false, &counted);
	diag_sum("anon, memory.reclaim", &s, counted);
	tap_result(s.starts > 0 && !s.bad_starts && s.ends == s.starts,
		   "anon memory.reclaim: every start event names the cgroup, nr_to_scan and a priority in 0..12, and has its end");
	tap_result(counted >= RANGE_PAGES * 99 / 100 &&
		   s.purged == (long long)counted && s.locked == 0,
		   "anon memory.reclaim: the end events' purged pages add up to pgvolatile_purged");
	munmap(p, RANGE_PAGES * page_size);
}

static void test_file_reclaim(void)
{
	const size_t len = RANGE_PAGES * page_size;
	struct trace_sum s;
	uint64_t counted;
	char *p = MAP_FAILED;
	int fd;

	fd = memfd_create("volatile_trace", MFD_CLOEXEC);
	if (fd >= 0 && !ftruncate(fd, len))
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		tap_bail("memfd of %zu bytes: %s", len, strerror(errno));
	vr_fill(p, RANGE_PAGES, 2);
	if (fallocate(fd, FALLOC_FL_MARK_VOLATILE, 0, len))
		tap_diag("FALLOC_FL_MARK_VOLATILE: %s", strerror(errno));
	s = traced_purge(false, &counted);
	diag_sum("memfd, memory.reclaim", &s, counted);
	tap_result(counted >= RANGE_PAGES * 99 / 100 && s.starts > 0 &&
		   !s.bad_starts && s.purged == (long long)counted,
		   "memfd memory.reclaim: the end events' purged pages add up to pgvolatile_purged");
	munmap(p, len);
	close(fd);
}

/* A volatile range mlocked after marking is kept, and the trace says so. */
static void test_locked_skip(void)
{
	char *p = vr_map(RANGE_PAGES);
	struct trace_sum s;
	uint64_t counted;
	int locked;

	vr_fill(p, RANGE_PAGES, 3);
	vr_madvise(p, RANGE_PAGES * page_size, MADV_VOLATILE);
	locked = mlock(p, RANGE_PAGES * page_size);
	s = traced_purge(false, &counted);
	diag_sum("mlocked anon range, memory.reclaim", &s, counted);
	tap_result(!locked && counted == 0 && s.purged == 0 && s.locked > 0,
		   "an mlocked volatile range is reported skipped as locked, and nothing is purged");
	munlock(p, RANGE_PAGES * page_size);
	munmap(p, RANGE_PAGES * page_size);
}

static void test_drop_caches(void)
{
	char *p = vr_map(RANGE_PAGES);
	struct trace_sum s;
	uint64_t counted;

	vr_fill(p, RANGE_PAGES, 4);
	vr_madvise(p, RANGE_PAGES * page_size, MADV_VOLATILE);
	s = traced_purge(true, &counted);
	diag_sum("anon, drop_caches", &s, counted);
	tap_result(counted >= RANGE_PAGES * 99 / 100 && s.prio0 > 0 &&
		   s.all_purged == (long long)counted,
		   "drop_caches: the shrinker is called at priority 0 and its end events add up to pgvolatile_purged");
	munmap(p, RANGE_PAGES * page_size);
}

/* One shrinker call of the test's memcg: its task, its times, its purge. */
struct shrink_call {
	long pid;
	double start, end;
	long long purged, busy;
	long long alongside;	/* -1: the kernel does not report it */
};

/* The pid of a trace line's "comm-pid [cpu]" task field; -1 if none. */
static long line_pid(const char *line, const char *end)
{
	const char *cpu = memchr(line, '[', end - line);
	const char *p;

	if (!cpu)
		return -1;
	for (p = cpu; p > line && p[-1] == ' '; p--)
		;
	while (p > line && p[-1] != '-')
		p--;
	return p > line ? strtol(p, NULL, 10) : -1;
}

/* The timestamp before the event name at @event; -1 if none. */
static double line_time(const char *line, const char *event)
{
	const char *p = event;

	while (p > line && p[-1] != ' ')
		p--;
	return p < event ? strtod(p, NULL) : -1;
}

/*
 * The shrinker calls of @memcg in @buf, a start event matched with the
 * next end event of the same task (a call may sleep and move to another
 * CPU, never to another task); how many were filled in.
 */
static size_t trace_calls(const char *buf, uint64_t memcg,
			  struct shrink_call *calls, size_t max)
{
	const char *line, *end, *ev;
	size_t n = 0, i;
	long pid;

	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#' ||
		    field(line, end, "memcg") != (long long)memcg)
			continue;
		pid = line_pid(line, end);
		ev = strstr(line, ": volatile_shrink_start:");
		if (ev && ev < end && n < max) {
			calls[n] = (struct shrink_call) {
				.pid = pid, .start = line_time(line, ev),
				.end = -1,
			};
			n++;
			continue;
		}
		ev = strstr(line, ": volatile_shrink_end:");
		if (!ev || ev > end)
			continue;
		for (i = n; i-- > 0;) {
			if (calls[i].pid != pid)
				continue;
			if (calls[i].end < 0) {
				calls[i].end = line_time(line, ev);
				calls[i].purged = field(line, end, "purged");
				calls[i].busy = field(line, end, "busy");
				calls[i].alongside = field(line, end,
							   "alongside");
			}
			break;
		}
	}
	return n;
}

/*
 * How many purging calls were under way at once, on average: the sum of
 * their durations over the time from the first one's start to the last
 * one's end.  About 1 when one CPU purges at a time.  For the report only:
 * a call's events also time its walk, and vCPUs share host cores.
 */
static double purge_concurrency(struct shrink_call *calls, size_t n)
{
	double first = -1, last = -1, busy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (calls[i].purged <= 0 || calls[i].end < calls[i].start)
			continue;
		busy += calls[i].end - calls[i].start;
		if (first < 0 || calls[i].start < first)
			first = calls[i].start;
		if (calls[i].end > last)
			last = calls[i].end;
	}
	return last > first ? busy / (last - first) : 0;
}

/*
 * A reclaimer: wait for the go (the end of the pipe: read() returns 0),
 * ask memory.reclaim for everything, exit.
 */
static void reclaimer(int go)
{
	char c;

	if (read(go, &c, 1) != 0)
		_exit(2);
	vr_reclaim(cg, 1024 * MIB);
	_exit(0);
}

/*
 * One memfd range of 64 MiB, purged by one memory.reclaim writer per vCPU
 * at once.  The others must purge chunks of it while one does, not skip
 * it as busy until that one has purged it all (issue 26: 99% of the calls
 * did, under global pressure); and every page must be purged once:
 * counted once, and read back as zeros.
 */
static void test_concurrent_file_purge(void)
{
	const size_t len = SHARED_PAGES * page_size;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nr = cpus < 2 ? 2 : cpus > MAX_RECLAIMERS ? MAX_RECLAIMERS : cpus;
	struct shrink_call *calls = calloc(MAX_CALLS, sizeof(*calls));
	unsigned long purging = 0, beside = 0;
	long long busy = 0, purged = 0, alongside = -1;
	double concurrency;
	struct vr_census census = { 0 };
	int fd, i, r, go[2], unmarked = -1, started = 0;
	uint64_t before, counted = 0;
	size_t n = 0, k;
	char *p = MAP_FAILED, *buf = NULL;
	pid_t pids[MAX_RECLAIMERS];

	fd = memfd_create("volatile_trace_shared", MFD_CLOEXEC);
	if (fd >= 0 && !ftruncate(fd, len))
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || !calls || pipe(go))
		tap_bail("memfd of %zu bytes: %s", len, strerror(errno));
	vr_fill(p, SHARED_PAGES, 5);
	munmap(p, len);
	if (fallocate(fd, FALLOC_FL_MARK_VOLATILE, 0, len))
		tap_diag("FALLOC_FL_MARK_VOLATILE: %s", strerror(errno));
	fflush(stdout);
	for (i = 0; i < nr; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(go[1]);
			reclaimer(go[0]);
		}
		started += pids[i] > 0;
	}
	close(go[0]);
	/* Room for every event of the calls: about 150 bytes each. */
	r = trace_write("buffer_size_kb", "8192");
	if (r)
		tap_diag("buffer_size_kb: %s", strerror(-r));
	if (trace_events(true))
		tap_diag("cannot switch the volatile_ranges events on: %s",
			 strerror(errno));
	before = vr_purged_counter();
	/* Closing the pipe lets them all go at once. */
	close(go[1]);
	for (i = 0; i < nr; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	counted = vr_purged_counter() - before;
	trace_events(false);
	buf = trace_read();
	if (buf)
		n = trace_calls(buf, cg_ino, calls, MAX_CALLS);
	for (k = 0; k < n; k++) {
		purging += calls[k].purged > 0;
		purged += calls[k].purged > 0 ? calls[k].purged : 0;
		busy += calls[k].busy > 0 ? calls[k].busy : 0;
		if (calls[k].alongside > alongside)
			alongside = calls[k].alongside;
		beside += calls[k].alongside > 0;
	}
	concurrency = purge_concurrency(calls, n);
	/* 1: some of it was purged. */
	unmarked = fallocate(fd, FALLOC_FL_UNMARK_VOLATILE, 0, len);
	if (unmarked < 0)
		unmarked = -errno;
	census = vr_fd_check(fd, SHARED_PAGES, 5);
	tap_diag("memfd, %d of %d reclaimers at once on %ld vCPUs: %zu calls, %lu purged (%lld pages), %lld busy skips; %lu calls claimed a chunk while others purged up to %lld more; %.2f purging calls at once on average; pgvolatile_purged +%llu; unmark %d; %zu intact, %zu zero, %zu corrupt",
		 started, nr, cpus, n, purging, purged, busy, beside, alongside, concurrency,
		 (unsigned long long)counted, unmarked, census.intact,
		 census.zero, census.corrupt);
	/*
	 * alongside: the kernel's own count, as a chunk was claimed, of the
	 * range's chunks being purged by others; absent (-1) before issue 26,
	 * when one CPU purged a range at a time and the others skipped it.
	 */
	tap_result(started == nr && alongside > 0,
		   "memfd, one memory.reclaim writer per vCPU: shrinkers claim chunks of the range while others purge theirs");
	tap_result(counted == SHARED_PAGES && purged == (long long)counted &&
		   unmarked == 1 && census.zero == SHARED_PAGES &&
		   census.corrupt == 0,
		   "memfd, concurrent purges: every page purged and counted once, unmarking says so, and it reads as zeros");
	free(buf);
	free(calls);
	close(fd);
}

int main(void)
{
	struct stat st;

	vr_init();
	tap_plan(9);
	tracefs = find_tracefs();
	if (!tracefs)
		tap_bail("no writable tracefs (CONFIG_EVENT_TRACING?)");
	if (cg_create("lab-trace", cg, sizeof(cg)) || cg_enter(cg) ||
	    stat(cg, &st))
		tap_bail("cannot enter cgroup lab-trace: %s", strerror(errno));
	cg_ino = st.st_ino;
	test_events_exist();
	test_oom_counters();
	test_anon_reclaim();
	test_file_reclaim();
	test_locked_skip();
	test_drop_caches();
	test_concurrent_file_purge();
	cg_enter(CG_ROOT);
	cg_destroy(cg);
	return tap_finish();
}
