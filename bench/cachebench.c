// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 3: cache hit rate under a cgroup memory limit.
 *
 * An image cache: K objects of S KiB, each in a region of its own
 * (--layout regions, the Chromium pattern) or all in one arena region
 * (--layout arena).  A Zipf-distributed trace with a fixed seed picks
 * the object of each operation; the object is pinned while used and
 * unpinned after.  A hit is verified byte for byte (a wrong byte is a
 * correctness failure, counted, never a statistic); a miss (first use,
 * or a pin that reports a purge) regenerates the object's content.
 * Backend "lru" is the reference: ordinary memory and a userspace LRU
 * whose budget (in objects) is found by search: a probe fills the cgroup
 * with objects until the OOM killer stops it (with the competitor's peak
 * demand held beside it, when there is one), and the run takes one
 * object less; a run the OOM killer still stops is repeated with 10%
 * fewer, up to LRU_TRIES runs.  The lru run also writes backend
 * "belady": Belady's offline optimum (evict the object used furthest in
 * the future) replayed on the same trace with the same budget, the
 * ceiling of any cache of that size.  The cache runs in a child process
 * in cgroup
 * lab-bench/cache with memory.max = L MiB (0: no limit), alone or with a
 * competitor process whose demand rises and falls (--competitor).
 *
 *   cachebench_<lib> --backend B|lru --layout regions|arena --objects K
 *        --object-kib S --limit-mib L --ops N [--seed X] [--competitor]
 *        [--rep R] [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "bench.h"
#include "cgroup.h"
#include "proc.h"
#include "zipf.h"

#define LRU_TRIES 4
#define ZIPF_S 0.9

static const char *prog = "cachebench";

struct params {
	bool lru, arena, competitor;
	enum backend backend;
	long objects, ops, limit_mib, lru_budget;
	size_t object_size;
	uint64_t seed;
};

/* Shared with the parent, so that it survives an OOM kill. */
struct counters {
	long ops, hits, misses, purges, verify_failures;
	long late_drops;	/* droppable: dropped after the pin's check */
	uint64_t elapsed_ns;
	volatile int stop;	/* tells the competitor to finish */
};

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B|lru --layout regions|arena --objects K --object-kib S --limit-mib L --ops N [--seed X] [--competitor] [--rep R] [--csv FILE]\n  backends: %s, lru",
		    prog, BACKEND_NAMES);
}

/*
 * The userspace LRU reference: objects in malloc'd memory, the least
 * recently used freed when the budget is exceeded.
 */
struct lru {
	char **data;
	long *prev, *next, head, tail, count, budget;
};

static void lru_unlink(struct lru *l, long i)
{
	if (l->prev[i] >= 0)
		l->next[l->prev[i]] = l->next[i];
	else
		l->head = l->next[i];
	if (l->next[i] >= 0)
		l->prev[l->next[i]] = l->prev[i];
	else
		l->tail = l->prev[i];
}

static void lru_push(struct lru *l, long i)
{
	l->prev[i] = l->tail;
	l->next[i] = -1;
	if (l->tail >= 0)
		l->next[l->tail] = i;
	else
		l->head = i;
	l->tail = i;
}

