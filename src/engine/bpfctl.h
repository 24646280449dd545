/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loading and attaching trigrec.bpf.c: the hook on every recorded or
 * triggering tracepoint (told apart by BPF cookies), the gate on every
 * sampling event, and the freeze state userspace shares with them.
 *
 * Two stages, so that every limit is known before anything is opened:
 *
 *	r = recorder__new(&ro);                    resolve -e, check its limits
 *	b = bpfctl__plan(r, trigs, n, &bo);        resolve hooks, check theirs
 *	recorder__open(r);                         perf events and rings
 *	bpfctl__attach(b, r, scope_tgid);          load, fill tables, attach
 */
#ifndef TRIGREC_BPFCTL_H
#define TRIGREC_BPFCTL_H
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "capture/recspec.h"
#include "capture/tracefs.h"
#include "lang/trigger_lang.h"
#include "trigrec_abi.h"

struct recorder;

struct bpf_hook {
	struct tp_name tp;
	struct tp_format *fmt;
	int recorded;
	struct trigrec_hook_cfg cfg;	/* its entry in the `hooks` map */
	int is_probe;			/* a kprobe/uprobe event: probe_hook/probe_gate */
	struct trigrec_probe_cfg probe; /* its record's recipe (`probe_cfgs`) */
	struct trigrec_filter recf;	/* TRIGREC_HOOK_RECFILTER: its --filter, compiled */
	/*
	 * rings=bpf: recorded by a tp_btf fast path (enum trigrec_fast_path),
	 * -1 = by tp_rec/tp_hook. sys_nr: the system call of a syscalls:* one.
	 */
	int fp;
	int sys_nr;
	/*
	 * rings=bpf without a trigger or fast path: the size-class program
	 * that reads its record from ctx (bpfctl__rec_class()), -1 = tp_rec.
	 */
	int rec_class;
	/*
	 * A tracepoint with triggers that BPF does not record: the size-class
	 * program that reads its record from ctx (bpfctl__trig_class()), -1 =
	 * tp_hook.
	 */
	int trig_class;
};

/*
 * The size-class program (tp_rec_wN, 2 * N; tp_rec_wNh, 2 * N + 1) for a
 * recorded tracepoint of format f and hook flags: its record has no
 * __data_loc field, no --filter, and a fixed part of exactly 8 + 8 * N
 * (+ 4) bytes, N <= 8 (+ 4: N <= 7). -1: the generic tp_rec.
 */
int bpfctl__rec_class(const struct tp_format *f, uint32_t flags);

/*
 * The same size classes for a tracepoint's triggers (tp_trig_wN,
 * tp_trig_wNh) when BPF does not record it (no TRIGREC_HOOK_BPFREC in
 * flags): its record has no __data_loc field and a fixed part of 8 + 8 * N
 * (+ 4) bytes. -1: the generic tp_hook.
 */
int bpfctl__trig_class(const struct tp_format *f, uint32_t flags);

/*
 * A recorded tracepoint's --filter as the BPF programs test it: compiled as
 * the condition of an event trigger. 0, or -EINVAL when it is not one
 * trigrec can test (perf then applies it).
 */
int bpfctl__compile_filter(const char *sys, const char *name, const char *filter,
			   struct trigrec_filter *out);

struct bpfctl_opts {
	uint32_t lat_starts;	/* latency starts in flight (LRU); 0 = default 65536 */
	uint32_t keys;		/* rate buckets and per-key cooldowns (LRU); 0 = default 16384 */
	int no_gates;		/* --no-gates: cut by timestamp only (for measuring the gates) */
	int no_fast_paths;	/* --no-fast-paths: tp_rec for every event (for measuring them) */
	int syscall_fast_paths; /* --syscall-fast-paths: syscalls:* on tp_btf even alone */
	uint32_t generation;	/* trigger table generation, tagged on side-band messages */
	int include_self;	/* --include-self: record trigrec's own threads too */
	int self_kids;		/* on_snapshot commands run: leave trigrec's children out too */
	uint64_t budget_n[2];	/* global snapshot budget: n per period (0 = none) */
	uint64_t budget_period_ns[2];
	/* The triggers' cgroup path conditions, resolved (engine/cgsel.h); NULL = none. */
	const struct cgsel *cg;
	/*
	 * Set (by a signal handler, see util/cancel.h) to abandon
	 * bpfctl__attach: it stops between attachments with -EINTR. NULL = never.
	 */
	const volatile sig_atomic_t *cancel;
};

struct bpfctl_carry;
struct cgsel;

/*
 * A latency trigger keyed by the current thread on both sides: its spans
 * live in task storage (TRIGREC_TF_TASK_KEY, for the first
 * TRIGREC_TASK_SLOTS such triggers of a run). The replay sets it the same way.
 */
int bpfctl__task_keyed(const struct trigrec_trigger_cfg *tc);

