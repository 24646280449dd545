/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 3 of 6: the trigger engine. Triggers are data:
 * run_trigger() evaluates one compiled trigger (a clause list with forward
 * jumps, keys, thresholds) on a record in a scratch slot, keeps latency
 * spans and rate buckets, and fire() applies the policies, claims the
 * snapshot and posts the side-band message. Nothing here writes a record.
 */
#ifndef TRIGREC_ENGINE_BPF_H
#define TRIGREC_ENGINE_BPF_H

/* An integer from the record or the current task. */
static __always_inline __u64 load_value(struct scratch *s, __u8 src, __u8 size, __u8 is_signed,
					__u16 offset)
{
	__u32 off = offset;
	__u64 v = 0;

	switch (src) {
	case TRIGREC_SRC_FIELD:
		if (off > SCRATCH_BYTES - 8)
			return 0;
		switch (size) {
		case 1: v = is_signed ? (__u64)(__s64) * (__s8 *)&s->d[off] : s->d[off]; break;
		case 2: {
			__u16 x;

			__builtin_memcpy(&x, &s->d[off], 2);
			v = is_signed ? (__u64)(__s64)(__s16)x : x;
			break;
		}
		case 4: {
			__u32 x;

			__builtin_memcpy(&x, &s->d[off], 4);
			v = is_signed ? (__u64)(__s64)(__s32)x : x;
			break;
		}
		default: __builtin_memcpy(&v, &s->d[off], 8);
		}
		return v;
	case TRIGREC_SRC_PID: return bpf_get_current_pid_tgid() >> 32;
	case TRIGREC_SRC_TID: return (__u32)bpf_get_current_pid_tgid();
	case TRIGREC_SRC_CPU: return bpf_get_smp_processor_id();
	case TRIGREC_SRC_CGROUP: return bpf_get_current_cgroup_id();
	case TRIGREC_SRC_CGSET: return cg_in_set(bpf_get_current_cgroup_id(), off);
	}
	return 0;
}

/*
 * Copy a string operand (char array, __data_loc, comm, or the text behind a
 * pointer field for str()) into out, NUL-terminated. -1: the text behind the
 * pointer could not be read (not present, bad address, NULL). A global
 * function: the verifier checks it once, not once per clause of the loop.
 */
__noinline int load_string(struct scratch *s, const struct trigrec_clause *c, struct str64 *out)
{
	__u32 off = 0, len = 0;

	if (!s || !c || !out)
		return 0;

	if (c->src == TRIGREC_SRC_COMM) {
		__builtin_memset(out->c, 0, sizeof(out->c));
		bpf_get_current_comm(out->c, TRIGREC_COMM_LEN);
		return 0;
	}
	if (c->src == TRIGREC_SRC_USTR || c->src == TRIGREC_SRC_KSTR) {
		/* The pointer is in the record; the text is not (no page faults here). */
		const void *p =
			(const void *)load_value(s, TRIGREC_SRC_FIELD, c->size, 0, c->offset);
		long r;

		if (c->src == TRIGREC_SRC_USTR)
			r = bpf_probe_read_user_str(out->c, sizeof(out->c), p);
		else
			r = bpf_probe_read_kernel_str(out->c, sizeof(out->c), p);
		if (r < 0) {
			out->c[0] = 0;
			return -1;
		}
		return 0;
	}
	if (c->src == TRIGREC_SRC_CHARS) {
		off = c->offset;
		len = c->size;
	} else if (c->src == TRIGREC_SRC_DATALOC) {
		__u32 loc = 0;

		if (c->offset > SCRATCH_BYTES - 4)
			goto empty;
		__builtin_memcpy(&loc, &s->d[c->offset], 4);
		off = loc & 0xffff;
		len = loc >> 16;
	}
	if (len > TRIGREC_FIELD_STR_LEN - 1)
		len = TRIGREC_FIELD_STR_LEN - 1;
	if (off > SCRATCH_BYTES - TRIGREC_FIELD_STR_LEN)
		goto empty;
	__builtin_memcpy(out->c, &s->d[off], TRIGREC_FIELD_STR_LEN);
	if (len < TRIGREC_FIELD_STR_LEN)
		out->c[len & (TRIGREC_FIELD_STR_LEN - 1)] = 0;
	out->c[TRIGREC_FIELD_STR_LEN - 1] = 0;
	return 0;
empty:
	out->c[0] = 0;
	return 0;
}

/* Does pat (NUL-terminated, < TRIGREC_STR_LEN) occur in str at pos? */
static __always_inline int match_at(const struct str64 *str, const char *pat, __u32 pos, int full)
{
	for (int i = 0; i < TRIGREC_STR_LEN; i++) {
		char p = pat[i];
		char c = str->c[(pos + i) & (TRIGREC_FIELD_STR_LEN - 1)];

		if (pos + i >= TRIGREC_FIELD_STR_LEN)
			c = 0;
		if (!p)
			return full ? c == 0 : 1;
		if (c != p)
			return 0;
	}
	return 1;
}

struct len_ctx {
	const char *s;
	__u32 max;
	__u32 len;
};

static long len_cb(__u32 i, void *ctx)
{
	struct len_ctx *lc = ctx;

	if (i >= lc->max || !lc->s[i & (TRIGREC_FIELD_STR_LEN - 1)])
		return 1;
	lc->len = i + 1;
	return 0;
}

static long patlen_cb(__u32 i, void *ctx)
{
	struct len_ctx *lc = ctx;

	if (i >= lc->max || !lc->s[i & (TRIGREC_STR_LEN - 1)])
		return 1;
	lc->len = i + 1;
	return 0;
}

struct mid_ctx {
	const struct str64 *str;
	const char *pat;
	int found;
};

