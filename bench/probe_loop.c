// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark workload for dynamic probes: N calls of a function that does
 * nothing, timed from inside; a uprobe on probe_loop_fn costs every call a
 * trap into the kernel, so the difference to a run without one is the cost
 * per probe hit.
 *
 *   probe_loop [-n N] [-c CPU]
 * Prints "ns_per_op=<wall ns per call> cpu_ns_per_op=<CPU ns per call>"
 * (CPU: this thread's user + system time, which includes the probe's
 * handling in the kernel).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) long probe_loop_fn(long i, long j, const char *tag)
{
	sink += i + j + tag[0];
	return i;
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = 200000;
	int c, cpu = -1;
	double t0, t1, c0, c1;

	while ((c = getopt(argc, argv, "n:c:")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default: fprintf(stderr, "usage: probe_loop [-n N] [-c CPU]\n"); return 2;
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		probe_loop_fn(i, n - i, "probe");
	c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t1 = now_ns(CLOCK_MONOTONIC);
	printf("ns_per_op=%.1f cpu_ns_per_op=%.1f\n", (t1 - t0) / n, (c1 - c0) / n);
	return 0;
}
