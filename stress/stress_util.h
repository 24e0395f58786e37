/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vstress and vfuzz share: their command line and their random
 * numbers, so that a seed means the same thing to both.
 */
#ifndef LAB_STRESS_UTIL_H
#define LAB_STRESS_UTIL_H

#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct run_opts {
	long seconds;		/* 1 to 86400 */
	uint64_t seed;		/* never 0: xorshift would stay at 0 */
	const char *report;	/* "key value" figures go here, or NULL */
};

/*
 * Parse [--seconds N] [--seed S] [--report FILE] into @opts, which holds
 * the defaults.  0, or 2 after a message to stderr naming @prog.
 */
int run_opts_parse(int argc, char **argv, const char *prog,
		   struct run_opts *opts);

/* xorshift64: the next number from the state at @s (never 0). */
uint64_t xorshift64(uint64_t *s);

#endif /* LAB_STRESS_UTIL_H */
