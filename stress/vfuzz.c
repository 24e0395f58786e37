// SPDX-License-Identifier: GPL-2.0
/*
 * vfuzz: random, often invalid, calls on volatile and ordinary memory
 * and on ashmem, with a reproducible seed.  Mappings live in 64 slots of
 * a window this program owns, so it always knows what an address range
 * holds and which result the contract (docs: volatile-semantics.md,
 * ashmem-behavior.md) demands:
 *   madvise VOLATILE/NONVOLATILE: unaligned start or length, a wrapping
 *     range: EINVAL; a hole: ENOMEM; a private file mapping, and for
 *     VOLATILE an mlocked one: EINVAL; private anonymous memory (and
 *     mlocked memory for NONVOLATILE): 0 (NONVOLATILE: 0 or 1); a range
 *     that starts in a shared (shmem) mapping acts on its file: EINVAL
 *     when it runs past that mapping, else as private memory;
 *   fallocate on the memfd: FALLOC_FL_MARK_VOLATILE (with or without
 *     FALLOC_FL_VOLATILE_ZERO) and FALLOC_FL_UNMARK_VOLATILE on an
 *     aligned range within the file: 0 (UNMARK: 0 or 1); unaligned, past
 *     the end, or with another flag: EINVAL; unknown flags: EOPNOTSUPP;
 *   process_madvise: flags: EINVAL; an unreadable iovec: EFAULT; more
 *     than IOV_MAX (UIO_MAXIOV) of them: EINVAL; a bad or non-pid fd:
 *     EBADF; a reaped process: ESRCH; VOLATILE, NONVOLATILE or another
 *     advice it does not take: EINVAL; MADV_COLD, MADV_PAGEOUT and
 *     MADV_WILLNEED on 1-3 ranges of this process: as madvise, range by
 *     range (unaligned start EINVAL; COLD and PAGEOUT on mlocked memory
 *     EINVAL, which beats a hole's ENOMEM), and the bytes of the ranges
 *     done before a failure;
 *   ashmem: unknown commands ENOTTY, bad pointers EFAULT, PIN/UNPIN
 *     without a backing file or with a bad interval EINVAL, SET_SIZE
 *     after mmap EINVAL, a non-ashmem fd ENOTTY.
 * mmap, munmap, mremap, mprotect, mlock and fork are mixed in.  Any
 * other answer is a mismatch, printed with the seed and call number.
 *
 *   vfuzz [--seconds N] [--seed S] [--report FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ashmem.h>
#include <linux/falloc.h>
#include <linux/mman.h>

#include "proc.h"
#include "stress_util.h"
#include "tap.h"

#define SLOTS 64
#define SLOT_PAGES 16

enum kind { HOLE, PRIVATE, SHARED, FILEMAP, LOCKED, KINDS };

static struct {
	char *window;
	size_t slot_len;
	enum kind slot[SLOTS];
	int memfd;
	int self_pidfd, reaped_pidfd;
	int ash[4];
	bool ash_mapped[4];
	uint64_t seed, call;
	uint64_t calls, invalid, mismatches, forks, per_kind[KINDS];
} f;

static size_t page_size;

static uint64_t rnd(void)
{
	return xorshift64(&f.seed);
}

static void expect(const char *what, long got, int err, long want,
		   bool any_nonneg)
{
	bool ok;

	f.calls++;
	if (want < 0)
		f.invalid++;
	if (want < 0)
		ok = got == -1 && err == -want;
	else if (any_nonneg)
		ok = got >= 0 && got <= want;
	else
		ok = got == want;
	if (!ok && f.mismatches++ < 10)
		tap_diag("mismatch at call %llu: %s returned %ld (errno %d), expected %ld",
			 (unsigned long long)f.call, what, got,
			 got < 0 ? err : 0, want);
}

static char *slot_addr(int i)
{
	return f.window + i * f.slot_len;
}

static void slot_set(int i, enum kind k)
{
	char *a = slot_addr(i);
	void *p = MAP_FAILED;

	munmap(a, f.slot_len);
	switch (k) {
	case HOLE:
		break;
	case PRIVATE:
	case LOCKED:
		p = mmap(a, f.slot_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		if (p != MAP_FAILED && k == LOCKED && mlock(p, f.slot_len))
			k = PRIVATE;
		break;
	case SHARED:
		p = mmap(a, f.slot_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		break;
	case FILEMAP:
		p = mmap(a, f.slot_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED_NOREPLACE, f.memfd, 0);
		break;
	case KINDS:
		break;
	}
	if (k != HOLE && p == MAP_FAILED)
		k = HOLE;
	f.slot[i] = k;
	if (k == PRIVATE || k == LOCKED)
		memset(a, 0x5a, page_size);
}

/* The result madvise(VOLATILE or NONVOLATILE) must give. */
static long madvise_contract(char *addr, size_t len, bool nonvolatile,
			     bool *any)
{
	size_t off;
	bool hole = false, bad = false;

	*any = false;
	if ((uintptr_t)addr % page_size || len % page_size)
		return -EINVAL;
	if ((uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	if (!len)
		return 0;
	/* A shared mapping's file: the range must stay in the mapping. */
	if (f.slot[(addr - f.window) / f.slot_len] == SHARED) {
		size_t in_slot = (addr - f.window) % f.slot_len;

		if (in_slot + len > f.slot_len)
			return -EINVAL;
		*any = nonvolatile;
		return nonvolatile ? 1 : 0;
	}
	for (off = 0; off < len; off += page_size) {
		int i = (addr + off - f.window) / f.slot_len;

		if (f.slot[i] == HOLE)
			hole = true;
		/* A locked range can be taken back, not made volatile. */
		else if (f.slot[i] != PRIVATE &&
			 !(nonvolatile && f.slot[i] == LOCKED))
			bad = true;
	}
	/* The checks run VMA by VMA: which error wins depends on order. */
	if (hole && bad)
		return 1;	/* either ENOMEM or EINVAL */
	if (hole)
		return -ENOMEM;
	if (bad)
		return -EINVAL;
	*any = nonvolatile;
	return nonvolatile ? 1 : 0;
}

static void fuzz_madvise(void)
{
	size_t pages = SLOTS * SLOT_PAGES;
	size_t first = rnd() % pages, count = rnd() % 40;
	bool nonvolatile = rnd() & 1, any;
	char *addr = f.window + first * page_size;
	size_t len = count * page_size;
	int kind = rnd() % 16;
	long want, got;

	if (first + count > pages)
		count = pages - first, len = count * page_size;
	if (kind == 0)
		addr += 1 + rnd() % (page_size - 1);	/* unaligned start */
	else if (kind == 1)
		len += 1 + rnd() % (page_size - 1);	/* unaligned length */
	else if (kind == 2)
		len = -(uintptr_t)addr + page_size;	/* wraps */
	want = madvise_contract(addr, len, nonvolatile, &any);
	errno = 0;
	got = madvise(addr, len, nonvolatile ? MADV_NONVOLATILE :
		      MADV_VOLATILE);
	if (want == 1 && !any) {
		/* A hole and a bad mapping: either error is right. */
		f.calls++;
		f.invalid++;
		if (!(got == -1 && (errno == ENOMEM || errno == EINVAL)) &&
		    f.mismatches++ < 10)
			tap_diag("mismatch at call %llu: mixed range returned %ld (errno %d)",
				 (unsigned long long)f.call, got, errno);
		return;
	}
	{
		uint64_t before = f.mismatches;
		char kinds[SLOTS + 1] = "";
		size_t off, n = 0;

		expect(nonvolatile ? "MADV_NONVOLATILE" : "MADV_VOLATILE",
		       got, errno, want, any);
		if (f.mismatches == before || f.mismatches > 10)
			return;
		for (off = 0; off < len && n < SLOTS &&
		     addr + off < f.window + SLOTS * f.slot_len;
		     off += f.slot_len)
			kinds[n++] = "hpsfl"[f.slot[(addr + off - f.window) /
						    f.slot_len]];
		kinds[n] = '\0';
		tap_diag("  range at page %zu, %zu bytes, slots %s",
			 first, len, kinds);
	}
}

/* The result do_madvise() must give MADV_COLD, PAGEOUT or WILLNEED. */
static long lru_contract(const char *addr, size_t len, int advice)
{
	bool hole = false, locked = false;
	size_t off;

	if ((uintptr_t)addr % page_size)
		return -EINVAL;
	len = (len + page_size - 1) / page_size * page_size;
	for (off = 0; off < len; off += page_size) {
		enum kind k = f.slot[(addr + off - f.window) / f.slot_len];

		hole |= k == HOLE;
		locked |= k == LOCKED;
	}
	/* The VMA walk goes on past holes but stops at a refused VMA. */
	if (locked && advice != MADV_WILLNEED)
		return -EINVAL;
	return hole ? -ENOMEM : 0;
}

/*
 * One process_madvise call with at most one thing wrong, in the order the
 * kernel checks: flags, the iovec array, the pidfd, the advice; then the
 * ranges one by one.
 */
static void fuzz_process_madvise(void)
{
	static const int lru[] = { MADV_COLD, MADV_PAGEOUT, MADV_WILLNEED };
	static const int refused[] = {
		MADV_VOLATILE, MADV_NONVOLATILE, MADV_DONTNEED, MADV_FREE,
		MADV_HUGEPAGE, -1, 1000
	};
	size_t pages = SLOTS * SLOT_PAGES, n = 1 + rnd() % 3, i, done = 0;
	int advice = lru[rnd() % 3], pidfd = f.self_pidfd;
	unsigned int flags = 0, fault = rnd() % 12;
	const struct iovec *vec;
	struct iovec iov[3];
	size_t vlen = n;
	long want = 0, got;

	for (i = 0; i < n; i++) {
		size_t first = rnd() % pages, count = 1 + rnd() % 40;
		char *addr;

		if (first + count > pages)
			count = pages - first;
		addr = f.window + first * page_size;
		iov[i].iov_base = addr;
		iov[i].iov_len = count * page_size;
		if (rnd() % 16 == 0)
			iov[i].iov_base = addr + 1 + rnd() % (page_size - 1);
		else if (rnd() % 8 == 0)	/* rounded up: allowed */
			iov[i].iov_len -= rnd() % page_size;
	}
	vec = iov;
	switch (fault) {
	case 0:
		flags = 1 + rnd() % 0xffffffffULL;
		want = -EINVAL;
		break;
	case 1:
		vec = (const struct iovec *)16;	/* below mmap_min_addr */
		want = -EFAULT;
		break;
	case 2:
		vlen = IOV_MAX + 1 + rnd() % 4;
		want = -EINVAL;
		break;
	case 3:
		pidfd = rnd() & 1 ? f.memfd : -1 - (int)(rnd() % 4);
		want = -EBADF;
		break;
	case 4:
		pidfd = f.reaped_pidfd;
		want = -ESRCH;
		break;
	case 5:
		advice = refused[rnd() % ARRAY_SIZE(refused)];
		want = -EINVAL;
		break;
	default:
		for (i = 0; i < n; i++) {
			long r = lru_contract(iov[i].iov_base, iov[i].iov_len,
					      advice);

			if (r < 0) {
				want = done ? (long)done : r;
				break;
			}
			done += iov[i].iov_len;
		}
		if (i == n)
			want = done;
	}
	errno = 0;
	got = syscall(SYS_process_madvise, pidfd, vec, vlen, advice, flags);
	expect("process_madvise", got, errno, want, false);
}

static void fuzz_mapping(void)
{
	int i = rnd() % SLOTS, op = rnd() % 6;
	char *a = slot_addr(i);

	f.calls++;
	switch (op) {
	case 0:
		slot_set(i, rnd() % KINDS);
		break;
	case 1:
		if (f.slot[i] == PRIVATE)
			mprotect(a, f.slot_len, rnd() & 1 ? PROT_READ :
				 PROT_READ | PROT_WRITE);
		break;
	case 2:
		if (f.slot[i] == PRIVATE) {
			/* A failed mlock (say, over a purged page) may leave
			 * the VMA half done: the slot is remade.
			 */
			if (mlock(a, f.slot_len))
				slot_set(i, HOLE);
			else
				f.slot[i] = LOCKED;
		} else if (f.slot[i] == LOCKED) {
			munlock(a, f.slot_len);
			f.slot[i] = PRIVATE;
		}
		break;
	case 3: {
		/* Move a private slot into a hole, volatile marks and all. */
		int j = rnd() % SLOTS;

		if (f.slot[i] == PRIVATE && f.slot[j] == HOLE &&
		    mremap(a, f.slot_len, f.slot_len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, slot_addr(j)) !=
			    MAP_FAILED) {
			f.slot[j] = PRIVATE;
			f.slot[i] = HOLE;
		}
		break;
	}
	case 4:
		/* Touch: a purged volatile page may SIGBUS, so only read
		 * pages made nonvolatile first.
		 */
		if (f.slot[i] == PRIVATE &&
		    madvise(a, f.slot_len, MADV_NONVOLATILE) >= 0 &&
		    !mprotect(a, f.slot_len, PROT_READ | PROT_WRITE))
			a[rnd() % f.slot_len] = 1;
		break;
	case 5:
		if (f.slot[i] == PRIVATE)
			madvise(a, f.slot_len, MADV_DONTNEED);
		break;
	}
}

/* fallocate()'s volatile modes on the memfd, whose size is slot_len. */
static void fuzz_fallocate(void)
{
	static const int modes[] = {
		FALLOC_FL_MARK_VOLATILE, FALLOC_FL_UNMARK_VOLATILE,
		FALLOC_FL_MARK_VOLATILE | FALLOC_FL_VOLATILE_ZERO,
		FALLOC_FL_VOLATILE_ZERO,
		FALLOC_FL_MARK_VOLATILE | FALLOC_FL_UNMARK_VOLATILE,
		FALLOC_FL_MARK_VOLATILE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_UNMARK_VOLATILE | FALLOC_FL_VOLATILE_ZERO,
		0x4000 | FALLOC_FL_MARK_VOLATILE,
	};
	int mode = modes[rnd() % (sizeof(modes) / sizeof(modes[0]))];
	size_t pages = f.slot_len / page_size;
	off_t off = (rnd() % (pages + 2)) * page_size;
	off_t len = (rnd() % (pages + 2)) * page_size;
	bool any = false;
	long want, got;

	if (rnd() % 8 == 0)
		off += 1 + rnd() % (page_size - 1);
	else if (rnd() % 8 == 0)
		len += 1 + rnd() % (page_size - 1);
	if (len <= 0)
		want = -EINVAL;		/* vfs_fallocate() */
	else if (mode & 0x4000)
		want = -EOPNOTSUPP;
	else if (mode != FALLOC_FL_UNMARK_VOLATILE &&
		 (mode & ~FALLOC_FL_VOLATILE_ZERO) != FALLOC_FL_MARK_VOLATILE)
		want = -EINVAL;
	else if (off % page_size || len % page_size ||
		 (size_t)(off + len) > f.slot_len)
		want = -EINVAL;
	else if (mode == FALLOC_FL_UNMARK_VOLATILE)
		want = 1, any = true;
	else
		want = 0;
	errno = 0;
	got = fallocate(f.memfd, mode, off, len);
	expect("fallocate", got, errno, want, any);
}

static const unsigned long ash_cmds[] = {
	ASHMEM_SET_NAME, ASHMEM_GET_NAME, ASHMEM_SET_SIZE, ASHMEM_GET_SIZE,
	ASHMEM_SET_PROT_MASK, ASHMEM_GET_PROT_MASK, ASHMEM_PIN, ASHMEM_UNPIN,
	ASHMEM_GET_PIN_STATUS, ASHMEM_PURGE_ALL_CACHES,
};

static void fuzz_ashmem(void)
{
	int n = rnd() % 4, fd = f.ash[n], op = rnd() % 10;
	struct ashmem_pin pin;
	long got;

	if (op == 0) {
		/* A new area, or a mapping that creates the backing file. */
		if (rnd() & 1) {
			close(fd);
			f.ash[n] = open("/dev/ashmem", O_RDWR | O_CLOEXEC);
			f.ash_mapped[n] = false;
			ioctl(f.ash[n], ASHMEM_SET_SIZE,
			      (1 + rnd() % 8) * page_size);
		} else if (!f.ash_mapped[n]) {
			void *p = mmap(NULL, page_size, PROT_READ, MAP_SHARED,
				       fd, 0);

			if (p != MAP_FAILED) {
				munmap(p, page_size);
				f.ash_mapped[n] = true;
			}
		}
		f.calls++;
		return;
	}
	if (op == 1) {
		unsigned long cmd = _IOC(rnd() % 4, 0x77, 12 + rnd() % 200,
					 rnd() % 64);

		errno = 0;
		got = ioctl(fd, cmd, rnd());
		expect("unknown ashmem ioctl", got, errno, -ENOTTY, false);
		return;
	}
	if (op == 2) {
		unsigned long cmd = ash_cmds[6 + rnd() % 3];

		errno = 0;
		got = ioctl(fd, cmd, (void *)(uintptr_t)(rnd() % 4096));
		expect("ashmem pin ioctl with a bad pointer", got, errno,
		       -EFAULT, false);
		return;
	}
	if (op == 3) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		errno = 0;
		got = ioctl(null, ash_cmds[rnd() % 10], 0);
		expect("ashmem ioctl on /dev/null", got, errno, -ENOTTY,
		       false);
		close(null);
		return;
	}
	if (op == 4) {
		pin.offset = rnd() % 3 == 0 ? 1 + rnd() % 4095 :
			(rnd() % 16) * page_size;
		pin.len = (rnd() % 16) * page_size + (rnd() & 1);
		if (!(pin.offset % page_size) && !(pin.len % page_size))
			pin.len += 1;	/* keep it invalid */
		errno = 0;
		got = ioctl(fd, ASHMEM_PIN + (rnd() % 2), &pin);
		expect("ashmem PIN/UNPIN with a bad interval", got, errno,
		       -EINVAL, false);
		return;
	}
	if (op == 5 && f.ash_mapped[n]) {
		errno = 0;
		got = ioctl(fd, ASHMEM_SET_SIZE, rnd() % (1 << 20));
		expect("ashmem SET_SIZE after mmap", got, errno, -EINVAL,
		       false);
		return;
	}
	if (op == 6 && !f.ash_mapped[n]) {
		pin.offset = 0;
		pin.len = 0;
		errno = 0;
		got = ioctl(fd, ash_cmds[6 + rnd() % 3], &pin);
		expect("ashmem pin ioctl before mmap", got, errno, -EINVAL,
		       false);
		return;
	}
	/*
	 * Anything, with random arguments: only the kernel must survive.
	 * A pointer argument points at a buffer big enough for any of
	 * the commands (GET_NAME writes 256 bytes).
	 */
	{
		static uint64_t buf[ASHMEM_NAME_LEN / 8 + 1];
		size_t w;

		for (w = 0; w < sizeof(buf) / 8; w++)
			buf[w] = rnd();
		f.calls++;
		ioctl(fd, ash_cmds[rnd() % 10], rnd() & 1 ?
		      (unsigned long)buf : (unsigned long)(rnd() | 1ULL << 63));
	}
}

/* A pidfd of a child that has exited and been reaped. */
static int reaped_pidfd(void)
{
	pid_t pid = fork();
	int pidfd;

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (waitpid(pid, NULL, 0) != pid)
		return -1;
	return pidfd;
}

static void one_call(void)
{
	unsigned int op = rnd() % 100;

	f.call++;
	if (op < 45)
		fuzz_madvise();
	else if (op < 50)
		fuzz_process_madvise();
	else if (op < 70)
		fuzz_mapping();
	else if (op < 94)
		fuzz_ashmem();
	else if (op < 99)
		fuzz_fallocate();
	else {
		pid_t pid = fork();
		int status, i;

		if (pid == 0) {
			/*
			 * mlock is not inherited, and the ashmem areas are
			 * shared with the parent, whose bookkeeping a child
			 * must not change: the child gets areas of its own.
			 */
			for (i = 0; i < SLOTS; i++)
				if (f.slot[i] == LOCKED)
					f.slot[i] = PRIVATE;
			for (i = 0; i < 4; i++) {
				close(f.ash[i]);
				f.ash[i] = open("/dev/ashmem",
						O_RDWR | O_CLOEXEC);
				f.ash_mapped[i] = false;
				ioctl(f.ash[i], ASHMEM_SET_SIZE, page_size);
			}
			/* process_madvise must name this process. */
			close(f.self_pidfd);
			f.self_pidfd = syscall(SYS_pidfd_open, getpid(), 0);
			for (i = 0; i < 50; i++)
				one_call();
			_exit(f.mismatches ? 1 : 0);
		}
		f.forks++;
		f.calls++;
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			if (f.mismatches++ < 10)
				tap_diag("mismatch at call %llu: forked child ended with %#x",
					 (unsigned long long)f.call, status);
		}
	}
}

