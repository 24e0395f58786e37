// SPDX-License-Identifier: GPL-2.0
/* Discardable regions and their purge manager; see discard.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "discard.h"
#include "discard_mgr.h"
#include "fdpass.h"
#include "psi.h"

static size_t page(void)
{
	static size_t size;

	if (!size)
		size = sysconf(_SC_PAGESIZE);
	return size;
}

uint64_t mgr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int dm_create(struct dm_region *r, size_t len)
{
	char *map;
	int fd;

	if (!len || len % page()) {
		errno = EINVAL;
		return -1;
	}
	fd = memfd_create("discardable", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, page() + len))
		goto fail;
	map = mmap(NULL, page() + len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	r->fd = fd;
	r->hdr = (struct dm_header *)map;
	r->data = map + page();
	r->data_len = len;
	r->hdr->magic = DM_MAGIC;
	r->hdr->data_len = len;
	r->hdr->last_use_ns = mgr_now_ns();
	__atomic_store_n(&r->hdr->state, DM_LOCKED, __ATOMIC_RELEASE);
	return 0;
fail:
	close(fd);
	return -1;
}

void dm_destroy(struct dm_region *r)
{
	munmap(r->hdr, page() + r->data_len);
	close(r->fd);
}

int dm_lock(struct dm_region *r)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&r->hdr->state, __ATOMIC_ACQUIRE);

		switch (s) {
		case DM_UNLOCKED:
		case DM_PURGED:
			if (__atomic_compare_exchange_n(&r->hdr->state, &s,
							DM_LOCKED, false,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return s == DM_PURGED;
			break;
		case DM_PURGING:
			/* The manager is punching: wait for its verdict. */
			sched_yield();
			break;
		case DM_LOCKED:
			errno = EBUSY;
			return -1;
		default:
			errno = EINVAL;
			return -1;
		}
	}
}

void dm_unlock(struct dm_region *r)
{
	__atomic_store_n(&r->hdr->last_use_ns, mgr_now_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&r->hdr->state, DM_UNLOCKED, __ATOMIC_RELEASE);
}

int dm_purge(int fd, struct dm_header *hdr, size_t data_len)
{
	uint32_t s = DM_UNLOCKED;

	if (__atomic_load_n(&hdr->magic, __ATOMIC_RELAXED) != DM_MAGIC) {
		errno = EBADMSG;
		return -1;
	}
	/* The compare-and-swap decides between this purge and a lock. */
	if (!__atomic_compare_exchange_n(&hdr->state, &s, DM_PURGING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return 0;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, page(),
		      data_len)) {
		int e = errno;

		__atomic_store_n(&hdr->state, DM_UNLOCKED, __ATOMIC_RELEASE);
		errno = e;
		return -1;
	}
	__atomic_store_n(&hdr->state, DM_PURGED, __ATOMIC_RELEASE);
	return 1;
}

/* @a for @path; -1 and ENAMETOOLONG if it does not fit. */
static int unix_address(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a->sun_path, path);
	return 0;
}

