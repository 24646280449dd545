// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trigrec's in-kernel half: the recording programs (rings=bpf), the freeze
 * gates (perf-written events) and the trigger engine.
 *
 * A tracepoint recorded by BPF carries tp_rec (tp_hook with triggers), which
 * writes its record into the active ring set and never returns 0; a trigger
 * flips the set at its cut. A perf-written tracepoint carries tp_gate
 * (tp_hook) and every recorded sampling event pe_gate. Returning 0 from a
 * gate drops the record before it reaches any perf ring, so once a trigger
 * has set freeze_at nothing newer than the cut is written, however late the
 * side-band thread wakes up.
 *
 * Triggers are data, not code: userspace compiles each into a
 * trigrec_trigger_cfg (filters as forward-jumping clause lists, keys,
 * thresholds, policies) and one precompiled program evaluates them all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "trigrec_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SCRATCH_BYTES 512

/* Set by userspace between open and load. */
const volatile __u32 scope_tgid = 0;  /* 0: triggers fire for any task */
const volatile __u32 self_tgid = 0;   /* trigrec itself: never fires a trigger (no feedback loop) */
const volatile __u32 scope_gates = 0; /* task mode: gates only drop the scope's records */
const volatile __u32 cpu_limited = 0; /* -C: gates only drop records of recorded CPUs */
const volatile __u8 cpu_recorded[TRIGREC_MAX_CPUS] = {};
/* --cgroup: record, trigger and gate only in the cgroup held by cgroup_scope[0]. */
const volatile __u32 scope_cgroup = 0;
/*
 * The run's snapshot budget across all triggers (`budget 10/min, 60/hour`):
 * up to two token buckets, GCRA like `limit`; n = 0: none.
 */
const volatile __u64 budget_n[2] = {};
const volatile __u64 budget_period_ns[2] = {};
__u64 budget_tat[2] = {};
const volatile __u32 generation = 0; /* trigger table generation (reloads), copied into messages */

/* Live state, mmaped by userspace (see trigrec_abi.h). */
__u64 freeze_at = 0;
__u64 armed = 0; /* userspace arms once everything is attached */

/*
 * rings=bpf. Recording programs write a record stamped t into set_after
 * when flip_at is set and t > flip_at, else into set_before: a firing
 * trigger claims the spare set (spare_free 1 -> 0) and sets flip_at to its
 * cut, so everything up to the cut stays in the set it was in and nothing
 * after it lands there. Userspace hands the spare back after copying it
 * (bpfctl__settle: set_before = set_after, flip_at = 0, set_after = the
 * other, spare_free = 1, in that order, so a program between two of those
 * stores still picks a set that is safe to write).
 */
const volatile __u32 ring_mode = 0;   /* 1: tracepoints recorded by BPF (rings=bpf) */
const volatile __u32 need_freeze = 0; /* perf-written rings (sampling events) are gated too */
const volatile __u32 rec_slots = 1;   /* index of set s on CPU c: s * rec_slots + c */
__u64 flip_at = 0;
__u64 window_end = 0; /* ring sets alone: the end of the newest snapshot's window */
__u64 inflight = 0;  /* ring sets alone: snapshots posted, not yet copied (userspace counts down) */
__u64 fire_lock = 0; /* ring sets alone: one firing at a time through the policies (fire()) */
__u32 set_before = 0;
__u32 set_after = 1;
__u32 spare_free = 1;
/*
 * Next record number per CPU, one cache line each: every record takes one
 * with a locked add, and with the numbers packed 16 to a line each CPU's
 * add pulled the line away from 15 others that were recording too.
 */
struct {
	__u32 n;
	__u32 pad[15];
} __attribute__((aligned(64))) rec_seq[TRIGREC_MAX_CPUS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_HOOKS);
	__type(key, __u32);
	__type(value, struct trigrec_hook_cfg);
} hooks SEC(".maps");