static long mid_cb(__u32 pos, void *ctx)
{
	struct mid_ctx *mc = ctx;

	if (!mc->str->c[pos & (TRIGREC_FIELD_STR_LEN - 1)])
		return 1;
	if (match_at(mc->str, mc->pat, pos & (TRIGREC_FIELD_STR_LEN - 1), 0)) {
		mc->found = 1;
		return 1;
	}
	return 0;
}

/* String comparisons, verified once as a global function. */
__noinline int str_op(const struct str64 *str, const struct trigrec_filter *f, __u32 op, __u32 idx)
{
	const char *pat;
	__u32 slen = 0, plen = 0;

	if (!str || !f)
		return 0;
	pat = f->str[idx & (TRIGREC_MAX_STRS - 1)];
	switch (op) {
	case TRIGREC_OP_STR_EQ:
	case TRIGREC_OP_GLOB_FULL: return match_at(str, pat, 0, 1);
	case TRIGREC_OP_STR_NE: return !match_at(str, pat, 0, 1);
	case TRIGREC_OP_GLOB_PREFIX: return match_at(str, pat, 0, 0);
	case TRIGREC_OP_GLOB_SUFFIX: {
		struct len_ctx lc = { .s = str->c, .max = TRIGREC_FIELD_STR_LEN - 1 };

		/* Lengths through bpf_loop stay unknown to the verifier: one path, not 64 x 32. */
		bpf_loop(TRIGREC_FIELD_STR_LEN, len_cb, &lc, 0);
		slen = lc.len;
		lc.s = pat;
		lc.len = 0;
		lc.max = TRIGREC_STR_LEN - 1;
		bpf_loop(TRIGREC_STR_LEN, patlen_cb, &lc, 0);
		plen = lc.len;
		if (plen > slen || slen > TRIGREC_FIELD_STR_LEN)
			return 0;
		return match_at(str, pat, slen - plen, 1);
	}
	case TRIGREC_OP_GLOB_MIDDLE: {
		/* bpf_loop: the verifier checks the callback once, not 64 times. */
		struct mid_ctx mc = { .str = str, .pat = pat };

		if (!pat[0])
			return 1;
		bpf_loop(TRIGREC_FIELD_STR_LEN, mid_cb, &mc, 0);
		return mc.found;
	}
	}
	return 0;
}

static __always_inline int int_op(__u8 op, __u8 is_signed, __u64 v, __u64 imm)
{
	switch (op) {
	case TRIGREC_OP_EQ: return v == imm;
	case TRIGREC_OP_NE: return v != imm;
	case TRIGREC_OP_BITAND: return (v & imm) != 0;
	case TRIGREC_OP_LT: return is_signed ? (__s64)v < (__s64)imm : v < imm;
	case TRIGREC_OP_LE: return is_signed ? (__s64)v <= (__s64)imm : v <= imm;
	case TRIGREC_OP_GT: return is_signed ? (__s64)v > (__s64)imm : v > imm;
	case TRIGREC_OP_GE: return is_signed ? (__s64)v >= (__s64)imm : v >= imm;
	}
	return 0;
}

/*
 * Run a compiled filter: a decision list whose jumps only go forward.
 * 1 = match, 0 = no match, -1 = no match because str() could not read its text.
 */
__noinline int eval_filter(struct scratch *s, const struct trigrec_filter *f)
{
	struct str64 *str;
	__u32 pc = 0;

	if (!s || !f)
		return 0;
	str = &s->str;
	if (!f->n)
		return 1;
	for (int i = 0; i < TRIGREC_MAX_CLAUSES; i++) {
		const struct trigrec_clause *c;
		int res;

		if (pc >= TRIGREC_MAX_CLAUSES)
			return 0;
		c = &f->c[pc];
		if (c->op >= TRIGREC_OP_STR_EQ && c->op <= TRIGREC_OP_GLOB_MIDDLE) {
			if (load_string(s, c, str))
				return -1;
			res = str_op(str, f, c->op, (__u32)c->imm);
		} else if (c->op == TRIGREC_OP_TRUE) {
			res = 1;
		} else {
			res = int_op(c->op, c->is_signed,
				     load_value(s, c->src, c->size, c->is_signed, c->offset),
				     c->imm);
		}
		pc = res ? c->jt : c->jf;
		if (pc == TRIGREC_ACCEPT)
			return 1;
		if (pc == TRIGREC_REJECT)
			return 0;
	}
	return 0;
}

/* 64-bit FNV-1a of a NUL-terminated text: a str(FIELD) key part. */
__noinline __u64 str_hash(const struct str64 *str)
{
	__u64 h = 0xcbf29ce484222325ull;

	if (!str)
		return 0;
	for (int i = 0; i < TRIGREC_FIELD_STR_LEN; i++) {
		char c = str->c[i];

		if (!c)
			break;
		h = (h ^ (__u8)c) * 0x100000001b3ull;
	}
	return h;
}

/*
 * The key of this record. 1: a str() part's text is in *str; -1: it could
 * not be read (counted in str_faults; the record neither starts, ends nor
 * counts anything). A global function: verified once for every caller.
 */
__noinline int build_key(struct scratch *s, const struct trigrec_keyspec *ks, struct tkey *k,
			 struct str64 *str)
{
	int has_text = 0;

	if (!s || !ks || !k || !str)
		return 0;
	str->c[0] = 0; /* no text unless a part is str() */

	for (int i = 0; i < TRIGREC_MAX_KEY_PARTS; i++) {
		const struct trigrec_key_part *p = &ks->p[i];

		if (p->src == TRIGREC_SRC_USTR || p->src == TRIGREC_SRC_KSTR) {
			struct trigrec_clause c = { .src = p->src,
						    .size = p->size,
						    .offset = p->offset };

			if (load_string(s, &c, str))
				return -1;
			k->k[i] = str_hash(str);
			has_text = 1;
			continue;
		}
		k->k[i] = p->src ? load_value(s, p->src, p->size, 0, p->offset) : 0;
		/* Zero-extend fields narrower than 8 bytes. */
		if (p->src == TRIGREC_SRC_FIELD && p->size < 8)
			k->k[i] &= (1ull << (p->size * 8)) - 1;
	}
	return has_text;
}

