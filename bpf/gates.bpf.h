/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 5 of 6: the classic programs, attached once per
 * hook with the hook's index as BPF cookie: tp_hook and probe_hook (record,
 * gate and triggers), tp_trig_w* (gate and triggers, one record size
 * each), tp_rec and tp_rec_w* (record only), tp_gate, probe_gate and
 * pe_gate (the freeze gates of perf-written events). A tracepoint program
 * that returns 0 drops the event for every perf user: only a gate during
 * a freeze ever does.
 */
#ifndef TRIGREC_GATES_BPF_H
#define TRIGREC_GATES_BPF_H

/* kprobe/uprobe events: as tp_hook, the record rebuilt from registers first. */
SEC("kprobe")
int probe_hook(struct pt_regs *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx), zero = 0;
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);
	struct scratch *s;
	int pass = 1;
	__u32 sz;

	if (!hc)
		return 1;
	if (hc->flags & TRIGREC_HOOK_GATED)
		pass = gate_pass();
	if (!hc->ntrig || !in_scope())
		return pass;
	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s)
		return pass;
	sz = hc->data_size;
	if (sz > SCRATCH_BYTES)
		sz = SCRATCH_BYTES;
	if (probe_record(ctx, s, idx, sz))
		return pass;
	s->now = 0; /* not written by record(): the engine reads the clock */
	s->hook = idx;
	s->hook_recorded = !!(hc->flags & TRIGREC_HOOK_RECORDED);
	return hook_triggers(hc, s) || pass;
}

/* Recorded probes without a trigger: the gate alone. */
SEC("kprobe")
int probe_gate(struct pt_regs *ctx)
{
	return gate_pass();
}

/*
 * A tracepoint with triggers: recorded (rings=bpf) or gated first, then its
 * record copied into the scratch slot and run through the hook's triggers.
 * nw < 0: tp_hook, any record, copied with bpf_probe_read_kernel(). nw >= 0:
 * tp_trig_wN/tp_trig_wNh, a hook BPF does not record whose record is exactly
 * 8 + 8 * nw (+ 4 with half) bytes with no __data_loc field, read from ctx
 * with ctx_words(), as record_words() does (the call and its copy were ~12 of
 * tp_hook's ~90 ns on a rejected record, docs/benchmarks.md).
 */
static __always_inline int tp_hook_run(void *ctx, int nw, int half)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx), zero = 0;
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);
	struct scratch *s;
	int pass = 1, fired = 0;
	__u64 now = 0;
	__u32 sz;

	if (!hc)
		return 1;
	if (hc->flags & TRIGREC_HOOK_GATED)
		pass = gate_pass();
	/* Recorded before the triggers run: a trigger's own record is the last before its cut. */
	if (nw < 0 && (hc->flags & TRIGREC_HOOK_BPFREC)) {
		now = bpf_ktime_get_ns();
		record(ctx, hc, idx, now);
	}
	if (!hc->ntrig || !in_scope())
		return pass;
	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s)
		return pass;
	s->now = now;
	if (nw < 0) {
		sz = hc->data_size;
		if (sz > SCRATCH_BYTES)
			sz = SCRATCH_BYTES;
		if (sz < 8 || bpf_probe_read_kernel(s->d, sz, ctx))
			return pass;
	} else {
		sz = 8 + 8 * nw + 4 * half;
		/* Not this class's record (bpfctl__trig_class() never attaches one so). */
		if (hc->data_size != sz)
			return pass;
		ctx_words(s->d, ctx, nw, half);
	}
	fix_common(s->d, hc);
	s->size = sz;
	s->hook = idx;
	s->hook_recorded = !!(hc->flags & TRIGREC_HOOK_RECORDED);
	for (int i = 0; i < TRIGREC_MAX_HOOK_TRIGGERS; i++) {
		if (i >= hc->ntrig)
			break;
		/*
		 * Every trigger sees every event, even after one has fired: counts
		 * and rates must not miss it, and an event that ends one latency
		 * span may start the next.
		 */
		if (run_trigger(s, hc->trig[i]))
			fired = 1;
	}
	/* The trigger's own record is kept: it is the last one before the cut. */
	return pass || fired;
}

