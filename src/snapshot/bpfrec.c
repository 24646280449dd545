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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/ring_reader.h"
#include "snapshot/bpfrec.h"
#include "engine/crwords.h"
#include "snapshot/compact.h"
#include "snapshot/procs.h"
#include "util/log.h"
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
 * rings=compact numbers records with 24 bits; expanded, a number is kept
 * shifted left by 8 so that it wraps as the 32-bit numbers of the ring
 * sets do and every comparison above stays as it is. The next record's
 * number is then SEQ_STEP more.
 */
#define CR_SEQ_SHIFT 8

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

struct bpfrec_lazy;
static void lazy_names_free(struct bpfrec_lazy *lz);

void bpfrec_scratch__free(struct bpfrec_scratch *s)
{
	free(s->e);
	s->e = NULL;
	s->cap = 0;
	for (int i = 0; i < s->nx; i++)
		free(s->x[i].buf);
	free(s->x);
	s->x = NULL;
	s->nx = 0;
	lazy_names_free(s->lz);
	free(s->lz);
	s->lz = NULL;
}

void bpfrec__restore(struct harvest *h, struct bpfrec_scratch *s)
{
	lazy_names_free(s->lz); /* the write that read them is done */
	for (int i = 0; i < s->nx && i < h->nr_rings; i++) {
		if (!s->x[i].orig)
			continue;
		h->rings[i].buf = s->x[i].orig;
		h->rings[i].oldest_first = 0;
		s->x[i].orig = NULL;
	}
}

static int grow(void **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 65536;
	void *nb;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	nb = realloc(*buf, n);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = n;
	return 0;
}

/* 24-bit record numbers: is a at or after b? */
static inline int cr_ge(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >= 0;
}

/*
 * One CPU's count from a compact ring's own number (see struct
 * rec_cr_hdr): -1 when the episodes that would place it are gone.
 */
static int64_t cr_join(const struct rec_cr_hdr *ch, int spare, uint32_t n)
{
	uint64_t first = ch->nepis > REC_CR_EPIS ? ch->nepis - REC_CR_EPIS : 0;

	if (!ch->nepis)
		return spare ? -1 : (int64_t)n;
	for (uint64_t k = ch->nepis; k-- > first;) {
		const struct rec_cr_epi *e = &ch->epis[k % REC_CR_EPIS];

		if (!spare && cr_ge(n, e->m))
			return (n + e->s) & 0xffffff;
		if (spare && cr_ge(n, e->sprev))
			return (n + e->m) & 0xffffff;
	}
	if (first) /* older than every episode kept: where it goes is not known */
		return -1;
	return spare ? -1 : (int64_t)n; /* main records before the first cut */
}

/* Per event, the comm and pid fields of a record that carries its thread's name. */
struct name_fields {
	const struct tp_field *c, *p;
};

struct names;
static int seen_name(struct names *nm, const struct name_fields *f, uint64_t time,
		     const uint8_t *rec, uint32_t raw);

struct expand_ctx {
	struct bpfrec_x *x;	     /* the ring's stubs, appended to */
	const uint8_t *copy;	     /* the ring's copy, where the offsets count from */
	const struct rec_cr_hdr *ch; /* the CPU's carry header */
	int spare;
	uint64_t unplaced;
	/* NULL when no event leaves a name out: else the names records carry, noted here */
	struct names *nm;
	const struct name_fields *nf; /* per event */
};

/*
 * rings=compact: a decoded record's stub, appended to the ring's stubs: the
 * ring sets' sample layout with only what the merge, the gap search and the
 * index read (time, number, event, pid) and where the encoding lies, not
 * the record (bpfrec__expand() decodes it again as it is written). Every
 * CPU's records expanded at once were 2.2-2.7x the rings' memory at 64 x 4
 * MiB (docs/benchmarks.md); a stub is 40 bytes, a sched_switch sample 96.
 *
 *	header | u32 raw size | trigrec_rec_hdr | u16 sample size, u16 ev,
 *	u32 pid (common_pid's place) | u32 offset of the encoding in the copy
 */
#define STUB_XSIZE (REC_OFF + 0)
#define STUB_EV (REC_OFF + 2)
#define STUB_PID (REC_OFF + 4)
#define STUB_SRC (REC_OFF + 8)
_Static_assert(STUB_SRC == BPFREC_STUB_SRC, "bpfrec.h says where a stub's offset is");
_Static_assert(STUB_XSIZE == BPFREC_STUB_XSIZE, "bpfrec.h says where a stub's sample size is");

