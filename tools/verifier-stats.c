// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verifier-stats: load trigrec's BPF object (the skeleton embeds
 * .output/trigrec.bpf.o) with the verifier's statistics log and print, per
 * program, "NAME verified insns N states S" (the "processed N insns" of
 * BPF_LOG_STATS). `make lint` compares the figures with bpf/verifier-budget.txt
 * (tools/verifier-budget.sh).
 *
 * Every optional path is switched on in .rodata (task and cgroup scope, CPU
 * list, self exclusion, both budgets): the verifier prunes branches on frozen
 * read-only data, so the defaults (all zero) would hide most of the code from
 * it. What is measured is the hardest configuration trigrec can load.
 *
 * Needs root (CAP_BPF) and loads into the running kernel, but attaches
 * nothing and traces nothing: it needs no trace lock. Exit status 0 when every
 * program loaded, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "trigrec_abi.h"
#include "trigrec.skel.h"

#define LOG_BYTES (1u << 20)
#define BPF_LOG_STATS 4 /* the kernel's BPF_LOG_STATS: only the summary lines */

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* The verifier log is read from the buffers below; libbpf's own chatter is not. */
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct trigrec_bpf *skel;
	struct bpf_program *prog;
	char *logs[64] = {};
	int nprog = 0, err, ret = 1;

	if (argc > 1) {
		fprintf(stderr, "usage: %s (no arguments; run as root)\n", argv[0]);
		return 2;
	}
	libbpf_set_print(quiet_libbpf);
	skel = trigrec_bpf__open();
	if (!skel) {
		fprintf(stderr, "verifier-stats: cannot open the BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	skel->rodata->scope_tgid = 1;
	skel->rodata->self_tgid = 1;
	skel->rodata->scope_gates = 1;
	skel->rodata->cpu_limited = 1;
	skel->rodata->scope_cgroup = 1;
	for (int i = 0; i < 2; i++) {
		skel->rodata->budget_n[i] = 1;
		skel->rodata->budget_period_ns[i] = 1000000000;
	}
	/* The ring paths: rings=bpf's ring sets, and rings=compact's byte rings (32 KiB segments). */
	skel->rodata->ring_mode = 1;
	skel->rodata->compact = 1;
	skel->rodata->cr_shift = 15;
	skel->rodata->cr_nseg = 8;
	if (bpf_map__set_value_size(skel->maps.cr_rings,
				    (1u << 15) + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD +
					    (1u << 15) / TRIGREC_CR_BLOCK *
						    sizeof(struct trigrec_cblk)) ||
	    bpf_map__set_max_entries(skel->maps.cr_rings, 9)) {
		fprintf(stderr, "verifier-stats: cannot size cr_rings\n");
		goto out;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		if (nprog == (int)(sizeof(logs) / sizeof(logs[0]))) {
			fprintf(stderr, "verifier-stats: more than %d programs: raise logs[]\n",
				nprog);
			goto out;
		}
		logs[nprog] = calloc(1, LOG_BYTES);
		if (!logs[nprog]) {
			fprintf(stderr, "verifier-stats: out of memory\n");
			goto out;
		}
		/* The tp_btf fast paths load only when in use ("?tp_btf/"): all of them here. */
		bpf_program__set_autoload(prog, true);
		bpf_program__set_log_buf(prog, logs[nprog], LOG_BYTES);
		bpf_program__set_log_level(prog, BPF_LOG_STATS);
		nprog++;
	}
	err = trigrec_bpf__load(skel);
	if (err) {
		fprintf(stderr, "verifier-stats: loading failed: %s%s\n", strerror(-err),
			err == -EPERM ? " (run as root)" : "");
		for (int i = 0; i < nprog; i++)
			if (logs[i][0])
				fprintf(stderr, "%s\n", logs[i]);
		goto out;
	}
	ret = 0;
	for (int i = 0; i < nprog; i++) {
		const char *p = strstr(logs[i], "processed ");
		unsigned long insns, states = 0;
		const char *s;

		prog = i ? bpf_object__next_program(skel->obj, prog) :
			   bpf_object__next_program(skel->obj, NULL);
		if (!p || sscanf(p, "processed %lu insns", &insns) != 1) {
			fprintf(stderr, "verifier-stats: %s: no \"processed N insns\" in its log\n",
				bpf_program__name(prog));
			ret = 1;
		} else {
			s = strstr(p, "total_states ");
			if (s)
				sscanf(s, "total_states %lu", &states);
			printf("%s verified insns %lu states %lu\n", bpf_program__name(prog), insns,
			       states);
		}
	}
out:
	trigrec_bpf__destroy(skel);
	for (int i = 0; i < (int)(sizeof(logs) / sizeof(logs[0])); i++)
		free(logs[i]);
	return ret;
}