SEC("tracepoint")
int tp_hook(void *ctx)
{
	return tp_hook_run(ctx, -1, 0);
}

/*
 * tp_hook for one record size of a hook BPF does not record, as tp_rec_wN
 * is tp_rec's: tp_trig_wN reads N 8-byte words, tp_trig_wNh four bytes
 * more. Loaded only when a hook uses it, chosen by bpfctl__trig_class()
 * (src/engine/bpfctl.c, whose class_prog() table must match this list).
 */
#define TP_TRIG_W(name, nw, half)                  \
	SEC("?tracepoint")                         \
	int name(void *ctx)                        \
	{                                          \
		return tp_hook_run(ctx, nw, half); \
	}

TP_TRIG_W(tp_trig_w1, 1, 0)
TP_TRIG_W(tp_trig_w2, 2, 0)
TP_TRIG_W(tp_trig_w3, 3, 0)
TP_TRIG_W(tp_trig_w4, 4, 0)
TP_TRIG_W(tp_trig_w5, 5, 0)
TP_TRIG_W(tp_trig_w6, 6, 0)
TP_TRIG_W(tp_trig_w7, 7, 0)
TP_TRIG_W(tp_trig_w8, 8, 0)
TP_TRIG_W(tp_trig_w0h, 0, 1)
TP_TRIG_W(tp_trig_w1h, 1, 1)
TP_TRIG_W(tp_trig_w2h, 2, 1)
TP_TRIG_W(tp_trig_w3h, 3, 1)
TP_TRIG_W(tp_trig_w4h, 4, 1)
TP_TRIG_W(tp_trig_w5h, 5, 1)
TP_TRIG_W(tp_trig_w6h, 6, 1)
TP_TRIG_W(tp_trig_w7h, 7, 1)

/*
 * rings=bpf, recorded tracepoints that carry no trigger. Never returns 0:
 * the event reaches every other perf user of the tracepoint untouched.
 */
SEC("tracepoint")
int tp_rec(void *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);

	if (hc)
		record(ctx, hc, idx, bpf_ktime_get_ns());
	return 1;
}

/*
 * tp_rec for one record size: tp_rec_wN reads N 8-byte words, tp_rec_wNh
 * four bytes more (record_words()). Loaded only when a hook uses it ("?":
 * autoload off), chosen by bpfctl__rec_class() (src/engine/bpfctl.c, whose
 * REC_WORDS and class_prog() must match this list).
 */
#define TP_REC_W(name, nw, half)                                 \
	SEC("?tracepoint")                                       \
	int name(void *ctx)                                      \
	{                                                        \
		record_words(ctx, nw, half, bpf_ktime_get_ns()); \
		return 1;                                        \
	}

TP_REC_W(tp_rec_w1, 1, 0)
TP_REC_W(tp_rec_w2, 2, 0)
TP_REC_W(tp_rec_w3, 3, 0)
TP_REC_W(tp_rec_w4, 4, 0)
TP_REC_W(tp_rec_w5, 5, 0)
TP_REC_W(tp_rec_w6, 6, 0)
TP_REC_W(tp_rec_w7, 7, 0)
TP_REC_W(tp_rec_w8, 8, 0)
TP_REC_W(tp_rec_w0h, 0, 1)
TP_REC_W(tp_rec_w1h, 1, 1)
TP_REC_W(tp_rec_w2h, 2, 1)
TP_REC_W(tp_rec_w3h, 3, 1)
TP_REC_W(tp_rec_w4h, 4, 1)
TP_REC_W(tp_rec_w5h, 5, 1)
TP_REC_W(tp_rec_w6h, 6, 1)
TP_REC_W(tp_rec_w7h, 7, 1)

/* Recorded tracepoints that carry no trigger: the gate alone, one load. */
SEC("tracepoint")
int tp_gate(void *ctx)
{
	return gate_pass();
}

SEC("perf_event")
int pe_gate(struct bpf_perf_event_data *ctx)
{
	return gate_pass();
}

#endif /* TRIGREC_GATES_BPF_H */
