/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one ABI between trigrec's BPF programs (bpf/) and userspace (src/).
 * Fixed-width types only, explicit padding, sizes pinned by _Static_assert,
 * so a change here breaks the build instead of silently mis-decoding.
 */
#ifndef TRIGREC_ABI_H
#define TRIGREC_ABI_H

#ifdef __BPF__
/* vmlinux.h provides __u8.. __u64 */
#else
#include <linux/types.h>
#endif
#include "trigrec_hist.h"

/* Limits, enforced by userspace before load and by the verifier's view of the maps. */
#define TRIGREC_MAX_HOOKS 512	    /* tracepoints carrying the hook program */
#define TRIGREC_MAX_TRIGGERS 64	    /* triggers in one run */
#define TRIGREC_MAX_HOOK_TRIGGERS 8 /* triggers evaluated on one tracepoint */
#define TRIGREC_TRIGGER_DATA 256    /* bytes of the trigger event's record kept */
#define TRIGREC_COMM_LEN 16
#define TRIGREC_SCOPE_DEPTH 16 /* ancestors checked for -p / -- command scope */
#define TRIGREC_RINGBUF_BYTES (256 * 1024)
#define TRIGREC_MAX_CPUS 1024 /* CPUs the gates know individually (-C) */
/*
 * Histograms of learned thresholds (`> p99.9`), all triggers together: an
 * LRU of this many keys (4.6 KiB each, 4.6 MiB), sized 1 when no trigger learns.
 */
#define TRIGREC_LEARN_KEYS 1024u

/* hook_cfg.flags */
#define TRIGREC_HOOK_RECORDED (1u << 0)	 /* the tracepoint is recorded */
#define TRIGREC_HOOK_GATED (1u << 1)	 /* drop its records while frozen */
#define TRIGREC_HOOK_BPFREC (1u << 2)	 /* recorded by BPF into the ring sets (rings=bpf) */
#define TRIGREC_HOOK_RECFILTER (1u << 3) /* ... only when `rec_filters` (its --filter) holds */

/*
 * BPF-written rings (rings=bpf): per CPU, TRIGREC_RING_SETS sets of
 * PERF_COUNT_SW_BPF_OUTPUT events with write_backward, in the `rec_rings`
 * perf event array at index set * rec_slots + cpu. A recorded tracepoint's
 * record goes into the active set as one raw sample: this header, then the
 * tracepoint's record (common fields first) exactly as perf would store it.
 * seq counts the records of a CPU (all sets) with no gap while nothing is
 * lost, so the harvest can tell where continuous history ends.
 */
#define TRIGREC_RING_SETS 2
/*
 * Snapshots posted and not yet copied, at most (rings=bpf alone): a firing
 * beyond is coalesced, so a storm queues no more than this much work and
 * history behind the side-band thread.
 */
#define TRIGREC_MAX_INFLIGHT 2
#define TRIGREC_MAX_DLOC 4 /* __data_loc fields whose end bounds the record's size */
#define TRIGREC_MAX_RECORD \
	4096 /* bytes of a tracepoint record copied (longer: truncated, counted) */
/*
 * Fast paths (rings=bpf): tp_btf programs that build a recorded
 * tracepoint's record from the tracepoint's arguments, so the kernel builds
 * no record for BPF to copy. One program per tracepoint; fp_hook[kind] holds
 * the hook it records (index + 1, 0 = none). Syscall events are found by
 * number in `fp_syscalls` (TRIGREC_FP_SYSCALLS entries).
 */
