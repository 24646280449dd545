// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark load: keep CPUs busy with pure computation (no syscalls, so it
 * adds nothing to the recorded events; it only competes for the CPUs).
 *
 *   burn [-j THREADS] [-t SECONDS]
 * Default: one thread per online CPU, 60 s (or until killed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *spin(void *arg)
{
	volatile unsigned long x = 0;

	while (!stop)
		for (int i = 0; i < 100000; i++)
			x = x * 2654435761u + i;
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN), secs = 60;
	pthread_t *t;
	int c;

	while ((c = getopt(argc, argv, "j:t:")) != -1) {
		switch (c) {
		case 'j': threads = atol(optarg); break;
		case 't': secs = atol(optarg); break;
		default: fprintf(stderr, "usage: burn [-j THREADS] [-t SECONDS]\n"); return 2;
		}
	}
	if (threads < 1)
		threads = 1;
	t = calloc(threads, sizeof(*t));
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	sleep(secs);
	stop = 1;
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
