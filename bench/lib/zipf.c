// SPDX-License-Identifier: GPL-2.0
/* Seeded access traces; see zipf.h. */
#include <math.h>
#include <stdlib.h>

#include "bench.h"
#include "zipf.h"

uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

double *zipf_cdf(long n, double s)
{
	double *cdf = malloc(n * sizeof(*cdf)), sum = 0;
	long i;

	if (!cdf)
		die("zipf_cdf: out of memory");
	for (i = 0; i < n; i++)
		sum += 1 / pow(i + 1, s);
	for (i = 0; i < n; i++)
		cdf[i] = (i ? cdf[i - 1] : 0) + 1 / pow(i + 1, s) / sum;
	return cdf;
}

long zipf_pick(const double *cdf, long n, uint64_t *rng)
{
	double u = (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
	long lo = 0, hi = n - 1;

	while (lo < hi) {
		long mid = (lo + hi) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
