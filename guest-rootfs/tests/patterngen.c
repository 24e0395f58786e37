// SPDX-License-Identifier: GPL-2.0
/*
 * patterngen SEED BYTES: write BYTES of a deterministic pseudo-random
 * stream to stdout.  Built for the host and for the guest, so the host can
 * check byte for byte that a file written in the guest crossed intact.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int parse(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-';
}

int main(int argc, char **argv)
{
	unsigned long long seed, bytes, i;
	uint64_t x;

	if (argc != 3 || parse(argv[1], &seed) || parse(argv[2], &bytes)) {
		fprintf(stderr, "usage: patterngen SEED BYTES\n");
		return 2;
	}
	x = seed ? seed : 1;
	for (i = 0; i < bytes; i++) {
		/* xorshift64: fast, and the same on every architecture. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (putchar((int)(x & 0xff)) == EOF)
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
