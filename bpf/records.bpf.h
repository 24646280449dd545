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

/* rings=compact: the width code of a pid (1, 2, 4 bytes: 0-2), without a branch. */
static __always_inline __u64 cr_pcode(__u64 v)
{
	const __u64 m = 0x7fffffffffffffffull;

	return (((v >> 8) + m) >> 63) + (((v >> 16) + m) >> 63) + (((v >> 32) + m) >> 63);
}

/* rings=compact: the width code of a word (0, 1, 3, 8 bytes: 0-3), without a branch. */
static __always_inline __u64 cr_wcode(__u64 v)
{
	const __u64 m = 0x7fffffffffffffffull;

	return ((v + m) >> 63) + (((v >> 8) + m) >> 63) + (((v >> 24) + m) >> 63);
}

/* The bytes of a word of width code c: 0, 1, 3, 8. */
#define CR_WW(c) ((0x08030100ull >> (8 * (c))) & 0xff)

/* Word i zigzagged when bit i of zz says it is one signed field: small negatives stay small. */
static __always_inline __u64 cr_zig(__u64 v, __u64 zz, __u32 i)
{
	__u64 m = -((zz >> i) & 1), z = (v << 1) ^ (__u64)((__s64)v >> 63);

	return v ^ ((v ^ z) & m);
}

#define CR_TAIL_MAX (TRIGREC_CR_SLACK - 160)
/* cr_body()'s fix: a size class's record, nw words and half a word (record_words()). */
#define CR_FIX(nw, half) (0x10000u | (half) << 8 | (nw))
#define CR_FIX_WORDS 8 /* the most words a class's record has (tp_rec_w8; w7h: 7 and a half) */
#define CR_VAL 16      /* where cr_enc's values start; the header goes before */

/*
 * An offset masked where it is used: the compiler would otherwise fold the
 * masks away (it knows the offsets stay small) and the verifier, which
 * does not, would refuse the stores.
 */
static __always_inline __u64 cr_mask(__u64 x, __u64 m)
{
	/*
	 * The mask after the barrier: before it, clang drops an AND it can
	 * prove idle (o <= 24 below), and 6.1's verifier, which loses the
	 * bounds of a multiply, then refuses the store ("math between
	 * map_value pointer and register with unbounded min value").
	 */
	asm volatile("" : "+r"(x));
	x &= m;
	return x;
}

/* The map element of position pos of CPU cpu's main ring (k 0) or spare (k 1). */
static __always_inline __u32 cr_seg(__u32 cpu, __u32 per_cpu, __u32 k, __u64 pos)
{
	__u32 m = (pos >> cr_shift) & (cr_nseg - 1),
	      sp = (pos >> cr_shift) & (cr_nseg / TRIGREC_CR_SPARE_DIV - 1);

	return cpu * per_cpu + k * (cr_nseg + sp) + (1 - k) * m;
}

/* 1 if x is not 0, without a branch (the barrier keeps clang from making it one). */
static __always_inline __u64 cr_nz(__u64 x)
{
	__u64 v = x | -x;

	asm volatile("" : "+r"(v));
	return v >> 63;
}

/*
 * The word i of record d (sz bytes, nw words), 0 past the record: no
 * branch, so the verifier walks the 16 words once whatever the record.
 */
static __always_inline __u64 cr_word(const __u8 *d, __u32 i, __u64 valid, __u32 nw, __u64 lastmask)
{
	__u64 v = *(const __u64 *)&d[8 + 8 * i];
	__u64 last = cr_nz((__u64)i + 1 - nw) ^ 1, m;

	m = -valid & (lastmask | (last - 1));
	asm volatile("" : "+r"(m)); /* or clang makes it a branch again */
	return v & m;
}

/*
 * rings=compact: the encoded record (n bytes, 5 to 254 past its length
 * byte) from its per-CPU buffer src into the ring at dst, in 8-byte stores
 * (the last one ending at the record's end, over bytes already written),
 * or two 4-byte ones below 8 bytes. Nothing past dst + n is written: a
 * program that interrupted this one may already have a record there. A
 * bpf_probe_read_kernel() call did this; it cost more than the stores.
 */
