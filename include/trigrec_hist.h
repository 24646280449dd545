/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The log-linear histogram of learned thresholds (`latency ... > p99.9`),
 * one header for the BPF engine and userspace (the sidecar, `show`, the
 * unit tests): value -> bucket, bucket -> bounds, and the percentile of a
 * histogram's counts. Fixed-width types, no libc, no loops the verifier
 * cannot bound: a percentile is a scan over the buckets, one bucket per
 * step (trigrec_hist_pct_step), which BPF runs from bpf_loop.
 *
 * Buckets: values 0..31 have one bucket each; above, each power of two
 * [2^k, 2^(k+1)) for k = 5..39 is cut into 32 equal sub-buckets, so a
 * bucket is at most 1/32 of its lower bound wide (3.1 %, 1/(32 + j) for
 * sub-bucket j) and a value interpolated inside it is within 3.1 % of
 * any value the bucket holds. Values of 2^40 ns (18 min) and more share
 * the last bucket. 1152 buckets: 4.5 KiB of u32 counts.
 */
#ifndef TRIGREC_HIST_H
#define TRIGREC_HIST_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#define TRIGREC_HIST_SUB_BITS 5
#define TRIGREC_HIST_SUB (1u << TRIGREC_HIST_SUB_BITS) /* sub-buckets per power of two */
#define TRIGREC_HIST_MAX_LOG 40			       /* 2^40 and up: the last bucket */
#define TRIGREC_HIST_BUCKETS \
	(TRIGREC_HIST_SUB + (TRIGREC_HIST_MAX_LOG - TRIGREC_HIST_SUB_BITS) * TRIGREC_HIST_SUB)
/* Percentiles are in units of 0.001 %: p99.9 = 99900, p50 = 50000. */
#define TRIGREC_PCT_ONE 100000u

/* floor(log2(v)) for v > 0, in six steps. */
static inline __u32 trigrec_hist_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* The bucket of value v: 0 .. TRIGREC_HIST_BUCKETS - 1. */
static inline __u32 trigrec_hist_bucket(__u64 v)
{
	__u32 k, sh;

	if (v < TRIGREC_HIST_SUB)
		return (__u32)v;
	k = trigrec_hist_log2(v);
	if (k >= TRIGREC_HIST_MAX_LOG)
		return TRIGREC_HIST_BUCKETS - 1;
	sh = k - TRIGREC_HIST_SUB_BITS;
	return TRIGREC_HIST_SUB + sh * TRIGREC_HIST_SUB + (__u32)((v >> sh) - TRIGREC_HIST_SUB);
}

/* The smallest value of bucket b. */
static inline __u64 trigrec_hist_lower(__u32 b)
{
	__u32 sh, j;

	if (b < TRIGREC_HIST_SUB)
		return b;
	if (b >= TRIGREC_HIST_BUCKETS)
		b = TRIGREC_HIST_BUCKETS - 1;
	sh = (b - TRIGREC_HIST_SUB) / TRIGREC_HIST_SUB;
	j = (b - TRIGREC_HIST_SUB) % TRIGREC_HIST_SUB;
	return ((__u64)(TRIGREC_HIST_SUB + j)) << sh;
}

/* The width of bucket b (the last one is given the width of its neighbours). */
static inline __u64 trigrec_hist_width(__u32 b)
{
	if (b < TRIGREC_HIST_SUB)
		return 1;
	if (b >= TRIGREC_HIST_BUCKETS)
		b = TRIGREC_HIST_BUCKETS - 1;
	return 1ull << ((b - TRIGREC_HIST_SUB) / TRIGREC_HIST_SUB);
}

/*
 * A percentile scan: set total and pct, then call trigrec_hist_pct_step()
 * for b = 0, 1, ... with each bucket's count until it returns 1; value is
 * then the percentile, interpolated linearly inside its bucket. The rank
 * sought is ceil(total * pct / TRIGREC_PCT_ONE), at least 1.
 */
struct trigrec_hist_scan {
	__u64 total; /* sum of the counts */
	__u64 rank;  /* set by trigrec_hist_scan_init */
	__u64 seen;  /* counts of the buckets stepped over */
	__u64 value; /* the result, once a step returned 1 */
};

static inline void trigrec_hist_scan_init(struct trigrec_hist_scan *s, __u64 total, __u32 pct)
{
	__u64 r;

	s->total = total;
	s->seen = 0;
	s->value = 0;
	/* total * pct without overflow for any total below 2^46 (counts are u32 x 1152). */
	r = (total * pct + TRIGREC_PCT_ONE - 1) / TRIGREC_PCT_ONE;
	s->rank = r ? r : 1;
}

static inline int trigrec_hist_pct_step(struct trigrec_hist_scan *s, __u32 b, __u64 count)
{
	__u64 in;

	if (!count || s->seen + count < s->rank) {
		s->seen += count;
		return 0;
	}
	/* The rank-th value is the in-th of this bucket's count: spread evenly across it. */
	in = s->rank - s->seen;
	s->value = trigrec_hist_lower(b) + trigrec_hist_width(b) * in / count;
	if (s->value > trigrec_hist_lower(b) + trigrec_hist_width(b) - 1)
		s->value = trigrec_hist_lower(b) + trigrec_hist_width(b) - 1;
	return 1;
}

/*
 * The same scan from the top bucket down, which BPF uses: a high
 * percentile is found after the few buckets above it. Start at the highest
 * bucket holding a count; the result equals the upward scan's.
 */
static inline void trigrec_hist_scan_init_down(struct trigrec_hist_scan *s, __u64 total, __u32 pct)
{
	trigrec_hist_scan_init(s, total, pct);
	/* The rank-th value from the bottom is the (total - rank + 1)-th from the top. */
	s->rank = total - s->rank + 1;
}

static inline int trigrec_hist_pct_step_down(struct trigrec_hist_scan *s, __u32 b, __u64 count)
{
	__u64 in;

	if (!count || s->seen + count < s->rank) {
		s->seen += count;
		return 0;
	}
	/* The same value, counted from this bucket's bottom: the in-th of count. */
	in = count - (s->rank - s->seen) + 1;
	s->value = trigrec_hist_lower(b) + trigrec_hist_width(b) * in / count;
	if (s->value > trigrec_hist_lower(b) + trigrec_hist_width(b) - 1)
		s->value = trigrec_hist_lower(b) + trigrec_hist_width(b) - 1;
	return 1;
}

#ifndef __BPF__
/* Userspace: the percentile pct of counts[TRIGREC_HIST_BUCKETS] (0 when empty). */
static inline __u64 trigrec_hist_percentile(const __u32 *counts, __u32 pct)
{
	struct trigrec_hist_scan s;
	__u64 total = 0;

	for (__u32 b = 0; b < TRIGREC_HIST_BUCKETS; b++)
		total += counts[b];
	if (!total)
		return 0;
	trigrec_hist_scan_init(&s, total, pct);
	for (__u32 b = 0; b < TRIGREC_HIST_BUCKETS; b++)
		if (trigrec_hist_pct_step(&s, b, counts[b]))
			break;
	return s.value;
}
#endif

#endif /* TRIGREC_HIST_H */
