// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workload: keep every CPU busy, and the recorder's rings busy too.
 *
 *   burn [-j THREADS] [-d SECONDS] [-s SPIN] [-a ARG] [-n]
 * Starts THREADS threads (default: the CPUs it may run on), thread i pinned
 * to the i-th of those CPUs (-n: not pinned), that each loop for at most
 * SECONDS (default 2, capped at 60 so a forgotten burner ends by itself):
 * SPIN iterations of arithmetic (default 2000), then one cheap syscall,
 * getpgid(ARG) (default ARG 0: the caller's own group), so a recording of
 * syscalls:sys_enter_getpgid sees a steady stream from every CPU. Tests tell
 * these apart from seqgen's numbered calls by the argument (ARG < seqgen's
 * BASE). Prints "calls=<total getpgid calls>" at the end.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double duration = 2.0;
static long spin = 2000, arg;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *p)
{
	double end = now() + duration;
	volatile unsigned long x = (unsigned long)p;
	unsigned long calls = 0;

	while (now() < end) {
		for (long i = 0; i < spin; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		syscall(SYS_getpgid, arg);
		calls++;
	}
	return (void *)calls;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long total = 0;
	int c, pin = 1, cpus[CPU_SETSIZE], ncpus = 0;
	cpu_set_t allowed;
	pthread_t *t;

	if (!sched_getaffinity(0, sizeof(allowed), &allowed)) {
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &allowed))
				cpus[ncpus++] = i;
		if (ncpus)
			threads = ncpus;
	}
	while ((c = getopt(argc, argv, "j:d:s:a:n")) != -1) {
		switch (c) {
		case 'j': threads = atol(optarg); break;
		case 'd': duration = atof(optarg); break;
		case 's': spin = atol(optarg); break;
		case 'a': arg = atol(optarg); break;
		case 'n': pin = 0; break;
		default:
			fprintf(stderr,
				"usage: burn [-j THREADS] [-d SECONDS] [-s SPIN] [-a ARG] [-n]\n");
			return 2;
		}
	}
	if (threads < 1)
		threads = 1;
	if (threads > 1024)
		threads = 1024;
	if (duration < 0)
		duration = 0;
	if (duration > 60)
		duration = 60;
	if (spin < 0)
		spin = 0;
	t = calloc(threads, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < threads; i++) {
		pthread_attr_t at;
		cpu_set_t one;

		pthread_attr_init(&at);
		if (pin && ncpus) {
			CPU_ZERO(&one);
			CPU_SET(cpus[i % ncpus], &one);
			pthread_attr_setaffinity_np(&at, sizeof(one), &one);
		}
		c = pthread_create(&t[i], &at, worker, (void *)(i + 1));
		pthread_attr_destroy(&at);
		if (c) {
			threads = i;
			break;
		}
	}
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (unsigned long)r;
	}
	free(t);
	printf("calls=%lu\n", total);
	return 0;
}