static int expand_one(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
		      uint32_t size, const uint8_t *src)
{
	struct expand_ctx *x = ctx;
	int64_t joined = cr_join(x->ch, x->spare, seq);
	struct bpfrec_x *o = x->x;
	struct trigrec_rec_hdr rh = { .time = time, .ev = (uint16_t)ev };
	uint32_t raw = ((4 + sizeof(rh) + size + 7) & ~7u) - 4, off = (uint32_t)(src - x->copy);
	uint32_t sraw = BPFREC_STUB_SIZE - 12;
	uint16_t xsize = (uint16_t)(8 + 4 + raw), ev16 = (uint16_t)ev;
	struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE, .size = BPFREC_STUB_SIZE };
	uint8_t *p;

	if (8 + 4 + raw > 65535)
		return 0;
	if (joined < 0) {
		x->unplaced++;
		return 0;
	}
	rh.seq = (uint32_t)joined << CR_SEQ_SHIFT;
	/* + 8: room for the end mark a reader of the copy may look for */
	if (grow(&o->buf, &o->cap, o->len + ph.size + 8))
		return -ENOMEM;
	p = (uint8_t *)o->buf + o->len;
	memcpy(p, &ph, sizeof(ph));
	memcpy(p + RAW_OFF, &sraw, 4);
	memcpy(p + HDR_OFF, &rh, sizeof(rh));
	memcpy(p + STUB_XSIZE, &xsize, 2);
	memcpy(p + STUB_EV, &ev16, 2);
	memcpy(p + STUB_PID, rec + 4, 4);
	memcpy(p + STUB_SRC, &off, 4);
	o->len += ph.size;
	/* Its name, if it carries one, while the record is at hand: not in a pass of its own. */
	if (x->nm && x->nf[ev].c) {
		/* as its sample holds it: fields that reach into the padding read zeros */
		uint8_t r[TRIGREC_MAX_RECORD + 8];

		memcpy(r, rec, size);
		memset(r + size, 0, raw - sizeof(rh) - size);
		return seen_name(x->nm, &x->nf[ev], time, r, raw);
	}
	return 0;
}

/*
 * rings=compact: the names sched_switch leaves out (cr_skip_words()),
 * filled in by time from what the snapshot knows of each thread:
 *
 *   1. its COMM records in the tracking rings: the name from their time on;
 *   2. a record that carries its name (sched_wakeup's comm and pid, ...)
 *      between the last COMM record before the switch and the next one;
 *   3. /proc/TID/comm, read now, when no COMM record follows the switch;
 *   4. pid 0: the idle task of the record's CPU, "swapper/CPU".
 *
 * When none of these knows the thread, the name is CR_COMM_UNKNOWN, as
 * ftrace prints a name it has not cached.
 */
struct name_obs {
	uint64_t time;
	uint32_t tid;
	uint32_t change; /* a COMM record: the name from here on */
	char comm[16];
};

struct names {
	struct name_obs *o;
	size_t n, cap;
	/*
	 * Per observation (sorted), the index of its thread's latest change
	 * at or before it, NO_CHANGE if none: a lookup is then one bisection,
	 * not a walk over every observation of the thread (a thread woken and
	 * switched 10^5 times in a snapshot made that walk quadratic).
	 */
	uint32_t *lastc;
	struct name_obs *now; /* /proc, read once per thread (time: found or not) */
	size_t nnow, capnow;
};

static int obs_add(struct name_obs **o, size_t *n, size_t *cap, const struct name_obs *x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct name_obs *no = realloc(*o, nc * sizeof(*no));

		if (!no)
			return -ENOMEM;
		*o = no;
		*cap = nc;
	}
	(*o)[(*n)++] = *x;
	return 0;
}

static int obs_cmp(const void *a, const void *b)
{
	const struct name_obs *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->change != y->change) /* a change first: a record at its time has the name */
		return (int)y->change - (int)x->change;
	/* Then by name: the order the rings were walked in must not choose one. */
	return memcmp(x->comm, y->comm, sizeof(x->comm));
}

/* A thread's name from /proc now (procs.c reads it), 0 if it is gone. */
static int proc_comm(uint32_t tid, char comm[16])
{
	memset(comm, 0, 16);
	return !procs__read_comm(tid, tid, comm) && comm[0];
}

