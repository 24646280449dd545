// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Benchmark workload: a numbered getpgid(BASE + i) stream, like
 * tests/helpers/seqgen, with K triggers (getsid(BASE + i)) spaced in time.
 *
 *   trigseq [-p PRE_US] [-k K] [-g GAP_US] [-a AFTER_US] [-b BASE] [-j THREADS]
 * Runs the stream for PRE_US, then fires trigger 1, then one trigger every
 * GAP_US, then keeps going AFTER_US after the last one. Trigger k at sequence
 * number S is getsid(BASE + S) right before getpgid(BASE + S), so records
 * with seq >= S are after trigger k. With -j N > 1, N-1 more threads, pinned
 * to CPUs 1..N-1, call getpgid(0) until the end (to fill every CPU's ring);
 * the numbered stream is then pinned to CPU 0. They stop calling at the
 * first trigger (the rings are full by then), leaving the other CPUs idle,
 * and exit at the end.
 * Prints "trigger=<k> seq=<S> at_ns=<CLOCK_MONOTONIC> real_ns=<CLOCK_REALTIME>"
 * per trigger and "last_seq=<n>".
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile int stop, quit;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *filler(void *arg)
{
	pin((int)(long)arg);
	while (!stop)
		syscall(SYS_getpgid, 0);
	/* Idle but alive until the end: a snapshot names live threads. */
	while (!quit)
		usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	long long pre_us = 100000, gap_us = 20000, after_us = 50000, base = 1000000;
	long long next, end, *at, *real, i = 0;
	long *seq;
	int k = 2, threads = 1, c, fired = 0;
	pthread_t t[64];

	while ((c = getopt(argc, argv, "p:k:g:a:b:j:")) != -1) {
		switch (c) {
		case 'p': pre_us = atoll(optarg); break;
		case 'k': k = atoi(optarg); break;
		case 'g': gap_us = atoll(optarg); break;
		case 'a': after_us = atoll(optarg); break;
		case 'b': base = atoll(optarg); break;
		case 'j': threads = atoi(optarg); break;
		default:
			fprintf(stderr,
				"usage: trigseq [-p PRE_US] [-k K] [-g GAP_US] [-a AFTER_US] "
				"[-b BASE] [-j THREADS]\n");
			return 2;
		}
	}
	if (k < 1)
		k = 1;
	if (threads < 1 || threads > 64)
		threads = 1;
	at = calloc(k, sizeof(*at));
	seq = calloc(k, sizeof(*seq));
	real = calloc(k, sizeof(*real));
	if (threads > 1) {
		pin(0);
		for (long j = 1; j < threads; j++)
			pthread_create(&t[j], NULL, filler, (void *)j);
	}
	next = now_ns() + pre_us * 1000;
	end = 0;
	for (;; i++) {
		long long now = now_ns();

		if (fired < k && now >= next) {
			struct timespec rt;

			clock_gettime(CLOCK_REALTIME, &rt);
			real[fired] = rt.tv_sec * 1000000000ll + rt.tv_nsec;
			at[fired] = now;
			seq[fired] = i;
			syscall(SYS_getsid, base + i);
			stop = 1;
			fired++;
			next = now + gap_us * 1000;
			if (fired == k)
				end = now + after_us * 1000;
		}
		if (end && now >= end)
			break;
		syscall(SYS_getpgid, base + i);
	}
	stop = quit = 1;
	for (int j = 1; j < threads; j++)
		pthread_join(t[j], NULL);
	for (int j = 0; j < k; j++)
		printf("trigger=%d seq=%ld at_ns=%lld real_ns=%lld\n", j + 1, seq[j], at[j],
		       real[j]);
	printf("last_seq=%lld\n", i - 1);
	free(at);
	free(seq);
	free(real);
	return 0;
}
