// SPDX-License-Identifier: GPL-2.0
/* The volatile_ranges tracepoints, summed; see vtrace.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "vtrace.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_DEBUG	"/sys/kernel/debug/tracing"
#define EVENTS		"events/volatile_ranges"
/* Shrinker calls in flight at once: one per CPU in reclaim, at most. */
#define VTRACE_OPEN_CALLS	64

const char *const vtrace_skip_names[VTRACE_NR_SKIPS] = {
	[VTRACE_SKIP_NOFS] = "nofs",
	[VTRACE_SKIP_SEM] = "sem",
	[VTRACE_SKIP_ILOCK] = "ilock",
	[VTRACE_SKIP_FREEING] = "freeing",
	[VTRACE_SKIP_MM] = "mm",
	[VTRACE_SKIP_MMAP] = "mmap",
	[VTRACE_SKIP_BUSY] = "busy",
	[VTRACE_SKIP_LOCKED] = "locked",
};

static int tf_path(const struct vtrace *t, const char *file, char *path,
		   size_t size)
{
	int n = snprintf(path, size, "%s/%s", t->dir, file);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int tf_write(const struct vtrace *t, const char *file,
		    const char *value)
{
	char path[256];
	int fd, saved;
	ssize_t n;

	if (tf_path(t, file, path, sizeof(path)))
		return -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	return 0;
}

/* The first line of a tracefs file; -1 and errno on failure. */
static int tf_read(const struct vtrace *t, const char *file, char *buf,
		   size_t size)
{
	char path[256];
	FILE *f;
	int ret = 0;

	if (tf_path(t, file, path, sizeof(path)))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		errno = EIO;
		ret = -1;
	}
	fclose(f);
	return ret;
}

static bool usable(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/trace", dir);
	return !access(path, W_OK);
}

/*
 * buffer_size_kb reads "N", or "N (expanded: M)" while nothing has traced
 * since boot: N is what the buffer holds, and what is given back.
 */