struct bpfctl {
	struct trigrec_bpf *skel;
	struct bpf_link **links;
	int nr_links;
	struct bpf_hook *hooks; /* index = BPF cookie */
	int nr_hooks;
	const struct trig_def *trigs;
	int nr_trigs;
	struct bpfctl_opts opts;
	/*
	 * Reloads: what earlier objects counted, so that bpfctl__stats() is
	 * since the start. base[i] for trigger i by name, base[nr_trigs] the
	 * global slot (NULL: none); retired: triggers a reload removed.
	 */
	struct trigrec_stats *base;
	struct trigrec_stats retired;
	uint64_t recursion_base;
	const struct bpfctl_carry *carry; /* bpfctl__set_carry(), applied by attach */
	/*
	 * rings=compact: the object that took over from this one (a reload),
	 * which writes the same rings: a snapshot of this object harvested
	 * after the hand-over settles the cut and gives the spare back there.
	 */
	struct bpfctl *heir;
};

/* Class c's program in b's (opened) skeleton; NULL for -1 or any other non-class. */
struct bpf_program *bpfctl__rec_prog(struct bpfctl *b, int c);

/* Trigger class c's program (tp_trig_w*) in b's (opened) skeleton; NULL as above. */
struct bpf_program *bpfctl__trig_prog(struct bpfctl *b, int c);

/*
 * What a reload carries from one object to the next, by trigger name: the
 * counters (since start), each policy's state (`max` count, last firing for
 * `cooldown`, the `limit` bucket), the budget's buckets, and (when the
 * trigger's condition is unchanged) its condition state: the EVENT count,
 * rate windows and per-key cooldowns. A changed `limit` or budget keeps the
 * snapshots already spent (its bucket is rescaled to the new rate).
 * Latency starts in flight are not carried. Take it from the old object once
 * its programs are detached; NULL on ENOMEM (after an elog()).
 */
struct bpfctl_carry *bpfctl__carry_take(struct bpfctl *old);
/* Apply c (still owned by the caller, kept until attach returns) in bpfctl__attach(b). */
void bpfctl__set_carry(struct bpfctl *b, const struct bpfctl_carry *c);
void bpfctl__carry_free(struct bpfctl_carry *c);
/* Counters of triggers that reloads removed, since the start. */
void bpfctl__stats_retired(const struct bpfctl *b, struct trigrec_stats *out);
/* bpfctl__recursion_misses() plus those of the objects reloads replaced. */
uint64_t bpfctl__recursion_total(struct bpfctl *b);

/*
 * Stage 1, cheap (reads tracefs, opens nothing in the kernel): the
 * tracepoints that carry a program (recorded ones for their freeze gates,
 * unless no_gates; those of triggers) and every limit on them: triggers per
 * run, tracepoints per run (TRIGREC_MAX_HOOKS; the message names the count
 * and the globs that matched most), triggers per tracepoint. Call it after
 * recorder__new() and before recorder__open(). NULL after an elog().
 */
struct bpfctl *bpfctl__plan(const struct recorder *r, const struct trig_def *trigs, int nr_trigs,
			    const struct bpfctl_opts *opts);
/*
 * Stage 2, after recorder__open(): load the BPF object, fill its tables and
 * attach. scope_tgid: triggers fire only in this process and its descendants
 * (0 = any task); a recorder with a cgroup (recorder_opts.cgroup) scopes
 * triggers and gates to that cgroup too. 0; -EINTR when opts.cancel was set
 * (nothing logged); another -errno after an elog(). Either way
 * bpfctl__free() undoes what was done.
 */
int bpfctl__attach(struct bpfctl *b, struct recorder *r, pid_t scope_tgid);
/* Both stages at once. NULL after an elog() saying what is wrong and what to do. */
struct bpfctl *bpfctl__new(struct recorder *r, const struct trig_def *trigs, int nr_trigs,
			   pid_t scope_tgid, const struct bpfctl_opts *opts);
/*
 * Detach every program (no more triggers, gates or messages) but keep the
 * object: its side-band ring buffer can still be drained. For reloads.
 */
void bpfctl__detach(struct bpfctl *b);
void bpfctl__free(struct bpfctl *b);

/* Freeze state (shared with the BPF programs through the mmaped .bss). */
/*
 * Claim a snapshot from userspace (SIGUSR2, exit): 1 = claimed and frozen at
 * `at`, 2 = that and (rings=bpf) recording moves to the spare ring set at
 * `at` (settle it after the harvest), 0 = busy.
 */
int bpfctl__freeze_now(struct bpfctl *b, uint64_t at);
/*
 * The run's snapshot budget (--budget) for a snapshot asked for from
 * userspace at `at` (monotonic ns), the same buckets fire() spends: 1 = it
 * fits (and, with spend, is spent), 0 = held back. Always 1 without a budget.
 */
int bpfctl__budget_spend(struct bpfctl *b, uint64_t at, int spend);
/*
 * Move the cut of the snapshot in progress to `at` (a stop ends a post window
 * early): the gates drop records stamped after it from now on. Only for the
 * owner of the freeze (armed is 0).
 */