/*
 * A value that did not fire: into the trigger's near misses if it beats the
 * smallest kept (TRIGREC_NEAR_MISS, largest first). The cost on the path
 * that does not fire: one array lookup (inlined) and one compare; the
 * stores happen only for a new top value, rarely once the floor is up.
 */
static __always_inline void nm_put(__u64 *a, __u64 v)
{
	if (v <= a[TRIGREC_NEAR_MISS - 1])
		return;
	for (int i = TRIGREC_NEAR_MISS - 1; i > 0; i--) {
		if (v <= a[i - 1]) {
			a[i] = v;
			return;
		}
		a[i] = a[i - 1];
	}
	a[0] = v;
}

static __always_inline void near_miss_note(__u32 id, __u64 v)
{
	struct trigrec_near_miss *nm = bpf_map_lookup_elem(&near_miss, &id);

	if (!nm || v <= nm->last[TRIGREC_NEAR_MISS - 1])
		return;
	nm_put(nm->last, v);
	nm_put(nm->all, v);
}

/*
 * The same for one key of a keyed trigger (trigrec_key_nm): one LRU lookup
 * per value that did not fire; a write only for a new top value of the key
 * or the first since the trigger last fired (epoch, its fired_total). A
 * global function: verified once, its 80-byte new entry off the callers'
 * stacks.
 */
__noinline int key_nm_note(__u32 id, __u64 k0, __u64 k1, __u64 epoch, __u64 v)
{
	/* The key on this stack: 6.1's verifier takes no argument pointer as a map key. */
	struct tkey k = { .trig = id, .kind = 6, .k = { k0, k1 } };
	struct trigrec_key_nm *e, ne = {};

	if (!v)
		return 0;
	e = bpf_map_lookup_elem(&key_nm, &k);
	if (!e) {
		ne.epoch = epoch;
		ne.all[0] = v;
		ne.last[0] = v;
		bpf_map_update_elem(&key_nm, &k, &ne, BPF_NOEXIST);
	} else if (e->epoch != epoch) {
		__builtin_memset(e->last, 0, sizeof(e->last));
		e->epoch = epoch;
		e->last[0] = v;
		nm_put(e->all, v);
	} else if (v > e->last[TRIGREC_NEAR_MISS - 1]) {
		nm_put(e->last, v);
		nm_put(e->all, v);
	}
	return 0;
}

/* A value that did not fire: the trigger's near misses, and its key's if it has one. */
static __always_inline void near_miss_both(__u32 id, int keyed, const struct tkey *k, __u64 epoch,
					   __u64 v)
{
	near_miss_note(id, v);
	if (keyed)
		key_nm_note(id, k->k[0], k->k[1], epoch, v);
}

/*
 * Learned thresholds (`latency ... > p99.9`). Per key a trigrec_learn
 * histogram (trigrec_hist.h); a span is judged against what the key had
 * learned before it, then added. The percentile is recomputed every
 * max(16, total / 32) spans by a scan from the highest bucket down
 * (bpf_loop: the verifier checks one step), and the counts halve every
 * learn_halflife_ns (one pass, at the first span after the period).
 */
struct learn_scan {
	struct trigrec_learn *l;
	struct trigrec_hist_scan sc;
	__u32 top; /* the scan's first bucket */
	__u32 shift;
};

static long learn_pct_cb(__u32 i, void *ctx)
{
	struct learn_scan *ls = ctx;
	__u32 b = ls->top - i;

	if (i > ls->top || b >= TRIGREC_HIST_BUCKETS)
		return 1;
	return trigrec_hist_pct_step_down(&ls->sc, b, ls->l->counts[b]);
}

static long learn_halve_cb(__u32 i, void *ctx)
{
	struct learn_scan *ls = ctx;

	if (i >= TRIGREC_HIST_BUCKETS)
		return 1;
	ls->l->counts[i] >>= ls->shift;
	ls->sc.seen += ls->l->counts[i];
	return 0;
}

/* Subprograms, each with its scan on its own frame (a call chain has 512 bytes of stack). */
static __noinline void learn_recompute(struct trigrec_learn *l, __u32 pct)
{
	struct learn_scan ls = { .l = l };
	__u64 step;

	ls.top = l->hi < TRIGREC_HIST_BUCKETS ? l->hi : TRIGREC_HIST_BUCKETS - 1;
	trigrec_hist_scan_init_down(&ls.sc, l->total, pct);
	if (l->total)
		bpf_loop(TRIGREC_HIST_BUCKETS, learn_pct_cb, &ls, 0);
	l->pct_ns = ls.sc.value;
	step = l->total / 32;
	l->next_at = l->total + (step > 16 ? step : 16);
}

static __noinline void learn_halve(struct trigrec_learn *l, __u32 shift)
{
	struct learn_scan hs = { .l = l, .shift = shift };

	bpf_loop(TRIGREC_HIST_BUCKETS, learn_halve_cb, &hs, 0);
	l->total = hs.sc.seen;
}

/*
 * One histogram at a span's end: age it, say what it had learned (*seen),
 * then add the span. 1: the span is above its threshold, 0: it is not,
 * -1: the histogram has not seen learn_after spans yet (it cannot judge).
 * A global function: verified once, for a key's histogram (learn_hist) and
 * for all keys' (learn_all) alike.
 *
 * Ageing: the counts halve once per half-life (by more when several went
 * by), by the one CPU whose compare-and-swap moves halved_ns: all keys'
 * histogram is shared by every CPU. Signed: a CPU's span may end before
 * the time another CPU just stored; unsigned, that difference wrapped to
 * "31 half-lives" and emptied the histogram.
 */
