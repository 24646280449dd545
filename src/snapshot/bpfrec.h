/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rings=bpf: the BPF-written records of a harvest, rewritten in place into
 * perf's tracepoint samples, and the continuous history told from the rest.
 */
#ifndef TRIGREC_BPFREC_H
#define TRIGREC_BPFREC_H
#include <stdint.h>
#include "capture/recorder.h"

/* A record left out (older than a gap, or not a recorded event's): readers skip it. */
#define BPFREC_SKIP_TYPE 0x7ff0

struct bpfrec_stats {
	uint64_t records;	 /* rewritten into samples */
	uint64_t dropped;	 /* older than a gap in a CPU's record numbers */
	unsigned truncated_cpus; /* CPUs whose history does not reach back to their first record */
	uint64_t cr_torn;	 /* rings=compact: blocks ended by a record being written */
	uint64_t cr_bad;	 /* ... blocks or records that did not decode (overwritten) */
};

/*
 * The list of records bpfrec__convert() sorts, kept by the caller from one
 * snapshot to the next: allocated anew each time, its pages were faulted in
 * each time (a quarter of a 2-CPU x 4 MiB snapshot's write). Zeroed to start.
 */
struct bpfrec_scratch {
	struct bpfrec_ent *e;
	size_t cap;
	/*
	 * rings=compact: a stub per record of each compact ring, in the ring
	 * sets' sample layout (x), oldest first as they decode, lent to the
	 * harvest in place of its copy (orig) until bpfrec__restore(). Kept
	 * from one snapshot to the next, so a steady state allocates nothing.
	 */
	struct bpfrec_x {
		void *buf, *orig;
		size_t cap, len;
	} * x;
	int nx;
	struct bpfrec_lazy *lz; /* rings=compact: what bpfrec__expand() reads */
	/* A thread's name now (1), or 0 when it is gone; NULL: /proc/TID/comm (tests set it). */
	int (*proc_comm)(uint32_t tid, char comm[16]);
};

/*
 * rings=compact: the size of a compact record's stub in the harvest
 * (bpfrec.c, expand_one()): a sample whose record is decoded again by
 * bpfrec__expand(), into a buffer of BPFREC_EXPAND_MAX bytes or more.
 */
#define BPFREC_STUB_SIZE 40
#define BPFREC_EXPAND_MAX (65536 + 16)

/* rings=compact: a name left out of a record that nothing in the snapshot knows (as ftrace). */
#define CR_COMM_UNKNOWN "<...>"

void bpfrec_scratch__free(struct bpfrec_scratch *s);
/* rings=compact: give the harvest its own copies back (after the snapshot is written). */
void bpfrec__restore(struct harvest *h, struct bpfrec_scratch *s);

/*
 * Rewrite the ring sets' copies in h (rings with set >= 0) and mark which
 * ring holds each CPU's oldest kept record as wrapped when older history was
 * lost, so the window alignment treats it as perf's wrapped rings. 0 or -errno.
 */
int bpfrec__convert(const struct recorder *r, struct harvest *h, struct bpfrec_scratch *s,
		    struct bpfrec_stats *st);

/*
 * rings=compact: the sample a compact ring's stub (ring: its ring, after
 * bpfrec__convert(), before bpfrec__restore()) stands for, into buf (cap
 * bytes) and *out; with names, the names the record leaves out filled in.
 * 0 or -errno.
 */
int bpfrec__expand(const struct recorder *r, struct bpfrec_scratch *s, int ring,
		   const struct perf_event_header *stub, int names, void *buf, size_t cap,
		   const struct perf_event_header **out);
/* rings=compact: where in its ring's copy a stub's encoding lies (u32 at this offset). */
#define BPFREC_STUB_SRC 36
/* rings=compact: the size of the sample a stub stands for (u16 at this offset). */
#define BPFREC_STUB_XSIZE 28

/* rings=compact: the copy ring's stubs point into, or NULL when it has none. */
static inline const char *bpfrec__copy(const struct bpfrec_scratch *s, int ring)
{
	return ring < s->nx ? (const char *)s->x[ring].orig : NULL;
}

/* rings=compact: the size of the sample a stub stands for. */
static inline uint16_t bpfrec__stub_xsize(const struct perf_event_header *stub)
{
	uint16_t x;

	__builtin_memcpy(&x, (const char *)stub + BPFREC_STUB_XSIZE, 2);
	return x;
}

#endif
