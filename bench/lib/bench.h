/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the benchmark programs: monotonic time, samples and their
 * percentiles, command-line numbers, and the CSV every program writes.
 */
#ifndef LAB_BENCH_H
#define LAB_BENCH_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MIB (1024UL * 1024)

extern size_t page_size;

/* Monotonic nanoseconds. */
uint64_t now_ns(void);

struct samples {
	double *v;
	size_t n, cap;
};

void samples_add(struct samples *s, double v);
/* The @p-th percentile (0..100, nearest rank) of the samples; sorts them. */
double samples_pct(struct samples *s, double p);
void samples_free(struct samples *s);

/*
 * The CSV of one program run: rows of
 *   backend,bench,param,value,metric,unit,rep
 * where param is "name=value" of the point measured and value is the
 * measurement.  The file is opened for appending; a new file gets the
 * header line.  Metadata lines ("# key: value") come from LAB_META_*
 * environment variables, written by the benchmark driver.
 *
 * The run's place in its block of the plan (bench/matrix.sh): with
 * LAB_POS=P (1: the block's first run) and LAB_POS_BACKEND naming this
 * run's backend, the first row of every param is followed by one more
 * of that param, metric "order_pos", unit "position", value P.  Rows
 * of another backend (cachebench's "belady") get none: they did not
 * run in that place.
 */
struct csv {
	FILE *f;
	const char *backend, *bench;
	int rep;
	long pos;		/* 0: not given */
	char *seen;		/* params given a pos, "\nP1\nP2\n" */
};

int csv_open(struct csv *c, const char *path, const char *backend,
	     const char *bench, int rep);
void csv_row(struct csv *c, const char *param, const char *metric,
	     const char *unit, double value);
int csv_close(struct csv *c);

/* Parse a size with an optional K/M/G suffix, or a plain count; exit 2 on
 * anything else, naming @what.
 */
uint64_t parse_size(const char *what, const char *s);
long parse_long(const char *what, const char *s, long min, long max);

void bench_init(void);
/* Print "@prog: " and the message to stderr, exit with status 2. */
void usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Fill @len bytes with words derived from @id that are never zero. */
void content_fill(void *p, size_t len, uint64_t id);
/* Bytes of @p that differ from content_fill(@id). */
size_t content_mismatches(const void *p, size_t len, uint64_t id);
/*
 * Whether @got differs from @want (content_fill(@id) when @want is NULL)
 * only by whole pages that read zeros: a drop (MAP_DROPPABLE), not a
 * corruption.  False when some differing page is not all zeros.
 */
bool pages_dropped(const void *got, const void *want, size_t len,
		   uint64_t id);

#endif /* LAB_BENCH_H */
