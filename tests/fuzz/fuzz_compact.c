// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: rings=compact's byte rings as a harvest copies them
 * (src/snapshot/compact.c's cr_decode(), then bpfrec__convert()'s
 * expansion into perf samples). The rings are written by BPF programs
 * that any event can interrupt, and a live copy can hold bytes half
 * overwritten: the decoder must take any bytes.
 *
 * The input is one CPU's two copies, back to back and zero-padded to
 * their size (recorder.c's layout with the smallest ring, 8 segments of
 * 4 KiB): the main ring's (struct rec_cr_hdr, then its segments), then the
 * carry's (the header with its episodes, then the spare's segment).
 *
 * Invariants: every decoded record is of a known event, at least 8 bytes
 * and at most TRIGREC_MAX_RECORD, with that event's format id in its
 * common_type; encoded again with cr_put() and decoded, it is the same
 * record at the same time; the expansion gives well-formed samples of the
 * recorded events only, no more than were decoded, and never more records
 * than the ring could hold; sched_switch's names, left out of the ring, are
 * filled in (a name, or <...>), terminated.
 *
 *   make fuzz-build && .output/fuzz/fuzz_compact tests/fuzz/corpus/compact
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/recorder.h"
#include "capture/ring_reader.h"
#include "snapshot/bpfrec.h"
#include "snapshot/compact.h"
#include "trigrec_abi.h"

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_compact: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                            \
			abort();                                                             \
		}                                                                            \
	} while (0)

#define SHIFT 12
#define NSEG 8
#define NEV 5

/*
 * The events of test_compact.c's rings (the seeds): like sys_enter_read,
 * sched_switch with its comms, a record with a __data_loc tail, and
 * sched_switch as rings=compact writes it (its comms left out; fmts[3] is
 * parsed from switch_fmt below); then one that is not BPF-written.
 */
static struct tp_format fmts[NEV] = {
	{ .id = 700, .fixed_size = 40 }, { .id = 301, .fixed_size = 64 },
	{ .id = 42, .fixed_size = 12 },	 { .id = 302, .fixed_size = 64 },
	{ .id = 9, .fixed_size = 8 },
};

static const struct cr_event evs[NEV] = {
	{ .fixed = 40, .tp_id = 700, .zz = 0x2 },
	{ .fixed = 64, .tp_id = 301 },
	{ .fixed = 12, .tp_id = 42 },
	{ .fixed = 64, .tp_id = 302, .skip = 0x33, .zz = 0x08 }, /* as cr_zz_words(switch_fmt) */
	{ .fixed = 8, .tp_id = 9 },
};

struct check {
	uint64_t n;
	uint8_t *scratch; /* one segment to re-encode into */
	struct cr_layout l;
};

struct again {
	uint64_t time;
	uint32_t ev, size, n, before;
	const uint8_t *rec;
};

static int same(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
		uint32_t size, const uint8_t *src)
{
	struct again *a = ctx;

	(void)seq;
	if (a->n++ == 0 && a->before)
		return 0; /* the record the time is relative to */
	REQUIRE(time == a->time && ev == a->ev && size == a->size && !memcmp(rec, a->rec, size));
	return 0;
}

static int one(void *ctx, uint32_t seq, uint64_t time, uint32_t ev, const uint8_t *rec,
	       uint32_t size, const uint8_t *src)
{
	struct check *c = ctx;
	struct again a = { .time = time, .ev = ev, .size = size, .rec = rec };
	struct cr_stats st = { 0 };
	struct cr_writer w = { 0 };
	uint32_t len;

	REQUIRE(seq <= 0xffffff);
	REQUIRE(ev < NEV && size >= 8 && size <= TRIGREC_MAX_RECORD);
	REQUIRE((rec[0] | rec[1] << 8) == evs[ev].tp_id && !rec[2] && !rec[3]);
	/*
	 * The same record, written again by the reference encoder after one a
	 * little earlier (so its time is relative: 3, 4, 5 or 8 bytes), decodes to
	 * itself.
	 */
	a.before = time > 0;
	if (a.before)
		cr_put(c->scratch, &c->l, &w, ev, rec, size, &evs[ev],
		       time - 1 - (time & ((1ull << (time % 41)) - 1)));
	len = cr_put(c->scratch, &c->l, &w, ev, rec, size, &evs[ev], time);
	if (len) {
		REQUIRE(cr_decode(c->scratch, &c->l, w.head, w.head, evs, NEV, same, &a, &st) == 0);
		REQUIRE(a.n == 1 + a.before);
		memset(c->scratch, 0, c->l.elem);
	}
	c->n++;
	return 0;
}

/* sched_switch's format, so the expansion leaves its comms out and fills them in. */
static const char switch_fmt[] =
	"name: sched_switch\nID: 302\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

/* /proc, as the fuzzer sees it: threads below 100 are alive. */
static int proc_comm(uint32_t tid, char comm[16])
{
	memset(comm, 0, 16);
	if (tid >= 100)
		return 0;
	snprintf(comm, 16, "thread-%u", tid);
	return 1;
}

/* Each kept stub, expanded as the writer expands it. */
struct samples {
	const struct recorder *r;
	struct bpfrec_scratch *s;
	int ring;
	uint64_t n;
};

