/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The perf.data header features that describe the machine (CPU, memory,
 * topology, PMUs, caches), read the way perf 6.1's header.c and cputopo.c
 * read them, so that `perf report --header-only` prints the same lines for
 * a trigrec snapshot as for perf's own file. Read once per run: none of it
 * changes while recording (NUMA free memory does, and is the value at start).
 */
#ifndef TRIGREC_PDHOST_H
#define TRIGREC_PDHOST_H
#include "snapshot/perfdata.h"

struct pd_host {
	char hostname[65], osrelease[65], arch[65];
	char cpudesc[256], cpuid[128];
	uint32_t nr_cpus_avail; /* highest present CPU + 1, as perf writes it */
	uint32_t nr_cpus_online;
	uint64_t total_mem_kb;
	struct pd_buf feat[PD_HOST_NR]; /* payloads; len 0 = unknown here, not written */
};

/*
 * Best effort, like perf: a feature whose sources cannot be read is left
 * out of the file, nothing fails. Returns -ENOMEM only.
 */
int pd_host__init(struct pd_host *h);
void pd_host__fini(struct pd_host *h);
/* Point meta's host fields at h (h must outlive meta). */
void pd_host__meta(const struct pd_host *h, struct pd_meta *meta);

/* Pieces, exposed for the tests. */
/* "AuthenticAMD,26,2,1" (x86: vendor,family,model,stepping as perf prints them). */
int pd_host_cpuid(char *buf, size_t len);
/* /proc/cpuinfo's model name with blanks squashed, as perf's CPUDESC. */
int pd_host_cpudesc(char *buf, size_t len);

#endif
