/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks share: a monotonic clock in nanoseconds and a check
 * that it is fine enough, a small seeded generator (the same address sets
 * on every machine), medians.
 */
#ifndef ADDRRES_BENCH_H
#define ADDRRES_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double bench_now_us(void)
{
	return (double)bench_now_ns() / 1e3;
}

/*
 * A clock that advances in jiffies (a guest whose clocksource fell back
 * from the TSC) would time nothing: measure its smallest step.  0, or
 * -EINVAL with a message on stderr.
 */
static inline int bench_clock_check(void)
{
	uint64_t step = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = bench_now_ns(), t1;

		while ((t1 = bench_now_ns()) == t0)
			;
		if (t1 - t0 < step)
			step = t1 - t0;
	}
	if (step > 10000) {
		fprintf(stderr, "CLOCK_MONOTONIC advances in steps of %llu ns: too"
			" coarse to measure; give the kernel a fine clocksource"
			" (under QEMU: tsc=reliable)\n", (unsigned long long)step);
		return -EINVAL;
	}
	return 0;
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