static __always_inline void cr_copy(__u8 *dst, const __u8 *src, __u64 n)
{
	__u64 at;

	n = cr_mask(n, 255);
	if (n < 8) {
		*(__u32 *)dst = *(const __u32 *)src;
		at = cr_mask(n - 4, 3);
		*(__u32 *)(dst + at) = *(const __u32 *)(src + at);
		return;
	}
#pragma clang loop unroll(disable)
	for (__u32 j = 0; j < 31; j++) {
		at = 8 * j;
		if (at + 8 > n)
			break;
		*(__u64 *)(dst + at) = *(const __u64 *)(src + at);
	}
	at = cr_mask(n - 8, 255);
	*(__u64 *)(dst + at) = *(const __u64 *)(src + at);
}

/*
 * rings=compact: the record d (sz bytes, the format's fixed part is
 * hc->rec_size; max: what d holds) written into this CPU's main ring, or
 * after a cut into its spare, in the encoding of trigrec_abi.h
 * (src/snapshot/compact.c's cr_put() is the same in C, its decoder the
 * reference). Encoded first into a per-CPU buffer of this nesting level
 * (a tp_btf program can interrupt another recording program on this
 * CPU), then the space is taken with one atomic add, the bytes copied
 * and the length byte written last. 0 = written.
 *
 * fix: 0, or CR_FIX(nw, half) for a size-class program's record
 * (record_words()): then the record is 8 + 8 * nw + 4 * half bytes, its
 * format's fixed size (record_words() checked both), and every size below
 * is a constant: clang folds the tail, the sized and long-record
 * headers, the loop's bound and the sizes' trips through memory away.
 * tp_rec_w2 ran 15 ns (9 %) faster per record so, and the verifier's work
 * per class program fell from ~8460 instructions to 1290-2050
 * (docs/benchmarks.md, 2026-12-07 "cr_body() per size class").
 */