int dm_listen(const char *path, int backlog)
{
	struct sockaddr_un a;
	int fd;

	if (unix_address(&a, path))
		return -1;
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, backlog)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int dm_connect(const char *path)
{
	struct sockaddr_un a;
	int fd;

	if (unix_address(&a, path))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int dm_header_check(int fd, const struct dm_header *hdr)
{
	uint32_t state = __atomic_load_n(&hdr->state, __ATOMIC_RELAXED);
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (hdr->magic != DM_MAGIC || state > DM_PURGED) {
		errno = EBADMSG;
		return -1;
	}
	if (!hdr->data_len || hdr->data_len % page() ||
	    hdr->data_len > (uint64_t)st.st_size - page()) {
		errno = EFBIG;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ manager */

void mgr_drop_region(struct manager *m, long i)
{
	munmap(m->regions[i].hdr, page());
	close(m->regions[i].fd);
	m->regions[i] = m->regions[--m->nregions];
	m->st->regions = m->nregions;
}

/* Take @fd from client @c: checked, or counted as malformed and closed. */
static void take_region(struct manager *m, int c, int fd)
{
	struct dm_header *hdr;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)(2 * page()))
		goto malformed;
	hdr = mmap(NULL, page(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED)
		goto malformed;
	if (dm_header_check(fd, hdr)) {
		munmap(hdr, page());
		goto malformed;
	}
	if (m->nregions == m->cap) {
		long cap = m->cap ? 2 * m->cap : 64;
		struct mregion *n = realloc(m->regions, cap * sizeof(*n));

		if (!n) {
			munmap(hdr, page());
			close(fd);
			return;
		}
		m->regions = n;
		m->cap = cap;
	}
	m->regions[m->nregions++] = (struct mregion) {
		.fd = fd, .client = c, .hdr = hdr, .data_len = hdr->data_len,
	};
	m->st->regions = m->nregions;
	if (m->cfg->policy == DM_CHROME)
		chrome_allocated(m);
	return;
malformed:
	m->st->malformed++;
	close(fd);
}

/* Close client @c's socket and its regions (@dead: it went away). */
static void drop_client(struct manager *m, int c, bool dead)
{
	long i;

	for (i = m->nregions - 1; i >= 0; i--)
		if (m->regions[i].client == c)
			mgr_drop_region(m, i);
	close(m->clients[c]);
	m->clients[c] = -1;
	m->st->dead_clients += dead;
}

int mgr_by_last_use(const void *a, const void *b)
{
	const struct mregion *x = a, *y = b;
	uint64_t tx = __atomic_load_n(&x->hdr->last_use_ns, __ATOMIC_RELAXED);
	uint64_t ty = __atomic_load_n(&y->hdr->last_use_ns, __ATOMIC_RELAXED);

	return tx < ty ? -1 : tx > ty;
}

/* Purge unlocked regions, least recently used first, up to @budget. */
static void purge(struct manager *m, size_t budget)
{
	uint64_t t0 = mgr_now_ns(), dt;
	size_t done = 0;
	long i;

	qsort(m->regions, m->nregions, sizeof(*m->regions),
	      mgr_by_last_use);
	for (i = 0; i < m->nregions && (!budget || done < budget); i++) {
		struct mregion *r = &m->regions[i];
		int ret = dm_purge(r->fd, r->hdr, r->data_len);

		if (ret < 0) {
			m->st->malformed++;	/* skipped, kept */
		} else if (ret) {
			done += r->data_len;
			m->st->purged_regions++;
			m->st->purged_bytes += r->data_len;
		}
	}
	dt = mgr_now_ns() - t0;
	m->st->purge_runs++;
	m->st->purge_ns_total += dt;
	if (dt > m->st->purge_ns_max)
		m->st->purge_ns_max = dt;
}

static void trim(struct manager *m, char level)
{
	int c;

	for (c = 0; c < MAX_CLIENTS; c++)
		if (m->clients[c] >= 0 &&
		    send(m->clients[c], &level, 1,
			 MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
			m->st->trims_sent++;
}

static void accept_client(struct manager *m, int listen_fd)
{
	int s = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC), c;

	if (s < 0)
		return;
	for (c = 0; c < MAX_CLIENTS && m->clients[c] >= 0; c++)
		;
	if (c == MAX_CLIENTS) {
		close(s);
		return;
	}
	m->clients[c] = s;
	m->st->clients++;
}

/* Open the PSI trigger; -1 with errno on failure, -2 when none. */
static int trigger_open(const char *trigger)
{
	return trigger ? psi_trigger(PSI_MEMORY, trigger) : -2;
}

int dm_serve(int listen_fd, int stop_fd, int purge_fd,
	     const struct dm_config *cfg, struct dm_stats *stats)
{
	struct manager m = { .cfg = cfg, .st = stats };
	struct pollfd p[4 + MAX_CLIENTS];
	int trig = trigger_open(cfg->trigger), c, n, i;
	struct rusage ru;
	char byte;

	if (trig == -1)
		return -1;
	for (c = 0; c < MAX_CLIENTS; c++)
		m.clients[c] = -1;
	if (cfg->policy == DM_CHROME)
		chrome_start(&m);
	for (;;) {
		int timeout = -1;

		if (cfg->policy == DM_CHROME)
			timeout = chrome_tick(&m);
		p[0] = (struct pollfd) { .fd = stop_fd, .events = POLLIN };
		p[1] = (struct pollfd) { .fd = listen_fd, .events = POLLIN };
		p[2] = (struct pollfd) { .fd = purge_fd, .events = POLLIN };
		p[3] = (struct pollfd) { .fd = trig, .events = POLLPRI };
		for (c = 0; c < MAX_CLIENTS; c++)
			p[4 + c] = (struct pollfd) {
				.fd = m.clients[c], .events = POLLIN,
			};
		n = poll(p, 4 + MAX_CLIENTS, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			break;
		if (p[1].revents & POLLIN)
			accept_client(&m, listen_fd);
		if ((p[2].revents & POLLIN) &&
		    read(purge_fd, &byte, 1) == 1) {
			if (cfg->policy == DM_TRIM)
				trim(&m, DM_LEVEL_CRITICAL);
			else if (cfg->policy == DM_CHROME)
				chrome_purge_all(&m);
			else
				purge(&m, 0);
		}
		if (p[3].revents & POLLPRI) {
			double full = 0;

			stats->events++;
			psi_avg10(PSI_MEMORY, "full", &full);
			if (cfg->policy == DM_PURGE)
				purge(&m, cfg->budget_bytes);
			else if (full >= cfg->critical_full_avg10)
				trim(&m, DM_LEVEL_CRITICAL);
			else
				trim(&m, DM_LEVEL_MODERATE);
		}
		for (c = 0; c < MAX_CLIENTS; c++) {
			if (!(p[4 + c].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			errno = 0;
			i = fd_recv(m.clients[c]);
			if (i >= 0)
				take_region(&m, c, i);
			else if (errno == 0 || errno == ECONNRESET)
				drop_client(&m, c, true);	/* it is gone */
			else
				stats->malformed++;	/* no fd in it */
		}
	}
	for (c = 0; c < MAX_CLIENTS; c++)
		if (m.clients[c] >= 0)
			drop_client(&m, c, false);
	free(m.regions);
	if (trig >= 0)
		close(trig);
	if (!getrusage(RUSAGE_SELF, &ru))
		stats->cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
			1000000000ULL + (ru.ru_utime.tv_usec +
					 ru.ru_stime.tv_usec) * 1000ULL;
	return 0;
}
