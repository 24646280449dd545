/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 4 of 6: records into the ring sets (rings=bpf).
 * record() copies a classic tracepoint's record (with its --filter),
 * rec_emit() numbers and stamps any record and writes it into the active
 * set of its CPU, and probe_record() rebuilds a dynamic probe's record
 * from registers for the engine.
 */
#ifndef TRIGREC_RECORDS_BPF_H
#define TRIGREC_RECORDS_BPF_H

/*
 * The common fields of a copied record: a BPF program finds a pt_regs
 * pointer there (perf_trace_run_bpf_submit), and perf rewrites them only for
 * its own copy. Type and pid as perf writes them; flags and preempt_count
 * (irq/softirq context, preemption depth) are not known here: 0 (filters
 * that test them stay with perf, see filter_in_bpf()).
 */
static __always_inline void fix_common(__u8 *d, const struct trigrec_hook_cfg *hc)
{
	*(__u16 *)&d[0] = hc->tp_id;
	d[2] = 0;
	d[3] = 0;
	*(__u32 *)&d[4] = (__u32)bpf_get_current_pid_tgid();
}

/*
 * rings=bpf: is an event on this CPU, in this task, one trigrec records?
 * Task mode only (scope_gates: -p, or a command without -a or -C); with -a
 * or -C and a command, recording is system-wide while triggers stay scoped
 * to the command, as on perf's path.
 */
static __always_inline int rec_wanted(__u32 cpu)
{
	if (cpu >= TRIGREC_MAX_CPUS || (cpu_limited && !cpu_recorded[cpu]) || !live_cpu(cpu) ||
	    is_self())
		return 0;
	return in_cgroup() && (!scope_gates || in_task_scope());
}

/*
 * rings=bpf: the record in buf (a trigrec_rec_hdr, then sz bytes of the
 * tracepoint's record; max: what buf holds) goes into the active set of its
 * CPU, stamped `now`. Its number is taken atomically: a tp_btf fast path can
 * interrupt another recording program on this CPU (tp_btf programs do not
 * share the classic programs' recursion guard), and both must get their own
 * number. A number taken by a record that then fails to be written stays a
 * gap: the history before it is left out, as for an overwritten set. 0 =
 * written.
 */
static __always_inline int rec_emit(void *ctx, void *buf, const struct trigrec_hook_cfg *hc,
				    __u32 cpu, __u32 sz, __u64 now, __u32 max)
{
	struct trigrec_rec_hdr *h = buf;
	struct trigrec_rec_cpu *rc;
	struct trigrec_stats *st;
	__u32 set, idx;
	__u64 fa;

	if (sz > max)
		return 1;
	fix_common((__u8 *)(h + 1), hc);
	h->time = now;
	h->ev = hc->rec_ev;
	h->flags = 0;
	rc = bpf_map_lookup_elem(&rec_cpu, &cpu);
	if (!rc)
		return 1;
	h->seq = __sync_fetch_and_add(&rc->seq, 1);
	fa = *(volatile __u64 *)&flip_at;
	set = fa && now > fa ? *(volatile __u32 *)&set_after : *(volatile __u32 *)&set_before;
	idx = (set & 1) * rec_slots + cpu;
	if (bpf_perf_event_output(ctx, &rec_rings, idx, buf, sizeof(*h) + sz)) {
		st = stat_slot(TRIGREC_MAX_TRIGGERS);
		if (st)
			st->rec_failed++;
		return 1;
	}
	return 0;
}

/*
 * rings=bpf: write this event's record into the active set of its CPU,
 * stamped `now`. The ctx of a classic tracepoint program is the record perf
 * would store; its length is the fixed part or the end of the furthest
 * __data_loc field. 0 = written.
 */
