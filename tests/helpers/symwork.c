// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workload with known function names, for symbolization tests: spins
 * in symwork_spin_a() (about 3/4 of the time) and symwork_spin_b() for
 * SECONDS, then calls getsid(MARK) once (a trigger) and exits.
 *
 *   symwork [-d SECONDS] [-m MARK]
 * Frame pointers are kept so that -g user stacks walk through main().
 */
#pragma GCC optimize("no-omit-frame-pointer")
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void symwork_spin_a(long n)
{
	for (long i = 0; i < n; i++)
		sink = sink * 31 + i;
}

__attribute__((noinline)) void symwork_spin_b(long n)
{
	for (long i = 0; i < n; i++)
		sink = sink * 17 + (i ^ sink);
}

int main(int argc, char **argv)
{
	double d = 0.5, end;
	long mark = 4242;
	int c;

	while ((c = getopt(argc, argv, "d:m:")) != -1) {
		switch (c) {
		case 'd': d = atof(optarg); break;
		case 'm': mark = atol(optarg); break;
		default: fprintf(stderr, "usage: symwork [-d SECONDS] [-m MARK]\n"); return 2;
		}
	}
	end = now() + d;
	while (now() < end) {
		symwork_spin_a(300000);
		symwork_spin_b(100000);
	}
	syscall(SYS_getsid, mark);
	return 0;
}