__noinline int learn_one(struct trigrec_learn *l, struct trigrec_trigger_cfg *tc,
			 struct learn_seen *seen, __u64 dur, __u64 now)
{
	__u64 h;
	__u32 b;
	int hot = -1;

	if (!l || !tc || !seen)
		return 0;
	h = l->halved_ns;
	if (!h) {
		l->halved_ns = now;
	} else if (tc->learn_halflife_ns && (__s64)(now - h) >= (__s64)tc->learn_halflife_ns &&
		   __sync_val_compare_and_swap(&l->halved_ns, h, now) == h) {
		__u64 n = (now - h) / tc->learn_halflife_ns;

		learn_halve(l, n > 31 ? 31 : (__u32)n);
		learn_recompute(l, tc->learn_pct);
	}
	seen->pct_ns = l->pct_ns;
	seen->samples = l->samples;
	seen->total = l->total;
	seen->threshold_ns = l->pct_ns * tc->learn_mult / 100;
	if (l->samples >= tc->learn_after && l->pct_ns)
		hot = dur > seen->threshold_ns;
	b = trigrec_hist_bucket(dur);
	if (b < TRIGREC_HIST_BUCKETS) {
		/*
		 * Bound the register that indexes: clang tested a 32-bit copy
		 * of b, and 6.1's verifier does not carry a bound across that
		 * copy ("R3 unbounded memory access"). The barrier makes the
		 * test and the index one register.
		 */
		__u64 i = b;

		asm volatile("" : "+r"(i));
		if (i < TRIGREC_HIST_BUCKETS)
			l->counts[i]++;
	}
	if (b > l->hi)
		l->hi = b;
	l->total++;
	l->samples++;
	if (l->total >= l->next_at)
		learn_recompute(l, tc->learn_pct);
	return hot;
}

/* Nothing learned: a fixed threshold's firing, or no all-keys histogram. */
static __always_inline void seen_none(struct learn_seen *s)
{
	s->threshold_ns = 0;
	s->pct_ns = 0;
	s->samples = 0;
	s->total = 0;
}

/*
 * 1: the span dur exceeds its key's learned threshold (and the key is warm).
 * With `by`, the span also goes into the histogram of all the trigger's
 * keys (learn_all), which only reports: a key is judged by its own
 * histogram alone, and stays quiet until its own warm-up, whatever all
 * keys learned (keys differ: a slow key's normal is above all keys' p99.9,
 * and a new key, a new thread, comes every moment). Without `by`, all
 * spans' histogram is learn_all's and judges. A global function: the
 * verifier checks it once, not once per path of run_trigger that reaches
 * it, and its stack is not run_trigger's.
 */
__noinline int learn_sample(__u32 id, struct trigrec_trigger_cfg *tc, const struct tkey *k,
			    struct learn_out *out)
{
	struct tkey lk;
	struct trigrec_learn *l, *la;
	struct trigrec_learn_stat *ls = bpf_map_lookup_elem(&learn_stat, &id);
	__u32 zero = 0;
	int hot;

	if (!tc || !k || !out)
		return 0;
	la = bpf_map_lookup_elem(&learn_all, &id);
	if (!la)
		return 0;
	seen_none(&out->a);
	out->la = NULL;
	if (tc->flags & TRIGREC_TF_LEARN_ALL) {
		if (!la->samples && ls)
			__sync_fetch_and_add(&ls->keys, 1);
		hot = learn_one(la, tc, &out->k, out->dur, out->now);
		out->l = la;
	} else {
		lk = *k;
		lk.kind = 5;
		l = bpf_map_lookup_elem(&learn_hist, &lk);
		if (!l) {
			struct trigrec_learn *z = bpf_map_lookup_elem(&learn_zero, &zero);

			if (!z)
				return 0;
			bpf_map_update_elem(&learn_hist, &lk, z, BPF_NOEXIST);
			l = bpf_map_lookup_elem(&learn_hist, &lk);
			if (!l)
				return 0;
			if (ls)
				__sync_fetch_and_add(&ls->keys, 1);
		}
		hot = learn_one(l, tc, &out->k, out->dur, out->now);
		out->l = l;
		learn_one(la, tc, &out->a, out->dur, out->now);
		out->la = la;
	}
	if (ls) {
		if (hot < 0)
			__sync_fetch_and_add(&ls->warming, 1);
		ls->samples++;
	}
	return hot > 0;
}

/* (7/8)^k in 1/65536, k < TRIGREC_RATE_IDLE_MAX: k idle windows in one multiply, no loop. */
/* clang-format off */
static const __u32 rate_idle_decay[TRIGREC_RATE_IDLE_MAX] = {
	65536, 57344, 50176, 43904, 38416, 33614, 29412, 25736,
	22519, 19704, 17241, 15086, 13200, 11550, 10106, 8843,
	7738, 6770, 5924, 5184, 4536, 3969, 3473, 3039,
	2659, 2326, 2036, 1781, 1558, 1364, 1193, 1044,
	914, 799, 699, 612, 536, 469, 410, 359,
	314, 275, 240, 210, 184, 161, 141, 123,
	108, 94, 83, 72, 63, 55, 48, 42,
	37, 32, 28, 25, 22, 19, 17, 15,
};
/* clang-format on */