static __always_inline int cr_body(const __u8 *d, __u32 max, __u64 now, __u64 info, __u32 fix)
{
	__u32 cpu = bpf_get_smp_processor_id(), sz = info & 0xffff,
	      rec_size = (info >> 16) & 0xffff;
	__u32 rec_ev = (info >> 32) & 0xff;
	__u64 skip = (info >> 40) & 0xffff, zz = info >> 56;
	__u64 codes, pid, last, ad, old, pos, e, fa, v, lastmask, o, c, tl, start, hl, len, lf,
		sized, same, vmask;
	__u64 valid;
	__u64 segmask = (1ull << cr_shift) - 1;
	__u32 nw, tail = 0, ntag, per_cpu, idx, k, lvl;
	struct trigrec_rec_cpu *rc;
	struct trigrec_stats *st;
	struct cr_enc *enc;
	__u8 *base, *p, *b;

	if (fix)
		sz = 8 + 8 * (fix & 0xff) + 4 * ((fix >> 8) & 1);
	if (sz < 8 || sz > max || rec_ev >= TRIGREC_CR_MAX_EVS)
		return 1;
	rc = bpf_map_lookup_elem(&rec_cpu, &cpu);
	if (!rc)
		return 1;
	/* Nesting: a program that interrupts this one takes the next buffer, then gives it back. */
	lvl = rc->cr_nest;
	rc->cr_nest = lvl + 1;
	lvl &= CR_NEST - 1;
	enc = bpf_map_lookup_elem(&cr_enc, &lvl);
	if (!enc)
		goto fail;
	b = enc->b;
	nw = (sz - 8 + 7) / 8;
	if (nw > TRIGREC_CR_WORDS)
		nw = TRIGREC_CR_WORDS;
	if (sz > 8 + 8 * nw)
		tail = sz - 8 - 8 * nw;
	if (tail > CR_TAIL_MAX) {
		sz -= tail - CR_TAIL_MAX;
		tail = CR_TAIL_MAX;
		st = stat_slot(TRIGREC_MAX_TRIGGERS);
		if (st)
			st->rec_truncated++;
	}
	/*
	 * From here to the copy, no branch on the data: a value that differs
	 * between two paths (a width code, say) would keep the verifier from
	 * merging them, and it would walk every combination.
	 */
	/*
	 * The sizes through memory: the verifier knows nothing of them below,
	 * the same on every path, rather than ranges the checks above split.
	 */
	if (!fix) {
		*(volatile __u64 *)&enc->nw = nw;
		*(volatile __u64 *)&enc->tail = tail;
		nw = *(volatile __u64 *)&enc->nw & 31;
		tail = *(volatile __u64 *)&enc->tail;
	}
	/* The words written: the record's, but those cr_skip leaves out (bit i: word i). */
	*(volatile __u64 *)&enc->vmask = ((1ull << nw) - 1) & ~skip;
	vmask = *(volatile __u64 *)&enc->vmask;
	lastmask = ~0ull >> (8 * ((8 - (sz & 7)) & 7));
	sized = fix ? 0 : cr_nz(sz ^ rec_size);
	pid = (__u32)bpf_get_current_pid_tgid();
	/*
	 * Main ring, or the spare after a cut. Chosen first: a record's time is
	 * relative to the previous one in the same ring, and the spare's
	 * previous record can be a cut ago.
	 */
	fa = *(volatile __u64 *)&flip_at;
	k = cr_nz(fa) & ((fa - now) >> 63);
	last = rc->cr_last[k & 1];
	ad = now - last;
	v = (__s64)ad >> 63;
	ad = (ad ^ v) - v; /* |now - last| */
	c = cr_nz(ad >> 22) + cr_nz(ad >> 30) + cr_nz(ad >> 38);
	c |= 3 * (cr_nz(last) ^ 1);
	codes = c;
	/* The values from CR_VAL on, each 8 bytes wide: the next one overwrites what it spilled. */
	*(__u64 *)&b[CR_VAL] = now;
	o = CR_VAL + 3 + c + (c >> 1) * (c & 1) * 2; /* 3, 4, 5, 8 */
	/*
	 * The pid only on a change of task in this ring: code 3 (a pid is never
	 * 8 bytes wide) says "the previous record's". Safe because nothing of
	 * another task lands between this record and the one it follows: a
	 * recording program runs with preemption off (not so on PREEMPT_RT,
	 * where cr_same_pid is 0), and what interrupts it (a tp_btf program in
	 * an interrupt) records for the same current task. The block header
	 * keeps the crossing record's pid for a reader that starts there.
	 */
	same = cr_same_pid & (cr_nz((pid + 1) ^ rc->cr_pid[k & 1]) ^ 1) & (cr_nz(pid >> 24) ^ 1);
	c = cr_pcode(pid) | 3 * same;
	codes |= c << 2;
	*(__u64 *)&b[cr_mask(o, 255)] = pid;
	o += (1ull << c) & (same - 1);
	/*
	 * One pass: each word's width and its store. The header goes before
	 * CR_VAL once the length is known, so the values do not wait for it.
	 */
#define CR_PUT_WORD(i)                                                     \
	do {                                                               \
		valid = (vmask >> (i)) & 1;                                \
		v = cr_zig(cr_word(d, (i), valid, nw, lastmask), zz, (i)); \
		c = cr_wcode(v);                                           \
		asm volatile("" : "+r"(c));                                \
		codes |= c << (4 + 2 * (i));                               \
		*(__u64 *)&b[cr_mask(o, 255)] = v;                         \
		o = cr_mask(o + CR_WW(c), 255);                            \
	} while (0)
	if (fix) {
		/* nw is a constant here: unrolled, the bound checks fold away. */
#pragma unroll
		for (__u32 i = 0; i < CR_FIX_WORDS; i++)
			if (i < nw)
				CR_PUT_WORD(i);
	} else {
#pragma clang loop unroll(disable)
		for (__u32 i = 0; i < TRIGREC_CR_WORDS; i++) {
			if (8 + 8 * i + 8 > max || i >= nw)
				break;
			CR_PUT_WORD(i);
		}
	}
#undef CR_PUT_WORD
	ntag = (2 + nw + 3) / 4;
	len = 2 + ntag + 2 * sized + (o - CR_VAL) + tail;
	/* Over 254: a u16 length follows. Never for a class (2 + 3 + 8 + 4 + 64 bytes at most). */
	lf = fix ? 0 : (254 - len) >> 63;
	len += 2 * lf;
	start = CR_VAL - ntag - 2 * sized - 2 * lf - 2;
	/*
	 * Through memory: the verifier then knows nothing of the codes below,
	 * the same on every path, rather than constants that differ.
	 */
	if (!fix) {
		*(volatile __u64 *)&enc->codes = codes;
		codes = *(volatile __u64 *)&enc->codes;
	}
	/*
	 * The tags end at CR_VAL: one store of the bytes before it (the header,
	 * written next, goes over its low bytes), none into the values.
	 */
	*(__u64 *)&b[CR_VAL - 8] = codes << cr_mask(8 * (8 - ntag), 63);
	if (sized)
		*(__u16 *)&b[cr_mask(CR_VAL - ntag - 2, 15)] = sz;
	if (lf)
		*(__u16 *)&b[cr_mask(start + 2, 15)] = len;
	b[cr_mask(start + 1, 15)] = rec_ev | (sized << 7);
	hl = o - start; /* header and values: the tail follows */
	old = __sync_fetch_and_add(&rc->cr_head[k & 1], len | (1ull << TRIGREC_CR_POS_BITS));
	pos = old & TRIGREC_CR_POS_MASK;
	per_cpu = cr_nseg + cr_nseg / TRIGREC_CR_SPARE_DIV;
	idx = cr_seg(cpu, per_cpu, k, pos);
	base = bpf_map_lookup_elem(&cr_rings, &idx);
	if (!base)
		goto fail;
	p = base + (pos & segmask);
	cr_copy(p + 1, &b[cr_mask(start + 1, 15)], hl - 1);
	if (!fix) { /* a class's record has no tail */
		tl = cr_mask(tail, 511);
		if (tl > CR_TAIL_MAX)
			tl = CR_TAIL_MAX;
		asm volatile("" : "+r"(tl));
		if (tl)
			bpf_probe_read_kernel(p + cr_mask(hl, 255), tl, d + 8 + 8 * nw);
	}
	rc->cr_last[k & 1] = now;
	rc->cr_pid[k & 1] = pid + 1;
	/* The block this record crosses into (or the ring's first) gets its header. */
	e = pos + len;
	if (!pos || (pos ^ e) >= TRIGREC_CR_BLOCK) {
		__u64 bp = pos ? e & ~(__u64)(TRIGREC_CR_BLOCK - 1) : 0;
		__u32 bidx = cr_seg(cpu, per_cpu, k, bp);
		__u8 *bb = bpf_map_lookup_elem(&cr_rings, &bidx);

		if (bb) {
			struct trigrec_cblk *kb =
				(void *)(bb + segmask + 1 + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD +
					 ((bp & segmask) / TRIGREC_CR_BLOCK) *
						 sizeof(struct trigrec_cblk));

			kb->base = now;
			kb->seq = (old >> TRIGREC_CR_POS_BITS) + (pos ? 1 : 0);
			kb->first = pos ? e - bp : 0;
			asm volatile("" ::: "memory");
			kb->pos = (bp & TRIGREC_CR_POS_MASK) | (pid & 0xffffff)
								       << TRIGREC_CR_POS_BITS;
		}
	}
	asm volatile("" ::: "memory");
	p[0] = lf ? 255 : len;
	rc->cr_nest = lvl;
	return 0;
fail:
	rc->cr_nest = lvl;
	st = stat_slot(TRIGREC_MAX_TRIGGERS);
	if (st)
		st->rec_failed++;
	return 1;
}

