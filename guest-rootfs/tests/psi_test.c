// SPDX-License-Identifier: GPL-2.0
/*
 * psi_test: pressure stall information as the lab's benchmarks and a
 * userspace purge manager use it (CONFIG_PSI).
 *
 * - /proc/pressure/memory and a cgroup's memory.pressure read as
 *   "some avg10=... total=N" and "full ...";
 * - a malformed trigger is refused with EINVAL and leaves the file
 *   working (a valid trigger can be written after it);
 * - a trigger on an idle cgroup does not fire;
 * - a trigger on a cgroup whose child is held over its memory.high fires,
 *   and the cgroup's "some total" grows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "psi.h"
#include "tap.h"

#define MIB (1024UL * 1024UL)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define HIGH_MIB 8
#define WORK_MIB 32
/* 10 ms of stall in a 1 s window: 6.1 takes no window under 500 ms,
 * and a throttled child stalls far longer than this.
 */
#define TRIGGER "some 10000 1000000"

static size_t page_size;

static void test_files(const char *cg)
{
	char path[CG_PATH_MAX + 32];
	uint64_t some, full;

	tap_result(!psi_totals(PSI_MEMORY, &some, &full),
		   "/proc/pressure/memory has some and full totals");
	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	tap_result(!psi_totals(path, &some, &full),
		   "a cgroup's memory.pressure has some and full totals");
}

/* An fd of @cg's memory.pressure with trigger @trig; -1 and errno. */
static int trigger_open(const char *cg, const char *trig)
{
	char path[CG_PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	return psi_trigger(path, trig);
}

static void test_bad_triggers(const char *cg)
{
	static const struct {
		const char *trig, *why;
	} bad[] = {
		{ "bogus 10000 1000000", "unknown resource state" },
		{ "some 10000 0", "zero window, below any threshold" },
		{ "some 10000 20000000", "window above 10 s" },
		{ "some 2000000 1000000", "threshold above the window" },
		{ "some 0 1000000", "zero threshold" },
		{ "some", "no threshold or window" },
	};
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		fd = trigger_open(cg, bad[i].trig);
		tap_result(fd < 0 && errno == EINVAL,
			   "trigger \"%s\" (%s): EINVAL (got %s)", bad[i].trig,
			   bad[i].why, fd < 0 ? strerror(errno) : "success");
		if (fd >= 0)
			close(fd);
	}
	fd = trigger_open(cg, TRIGGER);
	tap_result(fd >= 0, "a valid trigger is taken after the refused ones");
	if (fd >= 0)
		close(fd);
}

/*
 * A 100 ms window: 6.1 refuses any window under 500 ms, and 6.4 dropped
 * that minimum ("sched/psi: remove 500ms min window size limitation for
 * triggers"), so what is right depends on the running kernel.
 */
static void test_short_window(const char *cg)
{
	const char *trig = "some 10000 100000";
	int major, minor, fd;
	bool refused_wanted;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2) {
		tap_result(false, "trigger \"%s\": cannot parse uname -r",
			   trig);
		return;
	}
	refused_wanted = major < 6 || (major == 6 && minor < 4);
	errno = 0;
	fd = trigger_open(cg, trig);
	tap_result(refused_wanted ? fd < 0 && errno == EINVAL : fd >= 0,
		   "trigger \"%s\" on %d.%d: %s (got %s)", trig, major, minor,
		   refused_wanted ? "EINVAL, below 6.4's 500 ms minimum" :
		   "taken, no minimum since 6.4",
		   fd < 0 ? strerror(errno) : "success");
	if (fd >= 0)
		close(fd);
}

/* POLLPRI on @fd within @ms: 1, 0 on timeout, -1 on error. */
static int wait_event(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int n = poll(&p, 1, ms);

	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	return (p.revents & POLLERR) ? -1 : !!(p.revents & POLLPRI);
}

/*
 * The child: touch WORK_MIB of anonymous memory, over and over, in a
 * cgroup whose memory.high is HIGH_MIB.  Without swap nothing of it can
 * be reclaimed, so every return to userspace over the limit throttles
 * the child (mem_cgroup_handle_over_high() sleeps in a memory stall);
 * memory.high never OOM-kills.
 */
static void stall_forever(void)
{
	char *p = mmap(NULL, WORK_MIB * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED)
		_exit(3);
	for (;;)
		for (off = 0; off < WORK_MIB * MIB; off += page_size)
			p[off]++;
}

static void test_trigger(const char *cg)
{
	char path[CG_PATH_MAX + 32];
	uint64_t some0, full0, some1, full1;
	int fd, idle, fired, status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	fd = trigger_open(cg, TRIGGER);
	if (fd < 0 || psi_totals(path, &some0, &full0)) {
		tap_bail("trigger \"%s\" on %s: %s", TRIGGER, cg,
			 strerror(errno));
	}
	idle = wait_event(fd, 1500);
	tap_result(idle == 0, "no event on an idle cgroup in 1.5 s (got %d)",
		   idle);

	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (cg_enter(cg))
			_exit(2);
		stall_forever();
	}
	fired = wait_event(fd, 20000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_result(fired == 1,
		   "trigger \"%s\" fires while a child is held over memory.high (got %d)",
		   TRIGGER, fired);
	tap_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		   "the throttled child ran until stopped (status 0x%x)",
		   status);
	tap_result(!psi_totals(path, &some1, &full1) && some1 > some0,
		   "the cgroup's some total grew: %" PRIu64 " -> %" PRIu64
		   " us", some0, some1);
	close(fd);
}

int main(void)
{
	char cg[CG_PATH_MAX];

	page_size = sysconf(_SC_PAGESIZE);
	tap_plan(14);
	if (cg_create("lab-psi", cg, sizeof(cg)) ||
	    cg_write_u64(cg, "memory.high", HIGH_MIB * MIB))
		tap_bail("cgroup lab-psi: %s", strerror(errno));
	test_files(cg);
	test_bad_triggers(cg);
	test_short_window(cg);
	test_trigger(cg);
	cg_destroy(cg);
	return tap_finish();
}