int main(int argc, char **argv)
{
	struct run_opts opts = { .seconds = 60, .seed = 20261203 };
	uint64_t deadline;
	struct timespec ts;
	int i;

	if (run_opts_parse(argc, argv, "vfuzz", &opts))
		return 2;
	page_size = sysconf(_SC_PAGESIZE);
	f.seed = opts.seed;
	f.slot_len = SLOT_PAGES * page_size;
	tap_plan(2);
	tap_diag("vfuzz: %ld s, seed %llu (repeat with --seed %llu)",
		 opts.seconds, (unsigned long long)opts.seed,
		 (unsigned long long)opts.seed);
	f.window = mmap(NULL, SLOTS * f.slot_len, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.memfd = memfd_create("vfuzz", MFD_CLOEXEC);
	if (f.window == MAP_FAILED || f.memfd < 0 ||
	    ftruncate(f.memfd, f.slot_len))
		tap_bail("setup: %s", strerror(errno));
	munmap(f.window, SLOTS * f.slot_len);
	f.self_pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	f.reaped_pidfd = reaped_pidfd();
	/* vstress's global bursts bring the OOM killer: not to this one. */
	if (f.self_pidfd < 0 || f.reaped_pidfd < 0 ||
	    set_oom_score_adj(-1000))
		tap_bail("setup: %s", strerror(errno));
	for (i = 0; i < SLOTS; i++)
		slot_set(i, rnd() % KINDS);
	for (i = 0; i < 4; i++) {
		f.ash[i] = open("/dev/ashmem", O_RDWR | O_CLOEXEC);
		ioctl(f.ash[i], ASHMEM_SET_SIZE, (1 + i) * page_size);
	}

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = ts.tv_sec + opts.seconds;
	do {
		for (i = 0; i < 1000; i++)
			one_call();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while ((uint64_t)ts.tv_sec < deadline);
	for (i = 0; i < SLOTS; i++)
		f.per_kind[f.slot[i]]++;

	tap_diag("%llu calls, %llu invalid with a documented errno, %llu forks; slots at the end: %llu hole, %llu private, %llu shared, %llu file, %llu locked",
		 (unsigned long long)f.calls, (unsigned long long)f.invalid,
		 (unsigned long long)f.forks,
		 (unsigned long long)f.per_kind[HOLE],
		 (unsigned long long)f.per_kind[PRIVATE],
		 (unsigned long long)f.per_kind[SHARED],
		 (unsigned long long)f.per_kind[FILEMAP],
		 (unsigned long long)f.per_kind[LOCKED]);
	tap_result(f.mismatches == 0,
		   "every answer matched the contract (%llu mismatches; seed %llu)",
		   (unsigned long long)f.mismatches,
		   (unsigned long long)opts.seed);
	tap_result(f.invalid > 0 && f.forks > 0,
		   "invalid calls and forks were exercised (%llu, %llu)",
		   (unsigned long long)f.invalid,
		   (unsigned long long)f.forks);
	if (opts.report) {
		FILE *out = fopen(opts.report, "we");

		if (out) {
			fprintf(out, "seconds %ld\nseed %llu\ncalls %llu\ninvalid %llu\nmismatches %llu\nforks %llu\n",
				opts.seconds, (unsigned long long)opts.seed,
				(unsigned long long)f.calls,
				(unsigned long long)f.invalid,
				(unsigned long long)f.mismatches,
				(unsigned long long)f.forks);
			fclose(out);
		}
	}
	return tap_finish();
}
