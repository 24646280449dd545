// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workload for dynamic probes (uprobes, uretprobes, USDT): calls
 * probework_call(i, ms, tag) for i = 1..N, sleeping ms inside call -s only,
 * and fires the USDT probe probework:tick (with a semaphore) for each i.
 *
 *   probework [-n N] [-s SLOW_INDEX] [-m SLOW_MS] [-u] [-w SECONDS] [-g]
 *
 * probework_call() returns i * 10; its tag is "call-<i>". With -u each call
 * is preceded by the USDT probe (arguments i and the tag), fired only while
 * its semaphore is raised; -w waits up to SECONDS for a tracer to raise it. The last line
 * on stdout is "semaphore=V" (V: its value when the probes were fired).
 * With -g each i also calls probework_a(i) (returns i + 1) and then
 * probework_b(i) (returns i + 2), for globs (uprobe:PATH:probework_[ab]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* Probes with a semaphore: sdt.h then names probework_tick_semaphore in the note. */
// NOLINTNEXTLINE(bugprone-reserved-identifier): sdt.h's own switch for semaphores
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* The semaphore trigrec raises through uprobe_events' (ref_ctr_offset). */
unsigned short probework_tick_semaphore __attribute__((section(".probes"), used));
#define PROBEWORK_TICK_ENABLED() __builtin_expect(probework_tick_semaphore != 0, 0)

static volatile long sink;

__attribute__((noinline)) long probework_call(long id, long ms, const char *tag)
{
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	sink += tag[0];
	return id * 10;
}

__attribute__((noinline)) long probework_a(long id)
{
	sink += id;
	return id + 1;
}

__attribute__((noinline)) long probework_b(long id)
{
	sink -= id;
	return id + 2;
}

int main(int argc, char **argv)
{
	long n = 5, slow = 0, slow_ms = 50, wait_s = 0;
	int usdt = 0, globs = 0, c;

	while ((c = getopt(argc, argv, "n:s:m:uw:g")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 's': slow = atol(optarg); break;
		case 'm': slow_ms = atol(optarg); break;
		case 'u': usdt = 1; break;
		case 'w': wait_s = atol(optarg); break;
		case 'g': globs = 1; break;
		default:
			fprintf(stderr, "usage: probework [-n N] [-s SLOW_INDEX] [-m SLOW_MS] [-u] "
					"[-w SECONDS] [-g]\n");
			return 2;
		}
	}
	for (long t = 0; t < wait_s * 100 && !probework_tick_semaphore; t++)
		usleep(10000);
	for (long i = 1; i <= n; i++) {
		char tag[32];

		snprintf(tag, sizeof(tag), "call-%ld", i);
		if (usdt && PROBEWORK_TICK_ENABLED())
			DTRACE_PROBE2(probework, tick, i, tag);
		probework_call(i, i == slow ? slow_ms : 0, tag);
		if (globs) {
			probework_a(i);
			probework_b(i);
		}
	}
	printf("semaphore=%u\n", (unsigned)probework_tick_semaphore);
	return 0;
}