/*
 * The cgroup of --cgroup, as a cgroup fd: bpf_current_task_under_cgroup()
 * tests "in it or a descendant" in O(1), as the perf events opened with
 * PERF_FLAG_PID_CGROUP do, and the kernel resolved the path, so cgroup
 * namespaces need no depth arithmetic (unlike ancestor cgroup ids).
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_scope SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_trigger_cfg);
} triggers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_trig_state);
} trig_state SEC(".maps");

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

/* Keyed state: latency starts, rate buckets, per-key cooldowns. */
struct tkey {
	__u32 trig;
	__u32 kind; /* which table the entry belongs to, so one key space serves all */
	__u64 k[TRIGREC_MAX_KEY_PARTS];
};

struct lat_start {
	__u64 ts;
	__u32 tid;
	__u32 cpu;
};

struct rate_bucket {
	__u64 win_start;
	__u64 count;
};

/* Sizes are set by userspace (bpf_map__set_max_entries) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct tkey);
	__type(value, struct lat_start);
} lat_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tkey);
	__type(value, struct rate_bucket);
} rate_buckets SEC(".maps");

/*
 * Latency starts keyed by the current thread (the common case: syscall and
 * off-CPU spans) live in task storage: a lookup costs a fraction of an LRU
 * hash update + delete, and the slots vanish with the thread.
 */
struct task_slot {
	__u32 trig1; /* trigger id + 1; 0 = free */
	__u32 cpu;
	__u64 ts;
};

struct task_starts {
	struct task_slot slot[TRIGREC_TASK_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_starts);
} task_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tkey);
	__type(value, __u64);
} key_cooldown SEC(".maps");

struct str64 {
	char c[TRIGREC_FIELD_STR_LEN];
};

/*
 * The record being evaluated, copied once so clauses can index it freely.
 * Slot 0: tp_hook and probe_hook (classic programs, which never nest in
 * each other: the kernel's bpf_prog_active); slot 1: record()'s --filter;
 * slot 2 + K: the tp_btf fast path of kind K, which builds its record here
 * behind h and writes it to the ring from here. A tp_btf program can
 * interrupt a classic one and another tp_btf program (never itself: the
 * kernel's per-program guard), so each has its own slot, text buffer
 * included, and none overwrites what another is evaluating.
 */
struct scratch {
	struct trigrec_rec_hdr h; /* fast paths: the header rec_emit() writes */
	__u8 d[SCRATCH_BYTES];
	__u32 size;
	__u32 hook;
	__u32 hook_recorded;
	__u32 pad;
	__u64 now; /* rings=bpf: the time stamped on the event's record (0: read the clock) */
	char comm[TRIGREC_COMM_LEN];
	struct str64 str; /* the text of a str() clause or key part */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
} rec_rings SEC(".maps");

/* One record being written: the header, then the tracepoint's record. */
struct rec_buf {
	struct trigrec_rec_hdr h;
	__u8 d[TRIGREC_MAX_RECORD];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_buf);
} rec_buf_map SEC(".maps");

/* rings=bpf: a recorded tracepoint's --filter, compiled as a trigger condition (per hook). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_HOOKS);
	__type(key, __u32);
	__type(value, struct trigrec_filter);
} rec_filters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 + TRIGREC_FP_NR);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

/* Dynamic probes' recipes (see trigrec_probe_cfg), at their hook's index. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_HOOKS);
	__type(key, __u32);
	__type(value, struct trigrec_probe_cfg);
} probe_cfgs SEC(".maps");

static __always_inline struct trigrec_stats *stat_slot(__u32 id)
{
	return bpf_map_lookup_elem(&stats, &id);
}

static __always_inline int in_task_scope(void);

/* Is the current task in the --cgroup (or a cgroup below it)? */
static __always_inline int in_cgroup(void)
{
	if (!scope_cgroup)
		return 1;
	return bpf_current_task_under_cgroup(&cgroup_scope, 0) == 1;
}