enum trigrec_fast_path {
	TRIGREC_FP_SCHED_SWITCH = 0,
	TRIGREC_FP_SCHED_WAKEUP,
	TRIGREC_FP_SCHED_WAKEUP_NEW,
	TRIGREC_FP_SCHED_WAKING,
	TRIGREC_FP_RAW_SYS_ENTER, /* raw_syscalls:sys_enter */
	TRIGREC_FP_RAW_SYS_EXIT,  /* raw_syscalls:sys_exit */
	TRIGREC_FP_SYS_ENTER,	  /* syscalls:sys_enter_* (through fp_syscalls) */
	TRIGREC_FP_SYS_EXIT,	  /* syscalls:sys_exit_* */
	TRIGREC_FP_SOFTIRQ_ENTRY,
	TRIGREC_FP_SOFTIRQ_EXIT,
	TRIGREC_FP_SOFTIRQ_RAISE,
	TRIGREC_FP_IRQ_HANDLER_EXIT,
	TRIGREC_FP_SIGNAL_GENERATE,
	TRIGREC_FP_SIGNAL_DELIVER,
	TRIGREC_FP_NR
};
#define TRIGREC_FP_SYSCALLS 1024
#define TRIGREC_FP_MAX_RECORD 96 /* bytes of a fast path's record, at most (on the stack) */
struct trigrec_fp_syscall {
	__u32 enter; /* hook index + 1 of syscalls:sys_enter_<name>, 0 = not recorded */
	__u32 exit;
};

struct trigrec_rec_hdr {
	__u64 time; /* bpf_ktime_get_ns(), the clock of every other record */
	__u32 seq;  /* per-CPU record number */
	__u16 ev;   /* the recorder's event index (hook_cfg.rec_ev) */
	__u16 flags;
};

/*
 * Per CPU, in the rec_cpu map, which every object of a run shares (a reload
 * reuses the first object's map): one cache line each, since every record
 * takes a number with a locked add and packed lines bounced between CPUs.
 * seq: the CPU's next record number (rec_emit()). live: the generation
 * whose programs record and fire on this CPU; a reload attaches the new
 * object while the old one records, then moves `live` CPU by CPU with one
 * store made on that CPU (bpfctl__go_live()), which no tracepoint of that
 * CPU can straddle: every event is recorded by exactly one object.
 */
struct trigrec_rec_cpu {
	__u32 seq;
	__u32 live;
	/* rings=compact: reserved bytes (low 40 bits) and records (high 24) of main, spare. */
	__u64 cr_head[2];
	/* rings=compact: the time of the latest record in the main ring, the spare (time widths) */
	__u64 cr_last[2];
	__u32 cr_nest; /* rings=compact: recording programs running on the CPU (cr_enc) */
	/* rings=compact: the latest record's pid + 1 in the main ring, the spare (0: none) */
	__u32 cr_pid[2];
	__u32 pad[3];
};

/*
 * rings=compact: BPF programs write their records themselves, in
 * trigrec's own encoding, into per-CPU byte rings held by one
 * BPF_F_MMAPABLE array map (`cr_rings`). A CPU's ring is `nseg` segments
 * of 2^seg_shift bytes (its main ring) and nseg / 8 more (its spare); each
 * segment is one element of the map: its data, TRIGREC_CR_SLACK bytes a
 * record that starts near the end runs into (so stores never wrap),
 * TRIGREC_CR_GUARD bytes for the verifier's bounds, then one trigrec_cblk
 * per TRIGREC_CR_BLOCK of data. Element of segment k of
 * CPU c: c * (nseg + nseg / 8) + k (spare: nseg + k).
 *
 * Space is taken with one atomic add on rec_cpu.cr_head[ring]: the low 40
 * bits count bytes, the high 24 records, so the add also numbers the
 * record. A record (`src/snapshot/compact.c` decodes it):
 *
 *	u8 len		written last: 0 = still being written (torn)
 *	u8 ev		hook_cfg.rec_ev; bit 7: a u16 record size follows the tags
 *	[u16 len]	when len is 255 (a record longer than 254 bytes)
 *	[u16 size]	the record's size when it is not the format's fixed size
 *	u8 tags[]	2 bits per value, four to a byte: the time, the pid,
 *			then each u64 word of the record from byte 8 on (at
 *			most TRIGREC_CR_WORDS); a word's width is 0, 1, 3 or 8
 *			bytes (code 0-3: 0 bytes is the value 0; a word
 *			hook_cfg.cr_zz names, one signed field, is written
 *			zigzagged: (v << 1) ^ (v >> 63)), the time's 3, 4 or 5 low bytes
 *			(relative to the previous record in the ring) or 8
 *			(absolute); the pid is the common_pid (the thread) in
 *			1, 2 or 4 bytes, or code 3: none, the previous
 *			record's in the ring (TRIGREC_CR_SAME_PID)
 *	time, pid, words	little-endian, each in its width
 *	tail		the record's bytes past the words, as they are
 *
 * Words the event's hook_cfg.cr_skip names (a comm the writer fills in
 * from the names it knows, cr_skip_words() in src/snapshot/compact.c)
 * are written as 0 (tag 0, no bytes).
 *
 * A record that crosses into a block (or ends at its start) writes that
 * block's trigrec_cblk: where the block's first record starts, its number,
 * the crossing record's full time and its pid (pos's high 24 bits), so a
 * reader can start at any block whose header matches its position.
 */
