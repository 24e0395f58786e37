// SPDX-License-Identifier: GPL-2.0
/*
 * volatile_trace_test: the instruments of the range shrinker (issue 26).
 *
 * The volatile_ranges tracepoints must say what each shrinker call was
 * asked for (memcg, nr_to_scan, priority) and what it did (pages purged,
 * ranges skipped and why), and the OOM counters must exist.  Each check
 * compares the trace with something measured another way: the purged
 * pages with pgvolatile_purged, the memcg with the cgroup's inode number,
 * a skip reason with a range set up to be skipped.
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
#include <unistd.h>
#include <linux/falloc.h>

#include "cgroup.h"
#include "tap.h"
#include "vr_util.h"

#define MIB		(1024UL * 1024UL)
#define TRACE_BUF	(4 << 20)
#define RANGE_PAGES	(8 * MIB / page_size)

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

int main(void)
{
	struct stat st;

	vr_init();
	tap_plan(7);
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
	cg_enter(CG_ROOT);
	cg_destroy(cg);
	return tap_finish();
}