/*
 * 1 = let the record through. Costs one load while recording. While frozen,
 * records our rings would never receive (other CPUs with -C, other tasks with
 * -p or a command, other cgroups with --cgroup) pass: dropping a tracepoint
 * record drops it for every perf user, so the freeze should touch no more
 * than it must.
 */
static __always_inline int gate_pass(void)
{
	__u64 cut = *(volatile __u64 *)&freeze_at;
	struct trigrec_stats *st;

	if (!cut || bpf_ktime_get_ns() <= cut)
		return 1;
	if (cpu_limited) {
		__u32 cpu = bpf_get_smp_processor_id();

		if (cpu >= TRIGREC_MAX_CPUS || !cpu_recorded[cpu])
			return 1;
	}
	if (scope_gates && !in_task_scope())
		return 1;
	if (!in_cgroup())
		return 1;
	st = stat_slot(TRIGREC_MAX_TRIGGERS);
	if (st)
		st->gated++;
	return 0;
}

/* Is the current task the scope process or one of its descendants? */
static __always_inline int in_task_scope(void)
{
	struct task_struct *t;
	int i;

	if (!scope_tgid)
		return 1;
	/*
	 * BTF pointers, read with plain loads (the verifier makes each a
	 * fault-safe load): every recorded event of a task-scoped recording
	 * asks this, and a bpf_probe_read_kernel() call per field cost more
	 * than the load.
	 */
	t = bpf_get_current_task_btf();
	for (i = 0; i < TRIGREC_SCOPE_DEPTH && t; i++) {
		__u32 tgid = t->tgid;

		if (tgid == scope_tgid)
			return 1;
		if (tgid <= 1)
			return 0;
		t = t->real_parent;
	}
	return 0;
}

