// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_test: proves the lab's guest is what the host thinks it is.
 *
 * - the running kernel is the one just built (its release string, with the
 *   series id, is passed in LAB_EXPECT_RELEASE by the host);
 * - cgroup v2 is mounted with the memory controller enabled for children;
 * - memory.max stops a process inside a child cgroup (OOM kill, no swap);
 * - memory.reclaim lowers memory.current (lazyfree pages, no swap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "tap.h"

#define MIB (1024UL * 1024UL)
#define CGROUP2_MAGIC 0x63677270
#define LIMIT_MIB 32
#define RECLAIM_MIB 32

static size_t page_size;

static void test_release(void)
{
	const char *want = getenv("LAB_EXPECT_RELEASE");
	struct utsname u;

	if (uname(&u)) {
		tap_result(0, "uname: %s", strerror(errno));
		return;
	}
	tap_diag("running %s, expected %s", u.release, want ? want : "(unset)");
	tap_result(want && !strcmp(u.release, want),
		   "guest runs the kernel that was just built");
	tap_result(want && strstr(u.release, "-vl") != NULL,
		   "kernel release carries the patch series id");
}

static void test_cgroup_mount(void)
{
	char controllers[256];
	struct statfs st;

	tap_result(!statfs(CG_ROOT, &st) && st.f_type == CGROUP2_MAGIC,
		   "cgroup2 is mounted at %s", CG_ROOT);
	tap_result(!cg_read(CG_ROOT, "cgroup.subtree_control", controllers,
			    sizeof(controllers)) &&
		   strstr(controllers, "memory") != NULL,
		   "memory controller is enabled for child cgroups");
}

/* Fault in @mib MiB of anonymous memory, one write per page. */
static char *touch_anon(size_t mib)
{
	size_t len = mib * MIB, off;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (off = 0; off < len; off += page_size)
		p[off] = (char)(off / page_size) | 1;
	return p;
}

/* Run touch_anon(@mib) in a child inside cgroup @cg; return wait status. */
static int hog_in_cgroup(const char *cg, size_t mib)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (cg_enter(cg))
			_exit(2);
		_exit(touch_anon(mib) ? 0 : 3);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void test_memory_max(void)
{
	char cg[CG_PATH_MAX];
	uint64_t ooms = 0;
	int status;

	if (cg_create("lab-pipeline-max", cg, sizeof(cg)) ||
	    cg_write_u64(cg, "memory.max", LIMIT_MIB * MIB))
		tap_bail("cannot set up cgroup lab-pipeline-max: %s",
			 strerror(errno));

	status = hog_in_cgroup(cg, LIMIT_MIB / 4);
	tap_result(status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		   "a process using %d MiB under memory.max=%dM runs to the end",
		   LIMIT_MIB / 4, LIMIT_MIB);

	status = hog_in_cgroup(cg, LIMIT_MIB * 4);
	tap_result(status >= 0 && WIFSIGNALED(status) &&
		   WTERMSIG(status) == SIGKILL,
		   "a process touching %d MiB under memory.max=%dM is killed",
		   LIMIT_MIB * 4, LIMIT_MIB);
	if (cg_read_key(cg, "memory.events", "oom_kill", &ooms))
		ooms = 0;
	tap_result(ooms >= 1, "memory.events counts the OOM kill (%llu)",
		   (unsigned long long)ooms);
	if (cg_destroy(cg))
		tap_diag("rmdir %s: %s", cg, strerror(errno));
}

/*
 * A child in the cgroup faults in RECLAIM_MIB of anonymous memory and
 * frees it lazily (MADV_FREE); the parent asks memory.reclaim for it.
 * With no swap only lazyfree pages are reclaimable, so memory.current
 * must drop by most of the region and the pages must read back as zero.
 */
static void test_memory_reclaim(void)
{
	uint64_t before = 0, after = 0, lazy_before = 0, lazy_after = 0;
	int ready[2], go[2], result[2], status, rc;
	uint64_t counts[2] = { 0, UINT64_MAX }, pages;
	char cg[CG_PATH_MAX], c;
	pid_t pid;

	if (cg_create("lab-pipeline-reclaim", cg, sizeof(cg)) ||
	    pipe(ready) || pipe(go) || pipe(result))
		tap_bail("cannot set up the reclaim test: %s", strerror(errno));

	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		size_t off, len = RECLAIM_MIB * MIB;
		uint64_t counts[2] = { 0, 0 };
		char *p, v;

		if (cg_enter(cg))
			_exit(2);
		p = touch_anon(RECLAIM_MIB);
		if (!p || madvise(p, len, MADV_FREE))
			_exit(3);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(4);
		/* A page is either discarded (zero) or intact. */
		for (off = 0; off < len; off += page_size) {
			v = p[off];
			if (v == 0)
				counts[0]++;
			else if (v != ((char)(off / page_size) | 1))
				counts[1]++;
		}
		if (write(result[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(5);
		_exit(0);
	}

	if (read(ready[0], &c, 1) != 1)
		tap_bail("reclaim child died before it was ready");
	cg_read_u64(cg, "memory.current", &before);
	vmstat_read("pglazyfreed", &lazy_before);
	rc = cg_write_u64(cg, "memory.reclaim", RECLAIM_MIB * MIB);
	if (rc)
		tap_diag("memory.reclaim: %s", strerror(errno));
	cg_read_u64(cg, "memory.current", &after);
	vmstat_read("pglazyfreed", &lazy_after);
	if (write(go[1], "g", 1) != 1 ||
	    read(result[0], counts, sizeof(counts)) != sizeof(counts))
		counts[1] = UINT64_MAX;
	waitpid(pid, &status, 0);

	tap_diag("memory.current %llu -> %llu bytes, pglazyfreed +%llu",
		 (unsigned long long)before, (unsigned long long)after,
		 (unsigned long long)(lazy_after - lazy_before));
	tap_result(before >= RECLAIM_MIB * MIB &&
		   before - after >= RECLAIM_MIB * MIB * 3 / 4,
		   "memory.reclaim lowers memory.current by most of %d MiB",
		   RECLAIM_MIB);
	pages = RECLAIM_MIB * MIB / page_size;
	tap_diag("%llu of %llu pages read back zero, %llu corrupt",
		 (unsigned long long)counts[0], (unsigned long long)pages,
		 (unsigned long long)counts[1]);
	tap_result(lazy_after - lazy_before >= counts[0] && counts[0] > 0,
		   "/proc/vmstat pglazyfreed counts the discarded pages");
	tap_result(counts[0] >= pages * 3 / 4 && counts[1] == 0,
		   "discarded pages read back as zero, the others intact");
	tap_result(WIFEXITED(status) && !WEXITSTATUS(status),
		   "the reclaim child exits cleanly");
	if (cg_destroy(cg))
		tap_diag("rmdir %s: %s", cg, strerror(errno));
}

int main(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	tap_plan(11);
	test_release();
	test_cgroup_mount();
	test_memory_max();
	test_memory_reclaim();
	return tap_finish();
}
