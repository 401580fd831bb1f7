/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks share: a monotonic clock in nanoseconds, a small
 * seeded generator (the same address sets on every machine), medians.
 */
#ifndef ADDRRES_BENCH_H
#define ADDRRES_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* splitmix64: tiny, good enough, and identical everywhere. */
struct bench_rng {
	uint64_t state;
};

static inline uint64_t bench_rng__next(struct bench_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t bench_rng__below(struct bench_rng *r, uint64_t n)
{
	return bench_rng__next(r) % n;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, not mean: one preempted run should not move the figure. */
static inline double bench_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* ADDRRES_BENCH_H */
