// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bench row 3f, "the floor": attach one pair of bench/bpf/floor.bpf.c's
 * programs (system-wide), run a command, detach, and say what they did.
 *
 *   floor [-s] cnop|crec|bnop|brec|bother -- command [args]
 *
 * cnop/crec: classic syscalls:sys_{enter,exit}_getpgid programs, doing
 * nothing / writing a 24-byte record; bnop/brec: the same from
 * tp_btf/sys_{enter,exit}, which test the syscall number first; bother:
 * brec recording getppid (what the tp_btf path costs a call it does not
 * record). Prints "records=N" (records written while the command ran, all
 * CPUs) and "check_runs=N": after the command, with run-time stats on, the
 * fewest runs of either program over FLOOR_CHECK getpgid calls of its own,
 * so a row can tell a program that never ran from one that did nothing.
 * -s keeps the stats on while the command runs (they cost two clock reads
 * per run) and prints each program's run_cnt and run_time_ns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/floor.h"
#include "bench/floor.skel.h"

#define FLOOR_CHECK 1000

struct variant {
	const char *name;
	const char *enter, *exit;
	long nr;
};

static const struct variant variants[] = {
	{ "cnop", "cnop_enter", "cnop_exit", SYS_getpgid },
	{ "crec", "crec_enter", "crec_exit", SYS_getpgid },
	{ "bnop", "bnop_enter", "bnop_exit", SYS_getpgid },
	{ "brec", "brec_enter", "brec_exit", SYS_getpgid },
	{ "bother", "brec_enter", "brec_exit", SYS_getppid },
};

static int usage(void)
{
	fprintf(stderr, "usage: floor [-s] cnop|crec|bnop|brec|bother -- command [args]\n");
	return 2;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "floor: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Records ever written, summed over the CPUs' rings. */
static long long records(struct floor_bpf *skel, int ncpu)
{
	int fd = bpf_map__fd(skel->maps.ring);
	struct floor_ring *fr = malloc(sizeof(*fr));
	long long n = 0;

	if (!fr)
		return -1;
	for (__u32 cpu = 0; cpu < (__u32)ncpu; cpu++) {
		if (bpf_map_lookup_elem(fd, &cpu, fr)) {
			n = -1;
			break;
		}
		n += fr->head;
	}
	free(fr);
	return n;
}

static int prog_stats(struct bpf_program *p, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(bpf_program__fd(p), info, &len);
}

int main(int argc, char **argv)
{
	const struct variant *v = NULL;
	struct bpf_program *pe, *px, *p;
	struct bpf_link *le = NULL, *lx = NULL;
	struct bpf_prog_info ie, ix;
	struct floor_bpf *skel;
	int c, stats = 0, stats_fd = -1, ncpu, rc = 1, cmd_rc;
	long long n;

	while ((c = getopt(argc, argv, "+s")) != -1) {
		if (c != 's')
			return usage();
		stats = 1;
	}
	if (optind + 1 >= argc)
		return usage();
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (!strcmp(argv[optind], variants[i].name))
			v = &variants[i];
	if (!v)
		return usage();
	optind++;
	if (!strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		return usage();

	ncpu = libbpf_num_possible_cpus();
	skel = floor_bpf__open();
	if (!skel || ncpu <= 0) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->rec_nr = v->nr;
	bpf_map__set_max_entries(skel->maps.ring, ncpu);
	pe = bpf_object__find_program_by_name(skel->obj, v->enter);
	px = bpf_object__find_program_by_name(skel->obj, v->exit);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == pe || p == px);
	if (floor_bpf__load(skel)) {
		fprintf(stderr, "floor: cannot load %s: %s\n", v->name, strerror(errno));
		goto out;
	}
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "floor: cannot enable run-time stats: %s\n",
				strerror(errno));
			goto out;
		}
	}
	le = bpf_program__attach(pe);
	lx = le ? bpf_program__attach(px) : NULL;
	if (!lx) {
		fprintf(stderr, "floor: cannot attach %s: %s\n", v->name, strerror(errno));
		goto out;
	}
	cmd_rc = run(argv + optind);
	n = records(skel, ncpu);
	if (stats && !prog_stats(pe, &ie) && !prog_stats(px, &ix))
		printf("enter_run_cnt=%llu enter_run_time_ns=%llu exit_run_cnt=%llu exit_run_time_ns=%llu\n",
		       (unsigned long long)ie.run_cnt, (unsigned long long)ie.run_time_ns,
		       (unsigned long long)ix.run_cnt, (unsigned long long)ix.run_time_ns);
	if (stats_fd < 0)
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0 || prog_stats(pe, &ie)) {
		fprintf(stderr, "floor: cannot read the programs' run counts: %s\n",
			strerror(errno));
		goto out;
	}
	{
		__u64 e0 = ie.run_cnt, x0;

		if (prog_stats(px, &ix))
			goto out;
		x0 = ix.run_cnt;
		for (int i = 0; i < FLOOR_CHECK; i++)
			syscall(SYS_getpgid, 0);
		if (prog_stats(pe, &ie) || prog_stats(px, &ix))
			goto out;
		e0 = ie.run_cnt - e0;
		x0 = ix.run_cnt - x0;
		printf("records=%lld check_runs=%llu\n", n,
		       (unsigned long long)(e0 < x0 ? e0 : x0));
	}
	fflush(stdout);
	rc = cmd_rc;
out:
	bpf_link__destroy(lx);
	bpf_link__destroy(le);
	if (stats_fd >= 0)
		close(stats_fd);
	floor_bpf__destroy(skel);
	return rc;
}
