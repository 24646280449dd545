/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The memory a recording takes, checked against what the machine can give
 * before anything is allocated. Per recorded CPU: main_rings main rings (the
 * ring sets, and perf's ring) and a tracking ring, pinned in the kernel (each
 * one control page more), and in trigrec's own memory RECORDER_HARVEST_SETS
 * copies of all of them (the double-buffered harvests of sideband.c). -m 1G
 * on 2 CPUs with one main ring is 2 GiB pinned + 4 GiB of copies, with the
 * two ring sets 4 + 8 GiB; on 64 CPUs 192 or 384 GiB.
 */
#ifndef TRIGREC_RINGMEM_H
#define TRIGREC_RINGMEM_H
#include <stddef.h>
#include <stdint.h>

struct ringmem_need {
	uint64_t page_size;
	uint64_t main_pages;  /* per CPU (-m) */
	uint64_t track_pages; /* per CPU */
	int nr_cpus;	      /* recorded CPUs */
	int copies;	      /* harvest buffer sets */
	int main_rings;	      /* main rings per CPU (rings=bpf: its sets, +1 for perf's); 0 = 1 */
	/*
	 * rings=compact: the byte rings are one BPF map (not perf's, not
	 * locked memory) with a main ring of -m and a spare of 1/8 for every
	 * possible CPU (compact_cpus), copied with their headers; main_rings
	 * then counts perf's rings only (0: none).
	 */
	int compact;
	int compact_cpus;
};

#define RINGMEM_UNLIMITED UINT64_MAX

struct ringmem_have {
	uint64_t mem_available; /* MemAvailable of /proc/meminfo, bytes; 0 = unknown */
	/* Memory cgroup (charged for the copies, not for the rings). */
	uint64_t cg_headroom; /* smallest limit - usage over our cgroup and its ancestors */
	uint64_t cg_limit;    /* the limit of that cgroup */
	char cg_path[256];    /* its directory, for the message */
	/* perf's mlock accounting of the rings (kernel/events/core.c, perf_mmap). */
	int mlock_limited;	/* no CAP_IPC_LOCK and kernel.perf_event_paranoid > -1 */
	uint64_t perf_mlock_kb; /* kernel.perf_event_mlock_kb: per online CPU, per user */
	int online_cpus;
	uint64_t memlock_rlimit; /* RLIMIT_MEMLOCK (soft), bytes; RINGMEM_UNLIMITED = none */
};

struct ringmem_total {
	uint64_t rings;	 /* pinned in the kernel */
	uint64_t locked; /* ... of which perf's rings, charged as locked memory */
	uint64_t copies; /* in trigrec's memory */
	uint64_t total;
};

/*
 * rings=compact, per CPU, for a main ring of main_bytes: the BPF map's
 * bytes (main ring and spare, with slack, guard and block headers, as
 * recorder.c lays them out), a harvest's copies of both, and the carry
 * trigrec keeps between harvests.
 */
struct ringmem_compact {
	uint64_t map, copy, carry;
};
void ringmem_compact(uint64_t main_bytes, struct ringmem_compact *c);

void ringmem_total(const struct ringmem_need *n, struct ringmem_total *t);

/*
 * 0: fits. -ENOMEM: refused; msg says the total, its parts, the limit it
 * exceeds and how to lower it (-m that fits, -C). 1: fits, but takes more
 * than half of the available memory; msg is a warning.
 */
int ringmem_check(const struct ringmem_need *n, const struct ringmem_have *h, char *msg,
		  size_t len);

/* Fill h from this machine: /proc/meminfo, our memory cgroup, sysctls, capabilities, rlimits. */
void ringmem_probe(struct ringmem_have *h);

#endif