/*
 * A rate baseline (`rate EVENT > Nx baseline`): the window that just closed
 * (count c, elapsed since it opened) goes into its key's EWMA, one closer at
 * a time (the compare-and-swap on win_start). base is the count per window
 * x 2^TRIGREC_RATE_FP_SHIFT; alpha 1/8 (base += (c - base) / 8) forgets a
 * window's weight by half in ~5 windows, so a burst moves the baseline by an
 * eighth of itself and a lasting change of level is learned in ~20 windows;
 * shifts, no division. The first window sets base; every whole window that
 * went by with no event since decays it by 7/8 (rate_idle_decay, up to
 * TRIGREC_RATE_IDLE_MAX of them; after more it is 0: 0.02 % of itself).
 * thr is what the next windows must exceed: max(base, 1 event) x N, so a
 * key whose baseline is near 0 fires on more than N events, not on 1; ~0
 * until the key has seen learn_after windows. A global function: verified
 * once per program.
 */
__noinline int rate_learn(__u32 id, struct trigrec_trigger_cfg *tc, struct rate_bucket *b, __u64 c,
			  __u64 elapsed)
{
	struct trigrec_learn_stat *ls = bpf_map_lookup_elem(&learn_stat, &id);
	__u64 base, idle = 0, fp;

	if (!tc || !b)
		return 0;
	if (tc->window_ns)
		idle = elapsed / tc->window_ns;
	idle = idle ? idle - 1 : 0;
	/* A window the key was warm in and did not exceed: a near miss. */
	if (b->windows < tc->learn_after) {
		if (ls)
			__sync_fetch_and_add(&ls->warming, 1);
	} else if (c <= b->thr) {
		near_miss_note(id, c);
	}
	if (c > 0xffffffffull)
		c = 0xffffffffull;
	fp = c << TRIGREC_RATE_FP_SHIFT;
	base = b->windows ? (b->base * ((1u << TRIGREC_RATE_EWMA_SHIFT) - 1) + fp) >>
				    TRIGREC_RATE_EWMA_SHIFT :
			    fp;
	if (idle >= TRIGREC_RATE_IDLE_MAX)
		base = 0;
	else if (idle)
		base = (base * rate_idle_decay[idle & (TRIGREC_RATE_IDLE_MAX - 1)]) >> 16;
	b->base = base;
	b->windows += 1 + idle;
	if (ls)
		__sync_fetch_and_add(&ls->samples, 1);
	if (b->windows < tc->learn_after) {
		b->thr = ~0ull;
		return 0;
	}
	if (base < (1ull << TRIGREC_RATE_FP_SHIFT))
		base = 1ull << TRIGREC_RATE_FP_SHIFT;
	b->thr = ((base * tc->learn_mult) / 100) >> TRIGREC_RATE_FP_SHIFT;
	return 0;
}

/* A firing of a fixed threshold: nothing learned to send. */
static __always_inline void learn_none(struct learn_out *lo)
{
	seen_none(&lo->k);
	lo->l = NULL;
	seen_none(&lo->a);
	lo->la = NULL;
}

/* A rate baseline's firing: what its key had learned (trigrec_trigger_msg_learn). */
static __always_inline void rate_learn_out(struct learn_out *lo, const struct rate_bucket *b,
					   __u64 thr)
{
	lo->k.threshold_ns = thr;
	lo->k.pct_ns = b->base;
	lo->k.samples = b->windows;
	lo->k.total = 0;
	lo->l = NULL;
	seen_none(&lo->a);
	lo->la = NULL;
}

static __always_inline void rate_key_new(__u32 id)
{
	struct trigrec_learn_stat *ls = bpf_map_lookup_elem(&learn_stat, &id);

	if (ls)
		__sync_fetch_and_add(&ls->keys, 1);
}

struct fire_ctx {
	__u64 now;
	__u64 start_ns;
	__u64 latency_ns;
	__u32 start_tid;
	__u32 start_cpu;
	__u64 count;
};

/*
 * Policy, then claim the snapshot, set the cut, tell userspace. The message
 * is reserved before claiming so a full ring buffer can never leave the
 * recorder frozen with nobody told.
 */