#define TRIGREC_CR_SAME_PID 3
#define TRIGREC_CR_BLOCK 4096
#define TRIGREC_CR_SLACK 512 /* a compact record's most bytes */
#define TRIGREC_CR_GUARD 128 /* past the slack: what the verifier cannot see is never written */
#define TRIGREC_CR_WORDS 16
#define TRIGREC_CR_POS_BITS 40
#define TRIGREC_CR_POS_MASK ((1ull << TRIGREC_CR_POS_BITS) - 1)
#define TRIGREC_CR_SPARE_DIV 8 /* the spare is 1/8 of the main ring */
#define TRIGREC_CR_MAX_SEG (1u << 20)
#define TRIGREC_CR_MAX_EVS 128
struct trigrec_cblk {
	__u64 pos;   /* the block's position in its ring (written last; low 40 bits), pid << 40 */
	__u64 base;  /* the crossing record's time */
	__u32 seq;   /* the block's first record's number (24 bits) */
	__u16 first; /* its offset in the block */
	__u16 pad;
};

/* Bytes of a map element holding a segment of seg bytes: data, slack, guard, block headers. */
#define TRIGREC_CR_ELEM(seg)                                            \
	(((seg) + TRIGREC_CR_SLACK + TRIGREC_CR_GUARD +                 \
	  (seg) / TRIGREC_CR_BLOCK * sizeof(struct trigrec_cblk) + 7) & \
	 ~(__u64)7)

/* Trigger kinds (trigger_cfg.kind). */
enum trigrec_trigger_kind {
	TRIGREC_TRIG_EVENT = 1,	  /* EVENT [if FILTER] [count >= N] */
	TRIGREC_TRIG_LATENCY = 2, /* latency A [if F] [by K] -> B [if F] [by K] > DURATION */
	TRIGREC_TRIG_RATE = 3,	  /* rate EVENT [if F] [by K] > N/DURATION */
};

/* Which side of a trigger a hook evaluates (hook_cfg.trig[] high bits). */
enum trigrec_role {
	TRIGREC_ROLE_EVENT = 0, /* EVENT and RATE triggers, and LATENCY's end */
	TRIGREC_ROLE_START = 1, /* LATENCY's start */
};
#define TRIGREC_HOOK_TRIG(id, role) ((__u32)(id) | ((__u32)(role) << 16))
#define TRIGREC_HOOK_TRIG_ID(v) ((v)&0xffff)
#define TRIGREC_HOOK_TRIG_ROLE(v) ((v) >> 16)

/*
 * Dynamic probes (uprobe_events / kprobe_events): the kernel lets only kprobe
 * programs onto them, and those see registers, not the record. probe_hook
 * rebuilds the record's fields from a recipe, one fetch per field, at the
 * offsets of the event's tracefs format; value of the `probe_cfgs` map, at
 * the hook's index.
 */
#define TRIGREC_MAX_PROBE_FETCH 8
#define TRIGREC_PROBE_STR_LEN 64 /* bytes of a string field rebuilt */
enum trigrec_probe_op {
	TRIGREC_PF_REG = 1, /* a register */
	TRIGREC_PF_IMM,	    /* a constant (arg) */
	TRIGREC_PF_DEREF,   /* size bytes at register + arg */
	TRIGREC_PF_STR,	    /* the string at register + arg, as __data_loc */
	TRIGREC_PF_COMM,    /* the task's comm, as __data_loc */
};
struct trigrec_probe_fetch {
	__u8 op;
	__u8 size; /* bytes in the record: 1, 2, 4 or 8 */
	__u8 user; /* DEREF/STR: user memory (uprobes), else kernel memory */
	__u8 pad;
	__u16 reg;     /* byte offset of the register in struct pt_regs */
	__u16 rec_off; /* the field's offset in the record */
	__s64 arg;
};
struct trigrec_probe_cfg {
	__u16 nfetch;
	__u16 ip_off;  /* where the instruction pointer goes: 8 (__probe_ip), 16 (__probe_ret_ip) */
	__u16 ip_reg;  /* the instruction pointer in pt_regs */
	__u16 dyn_off; /* where rebuilt strings go (after the fixed part) */
	struct trigrec_probe_fetch f[TRIGREC_MAX_PROBE_FETCH];
};