static __always_inline int record(void *ctx, const struct trigrec_hook_cfg *hc, __u32 hook,
				  __u64 now)
{
	__u32 zero = 0, one = 1, cpu = bpf_get_smp_processor_id(), sz;
	struct trigrec_stats *st;
	struct rec_buf *b;

	if (!rec_wanted(cpu))
		return 1;
	if (hc->flags & TRIGREC_HOOK_RECFILTER) {
		/* Its --filter, on a copy as the trigger engine reads one (slot 1: tp_hook uses 0). */
		struct trigrec_filter *f = bpf_map_lookup_elem(&rec_filters, &hook);
		struct scratch *s = bpf_map_lookup_elem(&scratch_map, &one);

		if (!f || !s)
			return 1;
		sz = hc->data_size;
		if (sz > SCRATCH_BYTES)
			sz = SCRATCH_BYTES;
		if (sz < 8 || bpf_probe_read_kernel(s->d, sz, ctx))
			return 1;
		fix_common(s->d, hc);
		s->size = sz;
		if (!eval_filter(s, f))
			return 1;
	}
	b = bpf_map_lookup_elem(&rec_buf_map, &zero);
	if (!b)
		return 1;
	sz = hc->rec_size;
	if (sz < 8 || sz > TRIGREC_MAX_RECORD)
		return 1;
	if (bpf_probe_read_kernel(b->d, sz, ctx))
		return 1;
	/* Strings and arrays (__data_loc: u16 offset, u16 length) follow the fixed part. */
	if (hc->dloc[0]) {
		__u32 end = sz;

		for (int i = 0; i < TRIGREC_MAX_DLOC; i++) {
			__u32 off = hc->dloc[i], loc, e;

			if (!off || off > TRIGREC_MAX_RECORD - 4)
				break;
			loc = *(__u32 *)&b->d[off & (TRIGREC_MAX_RECORD - 1) & ~3u];
			e = (loc & 0xffff) + (loc >> 16);
			if (e > end)
				end = e;
		}
		if (end > TRIGREC_MAX_RECORD) {
			end = TRIGREC_MAX_RECORD;
			st = stat_slot(TRIGREC_MAX_TRIGGERS);
			if (st)
				st->rec_truncated++;
		}
		sz = end;
		if (sz > sizeof(b->d) || bpf_probe_read_kernel(b->d, sz, ctx))
			return 1;
	}
	return rec_emit(ctx, b, hc, cpu, sz, now, TRIGREC_MAX_RECORD);
}

/*
 * A dynamic probe's record, rebuilt from registers (the kernel gives kprobe
 * programs pt_regs, never the record): each field at its format's offset.
 */
static __always_inline int probe_record(struct pt_regs *regs, struct scratch *s, __u32 idx,
					__u32 size)
{
	struct trigrec_probe_cfg *pc = bpf_map_lookup_elem(&probe_cfgs, &idx);
	__u32 dyn;
	__u64 v;

	if (!pc)
		return -1;
	dyn = pc->dyn_off;
	v = bpf_get_current_pid_tgid();
	__builtin_memcpy(&s->d[4], &v, 4); /* common_pid: the thread */
	if (pc->ip_off == 16) {
		/* A return probe: the function's address is not in the registers any more. */
		v = 0;
		__builtin_memcpy(&s->d[8], &v, 8);
	}
	if (bpf_probe_read_kernel(&v, 8, (void *)regs + (pc->ip_reg & 0x1f8)))
		v = 0;
	__builtin_memcpy(&s->d[pc->ip_off == 16 ? 16 : 8], &v, 8);
	for (int i = 0; i < TRIGREC_MAX_PROBE_FETCH; i++) {
		const struct trigrec_probe_fetch *f = &pc->f[i];
		__u32 off = f->rec_off;
		__u64 addr = 0;
		long n;

		if (i >= pc->nfetch)
			break;
		if (off > SCRATCH_BYTES - 8)
			continue;
		v = 0;
		if (f->op != TRIGREC_PF_IMM && f->op != TRIGREC_PF_COMM &&
		    bpf_probe_read_kernel(&addr, 8, (void *)regs + (f->reg & 0x1f8)))
			addr = 0;
		switch (f->op) {
		case TRIGREC_PF_REG: v = addr; break;
		case TRIGREC_PF_IMM: v = f->arg; break;
		case TRIGREC_PF_DEREF: {
			__u32 sz = f->size;

			if (!sz || sz > 8)
				sz = 8;
			addr += f->arg;
			if (f->user)
				bpf_probe_read_user(&v, sz, (void *)addr);
			else
				bpf_probe_read_kernel(&v, sz, (void *)addr);
			break;
		}
		case TRIGREC_PF_STR:
		case TRIGREC_PF_COMM: {
			/*
			 * Masked and checked in one register right before use: Linux
			 * 6.1's verifier loses the bound of a value reloaded from the
			 * stack ("invalid access to map value ... off=65535").
			 */
			__u32 d = dyn & (SCRATCH_BYTES - 1);

			if (d > SCRATCH_BYTES - TRIGREC_PROBE_STR_LEN)
				continue;
			if (f->op == TRIGREC_PF_COMM) {
				bpf_get_current_comm(&s->d[d], 16);
				n = 16;
			} else if (f->user) {
				n = bpf_probe_read_user_str(&s->d[d], TRIGREC_PROBE_STR_LEN,
							    (void *)(addr + f->arg));
			} else {
				n = bpf_probe_read_kernel_str(&s->d[d], TRIGREC_PROBE_STR_LEN,
							      (void *)(addr + f->arg));
			}
			if (n < 0)
				n = 0;
			v = ((__u64)n << 16) | d;
			dyn += TRIGREC_PROBE_STR_LEN;
			break;
		}
		default: continue;
		}
		/* Little-endian: the field's low bytes first; the next field overwrites the rest. */
		__builtin_memcpy(&s->d[off], &v, 8);
	}
	s->size = size;
	return 0;
}

#endif /* TRIGREC_RECORDS_BPF_H */