/* May triggers fire for the current task? */
static __always_inline int in_scope(void)
{
	/* Writing a snapshot (openat, write, fsync, rename) must not fire another one. */
	if (self_tgid && (bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return 0;
	return in_cgroup() && in_task_scope();
}

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
				     const struct str64 *key_text)
{
	struct trigrec_trigger_msg *m;
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
	m = bpf_ringbuf_reserve(&sideband, sizeof(*m), 0);
	if (!m) {
		st->rb_dropped++;
		return 0;
	}
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
	bpf_ringbuf_submit(m, 0);
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
				struct tkey *k, struct fire_ctx *fc, const struct str64 *key_text)
{
	int locked = ring_mode && !need_freeze, r;

	if (locked && __sync_val_compare_and_swap(&fire_lock, 0, 1) != 0) {
		st->coalesced++;
		return 0;
	}
	r = fire_body(s, id, tc, ts, st, k, fc, key_text);
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
	int res;

	if (!s || !tc || !ts || !st || role > TRIGREC_ROLE_START)
		return 0;
	str = &s->str;
	side = &tc->side[role];
	st->evaluated++;
	res = eval_filter(s, &side->filter);
	if (res <= 0) {
		if (res < 0)
			st->str_faults++;
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
		if (now - v.ts <= tc->threshold)
			return 0;
		fc.start_ns = v.ts;
		fc.latency_ns = now - v.ts;
		fc.start_tid = v.tid;
		fc.start_cpu = v.cpu;
		st->matched++;
		return fire(s, id, tc, ts, st, &k, &fc, str);
	}
	if (build_key(s, &side->key, &k, str) < 0) {
		st->str_faults++;
		return 0;
	}

	if (tc->kind == TRIGREC_TRIG_RATE) {
		struct rate_bucket *b, nb = { .win_start = now, .count = 0 };
		__u64 n, ws;

		k.kind = 2;
		b = bpf_map_lookup_elem(&rate_buckets, &k);
		if (!b) {
			bpf_map_update_elem(&rate_buckets, &k, &nb, BPF_NOEXIST);
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

			if (__sync_val_compare_and_swap(&b->win_start, ws, now) == ws)
				__sync_fetch_and_sub(&b->count, old);
			ws = b->win_start;
		}
		n = __sync_fetch_and_add(&b->count, 1) + 1;
		if (n <= tc->threshold)
			return 0;
		fc.count = n;
		fc.start_ns = ws;
		st->matched++;
		if (!fire(s, id, tc, ts, st, &k, &fc, str))
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
	return fire(s, id, tc, ts, st, &k, &fc, str);
}

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
 * Is the current task trigrec itself (exclude_self: no --include-self)?
 * Its own threads by tgid; with self_kids (on_snapshot commands run), also
 * its children and their descendants up to SELF_DEPTH generations, except
 * the recorded command's (scope_tgid: trigrec's child too). One compare
 * while no on_snapshot command is configured. See docs/operations.md.
 */
const volatile __u32 exclude_self = 0;
const volatile __u32 self_kids = 0;
#define SELF_DEPTH 8

static __always_inline int is_self(void)
{
	struct task_struct *t;

	if (!exclude_self)
		return 0;
	if ((bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return 1;
	if (!self_kids)
		return 0;
	t = bpf_get_current_task_btf();
	for (int i = 0; i < SELF_DEPTH && t; i++) {
		__u32 tgid = t->tgid;

		if (tgid == self_tgid)
			return 1;
		if (tgid <= 1 || tgid == scope_tgid)
			return 0;
		t = t->real_parent;
	}
	return 0;
}

/*
 * rings=bpf: is an event on this CPU, in this task, one trigrec records?
 * Task mode only (scope_gates: -p, or a command without -a or -C); with -a
 * or -C and a command, recording is system-wide while triggers stay scoped
 * to the command, as on perf's path.
 */
static __always_inline int rec_wanted(__u32 cpu)
{
	if (cpu >= TRIGREC_MAX_CPUS || (cpu_limited && !cpu_recorded[cpu]) || is_self())
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
	struct trigrec_stats *st;
	__u32 set, idx;
	__u64 fa;

	if (sz > max)
		return 1;
	fix_common((__u8 *)(h + 1), hc);
	h->time = now;
	h->ev = hc->rec_ev;
	h->flags = 0;
	/* Masked where used: Linux 6.1's verifier forgets the bound of a reloaded cpu. */
	h->seq = __sync_fetch_and_add(&rec_seq[cpu & (TRIGREC_MAX_CPUS - 1)].n, 1);
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

SEC("tracepoint")
int tp_hook(void *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx), zero = 0;
	struct trigrec_hook_cfg *hc = bpf_map_lookup_elem(&hooks, &idx);
	struct scratch *s;
	int pass = 1, fired = 0;
	__u32 sz;

	__u64 now = 0;

	if (!hc)
		return 1;
	if (hc->flags & TRIGREC_HOOK_GATED)
		pass = gate_pass();
	/* Recorded before the triggers run: a trigger's own record is the last before its cut. */
	if (hc->flags & TRIGREC_HOOK_BPFREC) {
		now = bpf_ktime_get_ns();
		record(ctx, hc, idx, now);
	}
	if (!hc->ntrig || !in_scope())
		return pass;
	s = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!s)
		return pass;
	s->now = now;
	sz = hc->data_size;
	if (sz > SCRATCH_BYTES)
		sz = SCRATCH_BYTES;
	if (sz < 8 || bpf_probe_read_kernel(s->d, sz, ctx))
		return pass;
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

/*
 * Fast paths (rings=bpf, recorded tracepoints without a trigger or a
 * --filter). A classic tracepoint program gets the record after the kernel
 * built it, and record() copies it once more; these tp_btf programs build
 * the same record straight from the tracepoint's arguments into the buffer
 * they write. Each lays the record out as the kernel's own struct
 * trace_event_raw_* (CO-RE relocated), so the writer and perf read it as
 * any other; userspace picks one only where the format file names exactly
 * the fields it fills (bpfctl.c, fast_path_for()). tp_btf programs carry no
 * BPF cookie on this libbpf: fp_hook[] names each one's hook. Their return
 * value is ignored: nobody else's event is ever touched.
 */
__u32 fp_hook[TRIGREC_FP_NR] = {}; /* hook index + 1; 0 = not in use */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_FP_SYSCALLS);
	__type(key, __u32);
	__type(value, struct trigrec_fp_syscall);
} fp_syscalls SEC(".maps");

/*
 * A fast path's record, on the stack: each program has its own, so a
 * program interrupted by another (an interrupt that wakes a task inside a
 * sched_switch, say) never shares a buffer. The records fit: sched_switch's,
 * the largest, is 64 bytes (userspace checks every format against it).
 */
#define FP_MAX TRIGREC_FP_MAX_RECORD
struct fp_rec {
	struct trigrec_rec_hdr h;
	__u8 d[FP_MAX];
};

/* The config of hook h (index + 1), or NULL. */
static __always_inline const struct trigrec_hook_cfg *fp_cfg(__u32 h)
{
	__u32 idx = h - 1;

	return h ? bpf_map_lookup_elem(&hooks, &idx) : NULL;
}

/* What a fast path does with its event (fp_begin()). */
#define FP_REC 1  /* write it into this CPU's active set */
#define FP_TRIG 2 /* run its hook's triggers on it */

/* A fast path's event in the making. */
struct fp_ev {
	const struct trigrec_hook_cfg *hc;
	void *buf;	   /* a trigrec_rec_hdr, then the record (FP_D()) */
	struct scratch *s; /* FP_TRIG: the slot the record is built in */
	__u64 now;	   /* FP_REC: the record's time */
	__u32 cpu;
	__u32 h; /* hook index + 1 */
	int want;
};
#define FP_D(f) ((void *)((__u8 *)(f)->buf + sizeof(struct trigrec_rec_hdr)))
_Static_assert(__builtin_offsetof(struct scratch, d) == sizeof(struct trigrec_rec_hdr) &&
		       __builtin_offsetof(struct fp_rec, d) == sizeof(struct trigrec_rec_hdr),
	       "a fast path's record sits right behind its header in both buffers");

/*
 * Hook h (index + 1) of fast path kind k: is this event recorded here
 * (FP_REC), and do triggers evaluate it (FP_TRIG)? With triggers, the
 * record is built in kind k's scratch slot, which the engine reads in place
 * and rec_emit() writes from; without, on the stack (r). 0: nothing to do.
 */
static __always_inline int fp_begin(struct fp_ev *f, __u32 h, __u32 k, struct fp_rec *r)
{
	__u32 slot = 2 + k;

	f->want = 0;
	f->s = NULL;
	f->buf = r;
	f->hc = fp_cfg(h);
	if (!f->hc)
		return 0;
	f->h = h;
	f->cpu = bpf_get_smp_processor_id();
	f->now = 0;
	if ((f->hc->flags & TRIGREC_HOOK_BPFREC) && rec_wanted(f->cpu)) {
		f->want = FP_REC;
		/*
		 * Stamped now, as tp_rec stamps at its start, not once the record
		 * is built: an interrupt while it is built (a softirq raised from a
		 * timer inside softirq_entry's program) is a later event.
		 */
		f->now = bpf_ktime_get_ns();
	}
	if (f->hc->ntrig && in_scope()) {
		f->s = bpf_map_lookup_elem(&scratch_map, &slot);
		if (f->s) {
			f->want |= FP_TRIG;
			f->buf = f->s;
		}
	}
	return f->want;
}

/*
 * The record is built: write it (stamped f->now), then run the triggers on it,
 * as tp_hook does (a trigger's own record is the last before its cut).
 */
static __always_inline void fp_end(void *ctx, struct fp_ev *f)
{
	struct scratch *s = f->s;
	__u32 sz;

	if (f->want & FP_REC)
		rec_emit(ctx, f->buf, f->hc, f->cpu, f->hc->rec_size, f->now, FP_MAX);
	if (!s)
		return;
	fix_common(s->d, f->hc);
	sz = f->hc->data_size;
	s->size = sz > FP_MAX ? FP_MAX : sz;
	s->now = f->now; /* 0: not recorded, the engine reads the clock if it matches */
	s->hook = f->h - 1;
	s->hook_recorded = !!(f->hc->flags & TRIGREC_HOOK_RECORDED);
	hook_triggers((struct trigrec_hook_cfg *)f->hc, s);
}

/*
 * TASK_COMM_LEN bytes in four 4-byte loads (the verifier allows them inside
 * the array; signal_generate's comm is only 4-byte aligned in the record,
 * and stack stores must be aligned).
 */
static __always_inline void fp_comm(char *dst, const char *src)
{
	for (int i = 0; i < 4; i++)
		((__u32 *)dst)[i] = ((const __u32 *)src)[i];
}

/*
 * sched_switch's prev_state as the kernel computes it
 * (__trace_sched_switch_state, __task_state_index): preemption is
 * TASK_REPORT_MAX; else the highest bit of the reported state, with
 * TASK_IDLE reported as TASK_REPORT_IDLE and RT-lock waits and frozen
 * tasks as uninterruptible.
 */
#define FP_TASK_REPORT 0x7f
#define FP_TASK_REPORT_IDLE 0x80
#define FP_TASK_REPORT_MAX 0x100
#define FP_TASK_IDLE 0x402 /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define FP_TASK_RTLOCK_WAIT 0x1000
#define FP_TASK_FROZEN 0x8000
static __always_inline long fp_switch_state(int preempt, unsigned int s, struct task_struct *p)
{
	unsigned int st;

	if (preempt)
		return FP_TASK_REPORT_MAX;
	st = (s | (unsigned int)p->exit_state) & FP_TASK_REPORT;
	if ((s & FP_TASK_IDLE) == FP_TASK_IDLE)
		st = FP_TASK_REPORT_IDLE;
	if (s & (FP_TASK_RTLOCK_WAIT | FP_TASK_FROZEN))
		st = 2; /* TASK_UNINTERRUPTIBLE */
	for (int i = 7; i >= 0; i--)
		if (st & (1u << i))
			return 1l << i;
	return 0;
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(fp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct trace_event_raw_sched_switch *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_SCHED_SWITCH], TRIGREC_FP_SCHED_SWITCH, &r))
		return 0;
	e = FP_D(&f);
	fp_comm(e->prev_comm, prev->comm);
	e->prev_pid = prev->pid;
	e->prev_prio = prev->prio;
	e->prev_state = fp_switch_state(preempt, prev_state, prev);
	fp_comm(e->next_comm, next->comm);
	e->next_pid = next->pid;
	e->next_prio = next->prio;
	fp_end(ctx, &f);
	return 0;
}