/* Value of the `hooks` array map; the index is the BPF cookie of each attachment. */
struct trigrec_hook_cfg {
	__u32 flags;
	__u32 ntrig;			       /* entries used in trig[] */
	__u32 trig[TRIGREC_MAX_HOOK_TRIGGERS]; /* TRIGREC_HOOK_TRIG(id, role) */
	__u32 data_size;		       /* bytes of the raw record to copy */
	/* TRIGREC_HOOK_BPFREC: what the recording program needs. */
	__u16 rec_ev;		      /* the recorder's event index, into trigrec_rec_hdr.ev */
	__u16 rec_size;		      /* the record's fixed part (format file) */
	__u16 dloc[TRIGREC_MAX_DLOC]; /* offsets of __data_loc fields (0 = none) */
	__u16 tp_id;		      /* common_type (a program's ctx has a pt_regs * there) */
	__u16 cr_skip; /* rings=compact: words of the record not written (bit i: word i) */
	__u8 cr_zz;    /* rings=compact: words 0-7 that are one signed field each, zigzagged */
	__u8 pad[3];
};

/*
 * Filters: a condition compiled in userspace into a decision list of
 * clauses. Each clause tests one value and jumps forward to another clause
 * or to ACCEPT/REJECT, so evaluation is a bounded loop with forward jumps
 * only (&&, ||, ! and parentheses all compile to jumps).
 */
#define TRIGREC_MAX_CLAUSES 16
#define TRIGREC_MAX_STRS 4	 /* string constants per filter */
#define TRIGREC_STR_LEN 32	 /* bytes per string constant, NUL included */
#define TRIGREC_FIELD_STR_LEN 64 /* bytes of a string field compared */
#define TRIGREC_ACCEPT 0xfe
#define TRIGREC_REJECT 0xff

enum trigrec_op {
	TRIGREC_OP_EQ = 1,
	TRIGREC_OP_NE,
	TRIGREC_OP_LT,
	TRIGREC_OP_LE,
	TRIGREC_OP_GT,
	TRIGREC_OP_GE,
	TRIGREC_OP_BITAND, /* (value & imm) != 0 */
	TRIGREC_OP_STR_EQ, /* string == str[imm] */
	TRIGREC_OP_STR_NE,
	TRIGREC_OP_GLOB_FULL,	/* string ~ "abc" (no wildcard: same as ==) */
	TRIGREC_OP_GLOB_PREFIX, /* string ~ "abc*" */
	TRIGREC_OP_GLOB_SUFFIX, /* string ~ "*abc" */
	TRIGREC_OP_GLOB_MIDDLE, /* string ~ "*abc*" */
	TRIGREC_OP_TRUE,	/* always true (empty filter) */
};
/* cgroup path conditions (TRIGREC_SRC_CGSET): at most this many in one run (a u64's bits) ... */
#define TRIGREC_MAX_CG_CONDS 64
/* ... and this many cgroup ids matched by all of them together (`cg_sets` entries). */
#define TRIGREC_MAX_CG_IDS 16384

