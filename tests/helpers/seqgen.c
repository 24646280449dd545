// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workload: a numbered stream of getpgid(SEQ) syscalls with one
 * getsid(TRIGGER_MARK) at a known sequence number, so a snapshot decoded by
 * perf script can be checked for an exact end and for gaps.
 *
 *   seqgen -n TOTAL -t TRIG_AT [-u USEC_AFTER] [-b BASE] [-w USEC_START]
 *          [-s SECOND_AT] [-e EVERY [-p USEC_PACE]]
 * Calls getpgid(BASE + i) for i in [0, TOTAL); right before i == TRIG_AT it
 * calls getsid(BASE + TRIG_AT). After the trigger, sleeps USEC_AFTER between
 * calls (to test --post windows). -s: a second getsid(BASE + SECOND_AT) right
 * before i == SECOND_AT (two triggers a few hundred calls apart). -e: a
 * getsid(BASE + i) before every i that is a positive multiple of EVERY, each
 * followed by a USEC_PACE sleep (a stream of triggers). Prints
 * "trigger_at_ns=<CLOCK_MONOTONIC ns>" per trigger and "last_seq=<n>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long total = 100000, trig = 50000, after_us = 0, base = 1000000, start_us = 0;
	long second = -1, every = 0, pace_us = 0;
	struct timespec ts;
	int c;

	while ((c = getopt(argc, argv, "n:t:u:b:w:s:e:p:")) != -1) {
		switch (c) {
		case 'n': total = atol(optarg); break;
		case 't': trig = atol(optarg); break;
		case 'u': after_us = atol(optarg); break;
		case 'b': base = atol(optarg); break;
		case 'w': start_us = atol(optarg); break;
		case 's': second = atol(optarg); break;
		case 'e': every = atol(optarg); break;
		case 'p': pace_us = atol(optarg); break;
		default:
			fprintf(stderr,
				"usage: seqgen -n TOTAL -t TRIG_AT [-u USEC_AFTER] [-b BASE] [-w USEC_START] "
				"[-s SECOND_AT] [-e EVERY [-p USEC_PACE]]\n");
			return 2;
		}
	}
	if (start_us)
		usleep(start_us);
	for (long i = 0; i < total; i++) {
		if (i == trig) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			syscall(SYS_getsid, base + trig);
			printf("trigger_at_ns=%lld\n", ts.tv_sec * 1000000000ll + ts.tv_nsec);
		}
		if (i == second || (every && i && i % every == 0 && i != trig)) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			syscall(SYS_getsid, base + i);
			printf("trigger_at_ns=%lld\n", ts.tv_sec * 1000000000ll + ts.tv_nsec);
			if (every && pace_us)
				usleep(pace_us);
		}
		syscall(SYS_getpgid, base + i);
		if (i >= trig && after_us)
			usleep(after_us);
	}
	printf("last_seq=%ld\n", total - 1);
	return 0;
}
