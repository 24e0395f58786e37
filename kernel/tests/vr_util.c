// SPDX-License-Identifier: GPL-2.0
/* Helpers for the volatile range tests; see vr_util.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroup.h"
#include "proc.h"
#include "tap.h"
#include "vr_util.h"

size_t page_size;

void vr_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
}

char *vr_map(size_t pages)
{
	char *p = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("Bail out! mmap of %zu pages: %s\n", pages,
		       strerror(errno));
		exit(1);
	}
	return p;
}

/* Word @w of page @i: never zero, different for every page and seed. */
static uint64_t pattern(size_t i, size_t w, unsigned int seed)
{
	uint64_t x = ((uint64_t)seed << 40) ^ ((uint64_t)i << 12) ^ w;

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x | 1;
}

void vr_fill(char *p, size_t pages, unsigned int seed)
{
	size_t i, w, words = page_size / sizeof(uint64_t);

	for (i = 0; i < pages; i++) {
		uint64_t *q = (uint64_t *)(p + i * page_size);

		for (w = 0; w < words; w++)
			q[w] = pattern(i, w, seed);
	}
}

bool vr_page_intact(const char *p, size_t i, unsigned int seed)
{
	const uint64_t *q = (const uint64_t *)(p + i * page_size);
	size_t w, words = page_size / sizeof(uint64_t);

	for (w = 0; w < words; w++)
		if (q[w] != pattern(i, w, seed))
			return false;
	return true;
}

bool vr_page_zero(const char *p, size_t i)
{
	const uint64_t *q = (const uint64_t *)(p + i * page_size);
	size_t w, words = page_size / sizeof(uint64_t);

	for (w = 0; w < words; w++)
		if (q[w])
			return false;
	return true;
}

struct vr_census vr_check(const char *p, size_t pages, unsigned int seed)
{
	struct vr_census c = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < pages; i++) {
		if (vr_page_intact(p, i, seed))
			c.intact++;
		else if (vr_page_zero(p, i))
			c.zero++;
		else
			c.corrupt++;
	}
	return c;
}

int vr_madvise(void *addr, size_t len, int advice)
{
	int ret = madvise(addr, len, advice);

	return ret < 0 ? -errno : ret;
}

static FILE *open_proc(const char *name)
{
	FILE *f = fopen(name, "re");

	if (!f) {
		printf("Bail out! %s: %s\n", name, strerror(errno));
		exit(1);
	}
	return f;
}

int vr_maps(void *addr, size_t len, char *buf, size_t size)
{
	unsigned long lo = (unsigned long)addr, hi = lo + len, s, e;
	FILE *f = open_proc("/proc/self/maps");
	size_t used = 0;
	char line[512];
	int count = 0;

	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &s, &e) != 2 || e <= lo || s >= hi)
			continue;
		count++;
		if (used + strlen(line) < size) {
			strcpy(buf + used, line);
			used += strlen(line);
		}
	}
	fclose(f);
	return count;
}

int vr_vma_count(void *addr, size_t len)
{
	char buf[64];

	return vr_maps(addr, len, buf, sizeof(buf));
}

/* Copy the smaps block of the VMA containing @addr (header to VmFlags). */
static int smaps_block(void *addr, char *buf, size_t size)
{
	unsigned long a = (unsigned long)addr, s, e;
	FILE *f = open_proc("/proc/self/smaps");
	bool in = false, found = false;
	size_t used = 0;
	char line[512];

	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = a >= s && a < e;
			found |= in;
		}
		if (in && used + strlen(line) < size) {
			strcpy(buf + used, line);
			used += strlen(line);
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int vr_vmflags(void *addr, char *buf, size_t size)
{
	char block[4096], *line;

	buf[0] = '\0';
	if (smaps_block(addr, block, sizeof(block)))
		return -1;
	line = strstr(block, "VmFlags:");
	if (!line)
		return -1;
	snprintf(buf, size, "%s", line + strlen("VmFlags:"));
	return 0;
}

bool vr_is_volatile(void *addr)
{
	char flags[256];

	return !vr_vmflags(addr, flags, sizeof(flags)) &&
	       strstr(flags, " vo") != NULL;
}

long vr_smaps_kb(void *addr, const char *field)
{
	char block[4096], *line;
	long kb;

	if (smaps_block(addr, block, sizeof(block)))
		return -1;
	line = strstr(block, field);
	if (!line || sscanf(line + strlen(field), ": %ld", &kb) != 1)
		return -1;
	return kb;
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

bool vr_sigbus_on_read(const volatile char *addr)
{
	struct sigaction sa, old;
	bool hit = false;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1))
		hit = true;
	else
		(void)*addr;
	sigaction(SIGBUS, &old, NULL);
	return hit;
}

long vr_swapped_pages(const void *addr, size_t pages)
{
	uint64_t entry;
	long swapped = 0;
	size_t i;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (i = 0; i < pages; i++) {
		off_t off = ((uintptr_t)addr / page_size + i) * sizeof(entry);

		if (pread(fd, &entry, sizeof(entry), off) != sizeof(entry)) {
			close(fd);
			return -1;
		}
		swapped += (entry >> 62) & 1;	/* PM_SWAP */
	}
	close(fd);
	return swapped;
}

int vr_reclaim(const char *cgroup, uint64_t bytes)
{
	return cg_write_u64(cgroup, "memory.reclaim", bytes) ? -errno : 0;
}

uint64_t vr_purged_counter(void)
{
	uint64_t v = 0;

	if (vmstat_read("pgvolatile_purged", &v))
		return UINT64_MAX;
	return v;
}

bool vr_wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

void vr_send_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		tap_bail("pipe write: %s", strerror(errno));
}

long vr_volatile_kb(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "1", 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return meminfo_kb("Volatile");
}
