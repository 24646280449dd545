/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The trigger engine of bpf/engine.bpf.h, built as userspace C
 * (engine_host.c with the shim bpf_host.h): the same source lines the BPF
 * object runs, on records given one at a time. For `trigrec test` and the
 * engine's unit tests. One engine per process (the BPF side's globals and
 * maps are this file's); not thread-safe.
 *
 *	eh_reset(cfgs, n, &opts);                 the trigger table, empty state
 *	eh_record(&hook, hook_index, &task, raw, raw_size);   per record, in time order
 */
#ifndef TRIGREC_ENGINE_HOST_H
#define TRIGREC_ENGINE_HOST_H
#include <stdint.h>
#include "trigrec_abi.h"

struct eh_opts {
	/*
	 * The recording path the kernel would run: ring sets alone (1, 0:
	 * tracepoints only, the default) or a freeze (need_freeze 1: perf's
	 * rings, or sampling events too). It decides how firings coalesce.
	 */
	int ring_mode;
	int need_freeze;
	uint64_t budget_n[2]; /* the run's budget (`budget`), as bpfctl_opts */
	uint64_t budget_period_ns[2];
	uint32_t generation;
	/* Every firing's side-band message, as bpf_ringbuf_submit() hands it over. */
	void (*on_fire)(const struct trigrec_trigger_msg_learn *m, void *arg);
	void *arg;
};

/* The task a record belongs to, as the kernel's helpers would see it. */
struct eh_task {
	uint64_t time; /* the record's time stamp (CLOCK_MONOTONIC ns) */
	uint32_t pid, tid, cpu;
	char comm[TRIGREC_COMM_LEN];
};

/*
 * Forget all state (maps, globals) and load n triggers (cfgs[i] is trigger
 * id i, as bpfctl__attach() stores them). 0, or -E2BIG for too many.
 */
int eh_reset(const struct trigrec_trigger_cfg *cfgs, int n, const struct eh_opts *o);
/*
 * One record of the tracepoint hooked as `hook` (its trigrec_hook_cfg: the
 * (trigger, role) entries, data_size and tp_id as bpfctl__plan() sets
 * them): what tp_hook does after recording it. Between records the shim
 * plays userspace: a snapshot is taken as soon as its window ends (ring
 * sets) or the freeze thaws at its cut. 1 = a trigger fired.
 */
int eh_record(const struct trigrec_hook_cfg *hc, uint32_t hook, const struct eh_task *t,
	      const void *raw, uint32_t raw_size);
/* Trigger id's counters (the per-CPU slots are one here). 0, or -ENOENT. */
int eh_stats(uint32_t id, struct trigrec_stats *out);
int eh_near_miss(uint32_t id, struct trigrec_near_miss *out);
/* Trigger id's near misses for key key[TRIGREC_MAX_KEY_PARTS] (key_nm); 0 or -ENOENT. */
int eh_key_near_miss(uint32_t id, const uint64_t *key, struct trigrec_key_nm *out);
/* Drop every table (valgrind-clean exit). */
void eh_free(void);

#endif
