// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * "trigrec without the freeze gates": the perf side of `trigrec record`
 * alone, for the overhead benchmark. Opens the tracepoints with trigrec's
 * perf_event_attr (lean sample_type, write_backward, CLOCK_MONOTONIC,
 * inherit, enable_on_exec), one overwritable read-only ring per CPU plus a
 * 64 KiB tracking ring (dummy event, comm/task), runs the command and waits
 * for it. No BPF program is attached, nothing is ever read.
 *
 *   ringonly -e SYS:NAME [-e SYS:NAME...] [-m RING_BYTES] -- command [args]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define TP_SAMPLE_TYPE                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_RAW)
#define TRACK_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static long tp_id(const char *spec)
{
	const char *roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	char path[512], sys[128];
	const char *colon = strchr(spec, ':');
	long id = -1;

	if (!colon || colon - spec >= (long)sizeof(sys))
		return -1;
	memcpy(sys, spec, colon - spec);
	sys[colon - spec] = 0;
	for (int i = 0; i < 2 && id < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/%s/id", roots[i], sys, colon + 1);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

static void base(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->write_backward = 1;
	a->inherit = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->sample_period = 1;
}

static int open_ev(struct perf_event_attr *a, pid_t pid, int cpu, int *leader, size_t bytes)
{
	long psz = sysconf(_SC_PAGESIZE);
	int fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		perror("ringonly: perf_event_open");
		return -1;
	}
	if (*leader < 0) {
		if (mmap(NULL, bytes + psz, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
			perror("ringonly: mmap");
			return -1;
		}
		*leader = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *leader)) {
		perror("ringonly: PERF_EVENT_IOC_SET_OUTPUT");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long ids[64], ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t ring = 1 << 20;
	int nev = 0, c, go[2], status;
	pid_t pid;
	char g = 'g';

	while ((c = getopt(argc, argv, "+e:m:")) != -1) {
		switch (c) {
		case 'e':
			if (nev == 64 || (ids[nev] = tp_id(optarg)) < 0) {
				fprintf(stderr, "ringonly: unknown tracepoint %s\n", optarg);
				return 2;
			}
			nev++;
			break;
		case 'm': {
			char *end;

			ring = strtoull(optarg, &end, 10);
			if (*end == 'K' || *end == 'k')
				ring <<= 10;
			else if (*end == 'M' || *end == 'm')
				ring <<= 20;
			break;
		}
		default: goto usage;
		}
	}
	if (!nev || optind >= argc)
		goto usage;
	if (pipe2(go, O_CLOEXEC))
		return 1;
	pid = fork();
	if (pid == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[optind], &argv[optind]);
		_exit(127);
	}
	close(go[0]);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		int leader = -1, tleader = -1;

		for (int i = 0; i < nev; i++) {
			base(&a);
			a.type = PERF_TYPE_TRACEPOINT;
			a.config = ids[i];
			a.sample_type = TP_SAMPLE_TYPE;
			if (open_ev(&a, pid, cpu, &leader, ring))
				goto kill;
		}
		base(&a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.comm = a.comm_exec = a.task = 1;
		a.sample_type = TRACK_SAMPLE_TYPE;
		if (open_ev(&a, pid, cpu, &tleader, 64 << 10))
			goto kill;
	}
	if (write(go[1], &g, 1) != 1)
		goto kill;
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
kill:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
usage:
	fprintf(stderr, "usage: ringonly -e SYS:NAME [-e ...] [-m RING_BYTES] -- command [args]\n");
	return 2;
}