/* sched_wakeup, sched_wakeup_new, sched_waking: one record layout (sched_wakeup_template). */
static __always_inline void fp_wakeup(void *ctx, __u32 k, struct task_struct *p)
{
	struct trace_event_raw_sched_wakeup_template *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[k], k, &r))
		return;
	e = FP_D(&f);
	fp_comm(e->comm, p->comm);
	e->pid = p->pid;
	e->prio = p->prio;
	e->target_cpu = p->thread_info.cpu; /* task_cpu() */
	fp_end(ctx, &f);
}

SEC("?tp_btf/sched_wakeup")
int BPF_PROG(fp_sched_wakeup, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKEUP, p);
	return 0;
}

SEC("?tp_btf/sched_wakeup_new")
int BPF_PROG(fp_sched_wakeup_new, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKEUP_NEW, p);
	return 0;
}

SEC("?tp_btf/sched_waking")
int BPF_PROG(fp_sched_waking, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKING, p);
	return 0;
}

/* softirq_entry, softirq_exit, softirq_raise: the vector (struct trace_event_raw_softirq). */
static __always_inline void fp_softirq(void *ctx, __u32 k, unsigned int vec)
{
	struct trace_event_raw_softirq *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[k], k, &r))
		return;
	e = FP_D(&f);
	e->vec = vec;
	fp_end(ctx, &f);
}

