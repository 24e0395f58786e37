// SPDX-License-Identifier: GPL-2.0
/*
 * An ashmem client as Chromium's discardable memory uses the API: 64
 * regions, each filled, unpinned, then pinned and read back, the whole
 * object regenerated when its pin reports a purge.  Linked with each
 * backend (client64_ashmem_test, client64_volatile_test).
 *
 * Without pressure both backends must give the same results and data:
 * every pin NOT_PURGED and a digest of the data that is the same
 * number.  Under a cgroup memory.max of half the regions' size, the
 * volatile backend must report WAS_PURGED and never hand back wrong
 * data; ashmem's shrinker is not memcg-aware, so it is OOM-killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cutils/ashmem.h>

#include "cgroup.h"
#include "tap.h"

#define REGIONS 64
#define REGION_SIZE (256 * 1024)
#define WORDS (REGION_SIZE / sizeof(uint64_t))

struct outcome {
	int not_purged, was_purged, errors;
	size_t wrong_bytes;	/* data neither the object nor zeros */
	uint64_t digest;	/* of pin results and data read back */
};

static uint64_t word(int region, size_t w)
{
	return (uint64_t)(region + 1) * 0x9e3779b97f4a7c15ULL ^ w;
}

static void fill(uint64_t *p, int region)
{
	size_t w;

	for (w = 0; w < WORDS; w++)
		p[w] = word(region, w);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static struct outcome run_client(void)
{
	struct outcome o = { .digest = 0xcbf29ce484222325ULL };
	uint64_t *maps[REGIONS];
	int fds[REGIONS], i;
	size_t w;

	for (i = 0; i < REGIONS; i++) {
		fds[i] = ashmem_create_region("lab-client", REGION_SIZE);
		maps[i] = fds[i] < 0 ? MAP_FAILED :
			ashmem_map_region(fds[i], PROT_READ | PROT_WRITE);
		if (maps[i] == MAP_FAILED) {
			o.errors++;
			continue;
		}
		fill(maps[i], i);
		o.errors += ashmem_unpin_region(fds[i], 0, 0) != 0;
	}
	for (i = 0; i < REGIONS; i++) {
		int r;

		if (maps[i] == MAP_FAILED)
			continue;
		r = ashmem_pin_region(fds[i], 0, 0);
		o.digest = mix(o.digest, r);
		if (r == ASHMEM_NOT_PURGED) {
			o.not_purged++;
		} else if (r == ASHMEM_WAS_PURGED) {
			o.was_purged++;
		} else {
			o.errors++;
			continue;
		}
		/* Pinned pages hold the object, or zeros where purged. */
		for (w = 0; w < WORDS; w++) {
			uint64_t v = maps[i][w];

			o.digest = mix(o.digest, v);
			if (v != word(i, w) &&
			    (v != 0 || r != ASHMEM_WAS_PURGED))
				o.wrong_bytes += sizeof(v);
		}
		if (r == ASHMEM_WAS_PURGED)
			fill(maps[i], i);
		ashmem_unmap_region(maps[i], REGION_SIZE);
		close(fds[i]);
	}
	return o;
}

/* The digest of a run in which every pin found its object intact. */
static uint64_t expected_digest(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t w;
	int i;

	for (i = 0; i < REGIONS; i++) {
		h = mix(h, ASHMEM_NOT_PURGED);
		for (w = 0; w < WORDS; w++)
			h = mix(h, word(i, w));
	}
	return h;
}

/* The client under memory.max = half the regions; results to a pipe. */
static int limited_client(const char *cg, int out)
{
	struct outcome o;

	if (cg_write_u64(cg, "memory.max", REGIONS * REGION_SIZE / 2) ||
	    cg_enter(cg))
		return 10;
	o = run_client();
	return write(out, &o, sizeof(o)) == sizeof(o) ? 0 : 11;
}

int main(void)
{
	char parent[CG_PATH_MAX], cg[CG_PATH_MAX], name[64];
	struct outcome o;
	uint64_t ooms = 0;
	int fds[2], status;
	bool compat = !strcmp(ashmem_backend(), "volatile");
	pid_t pid;

	tap_plan(3);
	/* A run with LD_PRELOAD says which library it must have got. */
	if (getenv("LAB_EXPECT_BACKEND") &&
	    strcmp(getenv("LAB_EXPECT_BACKEND"), ashmem_backend()))
		tap_bail("backend %s, not the expected %s", ashmem_backend(),
			 getenv("LAB_EXPECT_BACKEND"));
	o = run_client();
	tap_diag("%s, no pressure: %d NOT_PURGED, %d WAS_PURGED, %d errors, digest %016llx",
		 ashmem_backend(), o.not_purged, o.was_purged, o.errors,
		 (unsigned long long)o.digest);
	tap_result(o.not_purged == REGIONS && o.errors == 0 &&
		   o.wrong_bytes == 0,
		   "no pressure: all %d regions NOT_PURGED, data intact",
		   REGIONS);
	/* Both backends must match the same expected run, byte for byte. */
	tap_result(o.digest == expected_digest(),
		   "no pressure: digest %016llx of results and data is the expected one",
		   (unsigned long long)o.digest);

	snprintf(name, sizeof(name), "lab-client/%s", ashmem_backend());
	if (cg_create("lab-client", parent, sizeof(parent)) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(name, cg, sizeof(cg)) || pipe(fds))
		tap_bail("cannot create cgroup %s: %s", name, strerror(errno));
	memset(&o, 0, sizeof(o));
	pid = fork();
	if (pid == 0)
		_exit(limited_client(cg, fds[1]));
	close(fds[1]);
	waitpid(pid, &status, 0);
	if (read(fds[0], &o, sizeof(o)) != sizeof(o))
		memset(&o, 0, sizeof(o));
	cg_read_key(cg, "memory.events", "oom_kill", &ooms);
	tap_diag("%s, memory.max %d KiB: status %#x, %llu OOM kills, %d NOT_PURGED, %d WAS_PURGED, %d errors, %zu wrong bytes",
		 ashmem_backend(), REGIONS * REGION_SIZE / 2 / 1024, status,
		 (unsigned long long)ooms, o.not_purged, o.was_purged,
		 o.errors, o.wrong_bytes);
	if (compat)
		tap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			   ooms == 0 && o.was_purged > 0 && o.errors == 0 &&
			   o.wrong_bytes == 0 &&
			   o.not_purged + o.was_purged == REGIONS,
			   "memory.max of half the regions: WAS_PURGED, never wrong data");
	else
		tap_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
			   ooms > 0,
			   "memory.max of half the regions: ashmem is OOM-killed (its shrinker is not memcg-aware)");
	rmdir(cg);
	return tap_finish();
}