static __always_inline int fire_body(struct scratch *s, __u32 id, struct trigrec_trigger_cfg *tc,
				     struct trigrec_trig_state *ts, struct trigrec_stats *st,
				     struct tkey *k, struct fire_ctx *fc,
				     const struct str64 *key_text, const struct learn_out *lo)
{
	struct trigrec_trigger_msg_learn *ml;
	struct trigrec_trigger_msg *m;
	struct trigrec_near_miss *nm;
	__u64 now = fc->now, pid_tgid, *kcd = NULL, we;
	__u32 sz;

	if (tc->max_total && ts->fired_total >= tc->max_total) {
		st->suppressed_limit++;
		return 0;
	}
	if (tc->cooldown_ns && ts->last_fire_ns && now - ts->last_fire_ns < tc->cooldown_ns) {
		st->suppressed_cooldown++;
		return 0;
	}
	if (tc->key_cooldown_ns) {
		k->kind = 3;
		kcd = bpf_map_lookup_elem(&key_cooldown, k);
		if (kcd && now - *kcd < tc->key_cooldown_ns) {
			st->suppressed_cooldown++;
			return 0;
		}
	}
	/*
	 * limit N/PERIOD is a token bucket of N refilled at N per PERIOD, kept
	 * as GCRA's one timestamp: tat is when the bucket is full again; a
	 * firing takes one token (interval) and is allowed while tat is at
	 * most PERIOD - interval ahead. Written to never overflow.
	 */
	if (tc->limit) {
		__u64 interval = tc->limit_period_ns / tc->limit;

		if (ts->limit_tat_ns > now &&
		    ts->limit_tat_ns - now > tc->limit_period_ns - interval) {
			st->suppressed_limit++;
			return 0;
		}
	}
	/* The global budget comes last: what the trigger's own policy held back does not spend it. */
	for (int i = 0; i < 2; i++) {
		__u64 interval;

		if (!budget_n[i])
			continue;
		interval = budget_period_ns[i] / budget_n[i];
		if (budget_tat[i] > now && budget_tat[i] - now > budget_period_ns[i] - interval) {
			st->suppressed_budget++;
			return 0;
		}
	}
	if (!*(volatile __u64 *)&armed) {
		st->coalesced++;
		return 0;
	}
	/*
	 * Ring sets alone freeze nothing: a firing after the window of the
	 * snapshot in flight is a snapshot of its own, however soon it comes;
	 * one inside that window (its post) is part of it.
	 */
	we = *(volatile __u64 *)&window_end;
	if (ring_mode && !need_freeze &&
	    (now <= we || *(volatile __u64 *)&inflight >= TRIGREC_MAX_INFLIGHT)) {
		st->coalesced++;
		return 0;
	}
	/*
	 * Every firing reserves room for what a learned threshold's key had
	 * learned: one size, so the verifier walks the rest once, not once per
	 * size (+27 % of tp_hook's instructions when it did).
	 */
	ml = bpf_ringbuf_reserve(&sideband, sizeof(*ml), 0);
	if (!ml) {
		st->rb_dropped++;
		return 0;
	}
	m = &ml->m;
	if (ring_mode && !need_freeze) {
		/* One owner per window: two CPUs firing at once make one snapshot. */
		if (__sync_val_compare_and_swap(&window_end, we, now + tc->post_ns) != we) {
			bpf_ringbuf_discard(m, BPF_RB_NO_WAKEUP);
			st->coalesced++;
			return 0;
		}
		__sync_fetch_and_add(&inflight, 1);
	} else {
		if (__sync_val_compare_and_swap(&armed, 1, 0) != 1) {
			bpf_ringbuf_discard(m, BPF_RB_NO_WAKEUP);
			st->coalesced++;
			return 0;
		}
		freeze_at = now + tc->post_ns;
	}
	m->flipped = 0;
	if (ring_mode && __sync_val_compare_and_swap(&spare_free, 1, 0) == 1) {
		flip_at = now + tc->post_ns;
		m->flipped = 1;
	}
	st->fired++;
	ts->fired_total++;
	ts->last_fire_ns = now;
	if (tc->limit)
		ts->limit_tat_ns = (ts->limit_tat_ns > now ? ts->limit_tat_ns : now) +
				   tc->limit_period_ns / tc->limit;
	if (tc->key_cooldown_ns) {
		k->kind = 3;
		bpf_map_update_elem(&key_cooldown, k, &now, BPF_ANY);
	}
	/* Only the owner of the freeze gets here: the buckets have one writer at a time. */
	for (int i = 0; i < 2; i++)
		if (budget_n[i])
			budget_tat[i] = (budget_tat[i] > now ? budget_tat[i] : now) +
					budget_period_ns[i] / budget_n[i];

	pid_tgid = bpf_get_current_pid_tgid();
	m->type = TRIGREC_MSG_TRIGGER;
	m->trigger_id = id;
	m->generation = generation;
	m->time_ns = now;
	m->freeze_at = now + tc->post_ns;
	m->cpu = bpf_get_smp_processor_id();
	m->pid = pid_tgid >> 32;
	m->tid = (__u32)pid_tgid;
	m->hook = s->hook;
	m->hook_recorded = s->hook_recorded;
	bpf_get_current_comm(m->comm, sizeof(m->comm));
	m->key[0] = k->k[0];
	m->key[1] = k->k[1];
	m->start_ns = fc->start_ns;
	m->latency_ns = fc->latency_ns;
	m->start_tid = fc->start_tid;
	m->start_cpu = fc->start_cpu;
	m->count = fc->count;
	m->window_ns = tc->window_ns;
	sz = s->size;
	if (sz > TRIGREC_TRIGGER_DATA)
		sz = TRIGREC_TRIGGER_DATA;
	m->data_size = sz;
	__builtin_memcpy(m->data, s->d, TRIGREC_TRIGGER_DATA);
	/* Empty unless the key has a str() part (build_key). */
	__builtin_memcpy(m->key_text, key_text->c, TRIGREC_FIELD_STR_LEN);
	m->key_text[TRIGREC_FIELD_STR_LEN - 1] = 0;
	/* The near misses since the previous firing go with this one; a new window starts. */
	nm = bpf_map_lookup_elem(&near_miss, &id);
	if (nm) {
		__builtin_memcpy(m->nm_last, nm->last, sizeof(m->nm_last));
		__builtin_memcpy(m->nm_all, nm->all, sizeof(m->nm_all));
		__builtin_memset(nm->last, 0, sizeof(nm->last));
	} else {
		__builtin_memset(m->nm_last, 0, sizeof(m->nm_last));
		__builtin_memset(m->nm_all, 0, sizeof(m->nm_all));
	}
	ml->threshold_ns = lo->k.threshold_ns;
	ml->pct_ns = lo->k.pct_ns;
	ml->samples = lo->k.samples;
	ml->total = lo->k.total;
	ml->all_threshold_ns = lo->a.threshold_ns;
	ml->all_pct_ns = lo->a.pct_ns;
	ml->all_samples = lo->a.samples;
	ml->all_total = lo->a.total;
	/*
	 * The histograms only for a learned threshold: userspace reads counts
	 * only then (the trigger's learn_pct; all_counts only with all_samples),
	 * so a fixed threshold's firing does not zero 9 KiB while it holds the
	 * cut. A failed read zeroes.
	 */
	if (lo->l)
		bpf_probe_read_kernel(ml->counts, sizeof(ml->counts),
				      ((struct trigrec_learn *)lo->l)->counts);
	if (lo->la)
		bpf_probe_read_kernel(ml->all_counts, sizeof(ml->all_counts),
				      ((struct trigrec_learn *)lo->la)->counts);
	bpf_ringbuf_submit(ml, 0);
	return 1;
}

