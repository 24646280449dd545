/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 1 of 6: the state every part shares. The per-run
 * constants (rodata, set between open and load), the live globals userspace
 * maps (freeze, ring-set flips, record numbers) and the maps: hooks,
 * triggers and their state, the side-band ring, keyed span and rate
 * tables, the ring sets and the scratch slots. Included once, first.
 */
#ifndef TRIGREC_STATE_BPF_H
#define TRIGREC_STATE_BPF_H

#define SCRATCH_BYTES 512

/* Set by userspace between open and load. */
const volatile __u32 scope_tgid = 0; /* 0: triggers fire for any task */
const volatile __u32 self_tgid = 0;  /* trigrec itself: never fires a trigger (no feedback loop) */
/* trigrec's own records are left out (no --include-self); self_kids: its on_snapshot commands too. */
const volatile __u32 exclude_self = 0;
const volatile __u32 self_kids = 0;
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
/*
 * rings=compact (records.bpf.h, cr_body()): the programs write their own
 * encoding into the byte rings of cr_rings (layout in trigrec_abi.h). A CPU
 * has cr_nseg segments of 2^cr_shift bytes of main ring and cr_nseg / 8 of
 * spare; after a cut (flip_at) records go to the spare until userspace has
 * copied the main ring (bpfctl__settle()).
 */
const volatile __u32 compact = 0;
const volatile __u32 cr_shift = 12;
const volatile __u32 cr_nseg = 8;
/* rings=compact: leave out the pid of a record of the same task as the one before (not on RT) */
const volatile __u32 cr_same_pid = 0;
__u64 flip_at = 0;
__u64 window_end = 0; /* ring sets alone: the end of the newest snapshot's window */
__u64 inflight = 0;  /* ring sets alone: snapshots posted, not yet copied (userspace counts down) */
__u64 fire_lock = 0; /* ring sets alone: one firing at a time through the policies (fire()) */
__u32 set_before = 0;
__u32 set_after = 1;
__u32 spare_free = 1;
/*
 * Record numbers and the live generation per CPU (trigrec_rec_cpu): a map
 * rather than .bss, so that a reload's new object shares it with the old
 * one (bpf_map__reuse_fd) and numbering goes on without a copy. Userspace
 * sizes it to the possible CPUs (open_load() in bpfctl.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TRIGREC_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct trigrec_rec_cpu);
} rec_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_HOOKS);
	__type(key, __u32);
	__type(value, struct trigrec_hook_cfg);
} hooks SEC(".maps");

/*
 * rings=compact: a record is encoded here before it is copied into its
 * ring, one buffer per nesting level of recording programs on a CPU.
 */
#define CR_NEST 4
struct cr_enc {
	__u8 b[256 + 8];
	__u64 codes, nw, tail, vmask;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CR_NEST);
	__type(key, __u32);
	__type(value, struct cr_enc);
} cr_enc SEC(".maps");

/* rings=compact: value size and entries set by userspace before load (bpfctl). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8);
	__uint(max_entries, 1);
} cr_rings SEC(".maps");

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

/*
 * cgroup path conditions (TRIGREC_SRC_CGSET): cgroup id -> the bits of
 * the conditions whose paths it matched when userspace walked the cgroup2
 * tree (at start and at each reload; a reload loads a new object).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TRIGREC_MAX_CG_IDS);
	__type(key, __u64);
	__type(value, __u64);
} cg_sets SEC(".maps");

/* 1 if cgroup id cgid matched condition bit (0-63), else 0. Global: verified once. */
__noinline int cg_in_set(__u64 cgid, __u32 bit)
{
	__u64 *m = bpf_map_lookup_elem(&cg_sets, &cgid);

	return m ? (*m >> (bit & 63)) & 1 : 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_trig_state);
} trig_state SEC(".maps");

/* The largest values that did not fire, per trigger (trigrec_near_miss). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_near_miss);
} near_miss SEC(".maps");

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
	/* A rate baseline (TRIGREC_TF_RATE_BASELINE) only: written by the CPU that closes a window. */
	__u64 base;    /* EWMA of the count per window, x 2^TRIGREC_RATE_FP_SHIFT */
	__u64 windows; /* windows closed (idle ones too) */
	__u64 thr;     /* the count a window must exceed (~0: still warming up) */
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

/* Per-key near misses of keyed triggers (tkey kind 6, trigrec_key_nm); sized like key_cooldown. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tkey);
	__type(value, struct trigrec_key_nm);
} key_nm SEC(".maps");

/*
 * Learned thresholds: a histogram per key (tkey kind 5), LRU like the rate
 * buckets; userspace sizes it (1 entry when no trigger learns). learn_zero
 * is never written: a new key's histogram is copied from it (4.6 KiB, more
 * than a BPF stack holds).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRIGREC_LEARN_KEYS);
	__type(key, struct tkey);
	__type(value, struct trigrec_learn);
} learn_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trigrec_learn);
} learn_zero SEC(".maps");

/*
 * Per learned latency trigger, the histogram of all its keys' spans
 * (index = trigger id; without `by`, the one that judges). An array: one
 * inlined lookup per span, never evicted. Userspace sizes it (1 entry when
 * no trigger learns).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_learn);
} learn_all SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_MAX_TRIGGERS);
	__type(key, __u32);
	__type(value, struct trigrec_learn_stat);
} learn_stat SEC(".maps");

struct str64 {
	char c[TRIGREC_FIELD_STR_LEN];
};

/* What one histogram had learned before a span (engine.bpf.h, learn_one()). */
struct learn_seen {
	__u64 threshold_ns; /* pct_ns x learn_mult / 100 */
	__u64 pct_ns;
	__u64 samples;
	__u64 total;
};

/* A learned threshold at a span's end (engine.bpf.h, learn_sample()). */
struct learn_out {
	__u64 dur, now;	     /* in: the span, the time */
	struct learn_seen k; /* the key's histogram (without `by`: all spans') */
	/* The key's struct trigrec_learn (void: a pointer member made clang 14 emit it as a FWD). */
	void *l;
	struct learn_seen a; /* with `by`: all keys' (learn_all), reported beside it; else 0 */
	void *la;	     /* ... and its struct trigrec_learn, else NULL */
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
	struct str64 str;    /* the text of a str() clause or key part */
	struct learn_out lo; /* a learned latency trigger's judgement, for its message */
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

#endif /* TRIGREC_STATE_BPF_H */
