// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 1: the cost of unpin and pin.
 *
 *   pinbench_<lib> --backend B --size BYTES [--iters N] [--rep R] [--csv F]
 *	one unpin + pin pair of a whole region of BYTES, N times;
 *   pinbench_<lib> --backend B --fragments K [--order O] [--iters N] ...
 *	K disjoint one-page sub-ranges of a 64 MiB region unpinned one by
 *	one, then pinned one by one (the fragmentation a cache arena makes;
 *	VMA splitting is the known cost of volatile ranges), both in the
 *	order O: asc (by offset, the default; benchmark pin_frag), desc
 *	(pin_frag_desc) or random (a seeded permutation; pin_frag_random).
 *	Which half is slow depends on it: ashmem keeps its unpinned ranges
 *	from the highest offset down and stops its walk at the first range
 *	below the one it looks for.
 *   pinbench_<lib> --backend B --regions R [--iters N] ...
 *	R live regions of 16 KiB (R fds for the fd backends); N unpin + pin
 *	pairs of regions drawn at random (benchmark pin_regions): what a
 *	library that looks the region up per call pays for a process with
 *	many regions.
 *
 * Rows: unpin_ns, pin_ns and pair_ns at p50 and p99 (per call); for
 * ashmem and volatile, kernel_pair_ns, the pair as bare system calls;
 * and for fragments the VMAs of the process while the fragments are
 * unpinned.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "backend.h"
#include "bench.h"

#define FRAG_REGION (64 * MIB)
#define SCALE_REGION (16 * 1024)
#define MAX_REGIONS 16384

static const char *prog = "pinbench";

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B (--size BYTES | --fragments K [--order asc|desc|random] | --regions R) [--iters N] [--rep R] [--csv FILE]\n  backends: %s",
		    prog, BACKEND_NAMES);
}