static void run_cache(const struct params *p, struct counters *c)
{
	double *cdf = zipf_cdf(p->objects, ZIPF_S);
	struct region *regions = calloc(p->objects, sizeof(*regions));
	bool *present = calloc(p->objects, sizeof(*present));
	struct lru l = { .head = -1, .tail = -1 };
	struct region arena;
	uint64_t rng = p->seed * 2 + 1, t0;
	long op;

	if (!cdf || !regions || !present)
		die("%s: out of memory", prog);
	if (p->lru) {
		l.data = calloc(p->objects, sizeof(*l.data));
		l.prev = calloc(p->objects, sizeof(*l.prev));
		l.next = calloc(p->objects, sizeof(*l.next));
		if (!l.data || !l.prev || !l.next)
			die("%s: out of memory", prog);
		l.budget = p->lru_budget;
	} else if (p->arena &&
		   region_create(&arena, p->backend,
				 p->objects * p->object_size)) {
		die("%s: cannot create the arena: %m", prog);
	}

	t0 = now_ns();
	for (op = 0; op < p->ops; op++) {
		long i = zipf_pick(cdf, p->objects, &rng);
		size_t off = p->arena ? i * p->object_size : 0;
		struct region *r = p->arena ? &arena : &regions[i];
		char *obj;
		bool hit = false;

		if (p->lru) {
			if (l.data[i]) {
				lru_unlink(&l, i);
				hit = true;
			} else {
				if (l.count == l.budget) {
					long old = l.head;

					lru_unlink(&l, old);
					free(l.data[old]);
					l.data[old] = NULL;
					l.count--;
				}
				l.data[i] = malloc(p->object_size);
				if (!l.data[i])
					die("%s: out of memory", prog);
				l.count++;
			}
			lru_push(&l, i);
			obj = l.data[i];
		} else {
			if (!present[i] && !p->arena &&
			    region_create(r, p->backend, p->object_size))
				die("%s: cannot create object %ld: %m", prog,
				    i);
			if (present[i]) {
				int ret = region_pin(r, off, p->object_size);

				if (ret < 0)
					die("%s: pin: %m", prog);
				hit = ret == 0;
				c->purges += ret;
			}
			present[i] = true;
			obj = r->map + off;
		}

		/* droppable: the check finds a drop the pin did not see. */
		if (hit && content_mismatches(obj, p->object_size, i)) {
			if (!p->lru && backend_drops_pinned(p->backend) &&
			    pages_dropped(obj, NULL, p->object_size, i)) {
				c->late_drops++;
				hit = false;
			} else {
				c->verify_failures++;
			}
		}
		if (hit) {
			c->hits++;
		} else {
			c->misses++;
			content_fill(obj, p->object_size, i);
		}
		if (!p->lru && region_unpin(r, off, p->object_size))
			die("%s: unpin: %m", prog);
		c->ops = op + 1;
		c->elapsed_ns = now_ns() - t0;
	}
}

/*
 * Belady's offline optimum on the trace run_cache() replays: hits of a
 * cache of @budget objects that, when full, evicts the object whose next
 * use is furthest away.
 */
static long belady_hits(const struct params *p, long budget)
{
	double *cdf = zipf_cdf(p->objects, ZIPF_S);
	long *trace = malloc(p->ops * sizeof(*trace));
	long *next = malloc(p->ops * sizeof(*next));
	long *last = malloc(p->objects * sizeof(*last));
	long *held = malloc(budget * sizeof(*held));
	long *held_next = malloc(budget * sizeof(*held_next));
	uint64_t rng = p->seed * 2 + 1;
	long op, i, n = 0, hits = 0;

	if (!trace || !next || !last || !held || !held_next)
		die("%s: out of memory", prog);
	for (op = 0; op < p->ops; op++)
		trace[op] = zipf_pick(cdf, p->objects, &rng);
	for (i = 0; i < p->objects; i++)
		last[i] = p->ops;	/* never used again */
	for (op = p->ops - 1; op >= 0; op--) {
		next[op] = last[trace[op]];
		last[trace[op]] = op;
	}
	for (op = 0; op < p->ops; op++) {
		long victim = 0;

		for (i = 0; i < n && held[i] != trace[op]; i++)
			;
		if (i < n) {
			hits++;
			held_next[i] = next[op];
			continue;
		}
		if (n < budget) {
			held[n] = trace[op];
			held_next[n++] = next[op];
			continue;
		}
		for (i = 1; i < n; i++)
			if (held_next[i] > held_next[victim])
				victim = i;
		if (held_next[victim] > next[op]) {
			held[victim] = trace[op];
			held_next[victim] = next[op];
		}
	}
	free(cdf);
	free(trace);
	free(next);
	free(last);
	free(held);
	free(held_next);
	return hits;
}

/*
 * How many objects of @p fit in the cgroup @cg beside @reserve MiB held
 * by another process: a child allocates and touches them one by one until
 * the OOM killer stops it; the count it reached less the one it was
 * allocating when stopped.
 */
