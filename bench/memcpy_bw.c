// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The memory-copy bound: how long memcpy takes to copy SIZE bytes on this
 * machine, the floor under any harvest of SIZE bytes of rings.
 *
 *   memcpy_bw SIZE...      (bytes, or with K/M/G suffix)
 * Prints per size "size=<bytes> hot_ns=<ns> cold_ns=<ns> hot_gbps=.. cold_gbps=..":
 * hot copies the same pre-faulted buffers again and again (they stay in the
 * caches: the best case); cold copies between buffers cycled through 256 MiB
 * pools (from memory: closer to a harvest, whose ring data was written by
 * other CPUs). Each is the median of 15 copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REPS = 15 };
#define POOL (256ul << 20)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Median time of REPS copies of sz bytes, spread over `chunks` chunks of the pools. */
static long long run(char *src, char *dst, size_t sz, size_t chunks)
{
	size_t step = chunks >= REPS ? chunks / REPS : 1;
	long long t[REPS];

	for (int r = 0; r < REPS; r++) {
		size_t off = ((r * step) % chunks) * sz;
		long long t0 = now_ns();

		memcpy(dst + off, src + off, sz);
		t[r] = now_ns() - t0;
		src[off + r] = dst[off + sz - 1 - r]; /* keep the copies alive */
	}
	qsort(t, REPS, sizeof(t[0]), cmp);
	return t[REPS / 2];
}

int main(int argc, char **argv)
{
	char *src = malloc(POOL), *dst = malloc(POOL);

	if (!src || !dst) {
		perror("memcpy_bw: malloc");
		free(src);
		free(dst);
		return 1;
	}
	/* Distinct non-zero bytes: really fault every page in. */
	memset(src, 1, POOL);
	memset(dst, 2, POOL);
	for (int a = 1; a < argc; a++) {
		char *end;
		size_t sz = strtoull(argv[a], &end, 10), chunks;
		long long hot, cold;

		if (*end == 'K' || *end == 'k')
			sz <<= 10;
		else if (*end == 'M' || *end == 'm')
			sz <<= 20;
		else if (*end == 'G' || *end == 'g')
			sz <<= 30;
		if (!sz || sz > POOL / 4) {
			fprintf(stderr, "memcpy_bw: size %s out of range (1..%lu)\n", argv[a],
				POOL / 4);
			free(src);
			free(dst);
			return 2;
		}
		chunks = POOL / sz;
		hot = run(src, dst, sz, 1);
		cold = run(src, dst, sz, chunks);
		printf("size=%zu hot_ns=%lld cold_ns=%lld hot_gbps=%.2f cold_gbps=%.2f\n", sz, hot,
		       cold, hot ? (double)sz / hot : 0.0, cold ? (double)sz / cold : 0.0);
	}
	free(src);
	free(dst);
	return 0;
}
