// SPDX-License-Identifier: GPL-2.0
/* Process helpers; see proc.h. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

long meminfo_kb(const char *field)
{
	size_t n = strlen(field);
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			sscanf(line + n + 1, "%ld", &kb);
	if (f)
		fclose(f);
	return kb;
}

int set_oom_score_adj(int adj)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "we");

	if (!f)
		return -1;
	if (fprintf(f, "%d\n", adj) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

int run_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}