static long buffer_kb(const struct vtrace *t)
{
	char buf[64];

	if (tf_read(t, "buffer_size_kb", buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

int vtrace_open(struct vtrace *t, const char *prog, unsigned long size_kb)
{
	char buf[256];

	memset(t, 0, sizeof(*t));
	t->saved_kb = -1;
	t->saved_on = -1;
	if (!usable(TRACEFS))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (usable(TRACEFS))
		strcpy(t->dir, TRACEFS);
	else if (usable(TRACEFS_DEBUG))
		strcpy(t->dir, TRACEFS_DEBUG);
	else {
		fprintf(stderr, "%s: no writable tracefs at %s or %s: no trace summary\n",
			prog, TRACEFS, TRACEFS_DEBUG);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/%s/enable", t->dir, EVENTS);
	if (access(buf, W_OK)) {
		fprintf(stderr, "%s: no %s/%s (a kernel without the volatile_ranges tracepoints): no trace summary\n",
			prog, t->dir, EVENTS);
		t->dir[0] = '\0';
		return -1;
	}
	t->saved_kb = buffer_kb(t);
	if (!tf_read(t, "tracing_on", buf, sizeof(buf)))
		t->saved_on = atoi(buf);
	snprintf(buf, sizeof(buf), "%lu", size_kb);
	if (tf_write(t, "buffer_size_kb", buf) ||
	    tf_write(t, EVENTS "/enable", "0") ||
	    tf_write(t, "tracing_on", "1")) {
		fprintf(stderr, "%s: cannot set up tracing in %s: %m: no trace summary\n",
			prog, t->dir);
		vtrace_close(t);
		t->dir[0] = '\0';
		return -1;
	}
	return 0;
}

int vtrace_enable(struct vtrace *t)
{
	if (!t->dir[0]) {
		errno = ENOENT;
		return -1;
	}
	/* Opening trace with O_TRUNC empties the buffer and its counts. */
	if (tf_write(t, "trace", "") || tf_write(t, EVENTS "/enable", "1"))
		return -1;
	t->enabled = true;
	return 0;
}

int vtrace_disable(struct vtrace *t)
{
	if (!t->enabled)
		return 0;
	t->enabled = false;
	return tf_write(t, EVENTS "/enable", "0");
}

/* The value of " @key=" in @body, a number; false when absent. */
static bool field(const char *body, const char *key,
		  unsigned long long *v)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = strchr(body, ' '); p; p = strchr(p + 1, ' ')) {
		if (!strncmp(p + 1, key, klen) && p[1 + klen] == '=') {
			char *end;

			errno = 0;
			*v = strtoull(p + 2 + klen, &end, 10);
			return !errno && end != p + 2 + klen;
		}
	}
	return false;
}

/* What follows ": @event:" in @line, or NULL for another line. */
static const char *event_body(const char *line, const char *event)
{
	size_t len = strlen(event);
	const char *p;

	for (p = strstr(line, event); p; p = strstr(p + 1, event))
		if (p >= line + 2 && p[-2] == ':' && p[-1] == ' ' &&
		    p[len] == ':')
			return p + len + 1;
	return NULL;
}

static unsigned long long get(const char *body, const char *key)
{
	unsigned long long v = 0;

	return field(body, key, &v) ? v : 0;
}

/*
 * Whether the trace @line is kswapd's: it starts "<comm>-<pid> [cpu]",
 * and kswapd's comm is "kswapd<node>".
 */
static bool by_kswapd(const char *line)
{
	line += strspn(line, " ");
	if (strncmp(line, "kswapd", strlen("kswapd")))
		return false;
	line += strlen("kswapd");
	return line[strspn(line, "0123456789")] == '-' &&
	       strspn(line, "0123456789") > 0;
}

/*
 * The task's pid and the time, in us, of the trace @line:
 * "<comm>-<pid> [cpu] <flags> <s>.<us>: <event>: ..."; false when the
 * line has another shape.
 */
static bool task_time(const char *line, unsigned long *pid,
		      unsigned long long *us)
{
	const char *cpu = strstr(line, " [");
	const char *end, *p;
	unsigned long long sec, usec;

	if (!cpu)
		return false;
	/* The pid's digits end where the padding before "[cpu]" starts. */
	for (end = cpu; end > line && end[-1] == ' '; end--)
		;
	for (p = end; p > line && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == end || p == line || p[-1] != '-' ||
	    sscanf(p, "%lu", pid) != 1)
		return false;
	p = strchr(cpu, ']');
	if (!p || sscanf(p + 1, " %*s %llu.%llu:", &sec, &usec) != 2)
		return false;
	*us = sec * 1000000 + usec;
	return true;
}

/* The shrinker calls begun and not yet ended, by task. */
static struct open_call {
	unsigned long pid;
	unsigned long long us;
	bool used;
} open_calls[VTRACE_OPEN_CALLS];

static void call_begins(const char *line)
{
	unsigned long pid;
	unsigned long long us;
	int i, slot = -1;

	if (!task_time(line, &pid, &us))
		return;
	for (i = 0; i < VTRACE_OPEN_CALLS; i++) {
		if (open_calls[i].used && open_calls[i].pid == pid) {
			slot = i;	/* its end was lost: start again */
			break;
		}
		if (!open_calls[i].used && slot < 0)
			slot = i;
	}
	if (slot >= 0)
		open_calls[slot] = (struct open_call){ pid, us, true };
}

/* The time since the task's call began, in us; 0 when unknown. */
static unsigned long long call_ends(const char *line)
{
	unsigned long pid;
	unsigned long long us;
	int i;

	if (!task_time(line, &pid, &us))
		return 0;
	for (i = 0; i < VTRACE_OPEN_CALLS; i++) {
		if (open_calls[i].used && open_calls[i].pid == pid) {
			open_calls[i].used = false;
			return us >= open_calls[i].us ? us - open_calls[i].us : 0;
		}
	}
	return 0;
}

static void add_start(const char *body, struct vtrace_sum *s, bool kswapd)
{
	unsigned long long prio;

	s->shrink_calls++;
	s->kswapd_calls += kswapd;
	s->shrink_asked += get(body, "nr_to_scan");
	if (field(body, "priority", &prio) && prio <= INT32_MAX &&
	    (s->min_priority < 0 || (int)prio < s->min_priority))
		s->min_priority = prio;
}

static void add_end(const char *body, struct vtrace_sum *s, bool kswapd)
{
	unsigned long long purged = get(body, "purged");
	int i;

	s->shrink_ends++;
	s->shrink_purged += purged;
	if (kswapd)
		s->kswapd_purged += purged;
	s->shrink_kept += get(body, "kept");
	s->shrink_visited += get(body, "visited");
	for (i = 0; i < VTRACE_NR_SKIPS; i++)
		s->skip[i] += get(body, vtrace_skip_names[i]);
}

static void add_oom(const char *body, struct vtrace_sum *s)
{
	int i;

	s->oom_calls++;
	s->oom_purged += get(body, "purged");
	for (i = 0; i < VTRACE_NR_SKIPS; i++)
		s->oom_skipped += get(body, vtrace_skip_names[i]);
}

static void add_line(const char *line, struct vtrace_sum *s,
		     unsigned long long *lost_lines)
{
	const char *start = event_body(line, "volatile_shrink_start");
	const char *end = event_body(line, "volatile_shrink_end");
	const char *oom = event_body(line, "volatile_oom");
	const char *kept = event_body(line, "volatile_purge_kept");
	unsigned long long lost;

	if (start) {
		add_start(start, s, by_kswapd(line));
		call_begins(line);
	} else if (end) {
		unsigned long long us = call_ends(line);

		add_end(end, s, by_kswapd(line));
		s->shrink_us += us;
		if (by_kswapd(line))
			s->kswapd_us += us;
	}
	else if (oom)
		add_oom(oom, s);
	else if (kept) {
		s->kept_calls++;
		s->kept_purged += get(kept, "purged");
	}
	else if (sscanf(line, "CPU:%*d [LOST %llu EVENTS]", &lost) == 1)
		*lost_lines += lost;
}

void vtrace_parse(FILE *f, struct vtrace_sum *s)
{
	unsigned long long in_buffer, written, lost_lines = 0;
	bool header = false;
	size_t cap = 0;
	char *line = NULL;

	memset(s, 0, sizeof(*s));
	memset(open_calls, 0, sizeof(open_calls));
	s->min_priority = -1;
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#') {
			if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu",
				   &in_buffer, &written) == 2) {
				header = true;
				s->lost = written > in_buffer ?
					  written - in_buffer : 0;
			}
			continue;
		}
		add_line(line, s, &lost_lines);
	}
	free(line);
	/* trace_pipe has no header, only the LOST lines. */
	if (!header)
		s->lost = lost_lines;
}

int vtrace_read(struct vtrace *t, struct vtrace_sum *s)
{
	char path[256];
	FILE *f;

	if (!t->dir[0]) {
		errno = ENOENT;
		return -1;
	}
	if (tf_path(t, "trace", path, sizeof(path)))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	vtrace_parse(f, s);
	fclose(f);
	return 0;
}

void vtrace_close(struct vtrace *t)
{
	char buf[32];

	if (!t->dir[0])
		return;
	vtrace_disable(t);
	/* The memory back: the next program finds the size it found. */
	tf_write(t, "trace", "");
	if (t->saved_kb > 0) {
		snprintf(buf, sizeof(buf), "%ld", t->saved_kb);
		tf_write(t, "buffer_size_kb", buf);
	}
	if (t->saved_on == 0)
		tf_write(t, "tracing_on", "0");
	t->dir[0] = '\0';
}
