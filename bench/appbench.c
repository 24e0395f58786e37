// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 5: Android's regime.
 *
 * N app processes, each in a cgroup of its own (lab-bench/app<i>) with
 * no memory.max, as on a phone: the pressure is global.  The device is
 * what is available (MemAvailable) when the run starts less a locked
 * ballast, so that F MiB are left to the apps.  Each app has a cache of compressed images: K
 * objects of S KiB, each in a region of its own, unpinned while unused.
 * A miss decodes the object (zlib, from a compressed copy the app keeps),
 * so a miss costs real work; a hit is verified byte for byte against the
 * decoded reference.
 *
 * The run is W app switches.  The app switched to becomes the foreground
 * (oom_score_adj 0; the others 900, as Android's cached apps): it
 * "launches" by using its L most popular objects (the launch latency),
 * then does O Zipf-distributed accesses while its heap grows to G MiB;
 * the heap is freed when it goes back to the background.  Memory pressure
 * comes from the foreground's heap and the caches together; what gives
 * way is the backend's: a purge (ashmem, volatile, madvfree), or the OOM
 * killer (pinned, memfd: Android's libcutils today).  An app the OOM
 * killer took is started again, cold, when it is next switched to.
 *
 *   appbench_<lib> --backend B --apps N --cache-mib C --object-kib S
 *        --fg-mib G --free-mib F --switches W --ops O [--launch L]
 *        [--seed X] [--rep R] [--csv FILE]
 *
 * Rows (param "swap_mib=N": the swap there was, 0 or a zram device's
 * size): hit_rate, launch_ms p50/p99/max (W
 * samples: p99 is the max below 100), cold_launches, oom_kills_bg and
 * oom_kills_fg (who the OOM killer took), psi_some_pct and psi_full_pct
 * (share of the run some/all tasks stalled on memory, from
 * /proc/pressure/memory), decode_ms_mean (the cost of one miss),
 * session_s (the foreground's total time), purges, verify_failures.
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
#include <unistd.h>
#include <zlib.h>

#include "backend.h"
#include "bench.h"
#include "cgroup.h"
#include "proc.h"
#include "psi.h"
#include "zipf.h"

#define MAX_APPS 16
#define BLOBS 4
#define ZIPF_S 0.9
#define ADJ_FOREGROUND 0
#define ADJ_CACHED 900

static const char *prog = "appbench";

struct params {
	enum backend backend;
	long apps, objects, fg_mib, free_mib, switches, ops, launch;
	size_t object_size;
	uint64_t seed;
};

/* One app's counters, in memory shared with the parent (survives kills). */
struct app_stats {
	long hits, misses, purges, verify_failures;
	long decodes;
	uint64_t decode_ns, launch_ns;
};

/* The images: BLOBS decoded references and their compressed forms. */
struct images {
	unsigned char *ref[BLOBS], *zip[BLOBS];
	unsigned long zip_len[BLOBS];
};

struct app {
	pid_t pid;
	int cmd, reply;		/* the parent's ends of the app's pipes */
	char cg[CG_PATH_MAX];
	bool started, ever_started;
};

static void usage(void)
{
	usage_error(prog, "usage: %s --backend B --apps N --cache-mib C --object-kib S --fg-mib G --free-mib F --switches W --ops O [--launch L] [--seed X] [--rep R] [--csv FILE]\n  backends: %s",
		    prog, BACKEND_NAMES);
}

/*
 * A synthetic RGBA image of @len bytes: gradients with a little noise, so
 * that it compresses about as well as a photo's raw pixels do, with an
 * opaque alpha (every word non-zero: madvfree's canary needs it).
 */
static void image_fill(unsigned char *p, size_t len, int id)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (id + 1);
	size_t i, px = len / 4;

	for (i = 0; i < px; i++) {
		unsigned int x = i % 256, y = i / 256;
		unsigned int noise = rng_next(&rng) & 7;

		p[4 * i] = (x + 37 * id) & 0xff;
		p[4 * i + 1] = (2 * y + 11 * id + noise) & 0xff;
		p[4 * i + 2] = ((x ^ y) + noise) & 0xff;
		p[4 * i + 3] = 0xff;
	}
}

static void images_make(struct images *im, size_t len)
{
	int i;

	for (i = 0; i < BLOBS; i++) {
		uLongf zlen = compressBound(len);

		im->ref[i] = malloc(len);
		im->zip[i] = malloc(zlen);
		if (!im->ref[i] || !im->zip[i])
			die("%s: out of memory", prog);
		image_fill(im->ref[i], len, i);
		if (compress2(im->zip[i], &zlen, im->ref[i], len,
			      Z_BEST_SPEED) != Z_OK)
			die("%s: compress2 failed", prog);
		im->zip_len[i] = zlen;
	}
}

/* Decode object @k into @dst: the miss's work. */
static void decode(const struct images *im, long k, void *dst, size_t len,
		   struct app_stats *st)
{
	uLongf out = len;
	uint64_t t0 = now_ns();

	if (uncompress(dst, &out, im->zip[k % BLOBS],
		       im->zip_len[k % BLOBS]) != Z_OK || out != len)
		die("%s: cannot decode object %ld", prog, k);
	st->decode_ns += now_ns() - t0;
	st->decodes++;
}

struct cache {
	const struct params *p;
	const struct images *im;
	struct region *regions;
	bool *present;
	struct app_stats *st;
};

/* Use object @k: pin it, verify or decode it, unpin it. */
static void cache_access(struct cache *c, long k)
{
	struct region *r = &c->regions[k];
	size_t len = c->p->object_size;
	bool hit = false;

	if (!c->present[k]) {
		if (region_create(r, c->p->backend, len))
			die("%s: cannot create object %ld: %m", prog, k);
		c->present[k] = true;
	} else {
		int ret = region_pin(r, 0, len);

		if (ret < 0)
			die("%s: pin: %m", prog);
		hit = ret == 0;
		c->st->purges += ret;
	}
	if (hit) {
		c->st->hits++;
		if (memcmp(r->map, c->im->ref[k % BLOBS], len))
			c->st->verify_failures++;
	} else {
		c->st->misses++;
		decode(c->im, k, r->map, len, c->st);
	}
	if (region_unpin(r, 0, len))
		die("%s: unpin: %m", prog);
}

/*
 * One foreground session: the launch (the @p->launch most popular
 * objects, timed), then @p->ops accesses while the heap grows to
 * @p->fg_mib MiB; the heap goes when the session ends.
 */
static void session(struct cache *c, const double *cdf, uint64_t *rng)
{
	const struct params *p = c->p;
	size_t heap_len = p->fg_mib * MIB, touched = 0, want, off;
	char *heap = NULL;
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < p->launch && i < p->objects; i++)
		cache_access(c, i);
	c->st->launch_ns = now_ns() - t0;
	if (heap_len) {
		heap = mmap(NULL, heap_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (heap == MAP_FAILED)
			die("%s: heap: %m", prog);
	}
	for (i = 0; i < p->ops; i++) {
		cache_access(c, zipf_pick(cdf, p->objects, rng));
		want = heap_len / p->ops * (i + 1);
		for (off = touched; off < want; off += page_size)
			heap[off] = 1;
		if (want > touched)
			touched = want;
	}
	if (heap)
		munmap(heap, heap_len);
}

static void app_main(const struct params *p, const struct images *im,
		     struct app_stats *st, int index, int cmd, int reply)
{
	struct cache c = {
		.p = p, .im = im, .st = st,
		.regions = calloc(p->objects, sizeof(*c.regions)),
		.present = calloc(p->objects, sizeof(*c.present)),
	};
	double *cdf = zipf_cdf(p->objects, ZIPF_S);
	uint64_t rng = (p->seed + index) * 2 + 1;
	char op;

	if (!c.regions || !c.present)
		_exit(3);
	while (read(cmd, &op, 1) == 1) {
		session(&c, cdf, &rng);
		if (write(reply, "D", 1) != 1)
			_exit(4);
	}
	_exit(0);
}

static void set_adj(pid_t pid, int adj)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", pid);
	f = fopen(path, "we");
	if (!f)
		return;		/* the app is gone: reaped by the caller */
	fprintf(f, "%d\n", adj);
	fclose(f);
}

static void app_start(struct app *a, const struct params *p,
		      const struct images *im, struct app_stats *st,
		      int index)
{
	int cmd[2], reply[2];

	if (pipe(cmd) || pipe(reply))
		die("%s: pipe: %m", prog);
	a->pid = fork();
	if (a->pid < 0)
		die("%s: fork: %m", prog);
	if (a->pid == 0) {
		close(cmd[1]);
		close(reply[0]);
		if (cg_enter(a->cg) || set_oom_score_adj(ADJ_CACHED))
			_exit(2);
		app_main(p, im, st, index, cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	a->cmd = cmd[1];
	a->reply = reply[0];
	a->started = true;
	a->ever_started = true;
}

/* Reap @a if it died; true when it is gone (and how, in *@killed). */
static bool app_gone(struct app *a, bool wait, bool *killed)
{
	int status;

	if (!a->started)
		return true;
	if (waitpid(a->pid, &status, wait ? 0 : WNOHANG) <= 0)
		return false;
	*killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	if (!*killed)
		die("%s: an app exited with status 0x%x", prog, status);
	close(a->cmd);
	close(a->reply);
	a->started = false;
	return true;
}

/* The ballast: @mib MiB locked in memory, in a process nobody may kill. */
static pid_t ballast_start(long mib)
{
	int ready[2];
	char c;
	pid_t pid;

	if (pipe(ready))
		die("%s: pipe: %m", prog);
	pid = fork();
	if (pid < 0)
		die("%s: fork: %m", prog);
	if (pid == 0) {
		close(ready[0]);
		/*
		 * Locked first, protected after: if the ballast itself does
		 * not fit, the OOM killer takes it, not the benchmark driver.
		 */
		if ((mib && mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED |
				 MAP_POPULATE, -1, 0) == MAP_FAILED) ||
		    set_oom_score_adj(-1000))
			_exit(2);
		if (write(ready[1], "R", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("%s: cannot lock a %ld MiB ballast", prog, mib);
	close(ready[0]);
	return pid;
}

/* The some and full totals of /proc/pressure/memory, in microseconds. */
static void psi_memory(uint64_t *some, uint64_t *full)
{
	if (psi_totals(PSI_MEMORY, some, full))
		die("%s: cannot read %s (CONFIG_PSI?): %m", prog, PSI_MEMORY);
}

struct outcome {
	struct samples launch_ms;
	long cold_launches, kills_bg, kills_fg;
	uint64_t session_ns;
};

static void run(const struct params *p, struct app_stats *stats,
		struct outcome *o)
{
	struct images im;
	struct app apps[MAX_APPS] = { 0 };
	char parent[CG_PATH_MAX], name[32];
	uint64_t rng = p->seed * 2 + 1;
	long free_mib, ballast_mib, s, fg = -1, i;
	bool killed;
	pid_t ballast;

	images_make(&im, p->object_size);
	if (cg_create("lab-bench", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory"))
		die("%s: cannot set up cgroup lab-bench: %m", prog);
	for (i = 0; i < p->apps; i++) {
		snprintf(name, sizeof(name), "lab-bench/app%ld", i);
		if (cg_create(name, apps[i].cg, sizeof(apps[i].cg)))
			die("%s: cannot create cgroup %s: %m", prog, name);
	}
	/*
	 * MemAvailable, not MemFree: the free pages below the zones' high
	 * watermarks (tens of MiB with THP) are not the apps' to take.
	 */
	free_mib = meminfo_kb("MemAvailable") / 1024;
	ballast_mib = free_mib - p->free_mib;
	if (ballast_mib < 0)
		die("%s: only %ld MiB available, --free-mib %ld asked", prog,
		    free_mib, p->free_mib);
	ballast = ballast_start(ballast_mib);

	for (s = 0; s < p->switches; s++) {
		long next = rng_next(&rng) % (p->apps - (fg >= 0));
		uint64_t t0;
		char done;

		if (fg >= 0 && next >= fg)
			next++;		/* never the app already in front */
		for (i = 0; i < p->apps; i++)
			if (apps[i].started && app_gone(&apps[i], false,
							&killed))
				o->kills_bg++;
		if (!apps[next].started) {
			/* Started again after the OOM killer took it. */
			o->cold_launches += apps[next].ever_started;
			app_start(&apps[next], p, &im, &stats[next], next);
		}
		fg = next;
		set_adj(apps[fg].pid, ADJ_FOREGROUND);
		t0 = now_ns();
		if (write(apps[fg].cmd, "F", 1) != 1 ||
		    read(apps[fg].reply, &done, 1) != 1) {
			app_gone(&apps[fg], true, &killed);
			o->kills_fg++;
			o->session_ns += now_ns() - t0;
			continue;
		}
		o->session_ns += now_ns() - t0;
		samples_add(&o->launch_ms, stats[fg].launch_ns / 1e6);
		set_adj(apps[fg].pid, ADJ_CACHED);
	}
	for (i = 0; i < p->apps; i++) {
		if (!apps[i].started)
			continue;
		if (app_gone(&apps[i], false, &killed)) {
			o->kills_bg++;
			continue;
		}
		kill(apps[i].pid, SIGKILL);
		app_gone(&apps[i], true, &killed);
	}
	kill(ballast, SIGKILL);
	waitpid(ballast, NULL, 0);
	for (i = 0; i < p->apps; i++)
		cg_destroy(apps[i].cg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "apps", required_argument, NULL, 'a' },
		{ "cache-mib", required_argument, NULL, 'C' },
		{ "object-kib", required_argument, NULL, 's' },
		{ "fg-mib", required_argument, NULL, 'g' },
		{ "free-mib", required_argument, NULL, 'f' },
		{ "switches", required_argument, NULL, 'w' },
		{ "ops", required_argument, NULL, 'n' },
		{ "launch", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'x' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct params p = { .seed = 20261204, .launch = 8 };
	const char *backend = NULL, *csv_path = NULL;
	long rep = 1, cache_mib = 0, kib = 0, i;
	uint64_t some0, full0, some1, full1, t0, wall;
	struct app_stats *stats, sum = { 0 };
	struct outcome o = { 0 };
	char param[32];
	struct csv csv;
	int opt;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'a':
			p.apps = parse_long("--apps", optarg, 2, MAX_APPS);
			break;
		case 'C':
			cache_mib = parse_long("--cache-mib", optarg, 1, 4096);
			break;
		case 's':
			kib = parse_long("--object-kib", optarg, 4, 65536);
			break;
		case 'g':
			p.fg_mib = parse_long("--fg-mib", optarg, 0, 4096);
			break;
		case 'f':
			p.free_mib = parse_long("--free-mib", optarg, 1, 65536);
			break;
		case 'w':
			p.switches = parse_long("--switches", optarg, 1,
						100000);
			break;
		case 'n':
			p.ops = parse_long("--ops", optarg, 1, 100000000);
			break;
		case 'l':
			p.launch = parse_long("--launch", optarg, 0, 65536);
			break;
		case 'x':
			p.seed = parse_long("--seed", optarg, 0, 1L << 40);
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
	if (optind != argc || !backend || !p.apps || !cache_mib || !kib ||
	    !p.free_mib || !p.switches || !p.ops)
		usage();
	p.object_size = kib * 1024;
	if (p.object_size % page_size || p.object_size > (size_t)cache_mib * MIB)
		usage_error(prog, "--object-kib must be a multiple of the page size and at most --cache-mib");
	p.objects = cache_mib * MIB / p.object_size;
	p.backend = backend_parse(prog, backend);

	stats = mmap(NULL, MAX_APPS * sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		die("%s: mmap: %m", prog);
	/* The parent is the system server: the OOM killer must pass it by. */
	signal(SIGPIPE, SIG_IGN);
	if (set_oom_score_adj(-1000))
		die("%s: oom_score_adj: %m", prog);
	psi_memory(&some0, &full0);
	t0 = now_ns();
	run(&p, stats, &o);
	wall = now_ns() - t0;
	psi_memory(&some1, &full1);

	for (i = 0; i < p.apps; i++) {
		sum.hits += stats[i].hits;
		sum.misses += stats[i].misses;
		sum.purges += stats[i].purges;
		sum.verify_failures += stats[i].verify_failures;
		sum.decodes += stats[i].decodes;
		sum.decode_ns += stats[i].decode_ns;
	}
	snprintf(param, sizeof(param), "swap_mib=%ld",
		 meminfo_kb("SwapTotal") / 1024);
	if (csv_open(&csv, csv_path, backend, "app", rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	csv_row(&csv, param, "hit_rate", "ratio", sum.hits + sum.misses ?
		(double)sum.hits / (sum.hits + sum.misses) : 0);
	csv_row(&csv, param, "launches", "count", o.launch_ms.n);
	if (o.launch_ms.n) {
		csv_row(&csv, param, "launch_ms_p50", "ms",
			samples_pct(&o.launch_ms, 50));
		csv_row(&csv, param, "launch_ms_p99", "ms",
			samples_pct(&o.launch_ms, 99));
		csv_row(&csv, param, "launch_ms_max", "ms",
			samples_pct(&o.launch_ms, 100));
	}
	csv_row(&csv, param, "cold_launches", "count", o.cold_launches);
	csv_row(&csv, param, "oom_kills_bg", "count", o.kills_bg);
	csv_row(&csv, param, "oom_kills_fg", "count", o.kills_fg);
	csv_row(&csv, param, "psi_some_pct", "%",
		100.0 * (some1 - some0) / (wall / 1e3));
	csv_row(&csv, param, "psi_full_pct", "%",
		100.0 * (full1 - full0) / (wall / 1e3));
	if (sum.decodes)
		csv_row(&csv, param, "decode_ms_mean", "ms",
			sum.decode_ns / 1e6 / sum.decodes);
	csv_row(&csv, param, "session_s", "s", o.session_ns / 1e9);
	csv_row(&csv, param, "purges", "count", sum.purges);
	csv_row(&csv, param, "verify_failures", "count",
		sum.verify_failures);
	samples_free(&o.launch_ms);
	return csv_close(&csv) ? 1 : 0;
}
