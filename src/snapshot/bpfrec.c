// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rings=bpf: the ring sets' records, made into the samples perf would have
 * written, in place, before the snapshot reads them.
 *
 * trigrec.bpf.c writes each recorded tracepoint as a BPF-output sample:
 *
 *	header | u32 raw size | trigrec_rec_hdr (time, seq, ev) | record
 *
 * and perf would have written, for IDENTIFIER | TIME | RAW:
 *
 *	header | u64 id | u64 time | u32 raw size | record
 *
 * Both put the record at byte 28 and both pad it to the same 8-byte
 * multiple (the raw size shrinks by the 16 bytes of trigrec_rec_hdr), so
 * bytes 8..28 are rewritten and nothing moves. The rest of the writer then
 * sees ordinary tracepoint samples.
 *
 * Which records belong to the history: per CPU, the record numbers (seq)
 * of every set, newest first, as long as they follow each other without a
 * gap. A gap is where a set was overwritten (or, at the oldest end, where
 * older history was lost); what is older than the gap is left out, so the
 * history a snapshot shows never has a hole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture/ring_reader.h"
#include "snapshot/bpfrec.h"
#include "trigrec_abi.h"

#define RAW_OFF 8  /* u32 raw size */
#define HDR_OFF 12 /* trigrec_rec_hdr */
#define REC_OFF 28 /* the tracepoint's record, in both layouts */

struct bpfrec_ent {
	uint64_t time;
	uint32_t seq;
	int ring;
	struct perf_event_header *h;
};

struct gather {
	struct bpfrec_ent *e;
	size_t n, cap;
	int ring;
};

static int gather_one(const struct perf_event_header *h, void *ctx)
{
	struct gather *g = ctx;
	struct trigrec_rec_hdr rh;
	struct bpfrec_ent *e;
	uint32_t raw;

	if (h->type != PERF_RECORD_SAMPLE || h->size < REC_OFF + 8)
		return 0;
	memcpy(&raw, (const char *)h + RAW_OFF, 4);
	if (raw < sizeof(rh) + 8 || RAW_OFF + 4 + (size_t)raw > h->size)
		return 0;
	memcpy(&rh, (const char *)h + HDR_OFF, sizeof(rh));
	if (g->n == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 16384;
		struct bpfrec_ent *ne = realloc(g->e, ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		g->e = ne;
		g->cap = ncap;
	}
	e = &g->e[g->n++];
	e->time = rh.time;
	e->seq = rh.seq;
	e->ring = g->ring;
	e->h = (struct perf_event_header *)h; /* the harvest's own copy: ours to rewrite */
	return 0;
}

/* Newest first; records of one CPU are numbered in time order. */
static int ent_cmp(const void *a, const void *b)
{
	const struct bpfrec_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return (int32_t)(y->seq - x->seq) < 0 ? -1 : (x->seq != y->seq);
}

static void skip(struct perf_event_header *h)
{
	h->type = BPFREC_SKIP_TYPE;
}

/* One record into perf's tracepoint sample layout. 0, or -1 when it is not ours to keep. */
static int rewrite(const struct recorder *r, int cpu_idx, struct perf_event_header *h)
{
	struct trigrec_rec_hdr rh;
	uint32_t raw;
	uint64_t id;

	memcpy(&raw, (char *)h + RAW_OFF, 4);
	memcpy(&rh, (char *)h + HDR_OFF, sizeof(rh));
	if (rh.ev >= r->nr_evs || !r->evs[rh.ev].bpf_rec)
		return -1;
	id = REC_BPF_ID(rh.ev, cpu_idx);
	raw -= sizeof(rh);
	memcpy((char *)h + 8, &id, 8);
	memcpy((char *)h + 16, &rh.time, 8);
	memcpy((char *)h + 24, &raw, 4);
	h->misc = PERF_RECORD_MISC_KERNEL;
	return 0;
}

int bpfrec__convert(const struct recorder *r, struct harvest *h, struct bpfrec_stats *st)
{
	struct gather g = { 0 };
	int err = 0;

	memset(st, 0, sizeof(*st));
	for (int c = 0; c < r->nr_cpus && !err; c++) {
		int cpu = r->cpus[c], oldest_ring = -1;
		size_t kept = 0, brk;

		g.n = 0;
		for (int i = 0; i < r->nr_rings && !err; i++) {
			if (r->rings[i].set < 0 || r->rings[i].cpu != cpu)
				continue;
			h->rings[i].wrapped = 0;
			g.ring = i;
			if (h->rings[i].len)
				err = ring_walk(h->rings[i].buf, h->rings[i].len, gather_one, &g,
						NULL);
		}
		if (err || !g.n)
			continue;
		qsort(g.e, g.n, sizeof(*g.e), ent_cmp);
		for (brk = 0; brk < g.n; brk++) {
			if (brk && g.e[brk].seq != g.e[brk - 1].seq - 1)
				break;
			if (rewrite(r, c, g.e[brk].h)) {
				skip(g.e[brk].h);
				continue;
			}
			kept++;
			oldest_ring = g.e[brk].ring;
		}
		for (size_t i = brk; i < g.n; i++) {
			skip(g.e[i].h);
			st->dropped++;
		}
		st->records += kept;
		/*
		 * History older than the oldest kept record was lost (overwritten,
		 * or a gap): tell the window alignment, as for a wrapped perf ring.
		 * Record 0 is the first this CPU ever recorded: nothing before it.
		 */
		if (oldest_ring >= 0 && (g.e[brk - 1].seq != 0 || brk < g.n)) {
			h->rings[oldest_ring].wrapped = 1;
			st->truncated_cpus++;
		}
	}
	free(g.e);
	return err;
}