SEC("?tp_btf/softirq_entry")
int BPF_PROG(fp_softirq_entry, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_ENTRY, vec);
	return 0;
}

SEC("?tp_btf/softirq_exit")
int BPF_PROG(fp_softirq_exit, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_EXIT, vec);
	return 0;
}

SEC("?tp_btf/softirq_raise")
int BPF_PROG(fp_softirq_raise, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_RAISE, vec);
	return 0;
}

SEC("?tp_btf/irq_handler_exit")
int BPF_PROG(fp_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	struct trace_event_raw_irq_handler_exit *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_IRQ_HANDLER_EXIT], TRIGREC_FP_IRQ_HANDLER_EXIT, &r))
		return 0;
	e = FP_D(&f);
	e->irq = irq;
	e->ret = ret;
	fp_end(ctx, &f);
	return 0;
}

/*
 * TP_STORE_SIGINFO: SEND_SIG_NOINFO (0) is a signal from user space
 * (SI_USER), SEND_SIG_PRIV (1) one from the kernel (SI_KERNEL); anything
 * else is a siginfo to read.
 */
static __always_inline void fp_siginfo(struct kernel_siginfo *info, int *err, int *code)
{
	if ((unsigned long)info <= 1) {
		*err = 0;
		*code = info ? 0x80 : 0; /* SI_KERNEL : SI_USER */
	} else {
		/* A probe read: the verifier takes this argument for a scalar (it may be 1). */
		*err = BPF_CORE_READ(info, si_errno);
		*code = BPF_CORE_READ(info, si_code);
	}
}