/*
 * Ring sets alone keep no freeze to serialize firings: a firing holds
 * fire_lock from its policy checks to its last state update, so `max`,
 * `limit`, cooldowns and the budget see one firing at a time, as they do
 * under `armed` (a vCPU descheduled mid-firing under qemu let a second one
 * through `max 1`). A firing that finds it held is concurrent: coalesced.
 */
static __always_inline int fire(struct scratch *s, __u32 id, struct trigrec_trigger_cfg *tc,
				struct trigrec_trig_state *ts, struct trigrec_stats *st,
				struct tkey *k, struct fire_ctx *fc, const struct str64 *key_text,
				const struct learn_out *lo)
{
	int locked = ring_mode && !need_freeze, r;

	if (locked && __sync_val_compare_and_swap(&fire_lock, 0, 1) != 0) {
		st->coalesced++;
		return 0;
	}
	r = fire_body(s, id, tc, ts, st, k, fc, key_text, lo);
	if (locked)
		__sync_fetch_and_and(&fire_lock, 0);
	return r;
}

/* Start or end a thread-keyed span in task storage. 1 = an end matched a start (*v set). */
static __always_inline int task_span(__u32 id, __u32 role, __u64 now, struct lat_start *v)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct task_starts *ts;
	int free = -1;

	ts = bpf_task_storage_get(&task_starts, task, 0,
				  role == TRIGREC_ROLE_START ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!ts)
		return 0;
	for (int i = 0; i < TRIGREC_TASK_SLOTS; i++) {
		struct task_slot *sl = &ts->slot[i];

		if (sl->trig1 == id + 1) {
			if (role == TRIGREC_ROLE_START) {
				sl->ts = now;
				sl->cpu = bpf_get_smp_processor_id();
				return 0;
			}
			if (!sl->ts)
				return 0;
			v->ts = sl->ts;
			v->cpu = sl->cpu;
			v->tid = (__u32)bpf_get_current_pid_tgid();
			sl->ts = 0;
			return 1;
		}
		if (!sl->trig1 && free < 0)
			free = i;
	}
	if (role == TRIGREC_ROLE_START && free >= 0 && free < TRIGREC_TASK_SLOTS) {
		ts->slot[free].trig1 = id + 1;
		ts->slot[free].ts = now;
		ts->slot[free].cpu = bpf_get_smp_processor_id();
	}
	return 0;
}

/* Start or end a span keyed by record fields in the lat_starts LRU. 1 = ended (*v set). */
static __always_inline int hash_span(struct tkey *k, __u32 role, __u64 now, struct lat_start *v)
{
	struct lat_start *ls;

	k->kind = 1;
	if (role == TRIGREC_ROLE_START) {
		v->ts = now;
		v->tid = (__u32)bpf_get_current_pid_tgid();
		v->cpu = bpf_get_smp_processor_id();
		bpf_map_update_elem(&lat_starts, k, v, BPF_ANY);
		return 0;
	}
	/* Ended spans are deleted: keys like (dev, sector) rarely recur. */
	ls = bpf_map_lookup_elem(&lat_starts, k);
	if (!ls)
		return 0;
	*v = *ls;
	bpf_map_delete_elem(&lat_starts, k);
	return 1;
}

/*
 * An EVENT trigger's condition rejected the record: if its `> N` / `>= N`
 * comparison (clause nm_clause1 - 1) is what failed, the value is a near
 * miss. The cost on every rejected record: one load, one compare and the
 * near-miss entry's lookup; the relaxed condition (side[ROLE_START]: the
 * same with that clause true) is evaluated only for a value that beats the
 * floor, so that a record rejected for another reason (comm, another
 * field) is not counted. A global function: verified once.
 */
__noinline int event_near_miss(struct scratch *s, __u32 id, struct trigrec_trigger_cfg *tc)
{
	const struct trigrec_clause *c;
	struct trigrec_near_miss *nm;
	__u32 k;
	__u64 v;

	if (!s || !tc)
		return 0;
	k = tc->nm_clause1 - 1;
	if (k >= TRIGREC_MAX_CLAUSES)
		return 0;
	c = &tc->side[TRIGREC_ROLE_EVENT].filter.c[k];
	v = load_value(s, c->src, c->size, c->is_signed, c->offset);
	if ((c->is_signed && (__s64)v <= 0) || int_op(c->op, c->is_signed, v, c->imm))
		return 0;
	nm = bpf_map_lookup_elem(&near_miss, &id);
	if (!nm || v <= nm->last[TRIGREC_NEAR_MISS - 1])
		return 0;
	if (eval_filter(s, &tc->side[TRIGREC_ROLE_START].filter) <= 0)
		return 0;
	near_miss_note(id, v);
	return 1;
}