/* A fast path's record (struct fp_rec in fastpath.bpf.h, or a scratch slot, which is larger). */
struct cr_fp_buf {
	struct trigrec_rec_hdr h;
	__u8 d[TRIGREC_FP_MAX_RECORD];
};

/*
 * cr_body() as two functions of their own, global (not static): the
 * verifier checks each once, on its own, not again for every path of
 * every recording program that calls it. info: the record's size (bits
 * 0-15), its format's fixed size (16-31), its event (32-39), the words
 * left out (40-55, hook_cfg.cr_skip) and those zigzagged (56-63,
 * hook_cfg.cr_zz).
 */
__noinline int cr_emit_fp(struct cr_fp_buf *b, __u64 now, __u64 info)
{
	if (!b)
		return 1;
	return cr_body(b->d, TRIGREC_FP_MAX_RECORD, now, info, 0);
}

__noinline int cr_emit_rec(struct rec_buf *b, __u64 now, __u64 info)
{
	if (!b)
		return 1;
	return cr_body(b->d, TRIGREC_MAX_RECORD, now, info, 0);
}

/*
 * cr_emit_rec() for one size class (record_words()): nw 8-byte words and
 * half a word more, known when compiled. One global function per class,
 * each verified once, called only by its class's program.
 */
#define CR_EMIT_W(name, nw, half)                                                      \
	__noinline int name(struct rec_buf *b, __u64 now, __u64 info)                  \
	{                                                                              \
		if (!b)                                                                \
			return 1;                                                      \
		return cr_body(b->d, TRIGREC_MAX_RECORD, now, info, CR_FIX(nw, half)); \
	}