enum trigrec_src {
	TRIGREC_SRC_FIELD = 1, /* integer field: offset, size, is_signed */
	TRIGREC_SRC_CHARS,     /* char array field: offset, size */
	TRIGREC_SRC_DATALOC,   /* __data_loc string: u32 at offset = len << 16 | off */
	TRIGREC_SRC_COMM,      /* current task's comm */
	TRIGREC_SRC_PID,       /* current tgid */
	TRIGREC_SRC_TID,       /* current thread id */
	TRIGREC_SRC_CPU,
	TRIGREC_SRC_CGROUP, /* bpf_get_current_cgroup_id() */
	/*
	 * str(FIELD): the pointer field at offset (size 4 or 8) is read and
	 * the NUL-terminated text behind it, up to TRIGREC_FIELD_STR_LEN
	 * bytes, is compared. USTR reads user memory (syscall arguments),
	 * KSTR kernel memory. A failed read (page not present, bad or NULL
	 * address) makes the whole filter false and counts in str_faults.
	 */
	TRIGREC_SRC_USTR,
	TRIGREC_SRC_KSTR,
	/*
	 * cgroup == "/path", cgroup ~ "glob" (and != / !~): 1 when the current
	 * task's cgroup id is in condition `offset`'s set, else 0, compared
	 * with == 1 or != 1. The sets are resolved in userspace from the
	 * cgroup2 tree: `cg_sets` maps a cgroup id to the bits of the
	 * conditions it matched; offset is the condition's bit (0-63).
	 */
	TRIGREC_SRC_CGSET,
};

struct trigrec_clause {
	__u8 op;   /* enum trigrec_op */
	__u8 src;  /* enum trigrec_src */
	__u8 size; /* field bytes: 1, 2, 4, 8 (or char array length, max 255) */
	__u8 is_signed;
	__u16 offset; /* field offset in the record */
	__u8 jt, jf;  /* next clause when true / false (or ACCEPT / REJECT) */
	__u64 imm;    /* constant, bit mask, or index into str[] */
};

struct trigrec_filter {
	__u32 n; /* clauses used; 0 = always true */
	__u32 pad;
	struct trigrec_clause c[TRIGREC_MAX_CLAUSES];
	char str[TRIGREC_MAX_STRS][TRIGREC_STR_LEN];
};

/*
 * A key: up to two values taken from the record or the current task. A
 * str(FIELD) part (SRC_USTR/KSTR, at most one per key) is the 64-bit FNV-1a
 * hash of the text; the text itself goes to the message's key_text.
 */
#define TRIGREC_MAX_KEY_PARTS 2
struct trigrec_key_part {
	__u8 src; /* enum trigrec_src; 0 = unused */
	__u8 size;
	__u16 offset;
	__u32 pad;
};
struct trigrec_keyspec {
	struct trigrec_key_part p[TRIGREC_MAX_KEY_PARTS];
};

/* One side of a trigger: what must match, and what it is keyed by. */
struct trigrec_side {
	struct trigrec_filter filter;
	struct trigrec_keyspec key;
};

/* trigger_cfg.flags */
#define TRIGREC_TF_TASK_KEY \
	(1u << 0)	     /* LATENCY keyed by the current thread on both
				       * sides: starts live in task storage, not a hash */
#define TRIGREC_TASK_SLOTS 4 /* such triggers per thread (more use the hash) */
#define TRIGREC_TF_LEARN_ALL \
	(1u << 1) /* a learned LATENCY without `by`: one histogram for all spans */
/*
 * RATE against a learned baseline (`> Nx baseline [per T] [after N windows]`):
 * threshold is unused; per key the rate bucket keeps an EWMA of the count per
 * window (alpha 1/8, TRIGREC_RATE_FP fixed point), and a window fires once its
 * count exceeds max(baseline, 1) x learn_mult / 100, after learn_after windows.
 */
#define TRIGREC_TF_RATE_BASELINE (1u << 2)
#define TRIGREC_RATE_FP_SHIFT 8	  /* the baseline's fixed point: 1/256 event per window */
#define TRIGREC_RATE_EWMA_SHIFT 3 /* alpha = 1/8 */
#define TRIGREC_RATE_IDLE_MAX 64  /* idle windows decayed one by one; more: the baseline is 0 */

