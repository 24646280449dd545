// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trigrec's in-kernel half: the freeze gates and the trigger hook.
 *
 * Every recorded tracepoint carries tp_hook and every recorded sampling
 * event carries pe_gate. Returning 0 from either drops the record before it
 * reaches any perf ring, so once a trigger has set freeze_at nothing newer
 * than the cut is written, however late the side-band thread wakes up.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "trigrec_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by userspace between open and load. */
const volatile __u32 scope_tgid = 0; /* 0: triggers fire for any task */

/* Live state, mmaped by userspace (see trigrec_abi.h). */
__u64 freeze_at = 0;
__u64 armed = 0; /* userspace arms once everything is attached */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_HOOKS);
	__type(key, __u32);
	__type(value, struct trigrec_hook_cfg);
} hooks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_trigger_cfg);
} triggers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS + 1);
	__type(key, __u32);
	__type(value, struct trigrec_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRIGREC_RINGBUF_BYTES);
} sideband SEC(".maps");

static __always_inline struct trigrec_stats *stat_slot(__u32 id)
{
	return bpf_map_lookup_elem(&stats, &id);
}

/* 1 = let the record through. Costs one load while recording. */
static __always_inline int gate_pass(void)
{
	__u64 cut = *(volatile __u64 *)&freeze_at;
	struct trigrec_stats *st;

	if (!cut || bpf_ktime_get_ns() <= cut)
		return 1;
	st = stat_slot(TRIGREC_MAX_TRIGGERS);
	if (st)
		st->gated++;
	return 0;
}

/* Is the current task the scope process or one of its descendants? */
static __always_inline int in_scope(void)
{
	struct task_struct *t;
	int i;

	if (!scope_tgid)
		return 1;
	t = (struct task_struct *)bpf_get_current_task();
	for (i = 0; i < TRIGREC_SCOPE_DEPTH && t; i++) {
		__u32 tgid = BPF_CORE_READ(t, tgid);

		if (tgid == scope_tgid)
			return 1;
		if (tgid <= 1)
			return 0;
		t = BPF_CORE_READ(t, real_parent);
	}
	return 0;
}

/*
 * Fire trigger `id`: claim the snapshot, set the cut, tell userspace.
 * The message is reserved before claiming so a full ring buffer can never
 * leave the recorder frozen with nobody told.
 */
static __always_inline int fire(void *ctx, __u32 id, __u32 hook,
				const struct trigrec_hook_cfg *hc)
{
	struct trigrec_trigger_cfg *tc = bpf_map_lookup_elem(&triggers, &id);
	struct trigrec_stats *st = stat_slot(id);
	struct trigrec_trigger_msg *m;
	__u64 now, pid_tgid;
	__u32 sz;

	if (!tc || !st)
		return 0;
	if (!*(volatile __u64 *)&armed) {
		st->coalesced++;
		return 0;
	}
	m = bpf_ringbuf_reserve(&sideband, sizeof(*m), 0);
	if (!m) {
		st->rb_dropped++;
		return 0;
	}
	if (__sync_val_compare_and_swap(&armed, 1, 0) != 1) {
		bpf_ringbuf_discard(m, BPF_RB_NO_WAKEUP);
		st->coalesced++;
		return 0;
	}
	now = bpf_ktime_get_ns();
	freeze_at = now + tc->post_ns;
	st->fired++;

	pid_tgid = bpf_get_current_pid_tgid();
	m->type = TRIGREC_MSG_TRIGGER;
	m->trigger_id = id;
	m->time_ns = now;
	m->freeze_at = now + tc->post_ns;
	m->cpu = bpf_get_smp_processor_id();
	m->pid = pid_tgid >> 32;
	m->tid = (__u32)pid_tgid;
	m->hook = hook;
	m->hook_recorded = !!(hc->flags & TRIGREC_HOOK_RECORDED);
	bpf_get_current_comm(m->comm, sizeof(m->comm));
	sz = hc->data_size;
	if (sz > TRIGREC_TRIGGER_DATA)
		sz = TRIGREC_TRIGGER_DATA;
	m->data_size = sz;
	if (bpf_probe_read_kernel(m->data, sz, ctx))
		m->data_size = 0;
	bpf_ringbuf_submit(m, 0);
	return 1;
}

SEC("tracepoint")
int tp_hook(void *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);
	int pass = 1, fired = 0;
	__u32 i;

	if (!hc)
		return 1;
	if (hc->flags & TRIGREC_HOOK_RECORDED)
		pass = gate_pass();
	if (hc->ntrig && in_scope()) {
		for (i = 0; i < TRIGREC_MAX_HOOK_TRIGGERS; i++) {
			if (i >= hc->ntrig)
				break;
			if (fire(ctx, hc->trig[i], idx, hc)) {
				fired = 1;
				break;
			}
		}
	}
	/* The trigger's own record is kept: it is the last one before the cut. */
	return pass || fired;
}

SEC("perf_event")
int pe_gate(struct bpf_perf_event_data *ctx)
{
	return gate_pass();
}
