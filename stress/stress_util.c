// SPDX-License-Identifier: GPL-2.0
/* Command line and random numbers shared by vstress and vfuzz. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "stress_util.h"

int run_opts_parse(int argc, char **argv, const char *prog,
		   struct run_opts *opts)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "report", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 't':
			opts->seconds = strtol(optarg, &end, 10);
			if (*end || opts->seconds < 1 ||
			    opts->seconds > 86400) {
				fprintf(stderr, "%s: bad --seconds '%s'\n",
					prog, optarg);
				return 2;
			}
			break;
		case 's':
			opts->seed = strtoull(optarg, &end, 10);
			if (*end || !opts->seed) {
				fprintf(stderr, "%s: bad --seed '%s'\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'r':
			opts->report = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [--seconds N] [--seed S] [--report FILE]\n",
				prog);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		return 2;
	}
	return 0;
}

uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}