/* Value of the `triggers` array map, index = trigger id. */
struct trigrec_trigger_cfg {
	__u32 kind; /* enum trigrec_trigger_kind */
	__u32 flags;
	__u64 post_ns;	       /* keep recording this long after firing */
	__u64 threshold;       /* EVENT: count >= N (0/1 = every match); LATENCY: ns; RATE: N */
	__u64 window_ns;       /* RATE: window; LATENCY: starts older than this are stale */
	__u64 cooldown_ns;     /* no firing within this long of the last one */
	__u64 key_cooldown_ns; /* per key */
	__u64 limit;	       /* token bucket: `limit` snapshots at once, refilled at
				* limit per limit_period_ns (0 = none) */
	__u64 limit_period_ns;
	__u64 max_total;	     /* at most this many snapshots in the run (0 = none) */
	struct trigrec_side side[2]; /* [TRIGREC_ROLE_EVENT], [TRIGREC_ROLE_START] */
	/*
	 * LATENCY with a learned threshold (`> p99.9 [* M] [after N samples]`):
	 * learn_pct != 0, and threshold is unused. Per key (one for all without
	 * `by`), a trigrec_learn histogram; a span fires when it is longer than
	 * the key's percentile x learn_mult / 100, once the key has seen
	 * learn_after spans. Counts halve every learn_halflife_ns.
	 */
	__u32 learn_pct;   /* in 0.001 % (trigrec_hist.h): 99900 = p99.9 */
	__u32 learn_mult;  /* x 1/100: 100 = the percentile itself, 200 = `* 2`; RATE: 500 = 5x */
	__u64 learn_after; /* LATENCY: spans; RATE (TRIGREC_TF_RATE_BASELINE): windows */
	__u64 learn_halflife_ns;
	/*
	 * EVENT whose condition compares a field with > or >= (`if ret > N`):
	 * clause nm_clause1 - 1 of side[EVENT].filter is that comparison (the
	 * first such, left to right), and side[ROLE_START].filter, unused by an
	 * EVENT trigger otherwise, is the same condition with that clause
	 * always true. A record the condition rejects whose value fails the
	 * comparison and beats the near misses' floor is one if the rest of
	 * the condition holds (the relaxed filter accepts it). 0: none.
	 */
	__u32 nm_clause1;
	__u32 nm_pad;
};

/* Live per-trigger state (`trig_state` array map, index = trigger id). */
struct trigrec_trig_state {
	__u64 matches; /* condition true (EVENT count) */
	__u64 last_fire_ns;
	__u64 limit_tat_ns; /* limit's token bucket as GCRA: when it is full again */
	__u64 pad;
	__u64 fired_total;
};

/*
 * Near misses (`near_miss` array map, index = trigger id): the largest
 * measured values that did not fire, largest first, 0 = none yet. LATENCY:
 * durations in ns at or under the threshold (an ended span); RATE: a closed
 * window's count at or under N; EVENT with nm_clause1: the compared field's
 * values (above 0) that failed the comparison when nothing else did. all[]: since the start (of this object: a
 * reload starts afresh); last[]: since the trigger's last firing (copied into
 * its message, then cleared). One entry per trigger, shared by the CPUs and
 * written only when a value beats the floor (last[3]), so racing CPUs may
 * rarely lose one: a statistic, not an account.
 */
#define TRIGREC_NEAR_MISS 4
struct trigrec_near_miss {
	__u64 all[TRIGREC_NEAR_MISS];
	__u64 last[TRIGREC_NEAR_MISS];
};

/*
 * Per-key near misses of a keyed trigger (`by KEY`: LATENCY, RATE), in the
 * `key_nm` LRU hash (the engine's struct tkey, kind 6; sized like the rate
 * buckets). The same values as trigrec_near_miss, for one key; last[] holds
 * only while epoch equals the trigger's fired_total (trigrec_trig_state):
 * a firing makes every key's last[] stale at once, and the key's next near
 * miss clears it. A value writes only if it beats last[3] (or last[] is
 * stale), so a key costs one lookup per value that did not fire.
 */
struct trigrec_key_nm {
	__u64 epoch; /* the trigger's fired_total when last[] was last written */
	__u64 pad;
	__u64 all[TRIGREC_NEAR_MISS];
	__u64 last[TRIGREC_NEAR_MISS];
};

/*
 * A learned threshold's state for one key (`learn_hist` LRU hash, key kind
 * 5): the histogram of its span durations (trigrec_hist.h) and the
 * percentile as last computed, recomputed every max(16, total / 32) spans.
 */
