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

/*
 * Newest first, by record number. Numbers follow time but for a record that
 * interrupted another program between its time stamp and its number (a
 * tp_btf fast path can interrupt any recording program); the writer puts
 * the file in time order, the numbers say what is missing.
 */
static inline int ent_before(const struct bpfrec_ent *x, const struct bpfrec_ent *y)
{
	return (int32_t)(x->seq - y->seq) > 0;
}

/*
 * One set's records, walked newest first, are in that order already but
 * for a program preempted between taking its number and writing (PREEMPT_RT
 * runs BPF preemptible): an insertion sort, linear when nothing is out of
 * place, puts those back.
 */
static void order_set(struct bpfrec_ent *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct bpfrec_ent x = v[i];
		size_t j = i;

		if (!ent_before(&x, &v[i - 1]))
			continue;
		while (j > 0 && ent_before(&x, &v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* A CPU's sets, merged newest first: the next record, or NULL. */
struct set_merge {
	struct bpfrec_ent *e;
	size_t at[TRIGREC_RING_SETS], end[TRIGREC_RING_SETS];
	int n;
};

static struct bpfrec_ent *merge_next(struct set_merge *m)
{
	int best = -1;

	for (int i = 0; i < m->n; i++)
		if (m->at[i] < m->end[i] &&
		    (best < 0 || ent_before(&m->e[m->at[i]], &m->e[m->at[best]])))
			best = i;
	return best < 0 ? NULL : &m->e[m->at[best]++];
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

void bpfrec_scratch__free(struct bpfrec_scratch *s)
{
	free(s->e);
	s->e = NULL;
	s->cap = 0;
}

int bpfrec__convert(const struct recorder *r, struct harvest *h, struct bpfrec_scratch *s,
		    struct bpfrec_stats *st)
{
	struct gather g = { .e = s->e, .cap = s->cap };
	int err = 0;

	memset(st, 0, sizeof(*st));
	for (int c = 0; c < r->nr_cpus && !err; c++) {
		int cpu = r->cpus[c], oldest_ring = -1;
		struct set_merge m = { 0 };
		struct bpfrec_ent *e, *last = NULL;
		size_t kept = 0;
		int gap = 0;

		g.n = 0;
		m.n = 0;
		for (int i = 0; i < r->nr_rings && !err; i++) {
			if (r->rings[i].set < 0 || r->rings[i].cpu != cpu)
				continue;
			h->rings[i].wrapped = 0;
			if (m.n == TRIGREC_RING_SETS) {
				err = -E2BIG; /* the recorder opens exactly TRIGREC_RING_SETS a CPU */
				break;
			}
			g.ring = i;
			m.at[m.n] = g.n;
			if (h->rings[i].len)
				err = ring_walk(h->rings[i].buf, h->rings[i].len, gather_one, &g,
						NULL);
			m.end[m.n++] = g.n;
		}
		if (err || !g.n)
			continue;
		m.e = g.e;
		for (int i = 0; i < m.n; i++)
			order_set(g.e + m.at[i], m.end[i] - m.at[i]);
		/* Newest first, as long as the numbers follow each other. */
		while ((e = merge_next(&m))) {
			if (!gap && last && e->seq != last->seq - 1)
				gap = 1;
			if (gap) {
				skip(e->h);
				st->dropped++;
				continue;
			}
			last = e;
			if (rewrite(r, c, e->h)) {
				skip(e->h);
				continue;
			}
			kept++;
			oldest_ring = e->ring;
		}
		st->records += kept;
		/*
		 * History older than the oldest kept record was lost (overwritten,
		 * or a gap): tell the window alignment, as for a wrapped perf ring.
		 * Record 0 is the first this CPU ever recorded: nothing before it.
		 */
		if (oldest_ring >= 0 && (last->seq != 0 || gap)) {
			h->rings[oldest_ring].wrapped = 1;
			st->truncated_cpus++;
		}
	}
	s->e = g.e; /* grown or not: the caller keeps it for the next snapshot */
	s->cap = g.cap;
	return err;
}