/* Evaluate one (trigger, role) entry of a hook. 1 = it fired. */
__noinline int run_trigger(struct scratch *s, __u32 entry)
{
	__u32 id = TRIGREC_HOOK_TRIG_ID(entry), role = TRIGREC_HOOK_TRIG_ROLE(entry);
	struct trigrec_trigger_cfg *tc = bpf_map_lookup_elem(&triggers, &id);
	struct trigrec_trig_state *ts = bpf_map_lookup_elem(&trig_state, &id);
	struct trigrec_stats *st = stat_slot(id);
	struct fire_ctx fc = { 0 };
	struct tkey k = { .trig = id };
	const struct trigrec_side *side;
	struct str64 *str;
	__u64 now;
	int res, keyed;

	if (!s || !tc || !ts || !st || role > TRIGREC_ROLE_START)
		return 0;
	/* `by KEY` (by tid too): near misses per key as well (key_nm_note()). */
	keyed = tc->side[TRIGREC_ROLE_EVENT].key.p[0].src != 0;
	str = &s->str;
	side = &tc->side[role];
	st->evaluated++;
	res = eval_filter(s, &side->filter);
	if (res <= 0) {
		if (res < 0)
			st->str_faults++;
		else if (tc->nm_clause1)
			event_near_miss(s, id, tc);
		return 0;
	}
	/*
	 * The clock is read only once something matched: filters are the hot
	 * path. A record written by BPF carries the time the cut must equal.
	 */
	now = s->now ? s->now : bpf_ktime_get_ns();
	fc.now = now;

	if (tc->kind == TRIGREC_TRIG_LATENCY) {
		struct lat_start v;
		int ended;

		if (tc->flags & TRIGREC_TF_TASK_KEY) {
			k.k[0] = (__u32)bpf_get_current_pid_tgid();
			str->c[0] = 0;
			ended = task_span(id, role, now, &v);
		} else {
			if (build_key(s, &side->key, &k, str) < 0) {
				st->str_faults++;
				return 0;
			}
			ended = hash_span(&k, role, now, &v);
		}
		if (!ended || now < v.ts)
			return 0;
		if (tc->window_ns && now - v.ts > tc->window_ns) {
			st->stale_starts++;
			return 0;
		}
		fc.start_ns = v.ts;
		fc.latency_ns = now - v.ts;
		fc.start_tid = v.tid;
		fc.start_cpu = v.cpu;
		if (tc->learn_pct) {
			/* In the scratch slot, not on the stack: what the firing's message carries. */
			s->lo.dur = now - v.ts;
			s->lo.now = now;
			if (!learn_sample(id, tc, &k, &s->lo)) {
				near_miss_both(id, keyed, &k, ts->fired_total, now - v.ts);
				return 0;
			}
		} else if (now - v.ts <= tc->threshold) {
			near_miss_both(id, keyed, &k, ts->fired_total, now - v.ts);
			return 0;
		} else {
			learn_none(&s->lo);
		}
		st->matched++;
		return fire(s, id, tc, ts, st, &k, &fc, str, &s->lo);
	}
	if (build_key(s, &side->key, &k, str) < 0) {
		st->str_faults++;
		return 0;
	}

	if (tc->kind == TRIGREC_TRIG_RATE) {
		struct rate_bucket *b, nb = { .win_start = now, .count = 0, .thr = ~0ull };
		int learn = tc->flags & TRIGREC_TF_RATE_BASELINE;
		__u64 n, ws, thr;

		k.kind = 2;
		b = bpf_map_lookup_elem(&rate_buckets, &k);
		if (!b) {
			if (!bpf_map_update_elem(&rate_buckets, &k, &nb, BPF_NOEXIST) && learn)
				rate_key_new(id);
			b = bpf_map_lookup_elem(&rate_buckets, &k);
			if (!b)
				return 0;
		}
		/*
		 * A window opens at the first event after the previous one
		 * closed. One CPU opens it (the compare-and-swap) and takes
		 * away only the old window's count, so the calls other CPUs
		 * count meanwhile stay counted: two plain stores lost them when
		 * a CPU stalled between the stores (21 calls under qemu TCG).
		 * Signed: this CPU's clock read may predate a window another
		 * CPU opened since; unsigned, that difference wrapped to
		 * "expired" and moved the start back, taking away the new
		 * window's count (20 calls, the 6.12 guest under TCG).
		 */
		ws = b->win_start;
		if ((__s64)(now - ws) > (__s64)tc->window_ns) {
			__u64 old = b->count;

			if (__sync_val_compare_and_swap(&b->win_start, ws, now) == ws) {
				__sync_fetch_and_sub(&b->count, old);
				/* The window that closed: a near miss if it stayed at or under N. */
				if (learn) {
					if (keyed && b->windows >= tc->learn_after && old <= b->thr)
						key_nm_note(id, k.k[0], k.k[1], ts->fired_total,
							    old);
					rate_learn(id, tc, b, old, now - ws);
				} else if (old <= tc->threshold) {
					near_miss_both(id, keyed, &k, ts->fired_total, old);
				}
			}
			ws = b->win_start;
		}
		n = __sync_fetch_and_add(&b->count, 1) + 1;
		thr = learn ? b->thr : tc->threshold;
		if (n <= thr)
			return 0;
		fc.count = n;
		fc.start_ns = ws;
		st->matched++;
		if (learn)
			rate_learn_out(&s->lo, b, thr);
		else
			learn_none(&s->lo);
		if (!fire(s, id, tc, ts, st, &k, &fc, str, &s->lo))
			return 0;
		/*
		 * A new window from here, with the calls counted since ours;
		 * unless another CPU opened one meanwhile: that one already
		 * took our count away.
		 */
		if (__sync_val_compare_and_swap(&b->win_start, ws, now > ws ? now : ws) == ws)
			__sync_fetch_and_sub(&b->count, n);
		return 1;
	} else {
		__u64 n = __sync_fetch_and_add(&ts->matches, 1) + 1;

		fc.count = n;
		if (tc->threshold > 1 && n < tc->threshold)
			return 0;
	}
	st->matched++;
	learn_none(&s->lo);
	return fire(s, id, tc, ts, st, &k, &fc, str, &s->lo);
}

/* The triggers of one hook on one record in s; 1 = one fired. */
static __always_inline int hook_triggers(struct trigrec_hook_cfg *hc, struct scratch *s)
{
	int fired = 0;

	for (int i = 0; i < TRIGREC_MAX_HOOK_TRIGGERS; i++) {
		if (i >= hc->ntrig)
			break;
		if (run_trigger(s, hc->trig[i]))
			fired = 1;
	}
	return fired;
}

#endif /* TRIGREC_ENGINE_BPF_H */
