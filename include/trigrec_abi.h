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

/* Limits, enforced by userspace before load and by the verifier's view of the maps. */
#define TRIGREC_MAX_HOOKS          512 /* tracepoints carrying the hook program */
#define TRIGREC_MAX_TRIGGERS        64 /* triggers in one run */
#define TRIGREC_MAX_HOOK_TRIGGERS    8 /* triggers evaluated on one tracepoint */
#define TRIGREC_TRIGGER_DATA       256 /* bytes of the trigger event's record kept */
#define TRIGREC_COMM_LEN            16
#define TRIGREC_SCOPE_DEPTH         16 /* ancestors checked for -p / -- command scope */
#define TRIGREC_RINGBUF_BYTES (256 * 1024)

/* hook_cfg.flags */
#define TRIGREC_HOOK_RECORDED  (1u << 0) /* the tracepoint is recorded: gate it */

/* trigger_cfg.kind */
enum trigrec_trigger_kind {
	TRIGREC_TRIG_EVENT = 1, /* fires on every hit of its tracepoint */
};

/* Value of the `hooks` array map; the index is the BPF cookie of each attachment. */
struct trigrec_hook_cfg {
	__u32 flags;
	__u32 ntrig;                               /* entries used in trig[] */
	__u32 trig[TRIGREC_MAX_HOOK_TRIGGERS];     /* trigger ids evaluated here */
	__u32 data_size;                           /* bytes of the raw record to copy */
	__u32 pad;
};

/* Value of the `triggers` array map, index = trigger id. */
struct trigrec_trigger_cfg {
	__u32 kind;      /* enum trigrec_trigger_kind */
	__u32 pad;
	__u64 post_ns;   /* keep recording this long after firing */
};

/* Per-CPU counters (`stats` map, index = trigger id; slot MAX_TRIGGERS = global). */
struct trigrec_stats {
	__u64 fired;        /* snapshots started by this trigger */
	__u64 coalesced;    /* fired while a snapshot was already in progress */
	__u64 rb_dropped;   /* side-band ring buffer full: firing undone */
	__u64 gated;        /* records dropped by the freeze gates (global slot) */
};

/* Messages on the side-band BPF ring buffer. Every message starts with its type. */
enum trigrec_msg_type {
	TRIGREC_MSG_TRIGGER = 1,
};

struct trigrec_trigger_msg {
	__u32 type;          /* TRIGREC_MSG_TRIGGER */
	__u32 trigger_id;
	__u64 time_ns;       /* bpf_ktime_get_ns() when it fired (CLOCK_MONOTONIC) */
	__u64 freeze_at;     /* gates drop records stamped after this time */
	__u32 cpu;
	__u32 pid;           /* tgid */
	__u32 tid;
	__u32 hook;          /* cookie of the tracepoint that fired */
	__u32 hook_recorded; /* the trigger's own record is in the rings */
	__u32 data_size;     /* valid bytes in data[] */
	char comm[TRIGREC_COMM_LEN];
	__u8 data[TRIGREC_TRIGGER_DATA]; /* the tracepoint record, common fields first */
};

/*
 * Freeze state, in the BPF object's .bss (mmaped by userspace).
 * armed: 1 = a trigger may fire; a firing trigger moves it 1 -> 0 with a
 * compare-and-swap, so exactly one trigger owns each snapshot.
 * freeze_at: 0 = recording; otherwise gates drop records after this time.
 */

_Static_assert(sizeof(struct trigrec_hook_cfg) == 48, "hook_cfg layout");
_Static_assert(sizeof(struct trigrec_trigger_cfg) == 16, "trigger_cfg layout");
_Static_assert(sizeof(struct trigrec_stats) == 32, "stats layout");
_Static_assert(sizeof(struct trigrec_trigger_msg) == 320, "trigger_msg layout");

#endif /* TRIGREC_ABI_H */
