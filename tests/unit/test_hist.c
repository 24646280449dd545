// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for include/trigrec_hist.h, the bucket math the BPF engine
 * learns thresholds with: every bucket's bounds, and on a seeded log-normal
 * stream of 10^6 latencies the learned p99.9 against the exact one.
 */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "trigrec_hist.h"

/* Every value maps to the bucket whose bounds hold it; buckets tile 0 .. 2^40. */
TEST(bucket_bounds)
{
	__u64 next = 0;

	for (__u32 b = 0; b < TRIGREC_HIST_BUCKETS; b++) {
		__u64 lo = trigrec_hist_lower(b), w = trigrec_hist_width(b);

		CHECK_EQ(lo, next); /* no gap, no overlap */
		CHECK_EQ(trigrec_hist_bucket(lo), b);
		CHECK_EQ(trigrec_hist_bucket(lo + w - 1), b);
		/* At most 1/32 of the lower bound wide: 3.1 %. */
		if (b >= TRIGREC_HIST_SUB)
			CHECK(w * TRIGREC_HIST_SUB <= lo);
		next = lo + w;
	}
	CHECK_EQ(next, 1ull << TRIGREC_HIST_MAX_LOG);
	CHECK_EQ(trigrec_hist_bucket(1ull << TRIGREC_HIST_MAX_LOG), TRIGREC_HIST_BUCKETS - 1);
	CHECK_EQ(trigrec_hist_bucket(~0ull), TRIGREC_HIST_BUCKETS - 1);
	CHECK_EQ(trigrec_hist_bucket(0), 0);
	CHECK_EQ(trigrec_hist_bucket(31), 31);
	CHECK_EQ(trigrec_hist_bucket(32), 32);
	CHECK_EQ(trigrec_hist_bucket(64), 64);
	CHECK_EQ(trigrec_hist_bucket(65), 64); /* [64, 66) */
	CHECK_EQ(TRIGREC_HIST_BUCKETS, 1152);
	for (int k = 0; k < 64; k++)
		CHECK_EQ(trigrec_hist_log2(1ull << k), k);
	CHECK_EQ(trigrec_hist_log2(~0ull), 63);
	return 0;
}

/* A small histogram whose percentiles are known exactly. */
TEST(percentile_small)
{
	static __u32 c[TRIGREC_HIST_BUCKETS];

	CHECK_EQ(trigrec_hist_percentile(c, 99900), 0); /* empty */
	for (int v = 1; v <= 10; v++)
		c[v] = 1; /* 1..10, one each */
	CHECK_EQ(trigrec_hist_percentile(c, 50000), 5);
	CHECK_EQ(trigrec_hist_percentile(c, 90000), 9);
	CHECK_EQ(trigrec_hist_percentile(c, 99900), 10);
	CHECK_EQ(trigrec_hist_percentile(c, 100000), 10);
	CHECK_EQ(trigrec_hist_percentile(c, 1), 1);
	return 0;
}

static __u64 rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: a fixed sequence, so the test is the same on every run. */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * 10^6 log-normal latencies (median 1 ms, sigma 1: p99.9 near 22 ms): the
 * learned p99.9 is within one bucket (and 3 %) of the exact one, and the
 * share of values above it within 20 % of 0.1 %.
 */
TEST(lognormal_p999)
{
	enum { N = 1000000 };
	static __u32 c[TRIGREC_HIST_BUCKETS];
	__u64 *v = malloc(N * sizeof(*v)), exact, learned, above = 0;
	double rel, share;
	long bd;

	CHECK(v);
	if (!v)
		return 1;
	for (int i = 0; i < N; i += 2) {
		/* Box-Muller: two normals from two uniforms. */
		double u1 = uniform(), u2 = uniform(), r, z0, z1;

		if (u1 < 1e-300)
			u1 = 1e-300;
		r = sqrt(-2.0 * log(u1));
		z0 = r * cos(2 * M_PI * u2);
		z1 = r * sin(2 * M_PI * u2);
		v[i] = (__u64)(1e6 * exp(z0));
		v[i + 1] = (__u64)(1e6 * exp(z1));
	}
	for (int i = 0; i < N; i++)
		c[trigrec_hist_bucket(v[i])]++;
	learned = trigrec_hist_percentile(c, 99900);
	qsort(v, N, sizeof(*v), cmp_u64);
	exact = v[(N * 999 + 999) / 1000 - 1]; /* rank ceil(0.999 N) */
	for (int i = 0; i < N; i++)
		above += v[i] > learned;
	rel = fabs((double)learned - (double)exact) / (double)exact;
	share = (double)above / N;
	bd = (long)trigrec_hist_bucket(learned) - (long)trigrec_hist_bucket(exact);
	printf("    exact p99.9 %llu ns, learned %llu ns (%.3f %%, %ld buckets apart); "
	       "%.4f %% of values above it\n",
	       (unsigned long long)exact, (unsigned long long)learned, rel * 100, bd, share * 100);
	CHECK(rel <= 0.03);
	CHECK(bd >= -1 && bd <= 1);
	CHECK(share >= 0.001 * 0.8 && share <= 0.001 * 1.2);
	/* BPF scans from the top down: the same value for any percentile. */
	for (__u32 pct = 1; pct <= TRIGREC_PCT_ONE; pct += 997) {
		struct trigrec_hist_scan d;
		__u32 b = TRIGREC_HIST_BUCKETS;

		trigrec_hist_scan_init_down(&d, N, pct);
		while (b-- > 0)
			if (trigrec_hist_pct_step_down(&d, b, c[b]))
				break;
		CHECK_EQ(d.value, trigrec_hist_percentile(c, pct));
	}
	/* p50: the median of a log-normal is e^mu = 1 ms. */
	CHECK(fabs((double)trigrec_hist_percentile(c, 50000) - 1e6) / 1e6 < 0.03);
	free(v);
	return 0;
}

RUN_TESTS(T(bucket_bounds), T(percentile_small), T(lognormal_p999))