CR_EMIT_W(cr_emit_w1, 1, 0)
CR_EMIT_W(cr_emit_w2, 2, 0)
CR_EMIT_W(cr_emit_w3, 3, 0)
CR_EMIT_W(cr_emit_w4, 4, 0)
CR_EMIT_W(cr_emit_w5, 5, 0)
CR_EMIT_W(cr_emit_w6, 6, 0)
CR_EMIT_W(cr_emit_w7, 7, 0)
CR_EMIT_W(cr_emit_w8, 8, 0)
CR_EMIT_W(cr_emit_w0h, 0, 1)
CR_EMIT_W(cr_emit_w1h, 1, 1)
CR_EMIT_W(cr_emit_w2h, 2, 1)
CR_EMIT_W(cr_emit_w3h, 3, 1)
CR_EMIT_W(cr_emit_w4h, 4, 1)
CR_EMIT_W(cr_emit_w5h, 5, 1)
CR_EMIT_W(cr_emit_w6h, 6, 1)
CR_EMIT_W(cr_emit_w7h, 7, 1)
#undef CR_EMIT_W

/* The class's encoder: nw and half are constants, the switch folds to one call. */
static __always_inline int cr_emit_class(struct rec_buf *b, __u64 now, __u64 info, __u32 nw,
					 __u32 half)
{
	switch (2 * nw + half) {
	case 2: return cr_emit_w1(b, now, info);
	case 4: return cr_emit_w2(b, now, info);
	case 6: return cr_emit_w3(b, now, info);
	case 8: return cr_emit_w4(b, now, info);
	case 10: return cr_emit_w5(b, now, info);
	case 12: return cr_emit_w6(b, now, info);
	case 14: return cr_emit_w7(b, now, info);
	case 16: return cr_emit_w8(b, now, info);
	case 1: return cr_emit_w0h(b, now, info);
	case 3: return cr_emit_w1h(b, now, info);
	case 5: return cr_emit_w2h(b, now, info);
	case 7: return cr_emit_w3h(b, now, info);
	case 9: return cr_emit_w4h(b, now, info);
	case 11: return cr_emit_w5h(b, now, info);
	case 13: return cr_emit_w6h(b, now, info);
	case 15: return cr_emit_w7h(b, now, info);
	default: return cr_emit_rec(b, now, info);
	}
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
	if (compact) {
		__u64 info = sz | (__u64)hc->rec_size << 16 | (__u64)(hc->rec_ev & 0xff) << 32 |
			     (__u64)hc->cr_skip << 40 | (__u64)hc->cr_zz << 56;

		if (hc->rec_ev >= TRIGREC_CR_MAX_EVS)
			return 1;
		return max == TRIGREC_FP_MAX_RECORD ? cr_emit_fp(buf, now, info) :
						      cr_emit_rec(buf, now, info);
	}
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
 * A size class's record from ctx into d: nw 8-byte words and, with half,
 * 4 bytes more, from offset 8 (the common fields are fix_common()'s).
 * Spelled out, not a loop: the verifier refuses a ctx load through a
 * pointer moved by a register (a loop clang keeps), so every load must be
 * ctx plus a constant. nw and half are constants at every caller: the
 * tests fold away. Volatile keeps each load one 8-byte (4-byte) load.
 */
#define CTX_WORD(i)                                                                           \
	do {                                                                                  \
		if (nw > i)                                                                   \
			*(__u64 *)&d[8 + 8 * i] = *(volatile const __u64 *)(ctx + 8 + 8 * i); \
	} while (0)
static __always_inline void ctx_words(__u8 *d, void *ctx, __u32 nw, __u32 half)
{
	CTX_WORD(0);
	CTX_WORD(1);
	CTX_WORD(2);
	CTX_WORD(3);
	CTX_WORD(4);
	CTX_WORD(5);
	CTX_WORD(6);
	CTX_WORD(7);
	if (half)
		*(__u32 *)&d[8 + 8 * nw] = *(volatile const __u32 *)(ctx + 8 + 8 * nw);
}
#undef CTX_WORD

/*
 * rings=bpf, the size-class programs (tp_rec_wN, gates.bpf.h): the record
 * of a tracepoint whose fixed part is 8 + 8 * nw (+ 4 with half) bytes,
 * with no __data_loc field and no --filter, read from ctx with plain loads
 * instead of a bpf_probe_read_kernel() call. Each program reads exactly its
 * class's bytes: the kernel refuses to attach a program whose furthest ctx
 * load lies past the tracepoint's record (perf_event_set_bpf_prog(),
 * max_ctx_offset), so one program cannot serve every size. Bytes 0-7 (the
 * common fields) are not read: the encoder leaves them out and rec_emit()
 * rebuilds them. A hook whose record is not this class's size is refused
 * and counted (rec_failed): bpfctl never attaches one so. 0 = written.
 */
static __always_inline int record_words(void *ctx, __u32 nw, __u32 half, __u64 now)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx), zero = 0, cpu = bpf_get_smp_processor_id(),
	      sz = 8 + 8 * nw + 4 * half;
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);
	struct trigrec_stats *st;
	struct rec_buf *b;

	if (!hc || !rec_wanted(cpu))
		return 1;
	b = bpf_map_lookup_elem(&rec_buf_map, &zero);
	if (!b)
		return 1;
	if (hc->rec_size != sz || (hc->flags & TRIGREC_HOOK_RECFILTER) || hc->dloc[0]) {
		st = stat_slot(TRIGREC_MAX_TRIGGERS);
		if (st)
			st->rec_failed++;
		return 1;
	}
	ctx_words(b->d, ctx, nw, half);
	if (compact) {
		/* rec_emit()'s compact branch, with the class's own encoder. */
		__u64 info = sz | (__u64)hc->rec_size << 16 | (__u64)(hc->rec_ev & 0xff) << 32 |
			     (__u64)hc->cr_skip << 40 | (__u64)hc->cr_zz << 56;

		if (hc->rec_ev >= TRIGREC_CR_MAX_EVS)
			return 1;
		return cr_emit_class(b, now, info, nw, half);
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
