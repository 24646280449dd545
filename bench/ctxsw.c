// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark workload: two threads pass a byte back and forth over two pipes,
 * both pinned to the same CPU, so every hand-off is a real context switch.
 *
 *   ctxsw [-n ROUNDTRIPS] [-c CPU]
 * Prints "ns_per_switch=<wall ns> cpu_ns_per_switch=<CPU ns of both threads>"
 * per context switch (2 switches per round trip). The CPU time does not count
 * other tasks that share the CPU, so it is the steadier number.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 200000;
static int cpu = 0;

static void pin(void)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *echo(void *arg)
{
	char b;

	pin();
	for (;;) {
		if (read(ping[0], &b, 1) != 1)
			break;
		if (b == 'q' || write(pong[1], &b, 1) != 1)
			break;
	}
	return NULL;
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void run(long n)
{
	char b = 'x';

	for (long i = 0; i < n; i++) {
		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1) {
			perror("ctxsw");
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	pthread_t t;
	double t0, t1, c0, c1;
	char q = 'q';
	int c;

	while ((c = getopt(argc, argv, "n:c:")) != -1) {
		switch (c) {
		case 'n': rounds = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: ctxsw [-n ROUNDTRIPS] [-c CPU (-1: do not pin)]\n");
			return 2;
		}
	}
	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	pin();
	pthread_create(&t, NULL, echo, NULL);
	run(rounds / 20); /* warm up */
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	run(rounds);
	c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now_ns(CLOCK_MONOTONIC);
	if (write(ping[1], &q, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("ns_per_switch=%.1f cpu_ns_per_switch=%.1f\n", (t1 - t0) / (2.0 * rounds),
	       (c1 - c0) / (2.0 * rounds));
	return 0;
}
