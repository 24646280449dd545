// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark workload: N raw syscalls in a tight loop, timed from inside.
 *
 *   syscall_loop [-n N] [-s getpgid|getppid|faccessat] [-p PATH] [-c CPU]
 * Prints "ns_per_op=<wall ns per syscall> cpu_ns_per_op=<CPU ns per syscall>".
 * getpgid(0) and getppid() do no work in the kernel, so the time is entry/exit
 * plus whatever tracing costs. faccessat(AT_FDCWD, PATH, F_OK) passes a user
 * pointer to text (for str() filters); the default PATH is 40 bytes whose
 * first component does not exist, so the kernel's lookup stops early. The CPU time (this thread's, user + system)
 * does not count time other tasks spend on the CPU, so it is the steadier
 * number on a shared machine.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = 1000000, nr = SYS_getpgid;
	long a0 = 0, a1 = 0;
	const char *path = "/nonexistent/trigrec-bench/some/file.txt";
	int c, cpu = -1;
	double t0, t1, c0, c1;

	while ((c = getopt(argc, argv, "n:s:c:p:")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 's':
			if (!strcmp(optarg, "getpgid"))
				nr = SYS_getpgid;
			else if (!strcmp(optarg, "getppid"))
				nr = SYS_getppid;
			else if (!strcmp(optarg, "faccessat"))
				nr = SYS_faccessat;
			else {
				fprintf(stderr, "syscall_loop: -s getpgid|getppid|faccessat\n");
				return 2;
			}
			break;
		case 'c': cpu = atoi(optarg); break;
		case 'p': path = optarg; break;
		default:
			fprintf(stderr, "usage: syscall_loop [-n N] [-s getpgid|getppid|faccessat] "
					"[-p PATH] [-c CPU]\n");
			return 2;
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (nr == SYS_faccessat) {
		a0 = AT_FDCWD;
		a1 = (long)path;
	}
	/* Warm up: page in, settle the frequency. */
	for (long i = 0; i < n / 20; i++)
		syscall(nr, a0, a1, F_OK, 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		syscall(nr, a0, a1, F_OK, 0);
	c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t1 = now_ns(CLOCK_MONOTONIC);
	printf("ns_per_op=%.1f cpu_ns_per_op=%.1f\n", (t1 - t0) / n, (c1 - c0) / n);
	return 0;
}
