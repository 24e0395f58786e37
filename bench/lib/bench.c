// SPDX-License-Identifier: GPL-2.0
/* Benchmark helpers; see bench.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

size_t page_size;

void bench_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void samples_add(struct samples *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		double *v2 = realloc(s->v, cap * sizeof(*v2));

		if (!v2)
			die("out of memory for %zu samples", cap);
		s->v = v2;
		s->cap = cap;
	}
	s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double samples_pct(struct samples *s, double p)
{
	size_t rank;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	rank = (size_t)(p / 100 * s->n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return s->v[rank - 1];
}

void samples_free(struct samples *s)
{
	free(s->v);
	*s = (struct samples){ 0 };
}

static const char *const meta_keys[] = {
	"kernel", "series", "machine", "accel", "ram_mib", "cpus", "date",
};

/*
 * The smallest step CLOCK_MONOTONIC was seen to take between two reads
 * (of 10000), in ns: the resolution the timings really have.  Without
 * CONFIG_HIGH_RES_TIMERS clock_getres() says one tick (4 ms at HZ=250)
 * even when the clocksource counts nanoseconds, and a tick-driven
 * clocksource shows here as a step of a whole tick.
 */
static uint64_t clock_step_ns(void)
{
	uint64_t prev = now_ns(), t, step = UINT64_MAX;
	int i;

	for (i = 0; i < 10000; i++) {
		t = now_ns();
		if (t != prev && t - prev < step)
			step = t - prev;
		prev = t;
	}
	return step;
}

/*
 * The clock that makes every timing of the file: its source, what
 * clock_getres() says of CLOCK_MONOTONIC and the step it was seen to
 * take (bench-report.py check refuses a coarse one, and timings
 * quantised to a tick).
 */
static void clock_meta(FILE *f)
{
	uint64_t step = clock_step_ns();
	static const char cs_path[] =
		"/sys/devices/system/clocksource/clocksource0/current_clocksource";
	char source[64] = "unknown";
	struct timespec res;
	FILE *cs = fopen(cs_path, "re");

	if (cs) {
		if (fgets(source, sizeof(source), cs))
			source[strcspn(source, "\n")] = '\0';
		fclose(cs);
	}
	fprintf(f, "# clocksource: %s\n", source[0] ? source : "unknown");
	if (clock_getres(CLOCK_MONOTONIC, &res))
		fprintf(f, "# clock_res_ns: unknown\n");
	else
		fprintf(f, "# clock_res_ns: %llu\n",
			(unsigned long long)res.tv_sec * 1000000000ULL +
			(unsigned long long)res.tv_nsec);
	if (step == UINT64_MAX)
		fprintf(f, "# clock_step_ns: unknown\n");
	else
		fprintf(f, "# clock_step_ns: %llu\n", (unsigned long long)step);
}

/* LAB_POS and LAB_POS_BACKEND, when they name this CSV's backend. */
static void csv_pos(struct csv *c)
{
	const char *pos = getenv("LAB_POS"), *who = getenv("LAB_POS_BACKEND");
	char *end;
	long p;

	c->pos = 0;
	c->seen = NULL;
	if (!pos || !who || strcmp(who, c->backend))
		return;
	p = strtol(pos, &end, 10);
	if (end != pos && !*end && p >= 1)
		c->pos = p;
}

int csv_open(struct csv *c, const char *path, const char *backend,
	     const char *bench, int rep)
{
	bool fresh = true;
	size_t i;

	c->backend = backend;
	c->bench = bench;
	c->rep = rep;
	csv_pos(c);
	c->f = path ? fopen(path, "ae") : stdout;
	if (!c->f)
		return -1;
	if (path) {
		fseek(c->f, 0, SEEK_END);
		fresh = ftell(c->f) == 0;
	}
	if (fresh) {
		for (i = 0; i < sizeof(meta_keys) / sizeof(meta_keys[0]); i++) {
			char var[64];
			const char *v;

			snprintf(var, sizeof(var), "LAB_META_%s", meta_keys[i]);
			v = getenv(var);
			fprintf(c->f, "# %s: %s\n", meta_keys[i],
				v ? v : "unknown");
		}
		clock_meta(c->f);
		fprintf(c->f, "backend,bench,param,value,metric,unit,rep\n");
	}
	return 0;
}

/* Row "order_pos" of @param, once per param; see bench.h. */
static void csv_pos_rows(struct csv *c, const char *param)
{
	size_t len = strlen(param), have = c->seen ? strlen(c->seen) : 1;
	char *key = malloc(len + 3), *more;

	if (!key)
		return;
	sprintf(key, "\n%s\n", param);
	if (c->seen && strstr(c->seen, key)) {
		free(key);
		return;
	}
	more = realloc(c->seen, have + len + 2);
	if (more) {
		if (!c->seen)
			strcpy(more, "\n");
		strcat(more, key + 1);
		c->seen = more;
	}
	free(key);
	fprintf(c->f, "%s,%s,%s,%ld,order_pos,position,%d\n", c->backend,
		c->bench, param, c->pos, c->rep);
}

void csv_row(struct csv *c, const char *param, const char *metric,
	     const char *unit, double value)
{
	fprintf(c->f, "%s,%s,%s,%.6g,%s,%s,%d\n", c->backend, c->bench, param,
		value, metric, unit, c->rep);
	if (c->pos)
		csv_pos_rows(c, param);
}

int csv_close(struct csv *c)
{
	free(c->seen);
	c->seen = NULL;
	if (c->f == stdout)
		return fflush(stdout);
	return fclose(c->f);
}

uint64_t parse_size(const char *what, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		usage_error(what, "'%s' is not a size", s);
	switch (*end) {
	case 'k': case 'K':
		v <<= 10, end++;
		break;
	case 'm': case 'M':
		v <<= 20, end++;
		break;
	case 'g': case 'G':
		v <<= 30, end++;
		break;
	}
	if (*end)
		usage_error(what, "'%s' is not a size (N, NK, NM or NG)", s);
	return v;
}

long parse_long(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage_error(what, "'%s' is not a number in [%ld, %ld]", s, min,
			    max);
	return v;
}

void usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline uint64_t content_word(uint64_t id, size_t w)
{
	uint64_t x = (id + 1) * 0x9e3779b97f4a7c15ULL + w;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x | 1;	/* never zero: a zero word means a purged page */
}

void content_fill(void *p, size_t len, uint64_t id)
{
	uint64_t *q = p;
	size_t w;

	for (w = 0; w < len / sizeof(*q); w++)
		q[w] = content_word(id, w);
}

bool pages_dropped(const void *got, const void *want, size_t len,
		   uint64_t id)
{
	const uint64_t *g = got, *x = want;
	size_t words = page_size / sizeof(*g), w, o;
	bool dropped = false, zero, same;

	for (o = 0; o < len / sizeof(*g); o += words) {
		zero = same = true;
		for (w = o; w < o + words && w < len / sizeof(*g); w++) {
			zero = zero && !g[w];
			same = same && g[w] == (x ? x[w] : content_word(id, w));
		}
		if (same)
			continue;
		if (!zero)
			return false;
		dropped = true;
	}
	return dropped;
}

size_t content_mismatches(const void *p, size_t len, uint64_t id)
{
	const uint64_t *q = p;
	size_t w, bad = 0;

	for (w = 0; w < len / sizeof(*q); w++)
		if (q[w] != content_word(id, w))
			bad += sizeof(*q);
	return bad;
}