SEC("?tp_btf/signal_generate")
int BPF_PROG(fp_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct trace_event_raw_signal_generate *e;
	struct fp_rec r;
	struct fp_ev f;
	int err, code;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_SIGNAL_GENERATE], TRIGREC_FP_SIGNAL_GENERATE, &r))
		return 0;
	e = FP_D(&f);
	fp_siginfo(info, &err, &code);
	e->sig = sig;
	e->errno = err;
	e->code = code;
	fp_comm(e->comm, task->comm);
	e->pid = task->pid;
	e->group = group;
	e->result = result;
	fp_end(ctx, &f);
	return 0;
}

SEC("?tp_btf/signal_deliver")
int BPF_PROG(fp_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct trace_event_raw_signal_deliver *e;
	struct fp_rec r;
	struct fp_ev f;
	int err, code;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_SIGNAL_DELIVER], TRIGREC_FP_SIGNAL_DELIVER, &r))
		return 0;
	e = FP_D(&f);
	fp_siginfo(info, &err, &code);
	e->sig = sig;
	e->errno = err;
	e->code = code;
	e->sa_handler = (unsigned long)ka->sa.sa_handler;
	e->sa_flags = ka->sa.sa_flags;
	fp_end(ctx, &f);
	return 0;
}

/* A system call's six arguments as syscall_get_arguments() reads them. */
static __always_inline void fp_sys_args(struct pt_regs *r, unsigned long *a)
{
#if defined(__TARGET_ARCH_x86)
	a[0] = r->di;
	a[1] = r->si;
	a[2] = r->dx;
	a[3] = r->r10;
	a[4] = r->r8;
	a[5] = r->r9;
#elif defined(__TARGET_ARCH_arm64)
	a[0] = r->orig_x0;
	for (int i = 1; i < 6; i++)
		a[i] = r->regs[i];
#else
#error "fp_sys_args: no syscall argument registers for this architecture"
#endif
}