struct trigrec_learn {
	__u64 samples;	 /* spans measured, ever: the warm-up counts these */
	__u64 total;	 /* the counts' sum now (halvings make it less than samples) */
	__u64 pct_ns;	 /* the percentile of the counts (0: not computed yet) */
	__u64 next_at;	 /* total at which pct_ns is computed again */
	__u64 halved_ns; /* when the counts were last halved (0: not yet) */
	__u32 hi;	 /* highest bucket that was ever counted: the scan starts there */
	__u32 pad;
	__u32 counts[TRIGREC_HIST_BUCKETS];
};

/*
 * Per learned latency trigger (`learn_all` array, index = trigger id): one
 * more trigrec_learn, the histogram of the spans of all its keys, aged as
 * the keys' are. Without `by` it is the trigger's only histogram and
 * judges; with `by` each key is judged by its own, and this one is
 * reported beside it (the firing's message, status, metrics).
 */

/*
 * Per trigger (`learn_stat` array): keys given a histogram, and spans learned
 * from. A rate baseline: keys given a bucket, windows closed, windows closed
 * while their key was warming up.
 */
struct trigrec_learn_stat {
	__u64 keys;    /* histograms created (the LRU may have evicted some since) */
	__u64 samples; /* spans added to a histogram */
	__u64 warming; /* spans that could not fire: their key had not seen learn_after yet */
	__u64 pad;
};

/* Per-CPU counters (`stats` map, index = trigger id; slot MAX_TRIGGERS = global). */
struct trigrec_stats {
	__u64 fired;		   /* snapshots started by this trigger */
	__u64 coalesced;	   /* fired while a snapshot was already in progress */
	__u64 rb_dropped;	   /* side-band ring buffer full: firing undone */
	__u64 gated;		   /* records dropped by the freeze gates (global slot) */
	__u64 evaluated;	   /* times the condition was evaluated */
	__u64 matched;		   /* times the condition held (before policy) */
	__u64 suppressed_cooldown; /* held back by cooldown or per-key cooldown */
	__u64 suppressed_limit;	   /* held back by limit (the default one too) or max */
	__u64 stale_starts;	   /* LATENCY: starts dropped for age */
	__u64 suppressed_budget;   /* held back by the run's global snapshot budget */
	__u64 str_faults;	   /* str(FIELD) could not be read: the filter did not match */
	/* rings=bpf, global slot: records cut at TRIGREC_MAX_RECORD; records the ring refused. */
	__u64 rec_truncated;
	__u64 rec_failed;
};

/* Messages on the side-band BPF ring buffer. Every message starts with its type. */
enum trigrec_msg_type {
	TRIGREC_MSG_TRIGGER = 1,
};

struct trigrec_trigger_msg {
	__u32 type; /* TRIGREC_MSG_TRIGGER */
	__u32 trigger_id;
	__u64 time_ns;	 /* bpf_ktime_get_ns() when it fired (CLOCK_MONOTONIC) */
	__u64 freeze_at; /* gates drop records stamped after this time */
	__u32 cpu;
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 hook;	     /* cookie of the tracepoint that fired */
	__u32 hook_recorded; /* the trigger's own record is in the rings */
	__u32 data_size;     /* valid bytes in data[] */
	/*
	 * The trigger table this was decoded against: a reload loads a new BPF
	 * object with the next generation, and a message of another generation
	 * is never decoded against the new table.
	 */
	__u32 generation;
	/*
	 * rings=bpf: 1 = this firing moved recording to the spare ring set at
	 * freeze_at (the side-band thread hands the spare back after its copy).
	 */
	__u32 flipped;
	char comm[TRIGREC_COMM_LEN];
	/* Context of stateful triggers. */
	__u64 key[TRIGREC_MAX_KEY_PARTS];
	__u64 start_ns;	  /* LATENCY: time of the start event; RATE: the window's start */
	__u64 latency_ns; /* LATENCY: measured duration */
	__u32 start_tid;  /* LATENCY: thread of the start event */
	__u32 start_cpu;
	__u64 count;			 /* RATE: events in the window; EVENT: matches so far */
	__u64 window_ns;		 /* RATE: the window */
	__u8 data[TRIGREC_TRIGGER_DATA]; /* the tracepoint record, common fields first */
	char key_text[TRIGREC_FIELD_STR_LEN]; /* a str(FIELD) key part's text, NUL-terminated */
	/* The trigger's near misses at the firing (trigrec_near_miss), largest first. */
	__u64 nm_last[TRIGREC_NEAR_MISS]; /* since its previous firing */
	__u64 nm_all[TRIGREC_NEAR_MISS];  /* since the start */
};

