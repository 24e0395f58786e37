// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 6: concurrency.
 *
 * N workers, threads of one process (--kind threads) or processes
 * (--kind procs), each unpin and pin regions of its own: R regions of S
 * KiB, I pairs, round robin.  Nothing is shared between workers but what
 * the backend shares: ashmem's one global mutex, the mmap_lock of the
 * process (anon, madvfree, and the compat library's mappings for threads),
 * the library's own state.  --kind shared: threads that share one region
 * (one memfd or ashmem fd) of N * R * S KiB, each worker unpinning and
 * pinning R disjoint slices of its own: what one file's locks and tree
 * cost when its users do not touch each other's pages.  The workers start
 * together (a spin barrier) and the throughput is every pair done over
 * the time from the first start to the last end.
 *
 *   conbench_<lib> --backend B --workers N --kind threads|procs|shared
 *        [--regions R] [--region-kib S] [--iters I] [--rep R] [--csv FILE]
 *
 * Rows (param "workers=N"): pairs_per_s, and pair_ns p50/p99/max over
 * every pair of every worker.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "bench.h"

#define MAX_WORKERS 64

static const char *prog = "conbench";

struct params {
	enum backend backend;
	long workers, regions, iters;
	size_t region_size;
};

/* Shared by every worker (threads or processes): MAP_SHARED. */
struct board {
	volatile int arrived;
	volatile int failed;
	uint64_t start[MAX_WORKERS], end[MAX_WORKERS];
	double pair_ns[];	/* workers * iters */
};

static const struct params *params;
static struct board *board;
/* --kind shared: the one region every worker has slices of. */
static struct region shared_region;
static bool shared;

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B --workers N --kind threads|procs|shared [--regions R] [--region-kib S] [--iters I] [--rep R] [--csv FILE]\n  backends: %s",
		    prog, BACKEND_NAMES);
}

/*
 * Worker @w: its regions (or its slices of the shared one: @off[k] is
 * where region k starts in @r[k]), the barrier, then its pairs; 0 or -1.
 */
static int work(long w)
{
	const struct params *p = params;
	struct region *r = calloc(p->regions, sizeof(*r));
	size_t *off = calloc(p->regions, sizeof(*off));
	double *out = board->pair_ns + w * p->iters;
	long i, made = 0;
	int ret = -1;

	if (!r || !off)
		goto arrive;
	if (shared) {
		for (i = 0; i < p->regions; i++) {
			r[i] = shared_region;
			off[i] = (w * p->regions + i) * p->region_size;
			content_fill(r[i].map + off[i], p->region_size, w);
		}
	} else {
		for (made = 0; made < p->regions; made++) {
			if (region_create(&r[made], p->backend,
					  p->region_size))
				goto arrive;
			content_fill(r[made].map, p->region_size, w);
		}
	}
	ret = 0;
arrive:
	if (ret)
		__atomic_store_n(&board->failed, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&board->arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&board->arrived, __ATOMIC_SEQ_CST) <
	       p->workers)
		sched_yield();
	if (ret || __atomic_load_n(&board->failed, __ATOMIC_SEQ_CST))
		goto out;

	board->start[w] = now_ns();
	for (i = 0; i < p->iters && !ret; i++) {
		struct region *x = &r[i % p->regions];
		size_t at = off[i % p->regions];
		uint64_t t0 = now_ns();
		int purged;

		if (region_unpin(x, at, p->region_size)) {
			ret = -1;
			break;
		}
		purged = region_pin(x, at, p->region_size);
		out[i] = now_ns() - t0;
		if (purged < 0)
			ret = -1;
		else if (purged)
			content_fill(x->map + at, p->region_size, w);
	}
	board->end[w] = now_ns();
out:
	while (made > 0)
		region_destroy(&r[--made]);
	free(off);
	free(r);
	if (ret)
		__atomic_store_n(&board->failed, 1, __ATOMIC_SEQ_CST);
	return ret;
}

static void *thread_main(void *arg)
{
	work((long)arg);
	return NULL;
}

static void run_threads(long n)
{
	pthread_t t[MAX_WORKERS];
	long i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)i))
			die("%s: pthread_create failed", prog);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void run_procs(long n)
{
	pid_t pid[MAX_WORKERS];
	int status;
	long i;

	for (i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			die("%s: fork: %m", prog);
		if (pid[i] == 0)
			_exit(work(i) ? 1 : 0);
	}
	for (i = 0; i < n; i++) {
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			board->failed = 1;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "workers", required_argument, NULL, 'w' },
		{ "kind", required_argument, NULL, 'k' },
		{ "regions", required_argument, NULL, 'R' },
		{ "region-kib", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct params p = { .regions = 4, .iters = 1000 };
	const char *backend = NULL, *kind = NULL, *csv_path = NULL;
	long rep = 1, kib = 64, i;
	struct samples all = { 0 };
	uint64_t first = UINT64_MAX, last = 0;
	size_t board_len;
	char param[32], bench[32];
	struct csv csv;
	int opt;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'w':
			p.workers = parse_long("--workers", optarg, 1,
					       MAX_WORKERS);
			break;
		case 'k':
			kind = optarg;
			break;
		case 'R':
			p.regions = parse_long("--regions", optarg, 1, 1024);
			break;
		case 's':
			kib = parse_long("--region-kib", optarg, 4, 65536);
			break;
		case 'n':
			p.iters = parse_long("--iters", optarg, 1, 1000000);
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
	if (optind != argc || !backend || !kind || !p.workers)
		usage();
	if (strcmp(kind, "threads") && strcmp(kind, "procs") &&
	    strcmp(kind, "shared"))
		usage_error(prog, "--kind must be threads, procs or shared, not '%s'",
			    kind);
	p.region_size = kib * 1024;
	if (p.region_size % page_size)
		usage_error(prog, "--region-kib must be a multiple of the page size");
	p.backend = backend_parse(prog, backend);

	board_len = sizeof(*board) + p.workers * p.iters * sizeof(double);
	board = mmap(NULL, board_len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (board == MAP_FAILED)
		die("%s: mmap: %m", prog);
	params = &p;
	shared = !strcmp(kind, "shared");
	if (shared && region_create(&shared_region, p.backend,
				    p.workers * p.regions * p.region_size))
		die("%s: cannot create the shared region of %ld x %ld x %zu bytes: %m",
		    prog, p.workers, p.regions, p.region_size);
	if (strcmp(kind, "procs"))
		run_threads(p.workers);
	else
		run_procs(p.workers);
	if (shared)
		region_destroy(&shared_region);
	if (board->failed)
		die("%s: a worker failed (%s, %ld workers)", prog, backend,
		    p.workers);

	for (i = 0; i < p.workers; i++) {
		if (board->start[i] < first)
			first = board->start[i];
		if (board->end[i] > last)
			last = board->end[i];
	}
	for (i = 0; i < p.workers * p.iters; i++)
		samples_add(&all, board->pair_ns[i]);
	snprintf(bench, sizeof(bench), "concurrency_%s", kind);
	snprintf(param, sizeof(param), "workers=%ld", p.workers);
	if (csv_open(&csv, csv_path, backend, bench, rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	csv_row(&csv, param, "pairs_per_s", "pairs/s",
		p.workers * p.iters / ((last - first) / 1e9));
	csv_row(&csv, param, "pair_ns_p50", "ns", samples_pct(&all, 50));
	csv_row(&csv, param, "pair_ns_p99", "ns", samples_pct(&all, 99));
	csv_row(&csv, param, "pair_ns_max", "ns", samples_pct(&all, 100));
	samples_free(&all);
	return csv_close(&csv) ? 1 : 0;
}