static long vma_count(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	long n = 0;
	int c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static void report(struct csv *csv, const char *param, const char *what,
		   struct samples *s)
{
	char metric[64];

	snprintf(metric, sizeof(metric), "%s_ns_p50", what);
	csv_row(csv, param, metric, "ns", samples_pct(s, 50));
	snprintf(metric, sizeof(metric), "%s_ns_p99", what);
	csv_row(csv, param, metric, "ns", samples_pct(s, 99));
}

static void check(int ret, const char *call)
{
	if (ret < 0)
		die("%s: %s failed: %m", prog, call);
}

/*
 * The same pair as bench_size() through the bare system calls: how much
 * of the pair is the kernel's and how much the library's (both libraries
 * look the region up with fstat() on every call).
 */
static void bench_kernel_pair(struct csv *csv, const char *param,
			      struct region *r, long iters)
{
	struct samples pair = { 0 };
	long i;

	for (i = 0; i < iters; i++) {
		uint64_t t0 = now_ns();
		int purged;

		check(region_pin_kernel(r, true), "kernel unpin");
		purged = region_pin_kernel(r, false);
		samples_add(&pair, now_ns() - t0);
		check(purged, "kernel pin");
		if (purged)
			content_fill(r->map, r->len, 1);
	}
	report(csv, param, "kernel_pair", &pair);
	samples_free(&pair);
}

static void bench_size(struct csv *csv, enum backend b, size_t size,
		       long iters)
{
	struct samples unpin = { 0 }, pin = { 0 }, pair = { 0 };
	struct region r;
	char param[64];
	long i;

	if (region_create(&r, b, size))
		die("%s: cannot create a %zu-byte region: %m", prog, size);
	content_fill(r.map, r.len, 1);
	for (i = 0; i < iters; i++) {
		uint64_t t0, t1, t2;
		int purged;

		t0 = now_ns();
		check(region_unpin(&r, 0, r.len), "unpin");
		t1 = now_ns();
		purged = region_pin(&r, 0, r.len);
		t2 = now_ns();
		check(purged, "pin");
		if (purged)
			content_fill(r.map, r.len, 1);
		samples_add(&unpin, t1 - t0);
		samples_add(&pin, t2 - t1);
		samples_add(&pair, t2 - t0);
	}
	snprintf(param, sizeof(param), "size_kib=%zu", size / 1024);
	report(csv, param, "unpin", &unpin);
	report(csv, param, "pin", &pin);
	report(csv, param, "pair", &pair);
	if (b == BACKEND_ASHMEM || b == BACKEND_VOLATILE || b == BACKEND_ANON)
		bench_kernel_pair(csv, param, &r, iters);
	region_destroy(&r);
	samples_free(&unpin);
	samples_free(&pin);
	samples_free(&pair);
}

enum frag_order { ORDER_ASC, ORDER_DESC, ORDER_RANDOM };

/* The fragments' indices in the order @order, or exit. */
static long *fragment_order(long k, enum frag_order order)
{
	long *idx = calloc(k, sizeof(*idx)), i, j, t;

	if (!idx)
		die("%s: out of memory", prog);
	for (i = 0; i < k; i++)
		idx[i] = order == ORDER_DESC ? k - 1 - i : i;
	if (order == ORDER_RANDOM) {
		srand(20261204 + k);
		for (i = k - 1; i > 0; i--) {
			j = rand() % (i + 1);
			t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
		}
	}
	return idx;
}

static void bench_fragments(struct csv *csv, enum backend b, long k,
			    enum frag_order order, long iters)
{
	struct samples unpin = { 0 }, pin = { 0 };
	long *idx = fragment_order(k, order);
	size_t stride = FRAG_REGION / k;
	long i, j, vmas = 0;
	struct region r;
	char param[64];

	if (region_create(&r, b, FRAG_REGION))
		die("%s: cannot create a 64 MiB region: %m", prog);
	content_fill(r.map, r.len, 2);
	for (i = 0; i < iters; i++) {
		int purged = 0;

		for (j = 0; j < k; j++) {
			uint64_t t0 = now_ns();

			check(region_unpin(&r, idx[j] * stride, page_size),
			      "unpin");
			samples_add(&unpin, now_ns() - t0);
		}
		vmas = vma_count();
		for (j = 0; j < k; j++) {
			uint64_t t0 = now_ns();
			int ret = region_pin(&r, idx[j] * stride, page_size);

			samples_add(&pin, now_ns() - t0);
			check(ret, "pin");
			purged |= ret;
		}
		if (purged)
			content_fill(r.map, r.len, 2);
	}
	snprintf(param, sizeof(param), "fragments=%ld", k);
	report(csv, param, "unpin", &unpin);
	report(csv, param, "pin", &pin);
	csv_row(csv, param, "vmas_unpinned", "count", vmas);
	region_destroy(&r);
	samples_free(&unpin);
	samples_free(&pin);
	free(idx);
}

static void bench_regions(struct csv *csv, enum backend b, long n,
			  long iters)
{
	struct samples unpin = { 0 }, pin = { 0 };
	struct region *r = calloc(n, sizeof(*r));
	struct rlimit rl = { n + 64, n + 64 };
	uint64_t rng = 20261204;
	char param[64];
	long i;

	if (!r)
		die("%s: out of memory", prog);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("%s: cannot allow %ld open files: %m", prog, n + 64);
	for (i = 0; i < n; i++) {
		if (region_create(&r[i], b, SCALE_REGION))
			die("%s: cannot create region %ld of %ld: %m", prog,
			    i, n);
		content_fill(r[i].map, SCALE_REGION, i);
	}
	for (i = 0; i < iters; i++) {
		long j;
		uint64_t t0, t1, t2;
		int purged;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = rng % n;
		t0 = now_ns();
		check(region_unpin(&r[j], 0, SCALE_REGION), "unpin");
		t1 = now_ns();
		purged = region_pin(&r[j], 0, SCALE_REGION);
		t2 = now_ns();
		check(purged, "pin");
		if (purged)
			content_fill(r[j].map, SCALE_REGION, j);
		samples_add(&unpin, t1 - t0);
		samples_add(&pin, t2 - t1);
	}
	snprintf(param, sizeof(param), "regions=%ld", n);
	report(csv, param, "unpin", &unpin);
	report(csv, param, "pin", &pin);
	for (i = 0; i < n; i++)
		region_destroy(&r[i]);
	free(r);
	samples_free(&unpin);
	samples_free(&pin);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "fragments", required_argument, NULL, 'k' },
		{ "order", required_argument, NULL, 'o' },
		{ "regions", required_argument, NULL, 'R' },
		{ "iters", required_argument, NULL, 'n' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const bench_names[] = {
		"pin_frag", "pin_frag_desc", "pin_frag_random"
	};
	const char *backend = NULL, *csv_path = NULL;
	enum frag_order order = ORDER_ASC;
	long iters = 100, rep = 1, k = 0, nregions = 0;
	uint64_t size = 0;
	struct csv csv;
	enum backend b;
	int opt;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 's':
			size = parse_size("--size", optarg);
			break;
		case 'k':
			k = parse_long("--fragments", optarg, 1,
				       FRAG_REGION / 4096 / 2);
			break;
		case 'R':
			nregions = parse_long("--regions", optarg, 1,
					      MAX_REGIONS);
			break;
		case 'o':
			if (!strcmp(optarg, "asc"))
				order = ORDER_ASC;
			else if (!strcmp(optarg, "desc"))
				order = ORDER_DESC;
			else if (!strcmp(optarg, "random"))
				order = ORDER_RANDOM;
			else
				usage_error(prog, "--order must be asc, desc or random, not '%s'",
					    optarg);
			break;
		case 'n':
			iters = parse_long("--iters", optarg, 1, 1000000);
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
	if (optind != argc || !backend || !!size + !!k + !!nregions != 1)
		usage();
	if (size && (size % page_size || size > 1024 * MIB))
		usage_error(prog, "--size must be a multiple of the page size, at most 1G");
	b = backend_parse(prog, backend);
	if (!k && order != ORDER_ASC)
		usage_error(prog, "--order goes with --fragments");
	if (csv_open(&csv, csv_path, backend,
		     size ? "pin_size" : nregions ? "pin_regions" :
		     bench_names[order], rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	if (size)
		bench_size(&csv, b, size, iters);
	else if (nregions)
		bench_regions(&csv, b, nregions, iters);
	else
		bench_fragments(&csv, b, k, order, iters);
	return csv_close(&csv) ? 1 : 0;
}