static long lru_probe(const struct params *p, const char *cg, long reserve)
{
	long *count = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t holder = -1, probe;
	int ready[2];
	long n;
	char c;

	if (count == MAP_FAILED || pipe(ready))
		die("%s: probe: %m", prog);
	*count = 0;
	if (reserve) {
		holder = fork();
		if (holder == 0) {
			char *q;

			if (cg_enter(cg))
				_exit(10);
			q = mmap(NULL, reserve * MIB, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
			if (q == MAP_FAILED || write(ready[1], "R", 1) != 1)
				_exit(11);
			pause();
			_exit(0);
		}
		if (holder < 0 || read(ready[0], &c, 1) != 1)
			die("%s: the probe's reserve of %ld MiB failed", prog,
			    reserve);
	}
	probe = fork();
	if (probe == 0) {
		if (cg_enter(cg) || set_oom_score_adj(1000))
			_exit(10);
		while (*count < p->objects) {
			char *o = malloc(p->object_size);

			if (!o)
				_exit(0);
			memset(o, 1, p->object_size);
			(*count)++;
		}
		_exit(0);
	}
	if (probe < 0)
		die("%s: fork: %m", prog);
	waitpid(probe, NULL, 0);
	if (holder > 0) {
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
	}
	close(ready[0]);
	close(ready[1]);
	n = *count < p->objects ? *count - 1 : *count;
	munmap(count, page_size);
	return n < 1 ? 1 : n;
}

/* Demand that rises to a quarter of the limit and falls, until stopped. */
static void competitor(long limit_mib, struct counters *c)
{
	long peak = (limit_mib ? limit_mib : 64) / 4, n = 0, dir = 1;
	char **chunks = calloc(peak + 1, sizeof(*chunks));
	struct timespec pause = { 0, 2000000 };

	set_oom_score_adj(1000);
	while (chunks && !c->stop) {
		if (dir > 0) {
			chunks[n] = malloc(MIB);
			if (chunks[n])
				memset(chunks[n], 1, MIB);
			if (++n == peak)
				dir = -1;
		} else {
			free(chunks[--n]);
			if (n == 0)
				dir = 1;
		}
		nanosleep(&pause, NULL);
	}
	_exit(0);
}

/* One run of the cache (and competitor): its OOM kills; exit status. */
static uint64_t run_once(const struct params *p, const char *cg,
			 struct counters *c, int *status)
{
	uint64_t ooms0 = 0, ooms = 0;
	pid_t cache, rival = -1;

	memset(c, 0, sizeof(*c));
	cg_read_key(cg, "memory.events", "oom_kill", &ooms0);
	if (p->competitor) {
		rival = fork();
		if (rival == 0) {
			if (cg_enter(cg))
				_exit(10);
			competitor(p->limit_mib, c);
		}
	}
	cache = fork();
	if (cache == 0) {
		if (cg_enter(cg))
			_exit(10);
		run_cache(p, c);
		_exit(0);
	}
	waitpid(cache, status, 0);
	c->stop = 1;
	if (rival > 0)
		waitpid(rival, NULL, 0);
	cg_read_key(cg, "memory.events", "oom_kill", &ooms);
	return ooms - ooms0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "layout", required_argument, NULL, 'l' },
		{ "objects", required_argument, NULL, 'k' },
		{ "object-kib", required_argument, NULL, 's' },
		{ "limit-mib", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'x' },
		{ "competitor", no_argument, NULL, 'C' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	const char *backend = NULL, *layout = NULL, *csv_path = NULL;
	char cg[CG_PATH_MAX], parent[CG_PATH_MAX], param[64], bench[48];
	struct params p = { .seed = 20261203, .limit_mib = -1 };
	uint64_t ooms = 0;
	struct counters *c;
	int tries = 1;
	long rep = 1, kib = 0;
	int opt, status;
	struct csv csv;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'l':
			layout = optarg;
			break;
		case 'k':
			p.objects = parse_long("--objects", optarg, 1, 65536);
			break;
		case 's':
			kib = parse_long("--object-kib", optarg, 4, 65536);
			break;
		case 'm':
			p.limit_mib = parse_long("--limit-mib", optarg, 0,
						 65536);
			break;
		case 'n':
			p.ops = parse_long("--ops", optarg, 1, 100000000);
			break;
		case 'x':
			p.seed = parse_long("--seed", optarg, 0, 1L << 40);
			break;
		case 'C':
			p.competitor = true;
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
	if (optind != argc || !backend || !layout || !p.objects || !kib ||
	    p.limit_mib < 0 || !p.ops)
		usage();
	if (strcmp(layout, "regions") && strcmp(layout, "arena"))
		usage_error(prog, "unknown --layout '%s' (regions or arena)",
			    layout);
	p.arena = !strcmp(layout, "arena");
	p.object_size = kib * 1024;
	if (p.object_size % page_size)
		usage_error(prog, "--object-kib must be a multiple of the page size");
	p.lru = !strcmp(backend, "lru");
	if (!p.lru)
		p.backend = backend_parse(prog, backend);

	c = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("%s: mmap: %m", prog);
	memset(c, 0, sizeof(*c));
	if (cg_create("lab-bench", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create("lab-bench/cache", cg, sizeof(cg)))
		die("%s: cannot set up cgroup lab-bench/cache: %m", prog);
	if (p.limit_mib ? cg_write_u64(cg, "memory.max", p.limit_mib * MIB) :
			  cg_write(cg, "memory.max", "max"))
		die("%s: cannot set memory.max: %m", prog);
	if (p.lru) {
		/* The competitor's peak is a quarter of the limit. */
		p.lru_budget = p.limit_mib ?
			lru_probe(&p, cg, p.competitor ? p.limit_mib / 4 : 0) :
			p.objects;
		for (tries = 1;; tries++) {
			ooms = run_once(&p, cg, c, &status);
			if ((!ooms && WIFEXITED(status)) || tries == LRU_TRIES)
				break;
			p.lru_budget = p.lru_budget * 9 / 10;
			if (p.lru_budget < 1)
				p.lru_budget = 1;
		}
	} else {
		ooms = run_once(&p, cg, c, &status);
	}

	snprintf(bench, sizeof(bench), "cache_%s%s", layout,
		 p.competitor ? "_competitor" : "");
	snprintf(param, sizeof(param), "limit_mib=%ld", p.limit_mib);
	if (csv_open(&csv, csv_path, backend, bench, rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	/* A cache that was OOM-killed missed every operation it never did. */
	csv_row(&csv, param, "hit_rate", "ratio", (double)c->hits / p.ops);
	csv_row(&csv, param, "hits", "count", c->hits);
	csv_row(&csv, param, "misses", "count", c->misses);
	csv_row(&csv, param, "purges", "count", c->purges);
	csv_row(&csv, param, "verify_failures", "count", c->verify_failures);
	if (!p.lru && backend_drops_pinned(p.backend))
		csv_row(&csv, param, "late_drops", "count", c->late_drops);
	csv_row(&csv, param, "oom_kills", "count", ooms);
	csv_row(&csv, param, "ops_done", "count", c->ops);
	csv_row(&csv, param, "ops_per_s", "ops/s",
		c->elapsed_ns ? c->ops / (c->elapsed_ns / 1e9) : 0);
	csv_row(&csv, param, "cache_exit", "status",
		WIFEXITED(status) ? WEXITSTATUS(status) :
				    128 + WTERMSIG(status));
	if (p.lru) {
		csv_row(&csv, param, "lru_budget", "objects", p.lru_budget);
		csv_row(&csv, param, "lru_tries", "count", tries);
		if (csv_close(&csv) ||
		    csv_open(&csv, csv_path, "belady", bench, rep))
			die("%s: cannot write %s: %m", prog, csv_path);
		csv_row(&csv, param, "hit_rate", "ratio",
			(double)belady_hits(&p, p.lru_budget) / p.ops);
		csv_row(&csv, param, "lru_budget", "objects", p.lru_budget);
	}
	return csv_close(&csv) ? 1 : 0;
}
