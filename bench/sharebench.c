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
 * those purged and refills and unpins them.
 *
 *   handoff_us_p50, _p99  one region: send, the consumer's map + pin +
 *                         check + unpin, the answer
 *   handoff_bad           regions the consumer found neither intact nor
 *                         reported purged (must be 0)
 *   purged_pct_consumer   regions purged by the consumer's memory.reclaim
 *   purged_pct_producer   regions purged by the producer's memory.reclaim
 *                         (the pages are charged to the producer, which
 *                         wrote them)
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

/*
 * The consumer: for each fd received, the region's number follows as
 * one word; map, pin, check, unpin, answer 0 (intact or reported
 * purged) or 1 (anything else).
 */
static void consumer(int sock, enum backend b, size_t len, const char *cg)
{
	uint64_t id;
	int fd;

	if (cg_enter(cg))
		_exit(2);
	while ((fd = fd_recv(sock)) >= 0) {
		struct region r = { .backend = b, .fd = fd, .len = len };
		char bad = 1;
		int purged;

		if (read(sock, &id, sizeof(id)) != sizeof(id))
			_exit(3);
		r.map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		if (r.map != MAP_FAILED) {
			purged = region_pin(&r, 0, len);
			bad = purged < 0 ||
			      (!purged && content_mismatches(r.map, len, id));
			bad |= region_unpin(&r, 0, len) != 0;
			munmap(r.map, len);
		}
		close(fd);
		if (write(sock, &bad, 1) != 1)
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
	struct samples handoff = { 0 };
	struct region *rs;
	struct csv csv;
	char param[64], answer;
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
		    read(sv[0], &answer, 1) != 1)
			die("%s: handoff of region %ld: %m", prog, i);
		samples_add(&handoff, (now_ns() - t0) / 1e3);
		bad += answer != 0;
	}
	shutdown(sv[0], SHUT_WR);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s: the consumer failed (status %#x)", prog, status);

	reclaim_all(ccg, n, len);
	p_cons = count_purged(rs, n);
	reclaim_all(pcg, n, len);
	p_prod = count_purged(rs, n);

	snprintf(param, sizeof(param), "region_kib=%ld", kib);
	if (csv_open(&csv, csv_path, backend, "share", rep))
		die("%s: cannot open %s: %m", prog, csv_path);
	csv_row(&csv, param, "handoff_us_p50", "us",
		samples_pct(&handoff, 50));
	csv_row(&csv, param, "handoff_us_p99", "us",
		samples_pct(&handoff, 99));
	csv_row(&csv, param, "handoff_bad", "count", bad);
	csv_row(&csv, param, "purged_pct_consumer", "%", 100.0 * p_cons / n);
	csv_row(&csv, param, "purged_pct_producer", "%", 100.0 * p_prod / n);
	for (i = 0; i < n; i++)
		region_destroy(&rs[i]);
	free(rs);
	samples_free(&handoff);
	cg_enter(CG_ROOT);
	return csv_close(&csv) ? 1 : 0;
}