void bpfctl__cut_at(struct bpfctl *b, uint64_t at);
/* rings=bpf: is the spare set free? Claim it and move recording there after `at`. 1 = moved. */
int bpfctl__flip_now(struct bpfctl *b, uint64_t at);
/* Ring sets alone: a posted snapshot has been copied (TRIGREC_MAX_INFLIGHT). */
void bpfctl__taken(struct bpfctl *b);
/*
 * rings=bpf: the set left at a flip has been copied: it is the spare again.
 * rings=compact: recording goes back to the main rings; the spare stays
 * taken until bpfctl__spare_back().
 */
void bpfctl__settle(struct bpfctl *b);
/* rings=compact in use. */
int bpfctl__compact(const struct bpfctl *b);
/* rings=compact: the spare is free again (its carry is copied: recorder__carry()). */
void bpfctl__spare_back(struct bpfctl *b);
/* Tracepoints recorded by BPF into ring sets (rings=bpf)? */
int bpfctl__rings(const struct bpfctl *b);
/* Does a snapshot freeze anything (perf-written rings, gated)? */
int bpfctl__needs_freeze(const struct bpfctl *b);
/* A reload begins: this object's triggers stop firing (a firing is coalesced); it still records. */
void bpfctl__block(struct bpfctl *b);
/*
 * A reload ends: nb (attached, and thawed if its triggers may fire) takes
 * over recording and firing from old on every CPU, with no event lost or
 * recorded twice, and old is detached. Record numbers go on (one map);
 * rings=compact: so do the rings (one map), and nb starts with old's cut
 * and spare (a snapshot of old not yet harvested keeps them).
 */
void bpfctl__take_over(struct bpfctl *nb, struct bpfctl *old, struct recorder *r);
/* Resume recording and re-arm the triggers. */
void bpfctl__thaw(struct bpfctl *b);
/*
 * Sum the per-CPU counters of trigger `id` (TRIGREC_MAX_TRIGGERS = global
 * slot), since the start: what earlier objects counted (reloads) included.
 */
int bpfctl__stats(struct bpfctl *b, uint32_t id, struct trigrec_stats *out);
/*
 * Trigger `id`'s near misses (the largest values that did not fire, since
 * this object's start and since the trigger's last firing). 0 or -errno.
 */
int bpfctl__near_miss(struct bpfctl *b, uint32_t id, struct trigrec_near_miss *out);
/*
 * Per-key near misses of a keyed trigger (`by KEY`): the BPF_NM_KEYS keys
 * with the largest near miss since the start, largest first. Four, as the
 * values per key: a bounded status line, sidecar list and metric cardinality.
 */
#define BPF_NM_KEYS 4
struct bpfctl_key_nm {
	uint64_t key[TRIGREC_MAX_KEY_PARTS];
	__u64 all[TRIGREC_NEAR_MISS];  /* since the start, largest first */
	__u64 last[TRIGREC_NEAR_MISS]; /* since the trigger's last snapshot (0: none) */
};
/*
 * Keep entry e of key `key` in top[] (*n of BPF_NM_KEYS used, by all[0],
 * largest first) if it is among the largest; its last[] counts only if
 * e->epoch is the trigger's fired_total now (else it is from before a firing).
 */
void bpfctl__key_nm_add(struct bpfctl_key_nm *top, int *n, const uint64_t *key,
			const struct trigrec_key_nm *e, uint64_t fired_total);
/*
 * Trigger id's top keys into top[BPF_NM_KEYS]: how many (0: none or not
 * keyed), or -errno. last[] is since the trigger's last firing; at_firing
 * (its message just came): since the one before, i.e. up to that firing
 * (a key with a near miss since the firing has none left from before it).
 */
int bpfctl__key_near_miss(struct bpfctl *b, uint32_t id, struct bpfctl_key_nm *top, int at_firing);
/*
 * A key as the near-miss lists print it: its parts' values joined by "/"
 * ("42", "42/7"); a str() part is its hash in hex ("0x1f..."). Returns out.
 */
const char *bpfctl__key_nm_text(const struct trigrec_trigger_cfg *tc, const uint64_t *key,
				char *out, size_t len);
/* 1 if a trigger keeps near misses per key (a LATENCY or RATE with `by`). */
int bpfctl__keyed_nm(const struct trigrec_trigger_cfg *tc);
/* Trigger `id`'s learning: keys given a histogram, spans learned from, spans while warming. */
int bpfctl__learn_stat(struct bpfctl *b, uint32_t id, struct trigrec_learn_stat *out);
/*
 * A learned latency trigger's histogram of all its keys' spans (learn_all;
 * without `by`, the one that judges): samples, total, the percentile as last
 * computed and the counts. 0, or -EINVAL for a trigger that does not learn.
 */
int bpfctl__learn_all(struct bpfctl *b, uint32_t id, struct trigrec_learn *out);
/*
 * Tracepoint and probe records the kernel did not hand to our programs
 * because another BPF program was running on that CPU (the kernel's
 * recursion guard, bpftool's recursion_misses), summed over every program
 * of this object. Such a record reaches no perf ring at all: not ours, not
 * anyone else's. Cumulative; callers take differences.
 */
uint64_t bpfctl__recursion_misses(struct bpfctl *b);
/* Side-band ring buffer fd, for ring_buffer__new(). */
int bpfctl__sideband_fd(struct bpfctl *b);

#endif
