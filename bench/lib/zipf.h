/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded access traces shared by the cache benchmarks: a xorshift64*
 * generator and Zipf-distributed ranks.
 */
#ifndef LAB_ZIPF_H
#define LAB_ZIPF_H

#include <stdint.h>

/* The next value of xorshift64* state @s (never seed it with 0). */
uint64_t rng_next(uint64_t *s);
/* Cumulative Zipf(@s) probabilities of ranks 1..@n; exits when out of
 * memory.
 */
double *zipf_cdf(long n, double s);
/* A rank in 0..@n-1 drawn from @cdf. */
long zipf_pick(const double *cdf, long n, uint64_t *rng);

#endif /* LAB_ZIPF_H */