static int count_sample(const struct perf_event_header *h, void *ctx)
{
	static uint8_t xbuf[BPFREC_EXPAND_MAX];
	struct samples *n = ctx;
	uint64_t id;
	uint32_t raw;
	uint16_t type;

	if (h->type == BPFREC_SKIP_TYPE)
		return 0;
	REQUIRE(h->type == PERF_RECORD_SAMPLE && h->size == BPFREC_STUB_SIZE);
	REQUIRE(bpfrec__expand(n->r, n->s, n->ring, h, 1, xbuf, sizeof(xbuf), &h) == 0);
	REQUIRE(h->type == PERF_RECORD_SAMPLE && h->size >= 28 + 8);
	memcpy(&id, (const uint8_t *)h + 8, 8);
	memcpy(&raw, (const uint8_t *)h + 24, 4);
	REQUIRE(24 + 4 + (size_t)raw <= h->size);
	REQUIRE((id & ~((uint64_t)0xfff << 20)) == REC_BPF_ID(0, 0));
	REQUIRE(((id >> 20) & 0xfff) < NEV);
	memcpy(&type, (const uint8_t *)h + 28, 2);
	REQUIRE(type == evs[(id >> 20) & 0xfff].tp_id);
	if (((id >> 20) & 0xfff) == 3) {
		/* The names filled in: terminated, never left empty */
		const char *prev = (const char *)h + 28 + 8, *next = (const char *)h + 28 + 40;

		REQUIRE(memchr(prev, 0, 16) && memchr(next, 0, 16) && prev[0] && next[0]);
	}
	n->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_layout lm = cr_layout_of(SHIFT, NSEG), ls = cr_layout_of(SHIFT, NSEG / 8);
	size_t mlen = REC_CR_HDR + NSEG * lm.elem, slen = REC_CR_HDR + ls.elem, n;
	struct rec_event rev[NEV] = { 0 };
	struct rec_ring rings[2] = { { .cpu = 0, .set = 0, .compact = 1 },
				     { .cpu = 0, .set = 1, .compact = 1 } };
	struct ring_copy copies[2] = { 0 };
	int cpus[1] = { 0 };
	struct recorder r = { .evs = rev,
			      .nr_evs = NEV,
			      .rings = rings,
			      .nr_rings = 2,
			      .cpus = cpus,
			      .nr_cpus = 1,
			      .nr_bpf_evs = NEV,
			      .compact = 1,
			      .cr_shift = SHIFT,
			      .cr_nseg = NSEG,
			      .cr_elem = lm.elem };
	struct harvest h = { .rings = copies, .nr_rings = 2 };
	struct bpfrec_scratch s = { .proc_comm = proc_comm };
	static struct tp_format *sw;
	struct bpfrec_stats bst;
	struct check c = { .l = cr_layout_of(SHIFT, 1) };
	struct cr_stats st = { 0 };
	uint64_t hb, ha;
	/* Exactly the copies' sizes, so a read past either is seen. */
	uint8_t *m = calloc(1, mlen), *sp = calloc(1, slen);

	c.scratch = calloc(1, c.l.elem);
	REQUIRE(m && sp && c.scratch);
	n = size < mlen ? size : mlen;
	memcpy(m, data, n);
	if (size > mlen)
		memcpy(sp, data + mlen, size - mlen < slen ? size - mlen : slen);

	/* The decoder alone, on each copy. */
	for (int k = 0; k < 2; k++) {
		const uint8_t *copy = k ? sp : m;
		const struct cr_layout *l = k ? &ls : &lm;

		memcpy(&hb, copy, 8);
		memcpy(&ha, copy + 8, 8);
		c.n = 0;
		memset(&st, 0, sizeof(st));
		if (cr_decode(copy + REC_CR_HDR, l, hb, ha, evs, NEV, one, &c, &st) == 0) {
			REQUIRE(st.records == c.n);
			/* A record takes 4 bytes at least. */
			REQUIRE(c.n <= ((uint64_t)l->nseg << SHIFT) / 4);
		}
	}

	/* The expansion: the copies lent to a harvest as the recorder holds them. */
	if (!sw)
		sw = tp_format__parse("sched", "sched_switch", switch_fmt, sizeof(switch_fmt) - 1);
	REQUIRE(sw);
	for (int i = 0; i < NEV; i++) {
		rev[i].kind = REC_EV_TRACEPOINT;
		rev[i].fmt = i == 3 ? sw : &fmts[i];
		rev[i].bpf_rec = i != 4; /* one event that is not BPF-written */
	}
	copies[0] = (struct ring_copy){ .buf = m, .cap = mlen, .len = mlen };
	copies[1] = (struct ring_copy){ .buf = sp, .cap = slen, .len = slen };
	if (bpfrec__convert(&r, &h, &s, &bst) == 0) {
		struct samples ns = { .r = &r, .s = &s };

		for (int i = 0; i < 2; i++) {
			ns.ring = i;
			if (h.rings[i].len)
				REQUIRE(ring_walk(h.rings[i].buf, h.rings[i].len, count_sample, &ns,
						  NULL) == 0);
		}
		REQUIRE(ns.n == bst.records);
	}
	bpfrec__restore(&h, &s);
	REQUIRE(h.rings[0].buf == m && h.rings[1].buf == sp);
	bpfrec_scratch__free(&s);
	free(c.scratch);
	free(m);
	free(sp);
	return 0;
}