#define NO_CHANGE UINT32_MAX

/* nm->lastc for the sorted observations. */
static int last_changes(struct names *nm)
{
	uint32_t last = NO_CHANGE;

	if (!nm->n)
		return 0;
	if (nm->n >= NO_CHANGE)
		return -E2BIG;
	nm->lastc = malloc(nm->n * sizeof(*nm->lastc));
	if (!nm->lastc)
		return -ENOMEM;
	for (size_t i = 0; i < nm->n; i++) {
		if (i && nm->o[i].tid != nm->o[i - 1].tid)
			last = NO_CHANGE;
		if (nm->o[i].change)
			last = (uint32_t)i;
		nm->lastc[i] = last;
	}
	return 0;
}

/* The first observation after thread tid's at or before time t (t = ~0: after all of tid's). */
static size_t obs_after(const struct names *nm, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = nm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct name_obs *x = &nm->o[mid];

		if (x->tid < tid || (x->tid == tid && x->time <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Thread tid's name at time t into comm (16 bytes), by the rules above:
 * its latest change at or before t; without one, a name seen before its
 * first change (the span that holds t); without any observation, /proc.
 */
static int name_at(struct names *nm, const struct bpfrec_scratch *s, uint32_t tid, uint64_t t,
		   int cpu, char comm[16])
{
	size_t first, i, at;
	struct name_obs now = { .tid = tid };

	memset(comm, 0, 16);
	if (!tid) {
		snprintf(comm, 16, "swapper/%d", cpu);
		return 0;
	}
	first = obs_after(nm, tid - 1, UINT64_MAX); /* the thread's first observation */
	at = obs_after(nm, tid, t);
	if (at > first && nm->lastc[at - 1] != NO_CHANGE) {
		memcpy(comm, nm->o[nm->lastc[at - 1]].comm, 16);
		return 0;
	}
	if (first < nm->n && nm->o[first].tid == tid && !nm->o[first].change) {
		memcpy(comm, nm->o[first].comm, 16);
		return 0;
	}
	if (first == nm->n || nm->o[first].tid != tid) {
		for (i = 0; i < nm->nnow; i++)
			if (nm->now[i].tid == tid)
				break;
		if (i == nm->nnow) {
			now.change = (s->proc_comm ? s->proc_comm : proc_comm)(tid, now.comm);
			if (obs_add(&nm->now, &nm->nnow, &nm->capnow, &now))
				return -ENOMEM;
		}
		if (nm->now[i].change) {
			memcpy(comm, nm->now[i].comm, 16);
			return 0;
		}
	}
	memcpy(comm, CR_COMM_UNKNOWN, sizeof(CR_COMM_UNKNOWN));
	return 0;
}

/* A comm field a compact event leaves out, and the pid field that names its thread. */
struct comm_pair {
	uint32_t comm, pid;
};

/* The comm fields of event ev left out, and their pids: how many (at most 2). */
static int comm_pairs(const struct rec_event *e, struct comm_pair *p)
{
	uint16_t skip = cr_skip_words(e->fmt);
	int n = 0;

	for (int i = 0; skip && i < e->fmt->nr_fields && n < 2; i++) {
		const struct tp_field *c = &e->fmt->fields[i], *pid;
		size_t l = strlen(c->name);
		char pname[64];

		if (c->size != 16 || l < 4 || strcmp(c->name + l - 4, "comm") || c->offset < 8 ||
		    !((skip >> ((c->offset - 8) / 8)) & 1))
			continue;
		snprintf(pname, sizeof(pname), "%.*spid", (int)(l - 4), c->name);
		pid = tp_format__field(e->fmt, pname);
		if (!pid || pid->size != 4)
			continue;
		p[n].comm = c->offset;
		p[n++].pid = pid->offset;
	}
	return n;
}

/* Per event, the fields of the records that carry a name (sched_wakeup: comm and pid). */
static void name_fields(const struct recorder *r, uint32_t nev, struct name_fields *nf)
{
	for (uint32_t i = 0; i < nev && (int)i < r->nr_evs; i++) {
		const struct rec_event *e = &r->evs[i];
		const struct tp_field *c, *p;

		nf[i] = (struct name_fields){ 0 };
		if (!e->fmt || cr_skip_words(e->fmt))
			continue;
		c = tp_format__field(e->fmt, "comm");
		p = tp_format__field(e->fmt, "pid");
		if (c && p && c->size == 16 && p->size == 4)
			nf[i] = (struct name_fields){ c, p };
	}
}

/*
 * A name a record carries, as an observation: rec is the record in its
 * sample (raw: the sample's raw size, trigrec_rec_hdr and padding
 * included), so fields that reach into the padding read its zeros.
 */
static int seen_name(struct names *nm, const struct name_fields *f, uint64_t time,
		     const uint8_t *rec, uint32_t raw)
{
	struct name_obs o = { .time = time };

	if ((size_t)f->c->offset + 16 + sizeof(struct trigrec_rec_hdr) > raw ||
	    (size_t)f->p->offset + 4 + sizeof(struct trigrec_rec_hdr) > raw)
		return 0;
	memcpy(&o.tid, rec + f->p->offset, 4);
	memcpy(o.comm, rec + f->c->offset, 15);
	return obs_add(&nm->o, &nm->n, &nm->cap, &o);
}

/* COMM records of the tracking rings: a thread's name from their time on. */
static int comm_records(const struct recorder *r, const struct harvest *h, struct names *nm)
{
	const struct rec_event *tev = r->nr_evs ? &r->evs[r->nr_evs - 1] : NULL;
	uint64_t st;
	size_t tail, at;

	if (!tev || tev->kind != REC_EV_TRACKING || !tev->pd.attr.sample_id_all)
		return 0;
	st = tev->pd.attr.sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	/* sample_id: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, 8 bytes each when present */
	at = (st & PERF_SAMPLE_TID) ? 8 : 0;
	tail = 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
	for (int i = 0; i < r->nr_rings && i < h->nr_rings; i++) {
		const uint8_t *b = h->rings[i].buf;
		size_t len = h->rings[i].len;

		if (!r->rings[i].tracking || !b)
			continue;
		for (size_t off = 0; off + sizeof(struct perf_event_header) <= len;) {
			const struct perf_event_header *ph = (const void *)(b + off);
			struct name_obs o = { .change = 1 };
			size_t n;

			if (ph->size < sizeof(*ph) || ph->size % 8 || off + ph->size > len)
				break;
			off += ph->size;
			if (ph->type != PERF_RECORD_COMM || ph->size < sizeof(*ph) + 8 + tail + 8)
				continue;
			memcpy(&o.tid, (const uint8_t *)(ph + 1) + 4, 4);
			n = ph->size - sizeof(*ph) - 8 - tail;
			memcpy(o.comm, (const uint8_t *)(ph + 1) + 8, n < 15 ? n : 15);
			memcpy(&o.time, (const uint8_t *)ph + ph->size - tail + at, 8);
			if (obs_add(&nm->o, &nm->n, &nm->cap, &o))
				return -ENOMEM;
		}
	}
	return 0;
}

/* The comm fields each event leaves out (np[ev] of them): 0 when no event does. */
static int left_out(const struct recorder *r, struct comm_pair (*pairs)[2], int *np)
{
	int any = 0;

	for (int i = 0; i < r->nr_evs && i < TRIGREC_CR_MAX_EVS; i++)
		if (r->evs[i].bpf_rec && r->evs[i].fmt)
			any |= np[i] = comm_pairs(&r->evs[i], pairs[i]);
	return any;
}

static void names_free(struct names *nm)
{
	free(nm->o);
	free(nm->lastc);
	free(nm->now);
	*nm = (struct names){ 0 };
}

/*
 * rings=compact: what bpfrec__expand() needs of the recorder, set up once
 * a snapshot, and the names: the observations the decode noted, with the
 * tracking rings' COMM records, sorted for name_at().
 */
struct bpfrec_lazy {
	struct cr_event evs[TRIGREC_CR_MAX_EVS];
	uint32_t nev;
	struct comm_pair pairs[TRIGREC_CR_MAX_EVS][2];
	int np[TRIGREC_CR_MAX_EVS];
	int names; /* some event leaves a name out */
	struct names nm;
};

static void lazy_names_free(struct bpfrec_lazy *lz)
{
	if (lz)
		names_free(&lz->nm);
}

static int names_ready(const struct recorder *r, const struct harvest *h, struct names *nm)
{
	int err = comm_records(r, h, nm);

	if (!err && nm->n)
		qsort(nm->o, nm->n, sizeof(*nm->o), obs_cmp);
	if (!err)
		err = last_changes(nm);
	return err;
}

/*
 * rings=compact: decode every compact ring copy of h and lend the harvest
 * a stub per record (expand_one()), oldest first as they decode
 * (ring_copy's oldest_first: bpfrec__convert() and the writer's index
 * read them so).
 */
static int expand_compact(const struct recorder *r, struct harvest *h, struct bpfrec_scratch *s,
			  struct bpfrec_stats *st)
{
	struct name_fields nf[TRIGREC_CR_MAX_EVS];
	struct bpfrec_lazy *lz = s->lz;
	uint32_t nev = r->nr_evs < TRIGREC_CR_MAX_EVS ? (uint32_t)r->nr_evs : TRIGREC_CR_MAX_EVS;
	int err;

	if (!lz && !(lz = s->lz = calloc(1, sizeof(*lz))))
		return -ENOMEM;
	names_free(&lz->nm);
	memset(lz->evs, 0, sizeof(lz->evs));
	memset(lz->np, 0, sizeof(lz->np));
	lz->nev = nev;
	lz->names = left_out(r, lz->pairs, lz->np);
	for (uint32_t i = 0; i < nev; i++)
		if (r->evs[i].bpf_rec && r->evs[i].fmt) {
			lz->evs[i].fixed = r->evs[i].fmt->fixed_size;
			lz->evs[i].tp_id = (uint16_t)r->evs[i].fmt->id;
			lz->evs[i].skip = cr_skip_words(r->evs[i].fmt);
			lz->evs[i].zz = cr_zz_words(r->evs[i].fmt);
		}
	if (s->nx < h->nr_rings) {
		struct bpfrec_x *nx = realloc(s->x, h->nr_rings * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		memset(nx + s->nx, 0, (h->nr_rings - s->nx) * sizeof(*nx));
		s->x = nx;
		s->nx = h->nr_rings;
	}
	if (lz->names)
		name_fields(r, nev, nf);
	for (int i = 0; i < r->nr_rings; i++) {
		const struct rec_ring *ring = &r->rings[i];
		struct bpfrec_x *x = &s->x[i];
		struct cr_layout l;
		struct cr_stats cs = { 0 };
		struct expand_ctx ec = { .x = x,
					 .copy = h->rings[i].buf,
					 .spare = ring->set,
					 .nm = lz->names ? &lz->nm : NULL,
					 .nf = nf };
		uint64_t hb, ha;

		if (!ring->compact || x->orig)
			continue;
		x->len = 0;
		if (h->rings[i].len >= REC_CR_HDR) {
			l = cr_layout_of(r->cr_shift, ring->set ?
							      r->cr_nseg / TRIGREC_CR_SPARE_DIV :
							      r->cr_nseg);
			memcpy(&hb, h->rings[i].buf, 8);
			memcpy(&ha, (uint8_t *)h->rings[i].buf + 8, 8);
			/* A stub holds its record's offset in the copy in 32 bits. */
			if (REC_CR_HDR + l.nseg * l.elem > h->rings[i].len ||
			    h->rings[i].len > UINT32_MAX) {
				err = -EINVAL;
				goto out;
			}
			/* This CPU's carry: the ring after its main ring (recorder.c, add_compact()). */
			if (!ring->set && (i + 1 >= r->nr_rings || !r->rings[i + 1].compact ||
					   r->rings[i + 1].cpu != ring->cpu)) {
				err = -EINVAL;
				goto out;
			}
			ec.ch = ring->set ? h->rings[i].buf : h->rings[i + 1].buf;
			err = cr_decode((uint8_t *)h->rings[i].buf + REC_CR_HDR, &l, hb, ha,
					lz->evs, nev, expand_one, &ec, &cs);
			st->dropped += ec.unplaced;
			if (err && err != -EINVAL)
				goto out;
			vlog("compact: CPU %d %s: head %" PRIu64 "/%" PRIu64 " bytes, %" PRIu64
			     " records, %" PRIu64 " torn, %" PRIu64 " bad, %" PRIu64
			     " overwritten blocks",
			     ring->cpu, ring->set ? "carry" : "ring",
			     (uint64_t)(hb & TRIGREC_CR_POS_MASK),
			     (uint64_t)(ha & TRIGREC_CR_POS_MASK), cs.records, cs.torn, cs.bad,
			     cs.bad_blocks);
			st->cr_torn += cs.torn;
			st->cr_bad += cs.bad + cs.bad_blocks;
		}
		if (!x->buf && grow(&x->buf, &x->cap, 8)) {
			err = -ENOMEM;
			goto out;
		}
		x->orig = h->rings[i].buf;
		h->rings[i].buf = x->buf;
		h->rings[i].len = x->len;
		h->rings[i].oldest_first = 1;
	}
	err = lz->names ? names_ready(r, h, &lz->nm) : 0;
out:
	if (err)
		names_free(&lz->nm);
	return err;
}

int bpfrec__expand(const struct recorder *r, struct bpfrec_scratch *s, int ring,
		   const struct perf_event_header *stub, int names, void *buf, size_t cap,
		   const struct perf_event_header **out)
{
	const uint8_t *sp = (const uint8_t *)stub;
	struct bpfrec_lazy *lz = s->lz;
	uint8_t *p = buf, *rec = p + REC_OFF;
	uint32_t off, pid, ev, size, raw;
	struct perf_event_header ph = { .type = PERF_RECORD_SAMPLE,
					.misc = PERF_RECORD_MISC_KERNEL };
	uint64_t time;
	int err;

	if (!lz || ring < 0 || ring >= s->nx || !s->x[ring].orig ||
	    stub->size != BPFREC_STUB_SIZE || cap < BPFREC_EXPAND_MAX)
		return -EINVAL;
	memcpy(&ph.size, sp + STUB_XSIZE, 2);
	memcpy(&pid, sp + STUB_PID, 4);
	memcpy(&off, sp + STUB_SRC, 4);
	memcpy(&time, sp + 16, 8);
	/* It decoded when the stub was made, from the same bytes: it decodes again. */
	if (!cr_decode_at((const uint8_t *)s->x[ring].orig + off, pid, lz->evs, lz->nev, rec, &ev,
			  &size) ||
	    REC_OFF + size > ph.size)
		return -EIO;
	raw = ph.size - REC_OFF;
	memset(rec + size, 0, raw - size);
	memcpy(p, &ph, sizeof(ph));
	memcpy(p + 8, sp + 8, 16); /* id and time, as rewrite() left them */
	memcpy(p + 24, &raw, 4);
	*out = buf;
	if (!names || !lz->names || ev >= TRIGREC_CR_MAX_EVS || (int)ev >= r->nr_evs)
		return 0;
	for (int k = 0; k < lz->np[ev]; k++) {
		uint32_t tid;

		memcpy(&tid, rec + lz->pairs[ev][k].pid, 4);
		err = name_at(&lz->nm, s, tid, time, r->rings[ring].cpu,
			      (char *)rec + lz->pairs[ev][k].comm);
		if (err)
			return err;
	}
	return 0;
}

int bpfrec__convert(const struct recorder *r, struct harvest *h, struct bpfrec_scratch *s,
		    struct bpfrec_stats *st)
{
	struct gather g = { .e = s->e, .cap = s->cap };
	int err = 0;

	memset(st, 0, sizeof(*st));
	if (r->compact) {
		err = expand_compact(r, h, s, st);
		if (err)
			return err;
	}
	for (int c = 0; c < r->nr_cpus && !err; c++) {
		int cpu = r->cpus[c], oldest_ring = -1;
		struct set_merge m = { 0 };
		struct bpfrec_ent *e, *last = NULL;
		size_t kept = 0;
		int gap = 0;
		uint32_t step = r->compact ? 1u << CR_SEQ_SHIFT : 1;

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
			/* An expansion walks oldest first: its entries, newest first as a set's. */
			for (size_t a = m.at[m.n], b = g.n; h->rings[i].oldest_first && a + 1 < b;
			     a++, b--) {
				struct bpfrec_ent t = g.e[a];

				g.e[a] = g.e[b - 1];
				g.e[b - 1] = t;
			}
			m.end[m.n++] = g.n;
		}
		if (err || !g.n)
			continue;
		m.e = g.e;
		for (int i = 0; i < m.n; i++)
			order_set(g.e + m.at[i], m.end[i] - m.at[i]);
		/* Newest first, as long as the numbers follow each other. */
		while ((e = merge_next(&m))) {
			if (!gap && last && e->seq != last->seq - step)
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