/* syscall_get_nr() at sys_exit. */
static __always_inline long fp_sys_nr(struct pt_regs *r)
{
#if defined(__TARGET_ARCH_x86)
	return r->orig_ax;
#else
	return r->syscallno;
#endif
}

/*
 * The per-syscall events skip 32-bit system calls of a 64-bit kernel (x86:
 * trace_get_syscall_nr() is -1 for them); raw_syscalls records them.
 */
static __always_inline int fp_compat(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = bpf_get_current_task_btf();

	return t->thread_info.status & 0x0002; /* TS_COMPAT */
#else
	return 0;
#endif
}

/* The syscalls:sys_{enter,exit}_<name> hook for nr (index + 1), 0 if none. */
static __always_inline __u32 fp_sys_hook(long nr, int exit)
{
	struct trigrec_fp_syscall *fs;
	__u32 key = (__u32)nr;

	if (nr < 0 || nr >= TRIGREC_FP_SYSCALLS)
		return 0;
	fs = bpf_map_lookup_elem(&fp_syscalls, &key);
	if (!fs)
		return 0;
	return exit ? fs->exit : fs->enter;
}

/*
 * raw_syscalls and syscalls:* share one program per direction (and one
 * scratch slot: the two are built one after the other).
 */
SEC("?tp_btf/sys_enter")
int BPF_PROG(fp_sys_enter, struct pt_regs *regs, long id)
{
	__u32 raw = fp_hook[TRIGREC_FP_RAW_SYS_ENTER], one = fp_sys_hook(id, 0);
	unsigned long a[6];
	struct fp_rec r;
	struct fp_ev f;

	if (!raw && !one)
		return 0;
	if (fp_begin(&f, raw, TRIGREC_FP_RAW_SYS_ENTER, &r)) {
		struct trace_event_raw_sys_enter *e = FP_D(&f);

		fp_sys_args(regs, a);
		e->id = id;
		for (int i = 0; i < 6; i++)
			e->args[i] = a[i];
		fp_end(ctx, &f);
	}
	if (one && !fp_compat() && fp_begin(&f, one, TRIGREC_FP_RAW_SYS_ENTER, &r)) {
		/* struct syscall_trace_enter: nr, then the call's own arguments. */
		__u32 n = f.hc->data_size > 16 ? ((__u32)f.hc->data_size - 16) >> 3 : 0;
		__u8 *d = FP_D(&f);

		fp_sys_args(regs, a);
		*(__u32 *)&d[8] = (__u32)id;
		*(__u32 *)&d[12] = 0;
		for (int i = 0; i < 6; i++)
			if (i < n)
				*(__u64 *)&d[16 + 8 * i] = a[i];
		fp_end(ctx, &f);
	}
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(fp_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 raw = fp_hook[TRIGREC_FP_RAW_SYS_EXIT], one;
	long nr = fp_sys_nr(regs);
	struct fp_rec r;
	struct fp_ev f;

	one = fp_sys_hook(nr, 1);
	if (!raw && !one)
		return 0;
	if (fp_begin(&f, raw, TRIGREC_FP_RAW_SYS_EXIT, &r)) {
		struct trace_event_raw_sys_exit *e = FP_D(&f);

		e->id = nr;
		e->ret = ret;
		fp_end(ctx, &f);
	}
	if (one && !fp_compat() && fp_begin(&f, one, TRIGREC_FP_RAW_SYS_EXIT, &r)) {
		/* struct syscall_trace_exit: nr, then the return value. */
		__u8 *d = FP_D(&f);

		*(__u32 *)&d[8] = (__u32)nr;
		*(__u32 *)&d[12] = 0;
		*(__s64 *)&d[16] = ret;
		fp_end(ctx, &f);
	}
	return 0;
}
