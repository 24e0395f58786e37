// SPDX-License-Identifier: GPL-2.0
/* Pressure stall information; see psi.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "psi.h"

/* The total= of the line that starts with @kind in @buf. */
static int total_of(const char *buf, const char *kind, uint64_t *v)
{
	const char *p = strstr(buf, kind);

	if (p)
		p = strstr(p, "total=");
	if (!p || sscanf(p, "total=%" SCNu64, v) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int read_pressure(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

int psi_totals(const char *path, uint64_t *some, uint64_t *full)
{
	char buf[512];

	if (read_pressure(path, buf, sizeof(buf)) ||
	    total_of(buf, "some ", some) || total_of(buf, "full ", full))
		return -1;
	return 0;
}

int psi_avg10(const char *path, const char *kind, double *avg10)
{
	char buf[512];
	const char *p;

	if (read_pressure(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, kind);
	if (p)
		p = strstr(p, "avg10=");
	if (!p || sscanf(p, "avg10=%lf", avg10) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int psi_trigger(const char *path, const char *trigger)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* The kernel takes the string with its terminating NUL. */
	if (write(fd, trigger, strlen(trigger) + 1) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
