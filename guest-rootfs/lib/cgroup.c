// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 helpers; see cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

static int join(char *buf, size_t size, const char *dir, const char *file)
{
	int n = snprintf(buf, size, "%s/%s", dir, file);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Read a whole (proc or cgroup) file into @buf, NUL-terminated. */
static int read_file(const char *name, char *buf, size_t size)
{
	size_t used = 0;
	ssize_t n;
	int fd, saved = 0;

	if (size == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (used < size - 1) {
		n = read(fd, buf + used, size - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			saved = errno;
		if (n <= 0)
			break;
		used += n;
	}
	close(fd);
	buf[used] = '\0';
	if (saved) {
		errno = saved;
		return -1;
	}
	return 0;
}

int cg_create(const char *name, char *path, size_t size)
{
	if (join(path, size, CG_ROOT, name))
		return -1;
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int cg_destroy(const char *path)
{
	return rmdir(path);
}

int cg_write(const char *path, const char *file, const char *value)
{
	char name[CG_PATH_MAX + 64];
	size_t len = strlen(value);
	ssize_t n;
	int fd, saved;

	if (join(name, sizeof(name), path, file))
		return -1;
	fd = open(name, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int cg_write_u64(const char *path, const char *file, uint64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	return cg_write(path, file, buf);
}

int cg_read(const char *path, const char *file, char *buf, size_t size)
{
	char name[CG_PATH_MAX + 64];

	if (join(name, sizeof(name), path, file))
		return -1;
	return read_file(name, buf, size);
}

static int parse_u64(const char *s, uint64_t *value)
{
	char *end;

	errno = 0;
	*value = strtoull(s, &end, 10);
	if (errno || end == s) {
		errno = errno ? errno : EINVAL;
		return -1;
	}
	return 0;
}

int cg_read_u64(const char *path, const char *file, uint64_t *value)
{
	char buf[64];

	if (cg_read(path, file, buf, sizeof(buf)))
		return -1;
	return parse_u64(buf, value);
}

/* Find "@key <number>" at the start of a line of @text. */
static int find_key(const char *text, const char *key, uint64_t *value)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return parse_u64(line + klen + 1, value);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	errno = ENOENT;
	return -1;
}

int cg_read_key(const char *path, const char *file, const char *key,
		uint64_t *value)
{
	char buf[4096];

	if (cg_read(path, file, buf, sizeof(buf)))
		return -1;
	return find_key(buf, key, value);
}

int cg_enter(const char *path)
{
	return cg_write(path, "cgroup.procs", "0");
}

int vmstat_read(const char *key, uint64_t *value)
{
	char buf[16384];

	if (read_file("/proc/vmstat", buf, sizeof(buf)))
		return -1;
	return find_key(buf, key, value);
}