/*
 * The side-band message of a learned trigger's firing: the message, then
 * what the key had learned when the span came (before it was added).
 */
struct trigrec_trigger_msg_learn {
	struct trigrec_trigger_msg m;
	/*
	 * A rate baseline (TRIGREC_TF_RATE_BASELINE) uses the same fields:
	 * threshold_ns is the count the window exceeded, pct_ns the key's
	 * baseline in 1/2^TRIGREC_RATE_FP_SHIFT events per window, samples
	 * its windows; total and counts are 0.
	 */
	__u64 threshold_ns; /* pct_ns x learn_mult / 100: what the span exceeded */
	__u64 pct_ns;
	__u64 samples;
	__u64 total;
	__u32 counts[TRIGREC_HIST_BUCKETS];
	/*
	 * A learned latency trigger with `by` (per key): the same for the
	 * histogram of all its keys (`learn_all`), before the span was added.
	 * It does not judge the span: it is the context ("of all keys 3 ms").
	 * 0 (all_samples 0) for other firings.
	 */
	__u64 all_threshold_ns;
	__u64 all_pct_ns;
	__u64 all_samples;
	__u64 all_total;
	__u32 all_counts[TRIGREC_HIST_BUCKETS];
};

/*
 * Freeze state, in the BPF object's .bss (mmaped by userspace).
 * armed: 1 = a trigger may fire; a firing trigger moves it 1 -> 0 with a
 * compare-and-swap, so exactly one trigger owns each snapshot.
 * freeze_at: 0 = recording; otherwise gates drop records after this time.
 */

_Static_assert(sizeof(struct trigrec_hook_cfg) == 64, "hook_cfg layout");
_Static_assert(sizeof(struct trigrec_rec_hdr) == 16, "rec_hdr layout");
_Static_assert(sizeof(struct trigrec_rec_cpu) == 64, "rec_cpu layout: one cache line");
_Static_assert(sizeof(struct trigrec_cblk) == 24, "cblk layout");
_Static_assert(sizeof(struct trigrec_probe_fetch) == 16, "probe_fetch layout");
_Static_assert(sizeof(struct trigrec_probe_cfg) == 8 + 16 * TRIGREC_MAX_PROBE_FETCH,
	       "probe_cfg layout");
_Static_assert(sizeof(struct trigrec_clause) == 16, "clause layout");
_Static_assert(sizeof(struct trigrec_filter) ==
		       8 + 16 * TRIGREC_MAX_CLAUSES + TRIGREC_MAX_STRS * TRIGREC_STR_LEN,
	       "filter layout");
_Static_assert(sizeof(struct trigrec_keyspec) == 16, "keyspec layout");
_Static_assert(sizeof(struct trigrec_learn) == 48 + 4 * TRIGREC_HIST_BUCKETS, "learn layout");
_Static_assert(sizeof(struct trigrec_learn_stat) == 32, "learn_stat layout");
_Static_assert(sizeof(struct trigrec_trigger_msg_learn) ==
		       sizeof(struct trigrec_trigger_msg) + 2 * (32 + 4 * TRIGREC_HIST_BUCKETS),
	       "trigger_msg_learn layout");
_Static_assert(sizeof(struct trigrec_trigger_cfg) == 104 + 2 * sizeof(struct trigrec_side),
	       "trigger_cfg layout");
_Static_assert(sizeof(struct trigrec_trig_state) == 40, "trig_state layout");
_Static_assert(sizeof(struct trigrec_stats) == 104, "stats layout");
_Static_assert(sizeof(struct trigrec_near_miss) == 16 * TRIGREC_NEAR_MISS, "near_miss layout");
_Static_assert(sizeof(struct trigrec_key_nm) == 16 + 16 * TRIGREC_NEAR_MISS, "key_nm layout");
_Static_assert(sizeof(struct trigrec_trigger_msg) ==
		       384 + TRIGREC_FIELD_STR_LEN + 16 * TRIGREC_NEAR_MISS,
	       "trigger_msg layout");

#endif /* TRIGREC_ABI_H */
