// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark family 4: regions shared by two processes through their fds,
 * as binder hands ashmem regions from a producer to a consumer.
 *
 * A producer in cgroup lab-bench/producer creates --regions regions of
 * --region-kib KiB, fills and unpins each, and passes its fd over a unix
 * socket (SCM_RIGHTS) to a consumer in lab-bench/consumer, which maps it,
 * pins it, checks its contents and unpins it again before it answers.
 * Then each side's memory.reclaim is asked for all of the data, the
 * consumer's first; after each, the producer pins every region, counts
 * those purged and refills and unpins them.  Last, each side's memory.max
 * (the consumer's first) is set to its usage plus half the data, and a
 * hog of the data's size runs in that cgroup: it completes only if the
 * cgroup's reclaim frees the other half, which there only a purge of the
 * regions can do; otherwise the hog is OOM-killed.
 *
 *   handoff_us_p50, _p99  one region: send, the consumer's map + pin +
 *                         check + unpin, the answer
 *   handoff_bad           regions the consumer found neither intact nor
 *                         reported purged (must be 0)
 *   pin_us_p50, _p99      the consumer's pin of a region it received
 *   unpin_us_p50, _p99    the consumer's unpin of it
 *   purged_pct_consumer   regions purged by the consumer's memory.reclaim
 *   purged_pct_producer   regions purged by the producer's memory.reclaim
 *                         (the pages are charged to the producer, which
 *                         wrote them)
 *   hog_ok_consumer       1 if the hog under the consumer's memory.max
 *                         completed, 0 if it was OOM-killed
 *   hog_ok_producer       the same under the producer's memory.max
 *   max_purged_pct_consumer, _producer
 *                         regions purged while the hog ran there
 *
 * Backends: the ones whose regions an fd shares: ashmem, volatile (memfd
 * volatile ranges) and memfd (Android's memfd path: pin and unpin do
 * nothing).
 *
 *   sharebench_<lib> --backend B --regions N --region-kib K [--rep R]
 *                    [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "bench.h"
#include "cgroup.h"
#include "fdpass.h"
#include "proc.h"

static const char *prog = "sharebench";

static void usage(void)
{
	usage_error(prog, "usage: %s --backend ashmem|volatile|memfd --regions N --region-kib K [--rep R] [--csv FILE]",
		    prog);
}

/* What the consumer answers for each region. */
struct answer {
	uint64_t pin_ns, unpin_ns;
	uint64_t bad;	/* neither intact nor reported purged, or an error */
};

/*
 * The consumer: for each fd received, the region's number follows as
 * one word; map, pin, check, unpin, answer.
 */
static void consumer(int sock, enum backend b, size_t len, const char *cg)
{
	struct answer a;
	uint64_t id, t0;
	int fd;

	if (cg_enter(cg))
		_exit(2);
	while ((fd = fd_recv(sock)) >= 0) {
		struct region r = { .backend = b, .fd = fd, .len = len };
		int purged;

		memset(&a, 0, sizeof(a));
		a.bad = 1;
		if (read(sock, &id, sizeof(id)) != sizeof(id))
			_exit(3);
		r.map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		if (r.map != MAP_FAILED) {
			t0 = now_ns();
			purged = region_pin(&r, 0, len);
			a.pin_ns = now_ns() - t0;
			a.bad = purged < 0 ||
				(!purged && content_mismatches(r.map, len, id));
			t0 = now_ns();
			a.bad |= region_unpin(&r, 0, len) != 0;
			a.unpin_ns = now_ns() - t0;
			munmap(r.map, len);
		}
		close(fd);
		if (write(sock, &a, sizeof(a)) != sizeof(a))
			_exit(4);
	}
	_exit(0);
}

/* Regions purged, pinned one by one; purged ones are refilled. */
static long count_purged(struct region *rs, long n)
{
	long i, purged = 0;
	int ret;

	for (i = 0; i < n; i++) {
		ret = region_pin(&rs[i], 0, rs[i].len);
		if (ret < 0)
			die("%s: pin: %m", prog);
		if (ret)
			content_fill(rs[i].map, rs[i].len, i + 1);
		purged += ret;
		if (region_unpin(&rs[i], 0, rs[i].len))
			die("%s: unpin: %m", prog);
	}
	return purged;
}

/*
 * Set @cg's memory.max to its usage plus half of @bytes and run a hog of
 * @bytes of anonymous memory in it (the OOM killer's first choice).
 * Returns 1 when the hog completed, 0 when it was OOM-killed.
 */
static int hog_under_max(const char *cg, size_t bytes)
{
	uint64_t current;
	size_t off;
	int status;
	pid_t pid;
	char *p;

	if (cg_read_u64(cg, "memory.current", &current) ||
	    cg_write_u64(cg, "memory.max", current + bytes / 2))
		die("%s: memory.max of %s: %m", prog, cg);
	pid = fork();
	if (pid < 0)
		die("%s: fork: %m", prog);
	if (pid == 0) {
		if (cg_enter(cg) || set_oom_score_adj(1000))
			_exit(2);
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		for (off = 0; off < bytes; off += page_size)
			p[off] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("%s: waitpid: %m", prog);
	if (cg_write(cg, "memory.max", "max"))
		die("%s: memory.max of %s: %m", prog, cg);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return 0;
	die("%s: the hog in %s failed (status %#x)", prog, cg, status);
}

static void reclaim_all(const char *cg, long n, size_t len)
{
	if (cg_write_u64(cg, "memory.reclaim", (uint64_t)n * len) &&
	    errno != EAGAIN)
		die("%s: memory.reclaim of %s: %m", prog, cg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "regions", required_argument, NULL, 'n' },
		{ "region-kib", required_argument, NULL, 'k' },
		{ "rep", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	char parent[CG_PATH_MAX], pcg[CG_PATH_MAX], ccg[CG_PATH_MAX];
	const char *backend = NULL, *csv_path = NULL;
	long n = 0, kib = 0, rep = 1, i, bad = 0, p_cons, p_prod;
	long m_cons, m_prod;
	struct samples handoff = { 0 }, pin = { 0 }, unpin = { 0 };
	struct answer answer;
	int hog_cons, hog_prod;
	struct region *rs;
	struct csv csv;
	char param[64];
	int sv[2], opt, status;
	enum backend b;
	size_t len;
	pid_t pid;

	prog = argv[0];
	bench_init();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			backend = optarg;
			break;
		case 'n':
			n = parse_long("--regions", optarg, 1, 4096);
			break;
		case 'k':
			kib = parse_long("--region-kib", optarg, 4, 65536);
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
	if (optind != argc || !backend || !n || !kib)
		usage();
	b = backend_parse(prog, backend);
	if (b != BACKEND_ASHMEM && b != BACKEND_VOLATILE && b != BACKEND_MEMFD)
		usage_error(prog, "backend %s cannot share a region through an fd (ashmem, volatile or memfd)",
			    backend);
	len = (kib * 1024 + page_size - 1) & ~(page_size - 1);

	if (cg_create("lab-bench", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create("lab-bench/producer", pcg, sizeof(pcg)) ||
	    cg_create("lab-bench/consumer", ccg, sizeof(ccg)) ||
	    cg_enter(pcg))
		die("%s: cannot set up the cgroups under lab-bench: %m", prog);
	/* The hogs, not the regions' owner, are the OOM victims. */
	if (set_oom_score_adj(-1000))
		die("%s: oom_score_adj: %m", prog);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("%s: socketpair: %m", prog);
	pid = fork();
	if (pid < 0)
		die("%s: fork: %m", prog);
	if (pid == 0) {
		close(sv[0]);
		consumer(sv[1], b, len, ccg);
	}
	close(sv[1]);

	rs = calloc(n, sizeof(*rs));
	if (!rs)
		die("%s: out of memory", prog);
	for (i = 0; i < n; i++) {
		uint64_t id = i + 1, t0;

		if (region_create(&rs[i], b, len))
			die("%s: region %ld: %m", prog, i);
		content_fill(rs[i].map, len, id);
		if (region_unpin(&rs[i], 0, len))
			die("%s: unpin: %m", prog);
		t0 = now_ns();
		if (fd_send(sv[0], rs[i].fd) ||
		    write(sv[0], &id, sizeof(id)) != sizeof(id) ||
		    read(sv[0], &answer, sizeof(answer)) != sizeof(answer))
			die("%s: handoff of region %ld: %m", prog, i);
		samples_add(&handoff, (now_ns() - t0) / 1e3);
		samples_add(&pin, answer.pin_ns / 1e3);
		samples_add(&unpin, answer.unpin_ns / 1e3);
		bad += answer.bad != 0;
	}
	shutdown(sv[0], SHUT_WR);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s: the consumer failed (status %#x)", prog, status);

	reclaim_all(ccg, n, len);
	p_cons = count_purged(rs, n);
	reclaim_all(pcg, n, len);
	p_prod = count_purged(rs, n);
	hog_cons = hog_under_max(ccg, n * len);
	m_cons = count_purged(rs, n);
	hog_prod = hog_under_max(pcg, n * len);
	m_prod = count_purged(rs, n);

	snprintf(param, sizeof(param), "region_kib=%ld", kib);
	if (csv_open(&csv, csv_path, backend, "share", rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	csv_row(&csv, param, "handoff_us_p50", "us",
		samples_pct(&handoff, 50));
	csv_row(&csv, param, "handoff_us_p99", "us",
		samples_pct(&handoff, 99));
	csv_row(&csv, param, "handoff_bad", "count", bad);
	csv_row(&csv, param, "pin_us_p50", "us", samples_pct(&pin, 50));
	csv_row(&csv, param, "pin_us_p99", "us", samples_pct(&pin, 99));
	csv_row(&csv, param, "unpin_us_p50", "us", samples_pct(&unpin, 50));
	csv_row(&csv, param, "unpin_us_p99", "us", samples_pct(&unpin, 99));
	csv_row(&csv, param, "purged_pct_consumer", "%", 100.0 * p_cons / n);
	csv_row(&csv, param, "purged_pct_producer", "%", 100.0 * p_prod / n);
	csv_row(&csv, param, "hog_ok_consumer", "count", hog_cons);
	csv_row(&csv, param, "hog_ok_producer", "count", hog_prod);
	csv_row(&csv, param, "max_purged_pct_consumer", "%",
		100.0 * m_cons / n);
	csv_row(&csv, param, "max_purged_pct_producer", "%",
		100.0 * m_prod / n);
	for (i = 0; i < n; i++)
		region_destroy(&rs[i]);
	free(rs);
	samples_free(&handoff);
	samples_free(&pin);
	samples_free(&unpin);
	cg_enter(CG_ROOT);
	return csv_close(&csv) ? 1 : 0;
}
